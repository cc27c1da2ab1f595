package detlint

import (
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func repoRoot(t *testing.T) string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// TestSimulationPathIsDeterministic is the lint itself: it fails the build when a package on
// the simulation path uses the wall clock, global randomness, goroutines or unsorted map order.
func TestSimulationPathIsDeterministic(t *testing.T) {
	findings, err := Check(repoRoot(t), "./sim/...", "./model/...")
	require.NoError(t, err)
	for _, f := range findings {
		if strings.Contains(f.Pos.Filename, string(filepath.Separator)+"testdata"+string(filepath.Separator)) {
			continue
		}
		t.Errorf("%s", f)
	}
}

func TestLintFindsEachKindOfProblem(t *testing.T) {
	dir := filepath.Join(repoRoot(t), "internal", "detlint", "testdata", "src", "bad")
	_, err := os.Stat(dir)
	require.NoError(t, err)
	findings, err := Check(repoRoot(t), "./internal/detlint/testdata/src/bad")
	require.NoError(t, err)
	var got []string
	for _, f := range findings {
		got = append(got, filepath.Base(f.Pos.Filename)+":"+strconv.Itoa(f.Pos.Line)+" "+strings.SplitN(f.Message, ":", 2)[0])
	}
	assert.Equal(t, []string{
		"bad.go:9 time.Now reads or waits on the wall clock",
		"bad.go:10 go statement",
		"bad.go:11 rand.IntN uses the global random source",
		"bad.go:12 range over a map",
		"bad.go:19 range over a map", // an annotation without a reason does not count
	}, got)
}
