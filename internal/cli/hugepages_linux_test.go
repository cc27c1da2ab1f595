package cli

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

func TestHugePageReserve(t *testing.T) {
	for _, c := range []struct {
		total uint64
		want  int
	}{
		{24 << 30, 4 << 30},                // capped
		{8 << 30, 2 << 30},                 // a quarter of the memory
		{(4 << 30) + (3 << 20), 1 << 30},   // whole 2 MiB pages only
		{6 << 20, 0},                       // under one huge page
		{0, 0},                             // unknown
		{1 << 62, maxHugePageReserveBytes}, // never above the cap
	} {
		if got := hugePageReserve(c.total); got != c.want {
			t.Errorf("hugePageReserve(%d) = %d, want %d", c.total, got, c.want)
		}
	}
}

func TestTHPOnRequest(t *testing.T) {
	for mode, want := range map[string]bool{
		"always [madvise] never\n": true,
		"[always] madvise never\n": false,
		"always madvise [never]\n": false,
		"":                         false,
	} {
		if got := thpOnRequest(mode); got != want {
			t.Errorf("thpOnRequest(%q) = %v, want %v", mode, got, want)
		}
	}
}

func TestOvercommitStrict(t *testing.T) {
	for policy, want := range map[string]bool{"0\n": false, "1\n": false, "2\n": true, "2": true, "": false} {
		if got := overcommitStrict(policy); got != want {
			t.Errorf("overcommitStrict(%q) = %v, want %v", policy, got, want)
		}
	}
}

// TestAdviseHugePagesBacksTheHeap checks, in a fresh process (this test binary run again),
// that preparing the range touches none of it and that what the heap allocates afterwards
// lands on huge pages: the advice must survive the runtime's own mapping and the free.
func TestAdviseHugePagesBacksTheHeap(t *testing.T) {
	mode, modeErr := os.ReadFile(thpEnabledPath)
	policy, policyErr := os.ReadFile(overcommitPath)
	if modeErr != nil || !thpOnRequest(string(mode)) || policyErr != nil || overcommitStrict(string(policy)) {
		// Where the kernel gives huge pages to every mapping or to none, or accounts
		// strictly, the advice must be left out: nothing is prepared.
		if _, n := adviseHugePages(); n != 0 {
			t.Fatalf("adviseHugePages prepared %d bytes with transparent_hugepage %q and overcommit %q", n, mode, policy)
		}
		return
	}
	if os.Getenv("RECONSIM_TEST_HUGEPAGES_CHILD") == "" {
		cmd := exec.Command(os.Args[0], "-test.run=^TestAdviseHugePagesBacksTheHeap$", "-test.v")
		cmd.Env = append(os.Environ(), "RECONSIM_TEST_HUGEPAGES_CHILD=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("child: %v\n%s", err, out)
		}
		return
	}
	// Leave freed, used pages at the top of the heap, where the range will start: the
	// runtime clears a new large allocation that begins on used pages (make would), and the
	// range must still not be touched before it is advised.
	used := make([]byte, 32<<20)
	for i := 0; i < len(used); i += 4096 {
		used[i] = 1
	}
	runtime.KeepAlive(used)
	used = nil
	runtime.GC()
	before, rssBefore := anonHugeBytes(t), statusBytes(t, "VmRSS:")
	_, n := adviseHugePages()
	if n == 0 {
		t.Fatal("adviseHugePages advised nothing in madvise mode")
	}
	if grown := statusBytes(t, "VmRSS:") - rssBefore; grown > 64<<20 {
		t.Fatalf("preparing %d bytes of address space grew the resident set by %d bytes", n, grown)
	}
	// 64 MiB in small objects, each written, as a simulation's heap is.
	held := make([][]byte, 0, 8192)
	for range 8192 {
		b := make([]byte, 8<<10)
		b[0], b[len(b)-1] = 1, 1
		held = append(held, b)
	}
	got := anonHugeBytes(t) - before
	runtime.KeepAlive(held)
	// Allow for the range's ends and for a host short of free huge pages: a third of it.
	if got < 20<<20 {
		t.Fatalf("the heap's 64 MiB grew the process's huge pages by %d bytes, want at least 20 MiB", got)
	}
}

// anonHugeBytes is the process's AnonHugePages (/proc/self/smaps_rollup).
func anonHugeBytes(t *testing.T) int64 {
	t.Helper()
	data, err := os.ReadFile("/proc/self/smaps_rollup")
	if err != nil {
		t.Fatalf("no smaps_rollup (linux 4.14 and later have it): %v", err)
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 3 && f[0] == "AnonHugePages:" {
			kb, err := strconv.ParseInt(f[1], 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb << 10
		}
	}
	t.Fatal("smaps_rollup has no AnonHugePages")
	return 0
}

// statusBytes is the value of field (such as "VmRSS:") in /proc/self/status, in bytes.
func statusBytes(t *testing.T, field string) int64 {
	t.Helper()
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatalf("no /proc/self/status: %v", err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) == 3 && f[0] == field {
			kb, err := strconv.ParseInt(f[1], 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb << 10
		}
	}
	t.Fatalf("/proc/self/status has no %s", field)
	return 0
}
