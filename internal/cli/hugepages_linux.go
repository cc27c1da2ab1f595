package cli

import (
	"math"
	"os"
	"runtime"
	"strings"
	"syscall"
	"unsafe"
)

// maxHugePageReserveBytes bounds the heap address range adviseHugePages prepares: scale-10k,
// the largest built-in, peaks at about 3 GiB.
const maxHugePageReserveBytes = 4 << 30

// madvHugePage is MADV_HUGEPAGE (linux/mman.h), which package syscall does not name.
const madvHugePage = 14

// thpEnabledPath is where linux reports its transparent huge page mode.
const thpEnabledPath = "/sys/kernel/mm/transparent_hugepage/enabled"

// adviseHugePages backs the Go heap's first addresses with transparent huge pages where the
// kernel gives them only on request (mode "madvise", the usual default), and returns the range
// it advised: its first address and its size in bytes (0 when it did nothing).
//
// Why: a large run takes nearly all of its peak memory fresh from the kernel, and on a virtual
// machine the first touch of each 4 KiB page is expensive: about 13 µs, so scale-5k's 1.5 GB
// cost some 380,000 page faults and a quarter of its CPU (docs/performance.md, Fresh memory). A
// 2 MiB page is one fault for 512 of them. The Go runtime maps its heap without MADV_HUGEPAGE,
// and advice given to a range before the runtime maps it is lost when it does, so this maps the
// range the runtime's next allocations will use: one large allocation, never touched (fresh
// memory needs no zeroing), advised and then freed; the heap's spans reuse its pages lowest
// address first, and the advice stays on the mapping through the scavenger's releases. The
// simulation cannot see any of it: only where its memory comes from changes.
//
// The range is at most maxHugePageReserveBytes and a quarter of the machine's memory, so that
// the kernel's heuristic overcommit check never refuses it, and nothing is prepared under
// strict overcommit accounting; it is address space, not memory, until touched.
func adviseHugePages() (start uintptr, rangeBytes int) {
	mode, err := os.ReadFile(thpEnabledPath)
	if err != nil || !thpOnRequest(string(mode)) {
		return 0, 0
	}
	if policy, err := os.ReadFile(overcommitPath); err != nil || overcommitStrict(string(policy)) {
		// Under strict accounting the range would count against the commit limit for the
		// whole run, and a runtime refused memory stops the program.
		return 0, 0
	}
	var info syscall.Sysinfo_t
	if syscall.Sysinfo(&info) != nil {
		return 0, 0
	}
	n := hugePageReserve(uint64(info.Totalram) * uint64(info.Unit))
	if n == 0 {
		return 0, 0
	}
	// The range must stay untouched until it is advised, and make would clear it whenever
	// its first pages were used before (a span the start-up freed at the heap's top): then
	// every page of it would be faulted in, small, at once. A strings.Builder grows without
	// clearing; its one byte written shows where the range starts.
	var sb strings.Builder
	sb.Grow(n)
	sb.WriteByte(0)
	s := sb.String()
	start = uintptr(unsafe.Pointer(unsafe.StringData(s)))
	_, _, errno := syscall.Syscall(syscall.SYS_MADVISE, start, uintptr(n), madvHugePage)
	runtime.KeepAlive(s)
	s, sb = "", strings.Builder{}
	// Free the range now, so that the run's first allocations reuse it.
	runtime.GC()
	if errno != 0 {
		return 0, 0
	}
	return start, n
}

// overcommitPath is where linux reports its overcommit policy: 0 heuristic, 1 always, 2
// strict accounting.
const overcommitPath = "/proc/sys/vm/overcommit_memory"

// overcommitStrict reports whether an overcommit_memory setting is strict accounting (2).
func overcommitStrict(policy string) bool { return strings.TrimSpace(policy) == "2" }

// thpOnRequest reports whether a transparent_hugepage/enabled setting ("always [madvise]
// never") gives huge pages only to advised memory.
func thpOnRequest(mode string) bool { return strings.Contains(mode, "[madvise]") }

// hugePageReserve is the size of the range adviseHugePages prepares on a machine of totalBytes
// of memory: a whole number of 2 MiB pages, at most maxHugePageReserveBytes and a quarter of
// the memory (and, on a 32-bit machine, of its address space).
func hugePageReserve(totalBytes uint64) int {
	n := min(totalBytes/4, maxHugePageReserveBytes, uint64(math.MaxInt)/4)
	return int(n &^ (2<<20 - 1))
}
