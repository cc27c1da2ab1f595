//go:build !linux

package cli

// adviseHugePages does nothing off linux (see hugepages_linux.go).
func adviseHugePages() int { return 0 }
