package report

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// workloadResult is a result with a "ready" series for each ReplicaSet key.
func workloadResult(keys ...string) *Result {
	res := &Result{SchemaVersion: ResultSchemaVersion, Scenario: "s", VirtualSeconds: 10}
	for _, k := range keys {
		res.Series = append(res.Series, Series{Name: "replicaset." + k + ".ready", Points: []Point{{0, 1}, {10, 2}}})
	}
	return res
}

// TestPlotNamesAreUniqueAndStable: workloads whose names only differ where the file name
// cannot show it get different files; long names are not cut into each other; the common
// case keeps its readable name.
func TestPlotNamesAreUniqueAndStable(t *testing.T) {
	long := strings.Repeat("a", 70)
	keys := []string{"a/b-web", "a-b/web", "default/web", "ns/" + long + "-x", "ns/" + long + "-y", "x/WEB", "x/web"}
	names := map[string]string{}
	for _, f := range Plots(workloadResult(keys...)) {
		if strings.HasPrefix(f.Name, "convergence-") {
			assert.LessOrEqual(t, len(f.Name), 120, f.Name)
			assert.NotContains(t, names, f.Name, "two workloads share the file name %s", f.Name)
			names[f.Name] = f.Title
		}
	}
	assert.Len(t, names, len(keys))
	assert.Contains(t, names, "convergence-replicaset-default-web", "a plain name stays readable")
	again := map[string]string{}
	for _, f := range Plots(workloadResult(keys...)) {
		again[f.Name] = f.Title
	}
	for n := range names {
		assert.Contains(t, again, n, "names are stable across renders")
	}
}

// TestRenderRemovesStalePlots: a second render into the same directory leaves only its own
// plots (and no trace.json when it has no trace).
func TestRenderRemovesStalePlots(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, TraceFile), []byte("0.000 start\n"), 0o644))
	require.NoError(t, Render(dir, workloadResult("default/old", "default/web")))
	require.FileExists(t, filepath.Join(dir, PlotsDir, "convergence-replicaset-default-old.svg"))
	require.FileExists(t, filepath.Join(dir, TraceEventFile))
	require.NoError(t, os.WriteFile(filepath.Join(dir, PlotsDir, "notes.txt"), []byte("mine"), 0o644))

	require.NoError(t, os.Remove(filepath.Join(dir, TraceFile)))
	require.NoError(t, Render(dir, workloadResult("default/web")))
	entries, err := os.ReadDir(filepath.Join(dir, PlotsDir))
	require.NoError(t, err)
	var got []string
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), "convergence-") {
			got = append(got, e.Name())
		}
	}
	sort.Strings(got)
	assert.Equal(t, []string{"convergence-replicaset-default-web.png", "convergence-replicaset-default-web.svg"}, got)
	assert.FileExists(t, filepath.Join(dir, PlotsDir, "notes.txt"), "only plot files are removed")
	assert.NoFileExists(t, filepath.Join(dir, TraceEventFile), "a stale trace.json is removed")
}
