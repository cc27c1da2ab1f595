package cli

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reconsim/reconsim/explore"
)

// runSim runs the CLI with the real simulator and returns the exit status and output.
func runSim(args ...string) (int, string, string) {
	var stdout, stderr bytes.Buffer
	code := run(args, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

func readResult(t *testing.T, dir string) *explore.Result {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, explore.JSONFile))
	require.NoError(t, err)
	var r explore.Result
	require.NoError(t, json.Unmarshal(data, &r))
	return &r
}

// TestExploreFindsOneFaultAndShrinksIt: on a scenario one well-timed node crash breaks, the
// random search finds the failure (here within 150 runs, so within the 500 the issue asks),
// the reproducer has at most 2 fault entries (a crash and its heal), and `sim run` on it
// exits 1 on every rerun.
func TestExploreFindsOneFaultAndShrinksIt(t *testing.T) {
	out := t.TempDir()
	code, stdout, stderr := runSim("explore", "testdata/explore-one-fault.yaml", "--runs", "150", "--jobs", "2", "--max-shrink", "60", "--out", out, "-q")
	require.Equal(t, exitFailed, code, "a finding is exit 1\n%s\n%s", stdout, stderr)
	res := readResult(t, out)
	require.Len(t, res.Findings, 1)
	f := res.Findings[0]
	assert.Equal(t, "available-after-rollout", f.Invariant)
	assert.True(t, f.Reproducer.Verified)
	repro, err := os.ReadFile(filepath.Join(out, f.Reproducer.File))
	require.NoError(t, err)
	entries := regexp.MustCompile(`(?m)^  - name: explore-fault-`).FindAll(repro, -1)
	assert.NotEmpty(t, entries)
	assert.LessOrEqual(t, len(entries), 2, "at most 2 fault entries:\n%s", repro)
	assert.Contains(t, string(repro), "# Reproduce: sim run "+f.Reproducer.File)
	for i := range 3 {
		code, stdout, stderr := runSim("run", filepath.Join(out, f.Reproducer.File), "--out", filepath.Join(out, "rerun", string(rune('a'+i))))
		assert.Equal(t, exitFailed, code, "rerun %d: %s\n%s", i, stdout, stderr)
		assert.Contains(t, stdout, "available-after-rollout")
	}
}

// TestExploreIsDeterministic: explore.json is byte for byte the same with --jobs 1 and 2, and
// for a search sharded in two and merged.
func TestExploreIsDeterministic(t *testing.T) {
	dir := t.TempDir()
	args := []string{"explore", "explore-rolling-update", "--runs", "8", "--strategy", "all", "--max-shrink", "12", "-q"}
	for _, c := range []struct{ name, jobs, shard string }{{"j1", "1", ""}, {"j2", "2", ""}, {"sharded", "2", "1/2"}, {"sharded", "1", "2/2"}} {
		a := append(append([]string(nil), args...), "--jobs", c.jobs, "--out", filepath.Join(dir, c.name))
		if c.shard != "" {
			a = append(a, "--shard", c.shard)
		}
		code, stdout, stderr := runSim(a...)
		if c.shard != "" {
			require.Equal(t, exitOK, code, "%s\n%s", stdout, stderr)
		} else {
			require.Equal(t, exitFailed, code, "%s\n%s", stdout, stderr)
		}
	}
	code, stdout, stderr := runSim("merge", filepath.Join(dir, "sharded"), "-q")
	require.Equal(t, exitFailed, code, "%s\n%s", stdout, stderr)
	j1, err := os.ReadFile(filepath.Join(dir, "j1", explore.JSONFile))
	require.NoError(t, err)
	for _, other := range []string{"j2", "sharded"} {
		b, err := os.ReadFile(filepath.Join(dir, other, explore.JSONFile))
		require.NoError(t, err)
		assert.Equal(t, string(j1), string(b), "%s differs from --jobs 1", other)
		for _, name := range []string{explore.HTMLFile, explore.JUnitFile} {
			x, _ := os.ReadFile(filepath.Join(dir, "j1", name))
			y, _ := os.ReadFile(filepath.Join(dir, other, name))
			assert.Equal(t, string(x), string(y), "%s of %s", name, other)
		}
	}
	res := readResult(t, filepath.Join(dir, "j1"))
	assert.Greater(t, res.Summary.ByStrategy[explore.StrategyIntermediate].Runs, 0, "the targeted strategies ran")
	assert.Equal(t, 8, res.Summary.ByStrategy[explore.StrategyRandom].Runs)
}

//go:embed testdata/bad-explore-base.yaml
var badExploreBase string

// TestExploreBadInput: each problem of an explore: section is exit 2 with file:line:col.
func TestExploreBadInput(t *testing.T) {
	for _, c := range []struct {
		name, section, where, msg string
	}{
		{"unknown action", "  actions:\n  - action: node-crash-loop\n    nodes: {names: [worker-0]}\n", ":13:13:", `unknown action "node-crash-loop" for explore`},
		{"empty range", "  actions:\n  - action: kubelet-stall\n    nodes: {names: [worker-0]}\n    for: {min: 1m, max: 10s}\n", ":15:10:", "the range is empty: min 1m is above max 10s"},
		{"empty faults range", "  faults: {min: 3, max: 1}\n  actions:\n  - {action: node-crash, nodes: {names: [worker-0]}}\n", ":12:11:", "the range is empty: min 3 is above max 1"},
		{"window outside the duration", "  window: {from: 1m, to: 20m}\n  actions:\n  - {action: node-crash, nodes: {names: [worker-0]}}\n", ":12:26:", "the window ends at 20m, after the run ends (duration 10m)"},
		{"invariant naming nothing", "  actions:\n  - {action: node-crash, nodes: {names: [worker-0]}}\n  invariants: [pod-bound-once, settle]\n", ":14:32:", `invariant "settle" names neither a built-in invariant nor an expectation of this scenario`},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "bad.yaml")
			require.NoError(t, os.WriteFile(path, []byte(badExploreBase+c.section), 0o644))
			code, stdout, stderr := runSim("explore", path, "--runs", "1", "-q")
			assert.Equal(t, exitUsage, code, "%s\n%s", stdout, stderr)
			assert.Contains(t, stderr, path+c.where, stderr)
			assert.Contains(t, stderr, c.msg)
			assert.NotContains(t, stderr, "panic")
			code, _, stderr = runSim("validate", path)
			assert.Equal(t, exitUsage, code, "sim validate agrees: %s", stderr)
		})
	}
	// Bad flags are usage errors.
	for _, args := range [][]string{
		{"explore", "explore-statefulset", "--strategy", "sieve"},
		{"explore", "explore-statefulset", "--runs", "-1"},
		{"explore", "explore-statefulset", "--runs", "100001"},
		{"explore", "explore-statefulset", "--shard", "3/2"},
		{"explore", "explore-statefulset", "--max-shrink", "0"},
		{"explore", "no-such-scenario"},
	} {
		code, _, stderr := runSim(append(args, "-q")...)
		assert.Equal(t, exitUsage, code, "%v: %s", args, stderr)
	}
	// A scenario without an explore: section is a usage error too.
	path := filepath.Join(t.TempDir(), "plain.yaml")
	require.NoError(t, os.WriteFile(path, []byte(strings.TrimSuffix(badExploreBase, "explore:\n")), 0o644))
	code, _, stderr := runSim("explore", path, "-q")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, "has no explore: section")
}
