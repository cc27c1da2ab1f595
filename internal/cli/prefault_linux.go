package cli

import (
	"runtime"
	"runtime/metrics"
	"syscall"
	"time"
	"unsafe"
)

// How far above the heap's in-use bytes prefaultHeap keeps the prepared range populated: half
// the in-use bytes, within these bounds. At the top that is about 0.1-0.3 s of a large run's
// growth at this machine's fresh-page cost; a small run, whose heap stays at a few MiB,
// populates a few MiB it does not use. It is what the process's peak RSS can grow by.
const (
	prefaultMinLookaheadBytes = 8 << 20
	prefaultMaxLookaheadBytes = 64 << 20
)

// prefaultLookahead is the lookahead for a heap of inUseBytes.
func prefaultLookahead(inUseBytes uintptr) uintptr {
	return min(max(inUseBytes/2, prefaultMinLookaheadBytes), prefaultMaxLookaheadBytes)
}

// prefaultChunkBytes is what one populate call covers: one 2 MiB huge page.
const prefaultChunkBytes = 2 << 20

// prefaultPollInterval is how often the prefaulting thread reads the heap's size.
const prefaultPollInterval = time.Millisecond

// madvPopulateWrite is MADV_POPULATE_WRITE (linux/mman.h, linux 5.14), which package syscall
// does not name: it faults pages in writable, as a write would, without writing them.
const madvPopulateWrite = 23

// schedIdle is SCHED_IDLE (linux/sched.h): a thread that runs only on a CPU nothing else
// wants.
const schedIdle = 5

// heapInUseMetrics are the runtime's counts of the heap's bytes in spans that are in use:
// objects, the unused room in their spans, and goroutine stacks. Free pages are left out:
// the prepared range is free until the heap grows into it.
var heapInUseMetrics = [...]string{
	"/memory/classes/heap/objects:bytes",
	"/memory/classes/heap/unused:bytes",
	"/memory/classes/heap/stacks:bytes",
}

// prefaultHeap starts a thread that touches the prepared heap range (adviseHugePages) just
// ahead of the heap's growth, at idle priority, and returns at once.
//
// Why: on this VM a page's first touch costs a few ms per MB (docs/performance.md, Fresh
// memory), and a run's single simulation thread paid it for every page of its peak, inside
// the runtime's clearing of new spans. The simulation uses one core; populating the pages on
// the other one, before the heap reaches them, takes that cost off the simulation's path. The
// thread runs under SCHED_IDLE, so that it never takes a core from the simulation or the
// collector (in a sweep that keeps every core busy it simply does not run), and it populates
// only up to prefaultLookahead above what the heap holds, so the peak RSS grows by at most
// that. The pages' contents do not change (the populate call does not write them): the
// simulation cannot see any of it, and nothing it computes changes.
//
// The thread stops when the range is populated, or at the first call the kernel refuses
// (before linux 5.14, which has no MADV_POPULATE_WRITE).
func prefaultHeap(start uintptr, rangeBytes int) {
	if rangeBytes <= 0 {
		return
	}
	go func() {
		// Locked and never unlocked: the thread ends with this goroutine and never runs
		// another one at idle priority.
		runtime.LockOSThread()
		var param [1]int32 // struct sched_param's priority, which must be 0 for SCHED_IDLE
		if _, _, errno := syscall.Syscall(syscall.SYS_SCHED_SETSCHEDULER, uintptr(syscall.Gettid()), schedIdle, uintptr(unsafe.Pointer(&param[0]))); errno != 0 {
			return
		}
		p := heapPrefaulter{start: start, rangeBytes: uintptr(rangeBytes), populate: populateWritable}
		samples := make([]metrics.Sample, len(heapInUseMetrics))
		for i, name := range heapInUseMetrics {
			samples[i].Name = name
		}
		for p.advance(heapInUseBytes(samples)) {
			time.Sleep(prefaultPollInterval)
		}
	}()
}

// heapInUseBytes reads heapInUseMetrics into samples and returns their sum.
func heapInUseBytes(samples []metrics.Sample) uintptr {
	metrics.Read(samples)
	var sum uintptr
	for _, s := range samples {
		if s.Value.Kind() == metrics.KindUint64 {
			sum += uintptr(s.Value.Uint64())
		}
	}
	return sum
}

// heapPrefaulter is the state of prefaultHeap's thread.
type heapPrefaulter struct {
	start, rangeBytes uintptr
	// populatedBytes of the range, from its start, are populated.
	populatedBytes uintptr
	// populate faults in [addr, addr+n) writable.
	populate func(addr, n uintptr) error
}

// advance populates the range up to inUseBytes+prefaultLookahead(inUseBytes) from its start (the
// heap takes its free pages lowest address first, so its in-use bytes approximate how far
// into the range it has grown; the few MiB it held below the range make that an
// overestimate), in whole chunks, and reports whether there is more to do.
func (p *heapPrefaulter) advance(inUseBytes uintptr) bool {
	target := min(inUseBytes+prefaultLookahead(inUseBytes), p.rangeBytes) &^ (prefaultChunkBytes - 1)
	for p.populatedBytes < target {
		if p.populate(p.start+p.populatedBytes, prefaultChunkBytes) != nil {
			return false
		}
		p.populatedBytes += prefaultChunkBytes
	}
	return p.populatedBytes+prefaultChunkBytes <= p.rangeBytes
}

// populateWritable faults [addr, addr+n) in writable (MADV_POPULATE_WRITE).
func populateWritable(addr, n uintptr) error {
	if _, _, errno := syscall.Syscall(syscall.SYS_MADVISE, addr, n, madvPopulateWrite); errno != 0 {
		return errno
	}
	return nil
}
