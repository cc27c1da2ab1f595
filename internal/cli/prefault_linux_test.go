package cli

import (
	"errors"
	"os"
	"os/exec"
	"runtime"
	"runtime/metrics"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"
)

func TestPrefaultLookahead(t *testing.T) {
	for _, c := range []struct{ inUse, want uintptr }{
		{0, prefaultMinLookaheadBytes},
		{10 << 20, prefaultMinLookaheadBytes},
		{40 << 20, 20 << 20},
		{128 << 20, prefaultMaxLookaheadBytes},
		{3 << 30, prefaultMaxLookaheadBytes},
	} {
		if got := prefaultLookahead(c.inUse); got != c.want {
			t.Errorf("prefaultLookahead(%d) = %d, want %d", c.inUse, got, c.want)
		}
	}
}

func TestHeapPrefaulterAdvance(t *testing.T) {
	const chunk = prefaultChunkBytes
	const small = prefaultMinLookaheadBytes // the lookahead of a heap of up to twice that
	const big = 256 << 20                   // a heap with the largest lookahead
	const look = prefaultMaxLookaheadBytes
	rangeBytes := uintptr(big + look + 8*chunk)
	for _, c := range []struct {
		name          string
		inUse         []uintptr // successive readings
		failAt        int       // the populate call that fails, 1-based; 0 for none
		wantPopulated uintptr
		wantMore      bool
	}{
		{"an empty heap populates the smallest lookahead", []uintptr{0}, 0, small, true},
		{"whole chunks only", []uintptr{chunk + 1}, 0, small + chunk, true},
		{"growth moves the mark", []uintptr{0, 3 * chunk}, 0, small + 3*chunk, true},
		{"a large heap looks further ahead", []uintptr{0, big}, 0, big + look, true},
		{"a heap that shrank leaves the mark", []uintptr{5 * chunk, chunk}, 0, small + 5*chunk, true},
		{"never past the range, and then done", []uintptr{rangeBytes}, 0, rangeBytes, false},
		{"a refused call stops", []uintptr{0, 0}, 3, 2 * chunk, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			const start = 1 << 40
			calls := 0
			var next uintptr = start
			p := heapPrefaulter{start: start, rangeBytes: rangeBytes, populate: func(addr, n uintptr) error {
				calls++
				if addr != next || n != chunk {
					t.Fatalf("populate(%#x, %d), want (%#x, %d): chunks in order, none twice", addr, n, next, chunk)
				}
				if calls == c.failAt {
					return errors.New("refused")
				}
				next += n
				return nil
			}}
			more := true
			for _, inUse := range c.inUse {
				if more = p.advance(inUse); !more {
					break
				}
			}
			if p.populatedBytes != c.wantPopulated || more != c.wantMore {
				t.Fatalf("populated %d bytes, more %v; want %d, %v", p.populatedBytes, more, c.wantPopulated, c.wantMore)
			}
		})
	}
}

// populateSupported reports whether the kernel takes MADV_POPULATE_WRITE (linux 5.14).
func populateSupported(t *testing.T) bool {
	t.Helper()
	mem, err := syscall.Mmap(-1, 0, os.Getpagesize(), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Munmap(mem)
	err = populateWritable(uintptr(unsafe.Pointer(&mem[0])), uintptr(len(mem)))
	if err != nil && !errors.Is(err, syscall.EINVAL) {
		t.Fatalf("MADV_POPULATE_WRITE: %v", err)
	}
	if err != nil {
		t.Logf("the kernel refuses MADV_POPULATE_WRITE (%v): it predates linux 5.14", err)
	}
	return err == nil
}

// TestPopulateWritableKeepsContents checks the populate call on pages never touched and on
// pages already written: afterwards every page is resident, and what was written is still
// there.
func TestPopulateWritableKeepsContents(t *testing.T) {
	const size = 4 << 20
	mem, err := syscall.Mmap(-1, 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Munmap(mem)
	mem[0], mem[size/2+5] = 7, 9
	if !populateSupported(t) {
		return // prefaultHeap stops at the refusal and changes nothing
	}
	if err := populateWritable(uintptr(unsafe.Pointer(&mem[0])), size); err != nil {
		t.Fatal(err)
	}
	if resident := residentPages(t, uintptr(unsafe.Pointer(&mem[0])), size); resident != size/os.Getpagesize() {
		t.Fatalf("%d of %d pages resident after the populate call", resident, size/os.Getpagesize())
	}
	for i, b := range mem {
		want := byte(0)
		switch i {
		case 0:
			want = 7
		case size/2 + 5:
			want = 9
		}
		if b != want {
			t.Fatalf("byte %d is %d after the populate call, want %d", i, b, want)
		}
	}
}

// residentPages counts the resident pages of the n bytes at addr (mincore).
func residentPages(t *testing.T, addr uintptr, n int) int {
	t.Helper()
	vec := make([]byte, (n+os.Getpagesize()-1)/os.Getpagesize())
	if _, _, errno := syscall.Syscall(syscall.SYS_MINCORE, addr, uintptr(n), uintptr(unsafe.Pointer(&vec[0]))); errno != 0 {
		t.Fatalf("mincore: %v", errno)
	}
	resident := 0
	for _, v := range vec {
		resident += int(v & 1)
	}
	return resident
}

// TestPrefaultHeapTakesFirstTouchesOffTheAllocatingThread checks, in fresh processes (this
// test binary run again), what prefaultHeap is for: once its thread has caught up, a thread
// that allocates and writes 48 MiB of new heap takes (almost) no page faults, where without
// it the same thread takes one per page (or per huge page).
func TestPrefaultHeapTakesFirstTouchesOffTheAllocatingThread(t *testing.T) {
	if mode := os.Getenv("RECONSIM_TEST_PREFAULT_CHILD"); mode != "" {
		prefaultChild(t, mode == "on")
		return
	}
	mode, modeErr := os.ReadFile(thpEnabledPath)
	policy, policyErr := os.ReadFile(overcommitPath)
	if modeErr != nil || !thpOnRequest(string(mode)) || policyErr != nil || overcommitStrict(string(policy)) {
		// No range is prepared there (TestAdviseHugePagesBacksTheHeap), so there is nothing
		// to prefault.
		if _, n := adviseHugePages(); n != 0 {
			t.Fatalf("adviseHugePages prepared %d bytes", n)
		}
		return
	}
	if !populateSupported(t) {
		// Before linux 5.14 the thread stops at its first call (TestHeapPrefaulterAdvance's
		// refused call) and every first touch stays with the allocating thread, as without it.
		return
	}
	faults := map[string]int{}
	for _, m := range []string{"on", "off"} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestPrefaultHeapTakesFirstTouchesOffTheAllocatingThread$", "-test.v")
		cmd.Env = append(os.Environ(), "RECONSIM_TEST_PREFAULT_CHILD="+m)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("child (prefault %s): %v\n%s", m, err, out)
		}
		_, after, ok := strings.Cut(string(out), "faults=")
		if !ok {
			t.Fatalf("child (prefault %s) printed no fault count:\n%s", m, out)
		}
		n, err := strconv.Atoi(strings.Fields(after)[0])
		if err != nil {
			t.Fatal(err)
		}
		faults[m] = n
	}
	t.Logf("page faults of the allocating thread: %d with prefaulting, %d without", faults["on"], faults["off"])
	// 48 MiB is 24 huge pages, or 12,288 small ones where the host has no huge page to give.
	if faults["off"] < 16 {
		t.Fatalf("without prefaulting the thread took %d faults for 48 MiB of new heap: the test no longer measures first touches", faults["off"])
	}
	if faults["on"] > faults["off"]/4 {
		t.Fatalf("with prefaulting the thread took %d faults, without %d: the pages were not populated ahead of the heap", faults["on"], faults["off"])
	}
}

// prefaultChild prepares the heap as sim does (prefaulting it or not), waits for the
// prefaulting thread to populate past the heap, and prints how many page faults a locked
// thread takes to allocate and write 48 MiB.
func prefaultChild(t *testing.T, prefault bool) {
	start, n := adviseHugePages()
	if n == 0 {
		t.Fatal("adviseHugePages prepared nothing in madvise mode")
	}
	// 128 MiB of live heap first, as a run's world is, so that the lookahead (half the heap
	// in use, at most 64 MiB) has room for the 48 MiB measured below.
	held := make([][]byte, 0, 16384)
	for range 16384 {
		b := make([]byte, 8<<10)
		b[0], b[len(b)-1] = 1, 1
		held = append(held, b)
	}
	defer runtime.KeepAlive(held)
	if prefault {
		prefaultHeap(start, n)
		// Wait until three quarters of the lookahead above the heap are resident (the
		// populate calls run at idle priority and take a few ms per MiB on a VM).
		samples := make([]metrics.Sample, len(heapInUseMetrics))
		for i, name := range heapInUseMetrics {
			samples[i].Name = name
		}
		deadline := time.Now().Add(30 * time.Second)
		for {
			inUse := heapInUseBytes(samples)
			want := min(int(inUse+prefaultLookahead(inUse)*3/4), n)
			if residentPages(t, start, want) == want/os.Getpagesize() {
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("the prefaulting thread did not populate its lookahead in 30 s")
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	before := threadMinorFaults(t)
	b := make([]byte, 48<<20)
	for i := 0; i < len(b); i += os.Getpagesize() {
		b[i] = 1
	}
	after := threadMinorFaults(t)
	runtime.KeepAlive(b)
	t.Logf("faults=%d", after-before)
}

// threadMinorFaults is the calling thread's minor page faults (getrusage RUSAGE_THREAD).
func threadMinorFaults(t *testing.T) int {
	t.Helper()
	const rusageThread = 1
	var ru syscall.Rusage
	if err := syscall.Getrusage(rusageThread, &ru); err != nil {
		t.Fatal(err)
	}
	return int(ru.Minflt)
}
