package sweep

import (
	_ "embed"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reconsim/reconsim/scenarios"
)

// validSpec is a sweep every parse test starts from; line numbers in the tests below refer
// to the variants built from it.
//
//go:embed testdata/valid-spec.yaml
var validSpec string

func parseString(t *testing.T, src string) (*Spec, error) {
	t.Helper()
	spec, _, err := Parse("sweep.yaml", []byte(src), "")
	return spec, err
}

func TestParseValid(t *testing.T) {
	spec, err := parseString(t, validSpec)
	require.NoError(t, err)
	assert.Equal(t, "test", spec.Name)
	assert.Equal(t, "node-failure", spec.ScenarioPath)
	assert.Len(t, spec.ScenarioSHA256, 64)
	assert.Equal(t, []Parameter{
		{Key: "kube-controller-manager.node-monitor-grace-period", Type: "duration", Values: []string{"20s", "40s"}},
		{Key: "kube-apiserver.default-unreachable-toleration-seconds", Type: "int", Values: []string{"30", "60", "90"}},
	}, spec.Parameters)
	assert.Equal(t, []uint64{1, 2, 3}, spec.Seeds)
	assert.Equal(t, []Metric{
		{Name: "recovery", Convergence: "crash"},
		{Name: "peak", Series: &SeriesMetric{Name: "pods.pending", Aggregate: "max"}},
	}, spec.Metrics)
	require.Len(t, spec.Expect, 1)
	x := spec.Expect[0]
	assert.Equal(t, "recovery p95 <= 8m", x.Name)
	assert.Equal(t, AtEveryPoint, x.At)
	require.NotNil(t, x.Percentile)
	require.NotNil(t, x.Max)
	assert.Equal(t, 95.0, *x.Percentile)
	assert.Equal(t, 480.0, *x.Max)
	assert.Nil(t, x.Min)
}

func TestParseValueForms(t *testing.T) {
	tests := []struct {
		name   string
		values string
		key    string
		want   []string
		log    bool
	}{
		{"list kept as written", "[1m, 90s]", "kube-controller-manager.node-monitor-grace-period", []string{"1m", "90s"}, false},
		{"duration range", "{range: {from: 10s, to: 1m, step: 25s}}", "kube-controller-manager.node-monitor-grace-period", []string{"10s", "35s", "1m"}, false},
		{"float range without float noise", "{range: {from: 0.1, to: 0.5, step: 0.1}}", "kube-controller-manager.node-eviction-rate", []string{"0.1", "0.2", "0.3", "0.4", "0.5"}, false},
		{"int log range", "{logRange: {from: 1, to: 1000, count: 4}}", "kube-controller-manager.kube-api-burst", []string{"1", "10", "100", "1000"}, true},
		{"float log range, 3 significant digits", "{logRange: {from: 1, to: 100, count: 5}}", "kube-controller-manager.kube-api-qps", []string{"1", "3.16", "10", "31.6", "100"}, true},
		{"duration log range", "{logRange: {from: 1s, to: 100s, count: 3}}", "kube-controller-manager.node-monitor-grace-period", []string{"1s", "10s", "1m40s"}, true},
		{"scenario field duration", "[15m, 20m]", "duration", []string{"15m", "20m"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := strings.Replace(validSpec,
				"  kube-apiserver.default-unreachable-toleration-seconds: {range: {from: 30, to: 90, step: 30}}\n",
				"  "+tt.key+": "+tt.values+"\n", 1)
			src = strings.Replace(src, "  kube-controller-manager.node-monitor-grace-period: [20s, 40s]\n", "", 1)
			spec, err := parseString(t, src)
			require.NoError(t, err)
			require.Len(t, spec.Parameters, 1)
			assert.Equal(t, tt.want, spec.Parameters[0].Values)
			assert.Equal(t, tt.log, spec.Parameters[0].Log)
		})
	}
}

func TestParseSeedsAndSample(t *testing.T) {
	src := strings.Replace(validSpec, "seeds: 3\n", "seeds: [7, 3, 11]\nsample: {count: 4, seed: 9}\n", 1)
	spec, err := parseString(t, src)
	require.NoError(t, err)
	assert.Equal(t, []uint64{7, 3, 11}, spec.Seeds)
	assert.Equal(t, &Sample{Count: 4, Seed: 9}, spec.Sample)
}

// TestParseErrors checks that each problem is reported at its file:line:col with its path,
// message and hint.
func TestParseErrors(t *testing.T) {
	tests := []struct {
		name    string
		old     string // replaced in validSpec by new
		new     string
		wantErr []string
	}{
		{"unknown top-level key", "seeds: 3\n", "seeds: 3\nparamters: {}\n",
			[]string{`sweep.yaml:9:1: paramters: unknown field "paramters" (did you mean "parameters"?)`}},
		{"wrong kind", "kind: Sweep\n", "kind: Scenario\n",
			[]string{`sweep.yaml:2:7: kind: expected kind Sweep, got "Scenario" (this is a scenario; run it with`}},
		{"unknown apiVersion", "apiVersion: reconsim.dev/v1alpha1\n", "apiVersion: reconsim.dev/v2\n",
			[]string{`sweep.yaml:1:13: apiVersion: unsupported apiVersion "reconsim.dev/v2" (apiVersion: reconsim.dev/v1alpha1)`}},
		{"missing name", "name: test\n", "",
			[]string{`sweep.yaml:1:1: name: missing name`}},
		{"unknown scenario with a hint", "scenario: node-failure\n", "scenario: node-falure\n",
			[]string{`sweep.yaml:4:11: scenario: no built-in scenario is called "node-falure" (did you mean "node-failure"? built-in scenarios: `}},
		{"scenario that does not exist", "scenario: node-failure\n", "scenario: hpa-flaping\n",
			[]string{`sweep.yaml:4:11: scenario: no built-in scenario is called "hpa-flaping" (did you mean "hpa-flapping"? built-in scenarios: `, "a scenario file is named by its path relative to this file, ending in .yaml)"}},
		{"missing scenario file", "scenario: node-failure\n", "scenario: nothere.yaml\n",
			[]string{`sweep.yaml:4:11: scenario: cannot read the scenario file nothere.yaml: no such file or directory`}},
		{"unknown parameter key", "kube-controller-manager.node-monitor-grace-period: [20s, 40s]", "kube-controller-manager.node-monitor-grace-perid: [20s, 40s]",
			[]string{`sweep.yaml:6:3: parameters.kube-controller-manager.node-monitor-grace-perid: unknown key "kube-controller-manager.node-monitor-grace-perid" (did you mean "kube-controller-manager.node-monitor-grace-period"?)`}},
		{"seed as a parameter", "kube-controller-manager.node-monitor-grace-period: [20s, 40s]", "seed: [1, 2]",
			[]string{`sweep.yaml:6:3: parameters.seed: seed cannot be a parameter (list the seeds under seeds:`}},
		{"value the scenario refuses", "[20s, 40s]", "[20s, soon]",
			[]string{`sweep.yaml:6:60: parameters.kube-controller-manager.node-monitor-grace-period[1]: value "soon": want a duration such as 30s, 5m or 1h30m, got "soon" (kube-controller-manager.node-monitor-grace-period is a duration such as 30s or 5m; the default is 50s)`}},
		{"duplicate value", "[20s, 40s]", "[20s, 20s]",
			[]string{`sweep.yaml:6:60: parameters.kube-controller-manager.node-monitor-grace-period[1]: duplicate value "20s" (first at line 6, column 55)`}},
		{"range on a string parameter", "kube-controller-manager.node-monitor-grace-period: [20s, 40s]", "simulator.upstream-version: {range: {from: 1, to: 2, step: 1}}",
			[]string{`sweep.yaml:6:31: parameters.simulator.upstream-version.range: a range needs a duration or numeric parameter; this one is a string (list the values instead)`}},
		{"range step zero", "step: 30}", "step: 0}",
			[]string{`sweep.yaml:7:91: parameters.kube-apiserver.default-unreachable-toleration-seconds.range.step: step must be greater than 0`}},
		{"range bound of the wrong type", "from: 30,", "from: 30s,",
			[]string{`sweep.yaml:7:73: parameters.kube-apiserver.default-unreachable-toleration-seconds.range.from: expected an integer, got a string "30s"`}},
		{"range without step", ", step: 30}", "}",
			[]string{`sweep.yaml:7:58: parameters.kube-apiserver.default-unreachable-toleration-seconds.range: a range needs from, to and step`}},
		{"both range and logRange", "{range: {from: 30, to: 90, step: 30}}", "{range: {from: 30, to: 90, step: 30}, logRange: {from: 1, to: 2, count: 2}}",
			[]string{`sweep.yaml:7:58: parameters.kube-apiserver.default-unreachable-toleration-seconds: both range and logRange are set (use one of them)`}},
		{"log range that rounds to duplicates", "{range: {from: 30, to: 90, step: 30}}", "{logRange: {from: 1, to: 3, count: 5}}",
			[]string{`sweep.yaml:7:93: parameters.kube-apiserver.default-unreachable-toleration-seconds.logRange.count: the values round to only 3 distinct ones: 1, 2, 3 (lower count or widen the range)`}},
		{"no seeds", "seeds: 3\n", "seeds: 0\n",
			[]string{`sweep.yaml:8:8: seeds: the seed count must be between 1 and 100000, got 0`}},
		{"duplicate seeds", "seeds: 3\n", "seeds: [1, 2, 1]\n",
			[]string{`sweep.yaml:8:15: seeds[2]: duplicate seed 1 (first at line 8, column 9)`}},
		{"unknown timeline entry", "{convergence: crash}", "{convergence: crsh}",
			[]string{`sweep.yaml:10:27: metrics.recovery.convergence: scenario node-failure has no timeline entry called "crsh" (did you mean "crash"?)`}},
		{"unknown scenario expectation", "{convergence: crash}", "{expectation: recoverd}",
			[]string{`sweep.yaml:10:27: metrics.recovery.expectation: scenario node-failure has no expectation called "recoverd" (did you mean "recovered"?)`}},
		{"metric with two kinds", "{convergence: crash}", "{convergence: crash, virtualSeconds: true}",
			[]string{`sweep.yaml:10:13: metrics.recovery: a metric has exactly one of convergence, expectation, series, virtualSeconds, eventsProcessed, events; this one has 2`}},
		{"unknown metric field", "{convergence: crash}", "{convergense: crash}",
			[]string{`sweep.yaml:10:14: metrics.recovery.convergense: unknown field "convergense" (did you mean "convergence"?)`}},
		{"unknown aggregate", "aggregate: max}", "aggregate: maximum}",
			[]string{`sweep.yaml:11:50: metrics.peak.series.aggregate: unknown aggregate "maximum" (one of max, min, mean, last, integral)`}},
		{"expectation on an unknown metric", "{metric: recovery, percentile: 95, max: 8m}", "{metric: recovry, percentile: 95, max: 8m}",
			[]string{`sweep.yaml:13:12: expect[0].metric: no metric called "recovry" (did you mean "recovery"?)`}},
		{"percentile out of range", "percentile: 95", "percentile: 120",
			[]string{`sweep.yaml:13:34: expect[0].percentile: a percentile is between 0 and 100, got 120`}},
		{"expectation without a bound", ", max: 8m}", "}",
			[]string{`sweep.yaml:13:3: expect[0]: no bound (max: 8m, min: 0.5, or both)`}},
		{"bad duration bound", "max: 8m}", "max: eight}",
			[]string{`sweep.yaml:13:43: expect[0].max: invalid duration "eight" (a duration such as "8m" or "90s", or a number of seconds)`}},
		{"pass rate with a metric", "{metric: recovery, percentile: 95, max: 8m}", "{metric: recovery, passRate: {min: 0.9}}",
			[]string{`sweep.yaml:13:3: expect[0]: passRate takes no metric or statistic, and its bounds go inside it (passRate: {min: 0.99})`}},
		{"pass rate above 1", "{metric: recovery, percentile: 95, max: 8m}", "{passRate: {min: 99}}",
			[]string{`sweep.yaml:13:20: expect[0].passRate.min: a pass rate is between 0 and 1, got 99 (0.99 means 99% of the runs)`}},
		{"unknown at", "max: 8m}", "max: 8m, at: everywhere}",
			[]string{`sweep.yaml:13:51: expect[0].at: unknown at "everywhere" (every-point (each grid point must hold it) or overall (all runs together))`}},
		{"sample larger than the grid", "seeds: 3\n", "seeds: 3\nsample: {count: 10}\n",
			[]string{`sweep.yaml:9:9: sample.count: sample.count is 10 but the grid has only 6 points (remove sample: to run every point)`}},
		{"merge keys in parameters", "parameters:\n", "parameters:\n  <<: {duration: [10m]}\n",
			[]string{`sweep.yaml:6:3: parameters: merge keys (<<) are not supported here`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Contains(t, validSpec, tt.old, "the test's old text must be in validSpec")
			_, err := parseString(t, strings.Replace(validSpec, tt.old, tt.new, 1))
			require.Error(t, err)
			var errs Errors
			require.ErrorAs(t, err, &errs)
			for _, want := range tt.wantErr {
				assert.Contains(t, err.Error(), want)
			}
		})
	}
}

// TestParseReportsEveryProblemAtOnce checks that problems in different parts of the file
// come back together, sorted by position.
func TestParseReportsEveryProblemAtOnce(t *testing.T) {
	src := strings.NewReplacer(
		"kind: Sweep", "kind: Swep",
		"[20s, 40s]", "[20s, later]",
		"seeds: 3", "seeds: -1",
		"{convergence: crash}", "{convergence: crush}",
		"percentile: 95", "percentile: 101",
	).Replace(validSpec)
	_, err := parseString(t, src)
	var errs Errors
	require.ErrorAs(t, err, &errs)
	var lines []int
	for _, e := range errs {
		lines = append(lines, e.Pos.Line)
	}
	assert.Equal(t, []int{2, 6, 8, 10, 13}, lines, "one problem per broken line, in order:\n%v", err)
}

func TestParseNeverPanicsOnJunk(t *testing.T) {
	for _, src := range []string{"", "---\n", "[1, 2]", "a: [", "apiVersion: {x: 1}\nkind: [1]\nname: 5\nparameters: 3\nseeds: {}\nmetrics: [1]\nexpect: 5\n",
		"parameters: {a.b: {range: {}}}\nmetrics: {m: 5}\nexpect: [{}]\n", "a: &x [*x]\n"} {
		_, err := parseString(t, src)
		assert.Error(t, err, "%q", src)
	}
}

func TestLoadResolvesScenarioRelativeToTheSweepFile(t *testing.T) {
	dir := t.TempDir()
	scn, ok := builtinSource(t, "node-failure")
	require.True(t, ok)
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "scn"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "scn", "mine.yaml"), scn, 0o644))
	sweepFile := filepath.Join(dir, "sweeps", "s.yaml")
	require.NoError(t, os.MkdirAll(filepath.Dir(sweepFile), 0o755))
	src := strings.Replace(validSpec, "scenario: node-failure", "scenario: ../scn/mine.yaml", 1)
	require.NoError(t, os.WriteFile(sweepFile, []byte(src), 0o644))
	_, _, err := Load(sweepFile)
	require.ErrorContains(t, err, `scenario: "../scn/mine.yaml" is outside the sweep file's directory`, "a path outside needs --allow-outside-paths")
	spec, _, err := LoadWithOptions(sweepFile, scenarios.ParseOptions{AllowOutsidePaths: true})
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(dir, "scn", "mine.yaml"), spec.ScenarioPath)
	assert.Equal(t, sweepFile, spec.File)
}
