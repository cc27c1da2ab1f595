//go:build !linux

package cli

// adviseHugePages does nothing off linux (see hugepages_linux.go).
func adviseHugePages() (start uintptr, rangeBytes int) { return 0, 0 }

// prefaultHeap does nothing off linux (see prefault_linux.go).
func prefaultHeap(start uintptr, rangeBytes int) {}
