package sweep

import (
	"fmt"
	"math"
	"strings"

	"github.com/reconsim/reconsim/report"
)

// Result is a whole sweep's result, written as sweep.json (SchemaVersion). It depends only on
// the spec, the scenario and the simulator version: nothing in it says how the runs were
// scheduled, sharded or resumed, or how long they took.
type Result struct {
	SchemaVersion    string `json:"schemaVersion"`
	SimulatorVersion string `json:"simulatorVersion"`
	// Spec echoes the sweep, with ranges expanded and defaults filled in.
	Spec *Spec `json:"spec"`
	// TotalRuns counts every run; FailedRuns the ones that failed (panic, limit, refused);
	// PassedRuns the ones in which every scenario expectation held.
	TotalRuns  int `json:"totalRuns"`
	FailedRuns int `json:"failedRuns"`
	PassedRuns int `json:"passedRuns"`
	// Passed is true when every sweep-level expectation held and no run failed. It sets
	// `sim sweep`'s exit status.
	Passed bool `json:"passed"`
	// Expectations are the sweep-level expectations' outcomes, in spec order.
	Expectations []ExpectationResult `json:"expectations"`
	// Points summarize each grid point, in plan order.
	Points []PointResult `json:"points"`
	// Runs are every run, in run order.
	Runs []RunRecord `json:"runs"`
}

// ExpectationResult is the outcome of one sweep-level expectation.
type ExpectationResult struct {
	Name   string `json:"name"`
	At     string `json:"at"`
	Passed bool   `json:"passed"`
	// FailingPoints are the IDs of the points where it did not hold (at every-point).
	FailingPoints []string `json:"failingPoints"`
	// Value is the statistic over all runs (at overall); null otherwise, or when there is
	// none (no completed run) or it is infinite.
	Value *float64 `json:"value"`
	// FailingSeeds are the seeds of the runs beyond the bounds (at overall).
	FailingSeeds []uint64 `json:"failingSeeds"`
	Message      string   `json:"message"`
	// Finding echoes the expectation's finding: a bound the sweep is expected to break. Passed
	// still says whether the bound held; a finding that did not hold does not fail the sweep.
	Finding bool `json:"finding,omitempty"`
}

// Findings returns the finding expectations whose bound did not hold: what the sweep shows.
func (r *Result) Findings() []ExpectationResult {
	var out []ExpectationResult
	for _, e := range r.Expectations {
		if e.Finding && !e.Passed {
			out = append(out, e)
		}
	}
	return out
}

// PointResult summarizes the runs of one grid point.
type PointResult struct {
	ID         string       `json:"id"`
	Parameters []ParamValue `json:"parameters"`
	Runs       int          `json:"runs"`
	FailedRuns int          `json:"failedRuns"`
	PassedRuns int          `json:"passedRuns"`
	// PassRate is PassedRuns/Runs.
	PassRate float64 `json:"passRate"`
	// Metrics are the aggregates of each metric, in spec order.
	Metrics []MetricAggregate `json:"metrics"`
	// Expectations are the outcomes of the every-point expectations at this point.
	Expectations []PointExpectation `json:"expectations"`
	// Passed is true when every every-point expectation held here and no run failed.
	Passed bool `json:"passed"`
}

// MetricAggregate is one metric's Aggregate at a point.
type MetricAggregate struct {
	Metric string `json:"metric"`
	Aggregate
}

// PointExpectation is the outcome of an every-point expectation at one point.
type PointExpectation struct {
	Name   string `json:"name"`
	Passed bool   `json:"passed"`
	// Value is the statistic; null when there is none or it is infinite.
	Value *float64 `json:"value"`
	// FailingSeeds are the seeds of the runs beyond the bounds: with a metric value (or
	// none) outside them, or, for a pass rate, that did not pass.
	FailingSeeds []uint64 `json:"failingSeeds"`
	Message      string   `json:"message"`
}

// assemble builds the Result from the runs' records (in run order).
func assemble(spec *Spec, plan *Plan, runs []RunRecord) *Result {
	res := &Result{
		SchemaVersion: SchemaVersion, SimulatorVersion: report.SimulatorVersion, Spec: spec,
		TotalRuns: len(runs), Runs: runs, Expectations: []ExpectationResult{}, Points: []PointResult{},
	}
	byPoint := make([][]*RunRecord, len(plan.Points))
	for i := range runs {
		r := &runs[i]
		pi := plan.Runs[r.Index].Point
		byPoint[pi] = append(byPoint[pi], r)
		if r.Failed() {
			res.FailedRuns++
		}
		if r.Passed {
			res.PassedRuns++
		}
	}
	units := map[string]string{}
	for _, m := range spec.Metrics {
		units[m.Name] = m.Unit()
	}
	for pi, pt := range plan.Points {
		pr := PointResult{ID: pt.ID, Parameters: spec.paramValues(pt.Values), Runs: len(byPoint[pi]),
			Metrics: []MetricAggregate{}, Expectations: []PointExpectation{}}
		for _, r := range byPoint[pi] {
			if r.Failed() {
				pr.FailedRuns++
			}
			if r.Passed {
				pr.PassedRuns++
			}
		}
		if pr.Runs > 0 {
			pr.PassRate = float64(pr.PassedRuns) / float64(pr.Runs)
		}
		for _, m := range spec.Metrics {
			values, missing := metricValues(byPoint[pi], m.Name)
			pr.Metrics = append(pr.Metrics, MetricAggregate{Metric: m.Name, Aggregate: summarize(values, missing, bootstrapSeed(pt.ID, m.Name))})
		}
		pr.Passed = pr.FailedRuns == 0
		for _, x := range spec.Expect {
			if x.At != AtEveryPoint {
				continue
			}
			v, seeds, msg, ok := evaluate(x, units[x.Metric], byPoint[pi])
			pr.Expectations = append(pr.Expectations, PointExpectation{Name: x.Name, Passed: ok, Value: finitePtr(v), FailingSeeds: seeds, Message: msg})
			pr.Passed = pr.Passed && (ok || x.Finding)
		}
		res.Points = append(res.Points, pr)
	}
	all := make([]*RunRecord, len(runs))
	for i := range runs {
		all[i] = &runs[i]
	}
	res.Passed = res.FailedRuns == 0
	every := 0 // index of the next every-point expectation in PointResult.Expectations
	for _, x := range spec.Expect {
		er := ExpectationResult{Name: x.Name, At: x.At, FailingPoints: []string{}, FailingSeeds: []uint64{}, Finding: x.Finding}
		if x.At == AtOverall {
			v, seeds, msg, ok := evaluate(x, units[x.Metric], all)
			er.Passed, er.Value, er.FailingSeeds, er.Message = ok, finitePtr(v), seeds, msg
		} else {
			for _, pr := range res.Points {
				if !pr.Expectations[every].Passed {
					er.FailingPoints = append(er.FailingPoints, pr.ID)
				}
			}
			every++
			er.Passed = len(er.FailingPoints) == 0
			er.Message = fmt.Sprintf("held at %d of %d points", len(res.Points)-len(er.FailingPoints), len(res.Points))
		}
		if x.Finding {
			if er.Passed {
				er.Message += "; a finding that did not show: the bound was expected to break"
			} else {
				er.Message += "; a finding: the bound breaks, as expected"
			}
		}
		res.Expectations = append(res.Expectations, er)
		// A finding fails the sweep when it holds everywhere: what it showed is gone.
		res.Passed = res.Passed && er.Passed != x.Finding
	}
	return res
}

// metricValues returns the values of metric among the completed runs, and how many of them
// have none.
func metricValues(runs []*RunRecord, metric string) (values []float64, missing int) {
	for _, r := range runs {
		if r.Failed() {
			continue
		}
		if v := r.Metrics[metric]; v != nil {
			values = append(values, *v)
		} else {
			missing++
		}
	}
	return values, missing
}

// evaluate checks an expectation over runs. It returns the statistic (NaN when there is
// none), the seeds of the runs beyond the bounds, a message and whether it held. Failed runs
// take no part in metric statistics (they are reported as failures of their own) but count
// as not passed in a pass rate.
func evaluate(x Expectation, unit string, runs []*RunRecord) (value float64, failing []uint64, msg string, ok bool) {
	failing = []uint64{}
	if x.PassRate {
		passed := 0
		for _, r := range runs {
			if r.Passed {
				passed++
			} else {
				failing = append(failing, r.Seed)
			}
		}
		if len(runs) == 0 {
			return math.NaN(), failing, "no runs", false
		}
		value = float64(passed) / float64(len(runs))
		ok = within(x, value)
		msg = fmt.Sprintf("pass rate %s (%d of %d runs passed)%s", formatNumber(roundSignificant(value, 6)), passed, len(runs), boundsText(x, unit, ok))
		return value, failing, msg, ok
	}
	var values []float64
	missing := 0
	for _, r := range runs {
		if r.Failed() {
			continue
		}
		v := math.Inf(1)
		if p := r.Metrics[x.Metric]; p != nil {
			v = *p
			values = append(values, v)
		} else {
			missing++
		}
		if (x.Max != nil && v > *x.Max) || (x.Min != nil && v < *x.Min) {
			failing = append(failing, r.Seed)
		}
	}
	label := x.Metric + " " + x.statLabel()
	if len(values)+missing == 0 {
		return math.NaN(), failing, label + ": no completed runs", false
	}
	all := sortedWithMissing(values, missing)
	switch {
	case x.Percentile != nil:
		value = Quantile(all, *x.Percentile/100)
	case x.Stat == "min":
		value = all[0]
	case x.Stat == "max":
		value = all[len(all)-1]
	default:
		if len(values) == 0 {
			return math.NaN(), failing, label + ": no run has a value", false
		}
		value = 0
		for _, v := range values {
			value += v
		}
		value /= float64(len(values))
	}
	ok = within(x, value)
	msg = label + " = " + formatIn(unit, value) + boundsText(x, unit, ok)
	if missing > 0 {
		msg += fmt.Sprintf("; %d of %d runs have no value (counted as ∞)", missing, len(values)+missing)
	}
	return value, failing, msg, ok
}

func within(x Expectation, v float64) bool {
	if math.IsNaN(v) {
		return false
	}
	return (x.Max == nil || v <= *x.Max) && (x.Min == nil || v >= *x.Min)
}

// boundsText says how the value compares with the bounds: ", max 8m: held".
func boundsText(x Expectation, unit string, ok bool) string {
	var parts []string
	if x.Min != nil {
		parts = append(parts, "min "+formatIn(unit, *x.Min))
	}
	if x.Max != nil {
		parts = append(parts, "max "+formatIn(unit, *x.Max))
	}
	verdict := "held"
	if !ok {
		verdict = "FAILED"
	}
	return ", " + strings.Join(parts, ", ") + ": " + verdict
}

// pointRuns returns the runs of the point with the given ID, in run order.
func (r *Result) pointRuns(id string) []RunRecord {
	var out []RunRecord
	for _, rec := range r.Runs {
		if rec.Point == id {
			out = append(out, rec)
		}
	}
	return out
}
