package cluster

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/reconsim/reconsim/report"
	"github.com/reconsim/reconsim/scenarios"
)

// checkedRun is Run with the world's invariants checked: a test whose run broke one fails,
// whatever else it asserts. Each run reports to its own test (no shared state), so parallel
// subtests do not mix their violations.
func checkedRun(t testing.TB, scn *scenarios.Scenario, opts Options) (*report.Result, error) {
	t.Helper()
	opts.invariantViolations = func(v []string) {
		if len(v) > 0 {
			t.Errorf("invariant violations:\n  %s", strings.Join(v, "\n  "))
		}
	}
	return Run(context.Background(), scn, opts)
}

// parseScenario parses a test scenario (test.yaml in its errors) whose controllers may name
// the extra ones.
func parseScenario(t *testing.T, text string, extra ...string) *scenarios.Scenario {
	t.Helper()
	scn, _, err := scenarios.ParseWith("test.yaml", []byte(text), "", scenarios.ParseOptions{Controllers: extra})
	require.NoError(t, err)
	return scn
}

// runYAML parses text as the scenario file name.yaml, applies the --set overrides and runs it
// with checkedRun; a parse or run error fails the test.
func runYAML(t *testing.T, name, text string, set ...string) *report.Result {
	t.Helper()
	return runParsed(t, parseYAML(t, name, text), Options{}, set...)
}

// parseYAML parses text as the scenario file name.yaml.
func parseYAML(t *testing.T, name, text string) *scenarios.Scenario {
	t.Helper()
	scn, _, err := scenarios.Parse(name+".yaml", []byte(text), ".")
	require.NoError(t, err)
	return scn
}

// runBuiltin loads a built-in scenario, applies overrides and runs it (recording its trace in
// trace when that is not nil).
func runBuiltin(t *testing.T, name string, trace *bytes.Buffer, overrides ...string) *report.Result {
	t.Helper()
	opts := Options{}
	if trace != nil {
		opts.Trace = trace
	}
	return runParsed(t, loadBuiltin(t, name), opts, overrides...)
}

// runParsed applies the --set overrides to scn and runs it with checkedRun and opts; an error
// fails the test.
func runParsed(t *testing.T, scn *scenarios.Scenario, opts Options, set ...string) *report.Result {
	t.Helper()
	for _, s := range set {
		o, err := scenarios.ParseOverride(s)
		require.NoError(t, err)
		opts.Overrides = append(opts.Overrides, o)
	}
	require.NoError(t, scn.Apply(opts.Overrides))
	res, err := checkedRun(t, scn, opts)
	require.NoError(t, err)
	return res
}

// loadBuiltin parses a built-in scenario.
func loadBuiltin(t testing.TB, name string) *scenarios.Scenario {
	t.Helper()
	file, data, dir, err := scenarios.Resolve(name)
	require.NoError(t, err)
	scn, _, err := scenarios.Parse(file, data, dir)
	require.NoError(t, err)
	return scn
}

// series returns the points of the run's series name, failing the test when there is none.
func series(t *testing.T, res *report.Result, name string) []report.Point {
	t.Helper()
	for _, s := range res.Series {
		if s.Name == name {
			return s.Points
		}
	}
	t.Fatalf("no series %s", name)
	return nil
}

// valueAt is the series' value at sec (the last point at or before it), or before when the
// series starts later.
func valueAt(points []report.Point, sec, before float64) float64 {
	v := before
	for _, p := range points {
		if p.T <= sec {
			v = p.V
		}
	}
	return v
}

// pointValues lists the series' values in time order.
func pointValues(points []report.Point) []float64 {
	var out []float64
	for _, p := range points {
		out = append(out, p.V)
	}
	return out
}
