package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reconsim/reconsim/report"
	"github.com/reconsim/reconsim/scenarios"
	"github.com/reconsim/reconsim/sim/cluster"
)

// harness runs the CLI with a fake simulator, a fake clock and a fake signal source.
type harness struct {
	stdout, stderr bytes.Buffer
	cli            *cli
	env            map[string]string
	// got records what the fake simulator was called with.
	gotScenario *scenarios.Scenario
	gotOptions  cluster.Options
	// signal, when non-nil, receives the CLI's signal channel once it is registered.
	signal   chan chan<- os.Signal
	stopped  atomic.Int32
	clockSec int
}

func newHarness(result func(scn *scenarios.Scenario, opts cluster.Options) (*report.Result, error)) *harness {
	h := &harness{env: map[string]string{}}
	h.cli = newCLI(&h.stdout, &h.stderr)
	h.cli.runScenario = func(_ context.Context, scn *scenarios.Scenario, opts cluster.Options) (*report.Result, error) {
		h.gotScenario, h.gotOptions = scn, opts
		return result(scn, opts)
	}
	h.cli.now = func() time.Time {
		h.clockSec += 2
		return time.Unix(int64(h.clockSec), 0)
	}
	h.cli.getenv = func(k string) string { return h.env[k] }
	h.cli.notify = func(c chan<- os.Signal) func() {
		if h.signal != nil {
			h.signal <- c
		}
		return func() { h.stopped.Add(1) }
	}
	return h
}

func (h *harness) run(args ...string) int { return h.cli.main(args) }

// passing returns a result in which every expectation held.
func passing(scn *scenarios.Scenario, opts cluster.Options) (*report.Result, error) {
	seed := scn.Seed
	if opts.SeedSet {
		seed = opts.Seed
	}
	var overrides []report.Override
	for _, o := range opts.Overrides {
		overrides = append(overrides, report.Override{Key: o.Key, Value: o.Value})
	}
	return &report.Result{
		Scenario: scn.Name, Seed: seed, SimulatorVersion: report.SimulatorVersion, UpstreamVersion: scn.Components.UpstreamVersion(),
		Overrides: overrides, VirtualSeconds: 415.5, EventsProcessed: 1000, StopReason: "quiescent", TraceHash: report.TraceHashHex(1),
		Expectations: []report.ExpectationResult{{Name: "recovered", Passed: true, Message: "converged 355s after crash"}},
		Passed:       true,
		Events:       []report.EventRecord{{Time: 115, Type: "Normal", Reason: "NodeNotReady", Kind: "Node", Name: "worker-0", Count: 1}},
	}, nil
}

func failing(scn *scenarios.Scenario, opts cluster.Options) (*report.Result, error) {
	r, _ := passing(scn, opts)
	r.Expectations = append(r.Expectations, report.ExpectationResult{Name: "eviction-event", Message: "no TaintManagerEviction event"})
	r.Passed = false
	return r, nil
}

func mustNotRun(*scenarios.Scenario, cluster.Options) (*report.Result, error) {
	panic("the simulator must not run")
}

func writeScenario(t *testing.T, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "s.yaml")
	require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
	return path
}

func TestRunWritesResultsAndSummary(t *testing.T) {
	h := newHarness(passing)
	out := t.TempDir()
	code := h.run("run", "node-failure", "--out", out, "--seed", "7",
		"--set", "kube-controller-manager.node-monitor-grace-period=20s", "--duration", "30m")
	require.Equal(t, exitOK, code, h.stderr.String())

	assert.Equal(t, "node-failure", h.gotScenario.Name)
	assert.Equal(t, 20*time.Second, h.gotScenario.Components.Duration(scenarios.ComponentControllerManager, "node-monitor-grace-period"),
		"overrides are applied before the run")
	assert.Equal(t, 30*time.Minute, h.gotScenario.Duration)
	assert.True(t, h.gotOptions.SeedSet)
	assert.Equal(t, uint64(7), h.gotOptions.Seed)
	assert.Len(t, h.gotOptions.Overrides, 2)
	assert.NotNil(t, h.gotOptions.Trace, "the trace always goes to trace.txt")

	res, err := report.ReadResult(filepath.Join(out, report.ResultFile))
	require.NoError(t, err)
	assert.Equal(t, 2.0, res.WallSeconds, "the CLI measures wall time")
	events, err := report.ReadEvents(filepath.Join(out, report.EventsFile))
	require.NoError(t, err)
	assert.Len(t, events, 1)
	for _, name := range []string{report.TraceFile, report.HTMLFile, report.SeriesFile} {
		assert.FileExists(t, filepath.Join(out, name), "sim run writes %s beside the result", name)
	}
	leftovers, _ := filepath.Glob(filepath.Join(out, ".*.tmp"))
	assert.Empty(t, leftovers, "no temporary files are left behind")

	summary := h.stdout.String()
	assert.Contains(t, summary, "✓ recovered")
	assert.Contains(t, summary, "reproduce  sim run node-failure --seed 7 --set kube-controller-manager.node-monitor-grace-period=20s --set duration=30m")
	assert.Contains(t, summary, "PASSED (1/1 expectations held)")
	assert.Contains(t, summary, filepath.Join(out, report.HTMLFile), "the summary says where the report is")
	assert.Equal(t, int32(1), h.stopped.Load(), "signal handling is undone after the run")
}

func TestRunExitStatus(t *testing.T) {
	h := newHarness(failing)
	code := h.run("run", "node-failure", "--out", t.TempDir())
	assert.Equal(t, exitFailed, code)
	assert.Contains(t, h.stdout.String(), "✗ eviction-event")
	assert.Contains(t, h.stdout.String(), "FAILED (1/2 expectations held)")
	assert.False(t, h.gotOptions.SeedSet, "without --seed the scenario's seed is used")
}

func TestRunDefaultOutputDirectory(t *testing.T) {
	t.Chdir(t.TempDir())
	h := newHarness(passing)
	require.Equal(t, exitOK, h.run("run", "node-failure", "-q"))
	assert.Empty(t, h.stdout.String(), "--quiet prints no summary")
	_, err := os.Stat(filepath.Join("out", "node-failure", report.ResultFile))
	assert.NoError(t, err)
}

func TestRunJSONOutputAndTrace(t *testing.T) {
	h := newHarness(func(scn *scenarios.Scenario, opts cluster.Options) (*report.Result, error) {
		_, err := opts.Trace.Write([]byte("0.000000 kernel start\n"))
		require.NoError(t, err)
		return passing(scn, opts)
	})
	require.Equal(t, exitOK, h.run("run", "node-failure", "-o", "json", "--trace", "--out", t.TempDir()))
	var res report.Result
	require.NoError(t, json.Unmarshal(h.stdout.Bytes(), &res), "stdout is exactly the result JSON")
	assert.Equal(t, report.ResultSchemaVersion, res.SchemaVersion)
	assert.Equal(t, "0.000000 kernel start\n", h.stderr.String(), "with -o json the trace goes to stderr")

	h = newHarness(func(scn *scenarios.Scenario, opts cluster.Options) (*report.Result, error) {
		_, _ = opts.Trace.Write([]byte("0.000000 kernel start\n"))
		return passing(scn, opts)
	})
	require.Equal(t, exitOK, h.run("run", "node-failure", "--trace", "--out", t.TempDir()))
	assert.True(t, strings.HasPrefix(h.stdout.String(), "0.000000 kernel start\nscenario"), "in text mode the trace precedes the summary")
}

func TestRunBrokenScenarioPrintsEveryProblem(t *testing.T) {
	h := newHarness(mustNotRun)
	path := writeScenario(t, "apiVersion: reconsim.dev/v1alpha1\nkind: Scenario\nname: x\nduration: 0s\ntimline: []\n")
	assert.Equal(t, exitUsage, h.run("run", path))
	stderr := h.stderr.String()
	assert.Contains(t, stderr, path+":4:11: duration: duration must be greater than 0")
	assert.Contains(t, stderr, path+`:5:1: timline: unknown key "timline" (did you mean "timeline"?)`)
	assert.Contains(t, stderr, "2 problems")
	assert.Empty(t, h.stdout.String())
}

func TestRunUsageErrors(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"run"}, "want one scenario"},
		{[]string{"run", "a", "b"}, "got 2 arguments"},
		{[]string{"run", "node-failure", "-o", "xml"}, "-o must be text or json"},
		{[]string{"run", "node-failure", "--seed", "x"}, "--seed: want a whole number from 0 to 18446744073709551615, got \"x\""},
		{[]string{"run", "node-failure", "--bogus"}, "unknown flag: --bogus"},
		{[]string{"run", "node-falure"}, `did you mean "node-failure"?`},
		{[]string{"run", "missing.yaml"}, "no such file"},
		{[]string{"run", "node-failure", "--set", "kube-controller-manager.node-monitor-grace=1s"}, `did you mean "kube-controller-manager.node-monitor-grace-period"?`},
		{[]string{"run", "node-failure", "--set", "kubelet.max-pods=lots"}, "--set kubelet.max-pods=lots: want an integer"},
		{[]string{"run", "node-failure", "--duration", "30s"}, "after the run would end"},
		{[]string{"frobnicate"}, `unknown command "frobnicate"`},
		{[]string{"valdate", "x"}, `did you mean "validate"?`},
		{nil, "Commands:"},
	}
	for _, c := range cases {
		h := newHarness(mustNotRun)
		assert.Equal(t, exitUsage, h.run(c.args...), "%v", c.args)
		assert.Contains(t, h.stderr.String(), c.want, "%v", c.args)
	}
}

func TestRunInternalError(t *testing.T) {
	h := newHarness(func(scn *scenarios.Scenario, opts cluster.Options) (*report.Result, error) {
		r, _ := passing(scn, opts)
		r.VirtualSeconds = 75.25
		return r, errors.New("apiserver: store invariant broken")
	})
	out := t.TempDir()
	assert.Equal(t, exitInternal, h.run("run", "node-failure", "--out", out))
	assert.Contains(t, h.stderr.String(), "internal error (seed 1, virtual time 75.250s): running node-failure: apiserver: store invariant broken")
	assert.Contains(t, h.stderr.String(), "RECONSIM_DEBUG=1")
	_, err := os.Stat(filepath.Join(out, report.ResultFile))
	assert.NoError(t, err, "what was recorded is written")

	h = newHarness(func(*scenarios.Scenario, cluster.Options) (*report.Result, error) { panic("boom") })
	assert.Equal(t, exitInternal, h.run("run", "node-failure", "--seed", "9", "--out", t.TempDir()))
	assert.Contains(t, h.stderr.String(), "internal error (seed 9, virtual time unknown): running node-failure: panic: boom")
	assert.NotContains(t, h.stderr.String(), "goroutine", "no stack trace without RECONSIM_DEBUG")

	h = newHarness(func(*scenarios.Scenario, cluster.Options) (*report.Result, error) { panic("boom") })
	h.env["RECONSIM_DEBUG"] = "1"
	assert.Equal(t, exitInternal, h.run("run", "node-failure", "--out", t.TempDir()))
	assert.Contains(t, h.stderr.String(), "goroutine", "RECONSIM_DEBUG=1 prints the stack")
}

func TestRunInterrupt(t *testing.T) {
	h := newHarness(nil)
	h.signal = make(chan chan<- os.Signal, 1)
	h.cli.runScenario = func(ctx context.Context, scn *scenarios.Scenario, opts cluster.Options) (*report.Result, error) {
		sig := <-h.signal
		sig <- os.Interrupt
		select {
		case <-ctx.Done():
		case <-time.After(10 * time.Second):
			return nil, errors.New("the run's context was not cancelled")
		}
		r, _ := passing(scn, opts)
		r.StopReason = report.StopInterrupted
		r.VirtualSeconds = 12
		return r, nil
	}
	out := t.TempDir()
	assert.Equal(t, exitOK, h.run("run", "node-failure", "--out", out))
	assert.Contains(t, h.stderr.String(), "interrupted at virtual time 12.000s")
	res, err := report.ReadResult(filepath.Join(out, report.ResultFile))
	require.NoError(t, err)
	assert.Equal(t, report.StopInterrupted, res.StopReason, "what was recorded is written")
}

func TestValidate(t *testing.T) {
	h := newHarness(mustNotRun)
	assert.Equal(t, exitOK, h.run("validate", "node-failure", "../../scenarios/testdata/valid/full.yaml"))
	assert.Contains(t, h.stdout.String(), "ok  builtin/node-failure.yaml: 3 nodes, 1 timeline entry, 2 expectations")
	assert.Contains(t, h.stdout.String(), "ok  ../../scenarios/testdata/valid/full.yaml: 5 nodes")

	h = newHarness(mustNotRun)
	assert.Equal(t, exitUsage, h.run("validate", "node-failure", "../../scenarios/testdata/broken/unknown-node.yaml"))
	assert.Contains(t, h.stdout.String(), "ok  builtin/node-failure.yaml")
	assert.Contains(t, h.stderr.String(), "../../scenarios/testdata/broken/unknown-node.yaml:15:19: timeline[0].nodes.names[0]: no node is named")

	h = newHarness(mustNotRun)
	assert.Equal(t, exitUsage, h.run("validate"))
}

// Batch objects the API server would reject are bad input: exit 2, each at its file:line:col
// with the API server's field path, for `run` as for `validate`.
func TestBadBatchInputExitsTwo(t *testing.T) {
	cases := []struct{ file, want string }{
		{"job-invalid.yaml", "job-invalid.yaml:11:21: objects[0].manifest.spec.backoffLimit: Invalid value: -1: must be greater than or equal to 0"},
		{"cronjob-invalid-schedule.yaml", `cronjob-invalid-schedule.yaml:11:17: objects[0].manifest.spec.schedule: Invalid value: "*/5 * * *": expected exactly 5 fields`},
		{"job-pod-failure-policy-restart.yaml", `job-pod-failure-policy-restart.yaml:13:19: objects[0].manifest.spec.podFailurePolicy.rules[0].action: Invalid value: "FailIndex": requires the backoffLimitPerIndex to be set`},
	}
	for _, c := range cases {
		for _, cmd := range []string{"validate", "run"} {
			h := newHarness(mustNotRun)
			assert.Equal(t, exitUsage, h.run(cmd, "../../scenarios/testdata/broken/"+c.file), "%s %s", cmd, c.file)
			assert.Contains(t, h.stderr.String(), c.want)
		}
	}
}

func TestListShowExplainVersion(t *testing.T) {
	h := newHarness(mustNotRun)
	require.Equal(t, exitOK, h.run("list"))
	assert.Regexp(t, `(?m)^node-failure +One node of three crashes; its pods are replaced`, h.stdout.String())

	h = newHarness(mustNotRun)
	require.Equal(t, exitOK, h.run("show", "node-failure"))
	data, _ := scenarios.Builtin("node-failure")
	assert.Equal(t, string(data), h.stdout.String())

	h = newHarness(mustNotRun)
	assert.Equal(t, exitUsage, h.run("show", "nope"))
	assert.Regexp(t, `built-in scenarios: [a-z-, ]*\bnode-failure\b`, h.stderr.String())

	h = newHarness(mustNotRun)
	require.Equal(t, exitOK, h.run("explain", "kube-controller-manager.node-monitor-grace-period"))
	assert.Contains(t, h.stdout.String(), "40s before 1.32")

	h = newHarness(mustNotRun)
	assert.Equal(t, exitUsage, h.run("explain", "node-monitor-grace-perod"))
	assert.Contains(t, h.stderr.String(), `did you mean "node-monitor-grace-period"?`)

	h = newHarness(mustNotRun)
	require.Equal(t, exitOK, h.run("version"))
	assert.Contains(t, h.stdout.String(), "sim "+report.SimulatorVersion)
	assert.Contains(t, h.stdout.String(), "Kubernetes 1.37")
}

func TestHelp(t *testing.T) {
	for _, args := range [][]string{{"help"}, {"--help"}, {"help", "run"}, {"run", "--help"}, {"validate", "-h"}, {"explain", "--help"}} {
		h := newHarness(mustNotRun)
		assert.Equal(t, exitOK, h.run(args...), "%v", args)
		assert.Contains(t, h.stdout.String(), "Usage:", "%v", args)
		assert.Contains(t, h.stdout.String(), "sim ", "%v", args)
	}
	for _, cmd := range commands {
		assert.Contains(t, cmd.usage, "Usage:\n  sim "+cmd.name, cmd.name)
		assert.Regexp(t, `(?m)^Examples?:\n  .*\bsim `+cmd.name+`\b`, cmd.usage, "%s's help has examples", cmd.name)
	}
	h := newHarness(mustNotRun)
	require.Equal(t, exitOK, h.run("help", "run"))
	assert.Contains(t, h.stdout.String(), "Examples:")
}

// TestRunNodeFailureEndToEnd runs the built-in scenario through the real simulator.
func TestRunNodeFailureEndToEnd(t *testing.T) {
	var stdout, stderr bytes.Buffer
	out := t.TempDir()
	code := run([]string{"run", "node-failure", "--out", out}, &stdout, &stderr)
	require.Equal(t, exitOK, code, "stdout:\n%s\nstderr:\n%s", stdout.String(), stderr.String())
	res, err := report.ReadResult(filepath.Join(out, report.ResultFile))
	require.NoError(t, err)
	assert.Equal(t, "node-failure", res.Scenario)
	assert.True(t, res.Passed)
	assert.Greater(t, res.WallSeconds, 0.0)
	assert.Contains(t, stdout.String(), "✓ recovered")
}

func TestExplainScenarioKeys(t *testing.T) {
	for key, want := range map[string]string{
		"timeline.node-crash":                        "timeline.node-crash (action)",
		"expect.converged":                           "expect.converged (expectation)",
		"drain.timeout":                              "timeline.drain.timeout (duration, optional)",
		"kube-controller-manager.node-eviction-rate": "source     [k8s:cmd/kube-controller-manager/app/options/nodelifecyclecontroller.go",
	} {
		h := newHarness(mustNotRun)
		require.Equal(t, exitOK, h.run("explain", key), h.stderr.String())
		assert.Contains(t, h.stdout.String(), want, key)
	}
	h := newHarness(mustNotRun)
	require.Equal(t, exitOK, h.run("explain", "kube-controller-manager.node-eviction-rate"))
	for _, want := range []string{"Nodes per second", "default    0.1 (Kubernetes 1.37)", "--set kube-controller-manager.node-eviction-rate=0.1"} {
		assert.Contains(t, h.stdout.String(), want, "meaning, default, upstream source and how to set it")
	}
	h = newHarness(mustNotRun)
	assert.Equal(t, exitUsage, h.run("explain", "for"))
	assert.Contains(t, h.stderr.String(), `several keys are called "for"`)
}

func TestSchemaCommand(t *testing.T) {
	h := newHarness(mustNotRun)
	require.Equal(t, exitOK, h.run("schema"))
	assert.Equal(t, string(scenarios.Schema()), h.stdout.String())
	var v map[string]any
	require.NoError(t, json.Unmarshal(h.stdout.Bytes(), &v))
	assert.Equal(t, scenarios.SchemaID, v["$id"])

	h = newHarness(mustNotRun)
	assert.Equal(t, exitUsage, h.run("schema", "extra"))
	assert.Contains(t, h.stderr.String(), "sim schema > schema.json")
}

func TestCompletionScripts(t *testing.T) {
	scripts := map[string]string{}
	for _, shell := range []string{"bash", "zsh", "fish"} {
		h := newHarness(mustNotRun)
		require.Equal(t, exitOK, h.run("completion", shell), h.stderr.String())
		scripts[shell] = h.stdout.String()
		for _, cmd := range commands {
			assert.Contains(t, scripts[shell], cmd.name, "%s completes %s", shell, cmd.name)
			for _, f := range usageFlags(cmd.usage) {
				assert.Contains(t, scripts[shell], f.long, "%s completes %s --%s", shell, cmd.name, f.long)
			}
		}
		assert.Contains(t, scripts[shell], "timeline.node-crash", "%s completes explain keys", shell)
		assert.Contains(t, scripts[shell], "kube-controller-manager.node-monitor-grace-period=", "%s completes --set keys", shell)
	}
	assert.True(t, strings.HasPrefix(scripts["zsh"], "#compdef sim\n"))
	assert.Contains(t, scripts["fish"], "complete -c sim -n '__fish_seen_subcommand_from run' -l output -s o -x -a 'text json'")

	h := newHarness(mustNotRun)
	assert.Equal(t, exitUsage, h.run("completion", "bsh"))
	assert.Contains(t, h.stderr.String(), `unsupported shell "bsh"; did you mean "bash"?`)

	bash, err := exec.LookPath("bash")
	if err != nil {
		return // the script's content is checked above; running it needs bash
	}
	script := filepath.Join(t.TempDir(), "sim.bash")
	require.NoError(t, os.WriteFile(script, []byte(scripts["bash"]), 0o644))
	complete := func(words ...string) []string {
		cmd := exec.Command(bash, "-c", `source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(( $# - 1 )); _sim; printf '%s\n' "${COMPREPLY[@]}"`,
			"complete", script)
		cmd.Args = append(cmd.Args, words...)
		cmd.Dir = t.TempDir()
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, string(out))
		return strings.Fields(string(out))
	}
	assert.Equal(t, []string{"validate", "version"}, complete("sim", "v"))
	assert.Equal(t, []string{"node-failure", "node-partition"}, complete("sim", "run", "node-"))
	assert.Equal(t, []string{"text"}, complete("sim", "run", "-o", "t"))
	assert.Contains(t, complete("sim", "run", "--"), "--duration")
	assert.Contains(t, complete("sim", "explain", "timeline.dr"), "timeline.drain.timeout")
	assert.Equal(t, []string{"zsh"}, complete("sim", "completion", "z"))
}

func TestUsageFlags(t *testing.T) {
	got := usageFlags(runUsage)
	assert.Contains(t, got, completionFlag{long: "seed", arg: "N"})
	assert.Contains(t, got, completionFlag{long: "trace"})
	assert.Contains(t, got, completionFlag{long: "output", short: "o", arg: "FORMAT"})
	assert.Contains(t, got, completionFlag{long: "quiet", short: "q"})
	assert.Contains(t, got, completionFlag{long: "strict"})
	assert.Contains(t, got, completionFlag{long: "allow-outside-paths"})
	assert.Len(t, got, 9)
	assert.Empty(t, usageFlags(listUsage))
}

// TestWriteFilesRendersAfterTheCollection: sim run writes result.json and events.jsonl while
// the collection after the run goes on, and draws the plots and the page, which allocate the
// most, only once it is over (so that they reuse the simulation's memory).
func TestWriteFilesRendersAfterTheCollection(t *testing.T) {
	dir := t.TempDir()
	trace, err := report.NewTraceWriter(dir)
	require.NoError(t, err)
	defer trace.Discard()
	require.NoError(t, trace.Commit())
	res := &report.Result{Scenario: "s", SimulatorVersion: report.SimulatorVersion, UpstreamVersion: "1.37",
		VirtualSeconds: 10, StopReason: "quiescent", TraceHash: report.TraceHashHex(1), Passed: true}
	h := newHarness(passing)
	collected := make(chan struct{})
	done := make(chan error, 1)
	go func() { done <- h.cli.writeFiles(dir, res, trace, collected) }()
	require.Eventually(t, func() bool {
		_, errResult := os.Stat(filepath.Join(dir, report.ResultFile))
		_, errEvents := os.Stat(filepath.Join(dir, report.EventsFile))
		return errResult == nil && errEvents == nil
	}, 10*time.Second, time.Millisecond, "result.json and events.jsonl do not wait for the collection")
	time.Sleep(50 * time.Millisecond)
	assert.NoFileExists(t, filepath.Join(dir, report.HTMLFile), "the page waits for the collection")
	assert.Empty(t, done, "writeFiles waits for the collection")
	close(collected)
	require.NoError(t, <-done)
	assert.FileExists(t, filepath.Join(dir, report.HTMLFile))
}
