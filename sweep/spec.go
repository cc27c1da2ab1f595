package sweep

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/reconsim/reconsim/report"
	"github.com/reconsim/reconsim/scenarios"
)

// The apiVersion and kind every sweep file declares.
const (
	APIVersion = "reconsim.dev/v1alpha1"
	Kind       = "Sweep"
)

// Format versions of the files a sweep writes (docs/sweep.md). A change that breaks readers
// gets a new version string; adding a field does not.
const (
	// SchemaVersion names the sweep.json format.
	SchemaVersion = "reconsim.dev/sweep/v1"
	// RunSchemaVersion names the format of runs/<id>/run.json.
	RunSchemaVersion = "reconsim.dev/sweep-run/v1"
	// ShardSchemaVersion names the format of a shard's shard.json.
	ShardSchemaVersion = "reconsim.dev/sweep-shard/v1"
)

// Limits of the sweep format. Parse checks every one, so a parsed Spec never asks for more.
const (
	// MaxFileBytes is the largest sweep file.
	MaxFileBytes = 1 << 20
	// MaxParameters is the most parameters a sweep may vary.
	MaxParameters = 10
	// MaxValuesPerParameter is the most values one parameter may take.
	MaxValuesPerParameter = 10_000
	// MaxPoints is the most grid points a sweep may have (after sampling).
	MaxPoints = 100_000
	// MaxGridPoints is the largest grid a sample may be drawn from.
	MaxGridPoints = 10_000_000
	// MaxSeeds is the most seeds per grid point.
	MaxSeeds = 100_000
	// MaxRuns is the most runs a sweep may have (points times seeds).
	MaxRuns = 1_000_000
	// MaxMetrics and MaxExpectations bound those lists.
	MaxMetrics      = 50
	MaxExpectations = 100
	// BootstrapResamples is how many resamples the confidence interval of a median uses.
	BootstrapResamples = 1000
)

// Spec is a parsed and validated sweep: what to run and what to collect. Parse and Load
// return one ready to Run; a Spec read back from sweep.json or shard.json (Merge does that)
// describes the same sweep but cannot be run, since it does not hold the scenario's source.
type Spec struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	// Scenario is the scenario as the sweep file names it: a built-in scenario's name, or a
	// path relative to the sweep file.
	Scenario string `json:"scenario"`
	// ScenarioPath is what `sim run` takes to run the same scenario: the built-in name, or the
	// path joined to the sweep file's directory. Reproduce commands use it.
	ScenarioPath string `json:"scenarioPath"`
	// ScenarioSHA256 is the SHA-256 of the scenario's source, in hex.
	ScenarioSHA256 string `json:"scenarioSHA256"`
	// Parameters are the overrides varied, in file order; the grid is their product.
	Parameters []Parameter `json:"parameters"`
	// Seeds are the seeds every grid point runs with, in order.
	Seeds []uint64 `json:"seeds"`
	// Sample, when set, runs only Count grid points drawn at random (see Plan).
	Sample *Sample `json:"sample,omitempty"`
	// Metrics are collected from every run, in file order.
	Metrics []Metric `json:"metrics"`
	// Expect are the sweep-level expectations; they decide whether the sweep passes.
	Expect []Expectation `json:"expect"`
	// File is the sweep file as it was given.
	File string `json:"file"`

	// The scenario's source, parsed afresh for every run so runs share nothing.
	scenarioFile    string
	scenarioData    []byte
	scenarioBaseDir string
	// scenarioOpts are the options the scenario is parsed with.
	scenarioOpts scenarios.ParseOptions
}

// Parameter is one varied override: a `--set` key and the values it takes, in order.
type Parameter struct {
	Key string `json:"key"`
	// Type is the key's value type: duration, int, float, bool, string or dist (the
	// component flag's type; duration for the scenario fields duration and stop.quiescence,
	// int for stop.maxEvents).
	Type string `json:"type"`
	// Values are written as on the command line.
	Values []string `json:"values"`
	// Log is true when the values came from a logRange; plots then use a log axis.
	Log bool `json:"log,omitempty"`
}

// Sample draws Count grid points at random, from a stream seeded with Seed.
type Sample struct {
	Count int    `json:"count"`
	Seed  uint64 `json:"seed"`
}

// Metric is one number collected from each run. Exactly one of the kind fields is set.
type Metric struct {
	Name string `json:"name"`
	// Convergence: seconds from the named timeline entry ("start" for the start of the run)
	// until the world converged; no value if it never did (or the entry never ran).
	Convergence string `json:"convergence,omitempty"`
	// Expectation: 1 if the scenario's named expectation held, else 0; its mean over runs is
	// the expectation's pass rate.
	Expectation string `json:"expectation,omitempty"`
	// Series: an aggregate of a recorded time series; no value if the run did not record it.
	Series *SeriesMetric `json:"series,omitempty"`
	// VirtualSeconds: the virtual time at which the run stopped.
	VirtualSeconds bool `json:"virtualSeconds,omitempty"`
	// EventsProcessed: how many kernel events the run processed.
	EventsProcessed bool `json:"eventsProcessed,omitempty"`
	// Events: how many Kubernetes Events with this reason the run recorded (counting
	// repeats), for example SuccessfulRescale to count an autoscaler's rescales.
	Events string `json:"events,omitempty"`
}

// SeriesMetric aggregates one time series. Series hold their value from one sample to the
// next (they are recorded when they change), so mean and integral weigh each value by how
// long it held, up to the end of the run.
type SeriesMetric struct {
	Name string `json:"name"`
	// Aggregate is max, min, mean (time-weighted), last, or integral (value × seconds).
	Aggregate string `json:"aggregate"`
}

// Series aggregates.
var seriesAggregates = []string{"max", "min", "mean", "last", "integral"}

// Kind returns the metric's kind: convergence, expectation, series, virtualSeconds,
// eventsProcessed or events.
func (m Metric) Kind() string {
	switch {
	case m.Convergence != "":
		return "convergence"
	case m.Expectation != "":
		return "expectation"
	case m.Series != nil:
		return "series"
	case m.VirtualSeconds:
		return "virtualSeconds"
	case m.EventsProcessed:
		return "eventsProcessed"
	case m.Events != "":
		return "events"
	}
	return ""
}

// Unit returns the unit of the metric's values: "seconds", "fraction", "events", or "" when
// unknown (a series).
func (m Metric) Unit() string {
	switch m.Kind() {
	case "convergence", "virtualSeconds":
		return "seconds"
	case "expectation":
		return "fraction"
	case "eventsProcessed", "events":
		return "events"
	}
	return ""
}

// Describe says in a few words what the metric measures, for reports.
func (m Metric) Describe() string {
	switch m.Kind() {
	case "convergence":
		return "seconds to converge after " + m.Convergence
	case "expectation":
		return "expectation " + m.Expectation + " held (1) or not (0)"
	case "series":
		return m.Series.Aggregate + " of series " + m.Series.Name
	case "virtualSeconds":
		return "virtual seconds at the end of the run"
	case "eventsProcessed":
		return "kernel events processed"
	case "events":
		return "Kubernetes Events with reason " + m.Events
	}
	return ""
}

// Where an expectation is checked.
const (
	// AtEveryPoint: the statistic must hold at every grid point.
	AtEveryPoint = "every-point"
	// AtOverall: the statistic over all runs together must hold.
	AtOverall = "overall"
)

// Expectation is a sweep-level expectation: a statistic of a metric (or the pass rate of the
// runs) that must lie within Min and Max, at every grid point or overall.
type Expectation struct {
	Name string `json:"name"`
	// Metric names a metric of the sweep; empty when PassRate is set.
	Metric string `json:"metric,omitempty"`
	// PassRate: the statistic is the fraction of runs that passed (every scenario
	// expectation held and the run did not fail).
	PassRate bool `json:"passRate,omitempty"`
	// Percentile (0 to 100) selects that percentile of the metric; otherwise Stat is mean,
	// min or max. Neither is set with PassRate.
	Percentile *float64 `json:"percentile,omitempty"`
	Stat       string   `json:"stat,omitempty"`
	// Min and Max bound the statistic (at least one is set), in the metric's unit (seconds
	// for durations).
	Min *float64 `json:"min,omitempty"`
	Max *float64 `json:"max,omitempty"`
	// At is AtEveryPoint or AtOverall.
	At string `json:"at"`
	// Finding marks a bound the sweep is expected to break somewhere: the points (or runs)
	// past it are what the sweep shows, not a failure. A finding fails the sweep only when it
	// holds everywhere (the finding is gone).
	Finding bool `json:"finding,omitempty"`
}

// statLabel names the statistic: "p95", "mean", "pass rate".
func (e Expectation) statLabel() string {
	switch {
	case e.PassRate:
		return "pass rate"
	case e.Percentile != nil:
		return "p" + formatNumber(*e.Percentile)
	}
	return e.Stat
}

// runHash identifies what the runs of a sweep compute: the simulator version, the scenario,
// the parameters, seeds, sample and metrics. A run.json whose hash differs belongs to
// another sweep and is not reused by Resume; shards with different hashes cannot be merged.
func (s *Spec) runHash() string {
	h := sha256.New()
	enc := json.NewEncoder(h)
	// Encoding these plain values cannot fail.
	_ = enc.Encode(struct {
		SimulatorVersion string      `json:"simulatorVersion"`
		ScenarioSHA256   string      `json:"scenarioSHA256"`
		Parameters       []Parameter `json:"parameters"`
		Seeds            []uint64    `json:"seeds"`
		Sample           *Sample     `json:"sample"`
		Metrics          []Metric    `json:"metrics"`
	}{report.SimulatorVersion, s.ScenarioSHA256, s.Parameters, s.Seeds, s.Sample, s.Metrics})
	return hex.EncodeToString(h.Sum(nil))
}

// sameSweep reports whether a and b describe the same sweep apart from where the files were
// (File and ScenarioPath), which may differ between the machines that ran the shards.
func sameSweep(a, b *Spec) bool {
	ca, cb := *a, *b
	ca.File, cb.File, ca.ScenarioPath, cb.ScenarioPath = "", "", "", ""
	ja, errA := json.Marshal(&ca)
	jb, errB := json.Marshal(&cb)
	return errA == nil && errB == nil && string(ja) == string(jb)
}

// runnable reports whether s holds the scenario source Run needs.
func (s *Spec) runnable() bool { return s.scenarioData != nil }

// reproduce is the `sim run` command line that reruns one run of the sweep exactly.
func (s *Spec) reproduce(values []string, seed uint64) string {
	parts := []string{"sim", "run", report.ShellQuote(s.ScenarioPath), "--seed", fmt.Sprint(seed)}
	for i, p := range s.Parameters {
		parts = append(parts, "--set", report.ShellQuote(p.Key+"="+values[i]))
	}
	return strings.Join(parts, " ")
}
