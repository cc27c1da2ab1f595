//go:build linux

package scenarios

import (
	"cmp"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// load100kChild is set in the environment of the process TestLoad100kPeakMemory starts.
const load100kChild = "RECONSIM_TEST_LOAD100K_CHILD"

// load100kPeakRSS bounds the peak resident memory of a process that builds the scenario of
// BenchmarkLoad100k (100,000 objects, 10.6 MB of YAML) and parses it. The scenario it returns
// holds about 38 MB (the model objects, and the list of object sources), the
// file 10.6 MB, the test binary starts at 17 MB, and with GOGC=100 the garbage collector lets
// the heap grow to up to twice what was live at its last cycle, so the peak depends on how
// much garbage is made after the loader holds most of the objects. Parsing the file as one
// document and indexing every path of it peaked at 852 MB (before stream.go); streaming it
// with the fast parser (fastyaml.go) at 164 to 188 MB run alone; with one manifest decoder for
// all objects and the validation copies made as objects are declared, at 125 to 128 MB; with
// validation on views instead of copies (model.DefaultedViews), no paths kept per declared
// object (declSite) and no paths made for valid Services or object sources, at 98 to 100 MB
// run alone (this test's log); with equal label and selector maps shared
// (model.ManifestOptions.ShareEqualMaps) at 83 to 86 MB. With half the objects in error
// (BenchmarkLoad100kInvalid) the 50,000 problems, each with its position, path, message and
// hint, added 16 to 19 MB (114 to 117 MB); with the position lookups' text borrowed from the
// file and only the first MaxListedProblems problems listed, 87 to 92 MB. The collector lags
// when the machine is loaded: in `go test ./scenarios` at load average 14 the peak was 166 MB
// (167 to 183 MB at 125 MB run alone). The bound leaves room for that.
const load100kPeakRSS = 220 << 20

// load100kAllocated bounds the bytes one parse of BenchmarkLoad100k's scenario allocates,
// which unlike the peak does not depend on the load of the machine: 333 MB when each
// manifest had a decoder of its own, 135 MB with one, 74 MB with a map per label set, 58 MB
// now (this test's log); with 50,000 problems to report, 365 and 459 MB when each position
// lookup indexed its whole object in a chunk parsed anew, 90 and 94 MB when each problem was
// listed, 64 and 65 MB now.
const load100kAllocated = 80 << 20

// TestLoad100kPeakMemory parses 100,000 objects in a child process and checks its peak
// resident set size (getrusage's ru_maxrss), which fails if the loader holds the whole file's
// YAML tree or a path index of every value again, and the bytes the parse allocated, which
// fails if its memory per object grows back. It does so for the valid scenario of
// BenchmarkLoad100k and for the two of BenchmarkLoad100kInvalid, where half the objects have
// a problem to report. It measures memory, not time.
func TestLoad100kPeakMemory(t *testing.T) {
	if problem, ok := os.LookupEnv(load100kChild); ok {
		data := manyObjectsWith(MaxObjects, problem)
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, _, err := Parse("many.yaml", data, "")
		runtime.ReadMemStats(&after)
		if (err != nil) != (problem != "") {
			fmt.Fprintln(os.Stderr, "unexpected result:", err)
			os.Exit(3)
		}
		fmt.Printf("%s %d\n", load100kAllocatedLine, after.TotalAlloc-before.TotalAlloc)
		return
	}
	exe, err := os.Executable()
	require.NoError(t, err)
	for _, problem := range []string{"", "missing namespace", "duplicate"} {
		t.Run(strings.ReplaceAll(cmp.Or(problem, "valid"), " ", "-"), func(t *testing.T) {
			cmd := exec.Command(exe, "-test.run=^TestLoad100kPeakMemory$", "-test.count=1")
			cmd.Env = append(os.Environ(), load100kChild+"="+problem, "GOGC=100", "GOMEMLIMIT=off")
			out, err := cmd.CombinedOutput()
			require.NoError(t, err, "%s", out)
			ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
			require.True(t, ok)
			peak := ru.Maxrss << 10 // kilobytes on Linux
			t.Logf("peak RSS of parsing 100,000 objects: %d MB", peak>>20)
			assert.Less(t, peak, int64(load100kPeakRSS), "peak resident memory of loading 100,000 objects")
			_, rest, ok := strings.Cut(string(out), load100kAllocatedLine+" ")
			require.True(t, ok, "the child reports what it allocated:\n%s", out)
			allocated, err := strconv.ParseUint(strings.Fields(rest)[0], 10, 64)
			require.NoError(t, err)
			t.Logf("allocated by parsing 100,000 objects: %d MB", allocated>>20)
			assert.Less(t, allocated, uint64(load100kAllocated), "bytes allocated by loading 100,000 objects")
		})
	}
}

// load100kAllocatedLine starts the line on which the child of TestLoad100kPeakMemory reports
// the bytes its parse allocated.
const load100kAllocatedLine = "load100k-allocated"
