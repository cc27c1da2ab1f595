//go:build linux

package scenarios

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// load100kChild is set in the environment of the process TestLoad100kPeakMemory starts.
const load100kChild = "RECONSIM_TEST_LOAD100K_CHILD"

// load100kPeakRSS bounds the peak resident memory of a process that builds the scenario of
// BenchmarkLoad100k (100,000 objects, 10.6 MB of YAML) and parses it. The scenario it
// returns holds about 56 MB (the decoded objects, 45 MB of them the model objects with
// their maps), the file 10 MB, and the garbage collector lets the heap grow to about twice
// what is live. Parsing the file as one document and indexing every path of it peaked at
// 852 MB (/usr/bin/time -f %M on the test binary running -test.bench Load100k
// -test.benchtime 1x, before stream.go); streaming it with yaml.v3 at 188 MB, and with the
// fast parser and its node arena (fastyaml.go) at 164 to 188 MB (this test's log, run
// alone), 240 MB when the garbage collector lags on a loaded machine (go test ./scenarios,
// load average 20 on 2 cores). The bound leaves room for that; the target is 100 MB.
const load100kPeakRSS = 280 << 20

// TestLoad100kPeakMemory parses 100,000 objects in a child process and checks its peak
// resident set size (getrusage's ru_maxrss): it fails if the loader holds the whole file's
// YAML tree or a path index of every value again. It measures memory, not time.
func TestLoad100kPeakMemory(t *testing.T) {
	if os.Getenv(load100kChild) != "" {
		if _, _, err := Parse("many.yaml", manyObjects(MaxObjects), ""); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(3)
		}
		return
	}
	exe, err := os.Executable()
	require.NoError(t, err)
	cmd := exec.Command(exe, "-test.run=^TestLoad100kPeakMemory$", "-test.count=1")
	cmd.Env = append(os.Environ(), load100kChild+"=1", "GOGC=100", "GOMEMLIMIT=off")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	require.True(t, ok)
	peak := ru.Maxrss << 10 // kilobytes on Linux
	t.Logf("peak RSS of parsing 100,000 objects: %d MB", peak>>20)
	assert.Less(t, peak, int64(load100kPeakRSS), "peak resident memory of loading 100,000 objects")
}
