package detlint

import (
	"os"
	"path/filepath"
	"runtime"
	"slices"
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
	findings, err := Check(repoRoot(t), SimulationPath...)
	require.NoError(t, err)
	for _, f := range findings {
		if strings.Contains(f.Pos.Filename, string(filepath.Separator)+"testdata"+string(filepath.Separator)) {
			continue
		}
		t.Errorf("%s", f)
	}
}

// TestSimulationPathIsExactlyWhatARunExecutes: the lint's scope is the module's packages a
// run executes (sim/cluster and everything of the module it depends on) except OffThePath's,
// whose work never flows back into the run; the rest of it is under sim/ (simulation machinery no
// built-in run uses yet, such as sim/client/reconcile, and test harnesses that run worlds).
func TestSimulationPathIsExactlyWhatARunExecutes(t *testing.T) {
	module, deps, err := ImportGraph(repoRoot(t), "./sim/cluster")
	require.NoError(t, err)
	want := map[string]bool{}
	for _, p := range deps {
		if rel, ok := cutModule(module, p.ImportPath); ok && !slices.Contains(OffThePath, rel) {
			want[rel] = true
		}
	}
	_, scope, err := ImportGraph(repoRoot(t), SimulationPath...)
	require.NoError(t, err)
	got := map[string]bool{}
	for _, p := range scope {
		if rel, ok := cutModule(module, p.ImportPath); ok && !p.DepOnly {
			got[rel] = true
		}
	}
	for rel := range want { //detlint:ordered each is checked on its own
		assert.True(t, got[rel], "%s runs inside a simulation but the lint does not cover it", rel)
	}
	for rel := range got { //detlint:ordered each is checked on its own
		if !want[rel] {
			assert.True(t, under(rel, "sim"), "%s is in the lint's scope but no run executes it", rel)
		}
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
