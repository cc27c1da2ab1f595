package cli

import (
	"bytes"
	"context"
	_ "embed"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reconsim/reconsim/report"
	"github.com/reconsim/reconsim/scenarios"
	"github.com/reconsim/reconsim/sim/cluster"
	"github.com/reconsim/reconsim/sweep"
)

//go:embed testdata/cli-sweep.yaml
var cliSweep string

// sweepCLI is a CLI whose simulator reports a recovery of seed seconds after "crash", with
// a fixed clock and no signals.
type sweepCLI struct {
	stdout, stderr bytes.Buffer
	cli            *cli
}

func newSweepCLI() *sweepCLI {
	s := &sweepCLI{}
	s.cli = newCLI(&s.stdout, &s.stderr)
	s.cli.runScenario = func(_ context.Context, _ *scenarios.Scenario, opts cluster.Options) (*report.Result, error) {
		secs := float64(opts.Seed)
		return &report.Result{Passed: true, StopReason: "quiescent", Convergence: []report.Convergence{{Name: "crash", Seconds: &secs}}}, nil
	}
	s.cli.now = func() time.Time { return time.Unix(0, 0) }
	s.cli.getenv = func(string) string { return "" }
	s.cli.notify = func(chan<- os.Signal) func() { return func() {} }
	return s
}

func writeSweep(t *testing.T, max string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "cli.yaml")
	require.NoError(t, os.WriteFile(path, []byte(strings.Replace(cliSweep, "MAX", max, 1)), 0o644))
	return path
}

func TestSweepCommandExitStatus(t *testing.T) {
	tests := []struct {
		name string
		max  string
		code int
		out  string
	}{
		{"every expectation holds", "5s", exitOK, "sweep cli PASSED: 4 runs in 2 points"},
		{"an expectation fails", "1s", exitFailed, "✗ recovery max <= 1s: held at 0 of 2 points"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSweepCLI()
			out := t.TempDir()
			code := s.cli.main([]string{"sweep", writeSweep(t, tt.max), "--out", out, "--jobs", "2"})
			assert.Equal(t, tt.code, code, s.stderr.String())
			assert.Contains(t, s.stdout.String(), tt.out)
			for _, f := range []string{sweep.SweepJSON, sweep.SweepCSV, sweep.JUnitFile, sweep.SweepHTML} {
				assert.FileExists(t, filepath.Join(out, f))
			}
			assert.Contains(t, s.stderr.String(), "sweep cli: 4 runs on 2 jobs", "plain progress lines off a terminal")
		})
	}
}

func TestSweepCommandBadInput(t *testing.T) {
	s := newSweepCLI()
	path := filepath.Join(t.TempDir(), "bad.yaml")
	require.NoError(t, os.WriteFile(path, []byte(strings.Replace(cliSweep, "scenario: node-failure", "scenario: hpa-flaping", 1)), 0o644))
	code := s.cli.main([]string{"sweep", path})
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, s.stderr.String(), path+`:4:11: scenario: no built-in scenario is called "hpa-flaping"`)

	s = newSweepCLI()
	assert.Equal(t, exitUsage, s.cli.main([]string{"sweep", writeSweep(t, "5s"), "--shard", "3/2"}))
	assert.Contains(t, s.stderr.String(), "--shard")

	s = newSweepCLI()
	assert.Equal(t, exitUsage, s.cli.main([]string{"merge", t.TempDir()}))
	assert.Contains(t, s.stderr.String(), "holds no shard")
}

// TestSweepShardsAndMergeCommands runs the sweep in two shards and merges them: the merged
// sweep.json is the unsharded one, byte for byte.
func TestSweepShardsAndMergeCommands(t *testing.T) {
	file := writeSweep(t, "5s")
	whole := t.TempDir()
	s := newSweepCLI()
	require.Equal(t, exitOK, s.cli.main([]string{"sweep", file, "--out", whole, "-q"}))

	shards := t.TempDir()
	for _, sh := range []string{"1/2", "2/2"} {
		s := newSweepCLI()
		require.Equal(t, exitOK, s.cli.main([]string{"sweep", file, "--shard", sh, "--out", shards}), s.stderr.String())
		assert.Contains(t, s.stdout.String(), "combine the shards with: sim merge "+shards)
	}
	s = newSweepCLI()
	require.Equal(t, exitOK, s.cli.main([]string{"merge", shards}), s.stderr.String())
	for _, f := range []string{sweep.SweepJSON, sweep.SweepCSV, sweep.JUnitFile, sweep.SweepHTML} {
		want, err := os.ReadFile(filepath.Join(whole, f))
		require.NoError(t, err)
		got, err := os.ReadFile(filepath.Join(shards, f))
		require.NoError(t, err)
		assert.True(t, bytes.Equal(want, got), "%s differs", f)
	}
}

func TestSweepDryRunAndHelp(t *testing.T) {
	s := newSweepCLI()
	require.Equal(t, exitOK, s.cli.main([]string{"sweep", writeSweep(t, "5s"), "--dry-run", "--shard", "2/2"}))
	assert.Equal(t, "1\tp0-s2\tseed 2\tkube-controller-manager.node-monitor-grace-period=20s\n"+
		"3\tp1-s2\tseed 2\tkube-controller-manager.node-monitor-grace-period=40s\n"+
		"2 runs (2 grid points × 2 seeds), shard 2/2 of 4 runs\n", s.stdout.String())

	s = newSweepCLI()
	require.Equal(t, exitOK, s.cli.main([]string{"help", "sweep"}))
	assert.Contains(t, s.stdout.String(), "sim sweep FILE [flags]")
	s = newSweepCLI()
	require.Equal(t, exitOK, s.cli.main([]string{"help", "merge"}))
	assert.Contains(t, s.stdout.String(), "sim merge DIR... [flags]")
}

// TestShippedSweepsParse loads every sweep file shipped in scenarios/sweeps (none is run here:
// the thundering-herd one takes minutes).
func TestShippedSweepsParse(t *testing.T) {
	for _, name := range []string{"node-failure-grace-toleration.yaml", "thundering-herd-qps.yaml", "hpa-flapping-stabilization.yaml"} {
		spec, _, err := sweep.Load(filepath.Join("..", "..", "scenarios", "sweeps", name))
		require.NoError(t, err, name)
		assert.NotEmpty(t, spec.Plan().Runs, name)
	}
}

// TestSweepStartsTheCallersControllers: a custom sim (MainWith) starts its controllers in
// every run of a sweep, as in sim run, and its sweeps may name them in fault filters.
func TestSweepStartsTheCallersControllers(t *testing.T) {
	s := newSweepCLI()
	s.cli.controllers = []cluster.Controller{{Name: "webapp"}}
	var got [][]string
	var mu sync.Mutex
	s.cli.runScenario = func(_ context.Context, scn *scenarios.Scenario, opts cluster.Options) (*report.Result, error) {
		var names []string
		for _, c := range opts.Controllers {
			names = append(names, c.Name)
		}
		mu.Lock()
		got = append(got, names)
		mu.Unlock()
		secs := float64(opts.Seed)
		return &report.Result{Passed: true, StopReason: "quiescent", Convergence: []report.Convergence{{Name: "crash", Seconds: &secs}}}, nil
	}
	dir := t.TempDir()
	// The scenario's fault names the caller's controller: it parses only if the sweep knows it.
	scn, err := os.ReadFile(filepath.Join("..", "..", "scenarios", "builtin", "node-failure.yaml"))
	require.NoError(t, err)
	scn = []byte(strings.Replace(string(scn), "\ntimeline:\n",
		"\ntimeline:\n- {at: 10s, action: api-errors, verbs: [update], clients: [webapp], code: 409, fraction: 1, for: 1m}\n", 1))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "webapp.yaml"), scn, 0o644))
	path := filepath.Join(dir, "sweep.yaml")
	src := strings.Replace(strings.Replace(cliSweep, "MAX", "5s", 1), "scenario: node-failure\n", "scenario: webapp.yaml\n", 1)
	require.NoError(t, os.WriteFile(path, []byte(src), 0o644))
	code := s.cli.main([]string{"sweep", path, "--out", t.TempDir(), "--jobs", "2"})
	require.Equal(t, exitOK, code, s.stderr.String())
	require.Len(t, got, 4)
	for _, names := range got {
		assert.Equal(t, []string{"webapp"}, names)
	}
}
