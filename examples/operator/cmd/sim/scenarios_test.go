package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reconsim/reconsim"
	"github.com/reconsim/reconsim/examples/operator/internal/controller"
	"github.com/reconsim/reconsim/operator"
)

const scenarioDir = "../../scenarios"

// setupNaive wires the deliberately buggy NaiveStatusReconciler the way setup wires the
// real one.
func setupNaive(mgr operator.Manager) error {
	return setupWithManager(mgr, &controller.NaiveStatusReconciler{WebAppReconciler: *newReconciler(mgr)})
}

// summary is a run's expectations, one a line, for failure messages.
func summary(res *reconsim.Result) string {
	var b strings.Builder
	for _, e := range res.Expectations {
		fmt.Fprintf(&b, "  %v %s: %s\n", e.Passed, e.Name, e.Message)
	}
	for _, v := range res.Verdicts {
		fmt.Fprintf(&b, "  verdict %+v\n", v)
	}
	return b.String()
}

// TestScenarios runs each of the example's scenarios with the WebApp operator inside, as a
// user's test would, and checks every expectation held.
func TestScenarios(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(scenarioDir, "webapp-*.yaml"))
	require.NoError(t, err)
	require.Len(t, files, 4)
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			res, err := reconsim.Run(context.Background(), reconsim.File(f), reconsim.WithController("webapp", setup))
			require.NoError(t, err)
			assert.True(t, res.Passed, "expectations:\n%s", summary(res))
			assert.NotEmpty(t, res.Expectations)
		})
	}
}

// TestNaiveStatusFailsTheConflictStorm is the story docs/operators.md tells: the buggy
// variant, whose status update drops a 409, passes a quiet run but fails the conflict storm
// with a clear message, while WebAppReconciler passes it (TestScenarios).
func TestNaiveStatusFailsTheConflictStorm(t *testing.T) {
	storm := filepath.Join(scenarioDir, "webapp-conflict-storm.yaml")
	res, err := reconsim.Run(context.Background(), reconsim.File(storm), reconsim.WithController("webapp", setupNaive))
	require.NoError(t, err)
	require.False(t, res.Passed, "the naive variant must fail the storm:\n%s", summary(res))
	failed := map[string]string{}
	for _, e := range res.Expectations {
		if !e.Passed {
			failed[e.Name] = e.Message
		}
	}
	assert.Equal(t, naiveStormFailures, failed, "expectations:\n%s", summary(res))
	quoted := docTextBlocks(t)[1]
	assert.Contains(t, quoted, "✗ status-caught-up ", "docs/operators.md quotes the failure")
	assert.Contains(t, quoted, naiveStormFailures["status-caught-up"], "docs/operators.md quotes the failure")

	// Without the storm the bug does not show: the same variant passes a node failure.
	quiet := filepath.Join(scenarioDir, "webapp-node-failure.yaml")
	res, err = reconsim.Run(context.Background(), reconsim.File(quiet), reconsim.WithController("webapp", setupNaive))
	require.NoError(t, err)
	assert.True(t, res.Passed, "expectations:\n%s", summary(res))
}

// TestSameSeedSameEvents: two runs of a scenario with the operator inside and the same seed
// write the same events.jsonl and the same trace.
func TestSameSeedSameEvents(t *testing.T) {
	f := filepath.Join(scenarioDir, "webapp-conflict-storm.yaml")
	var events [2][]byte
	var hashes [2]string
	for i := range events {
		dir := t.TempDir()
		res, err := reconsim.Run(context.Background(), reconsim.File(f), reconsim.WithController("webapp", setup), reconsim.WithOut(dir))
		require.NoError(t, err)
		events[i], err = os.ReadFile(filepath.Join(dir, "events.jsonl"))
		require.NoError(t, err)
		hashes[i] = res.TraceHash
	}
	assert.True(t, bytes.Contains(events[0], []byte(`"webapp-controller"`)), "the operator's Events are recorded")
	assert.Equal(t, string(events[0]), string(events[1]))
	assert.Equal(t, hashes[0], hashes[1])
}

// TestCustomSim builds the example's sim and runs the node-failure scenario with it, as the
// README says: exit status 0, and the report shows the operator's work queue and reconciles.
func TestCustomSim(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "sim")
	build := exec.Command("go", "build", "-o", bin, ".")
	out, err := build.CombinedOutput()
	require.NoError(t, err, "go build: %s", out)

	run := exec.Command(bin, "run", filepath.Join(scenarioDir, "webapp-node-failure.yaml"), "--out", filepath.Join(dir, "out"))
	var stdout, stderr bytes.Buffer
	run.Stdout, run.Stderr = &stdout, &stderr
	require.NoError(t, run.Run(), "sim run: %s\n%s", stdout.String(), stderr.String())
	assert.Contains(t, stdout.String(), "PASSED (6/6 expectations held)")

	// The work queue: the series, and its line (legend "webapp") in the report's work-queue plot.
	res, err := os.ReadFile(filepath.Join(dir, "out", "result.json"))
	require.NoError(t, err)
	assert.Contains(t, string(res), `"workqueue.webapp.depth"`)
	report, err := os.ReadFile(filepath.Join(dir, "out", "report.html"))
	require.NoError(t, err)
	_, plot, ok := strings.Cut(string(report), `<figure id="plot-workqueue">`)
	require.True(t, ok, "report.html has a work-queue plot")
	plot, _, _ = strings.Cut(plot, "</figure>")
	assert.Contains(t, plot, ">webapp</text>", "the work-queue plot has the operator's queue")

	// The reconciles: one trace line each, with its outcome.
	trace, err := os.ReadFile(filepath.Join(dir, "out", "trace.txt"))
	require.NoError(t, err)
	reconciles := 0
	for _, line := range strings.Split(string(trace), "\n") {
		if strings.Contains(line, " webapp reconcile default/shop ") {
			reconciles++
		}
	}
	assert.Greater(t, reconciles, 5, "the trace shows the operator's reconciles")
	assert.Contains(t, string(trace), "webapp-controller event WebApp default/shop Normal Created: created Deployment shop")

	// docs/operators.md quotes this run: each line it shows is a line of the output or the trace.
	lines := map[string]bool{}
	for _, l := range strings.Split(stdout.String()+string(trace), "\n") {
		lines[l] = true
	}
	for _, l := range strings.Split(strings.TrimSuffix(docTextBlocks(t)[0], "\n"), "\n") {
		assert.True(t, lines[l], "docs/operators.md quotes a line the run did not print: %q", l)
	}
}

// naiveStormFailures are the expectations NaiveStatusReconciler fails on the conflict storm,
// with their messages: the status is stuck where the storm found it.
var naiveStormFailures = map[string]string{
	"status-caught-up": "field-equals never held in the window; last: WebApp default/shop has .status.readyReplicas = 3 (want 5)",
}
