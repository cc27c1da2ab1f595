package sweep

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

func (p *parser) checkMetrics(raw *rawMetrics) {
	if p.overLimit(raw.node, "metrics", len(raw.entries), "metrics", MaxMetrics) {
		return
	}
	for _, e := range raw.entries {
		name := e.key.Value
		path := "metrics." + name
		if !namePattern.MatchString(name) {
			p.errAt(e.key, path, fmt.Sprintf("invalid metric name %q", name), "letters, digits, '.', '_' and '-', starting with a letter or digit")
			continue
		}
		f := e.value.fields
		if e.value.node == nil {
			p.errAt(e.key, path, "no metric given", "e.g. "+name+": {convergence: crash}")
			continue
		}
		set := []bool{f.Convergence.set(), f.Expectation.set(), f.Series != nil, f.VirtualSeconds.set(), f.EventsProcessed.set(), f.Events.set()}
		n := 0
		for _, b := range set {
			if b {
				n++
			}
		}
		if n != 1 {
			if e.value.node.Kind == yaml.MappingNode {
				p.errAt(e.value.node, path, fmt.Sprintf("a metric has exactly one of %s; this one has %d", strings.Join(metricKinds, ", "), n), "")
			}
			continue
		}
		m := Metric{Name: name}
		switch {
		case f.Convergence.set():
			m.Convergence = f.Convergence.V
			p.checkConvergenceTarget(f.Convergence.V, f.Convergence.node, path+".convergence")
		case f.Expectation.set():
			m.Expectation = f.Expectation.V
			p.checkExpectationTarget(f.Expectation.V, f.Expectation.node, path+".expectation")
		case f.Series != nil:
			sr, node := &f.Series.V, f.Series.node
			m.Series = &SeriesMetric{Name: sr.Name.V, Aggregate: sr.Aggregate.V}
			if sr.Name.V == "" {
				p.errAt(node, path+".series.name", "missing series name", "e.g. pods.pending, apiserver.requests_per_second (see result.json's series)")
			}
			switch {
			case !sr.Aggregate.set():
				p.errAt(node, path+".series.aggregate", "missing aggregate", "one of "+strings.Join(seriesAggregates, ", "))
			case !slices.Contains(seriesAggregates, sr.Aggregate.V):
				hint := "one of " + strings.Join(seriesAggregates, ", ")
				if h := didYouMean(sr.Aggregate.V, seriesAggregates); h != "" {
					hint = h
				}
				p.errAt(sr.Aggregate.node, path+".series.aggregate", fmt.Sprintf("unknown aggregate %q", sr.Aggregate.V), hint)
			}
		case f.VirtualSeconds.set():
			if !f.VirtualSeconds.V {
				p.errAt(f.VirtualSeconds.node, path+".virtualSeconds", "virtualSeconds: false collects nothing", "write virtualSeconds: true, or remove the metric")
			}
			m.VirtualSeconds = true
		case f.Events.set():
			m.Events = f.Events.V
			if m.Events == "" {
				p.errAt(f.Events.node, path+".events", "missing event reason", "e.g. SuccessfulRescale, TaintManagerEviction, FailedScheduling")
			}
		case f.EventsProcessed.set():
			if !f.EventsProcessed.V {
				p.errAt(f.EventsProcessed.node, path+".eventsProcessed", "eventsProcessed: false collects nothing", "write eventsProcessed: true, or remove the metric")
			}
			m.EventsProcessed = true
		}
		p.spec.Metrics = append(p.spec.Metrics, m)
	}
}

func (p *parser) checkConvergenceTarget(name string, n *yaml.Node, path string) {
	if p.scenario == nil {
		return
	}
	names := []string{"start"}
	for _, e := range p.scenario.Timeline {
		if e.Name != "" {
			names = append(names, e.Name)
		}
	}
	if slices.Contains(names, name) {
		return
	}
	hint := "timeline entries with a name: " + strings.Join(names, ", ")
	if h := didYouMean(name, names); h != "" {
		hint = h
	}
	p.errAt(n, path, fmt.Sprintf("scenario %s has no timeline entry called %q", p.scenario.Name, name), hint)
}

func (p *parser) checkExpectationTarget(name string, n *yaml.Node, path string) {
	if p.scenario == nil {
		return
	}
	var names []string
	for _, e := range p.scenario.Expect {
		names = append(names, e.Name)
	}
	if slices.Contains(names, name) {
		return
	}
	hint := "its expectations: " + strings.Join(names, ", ")
	if len(names) == 0 {
		hint = "it has none"
	}
	if h := didYouMean(name, names); h != "" {
		hint = h
	}
	p.errAt(n, path, fmt.Sprintf("scenario %s has no expectation called %q", p.scenario.Name, name), hint)
}

const statHint = "percentile: 95, or stat: mean, min, max, median, p50, p90, p95 or p99"

func (p *parser) checkExpect(raw located[[]rawExpect]) {
	if p.overLimit(raw.node, "expect", len(raw.V), "expectations", MaxExpectations) {
		return
	}
	names := map[string]*yaml.Node{}
	for i, e := range raw.V {
		path := fmt.Sprintf("expect[%d]", i)
		f := e.fields
		x := Expectation{At: AtEveryPoint}
		ok := true
		if f.At.set() {
			switch f.At.V {
			case AtEveryPoint, AtOverall:
				x.At = f.At.V
			default:
				hint := "every-point (each grid point must hold it) or overall (all runs together)"
				if h := didYouMean(f.At.V, []string{AtEveryPoint, AtOverall}); h != "" {
					hint = h
				}
				p.errAt(f.At.node, path+".at", fmt.Sprintf("unknown at %q", f.At.V), hint)
				ok = false
			}
		}
		if f.PassRate != nil {
			ok = p.checkPassRate(path, e, &x) && ok
		} else {
			ok = p.checkMetricExpectation(path, e, &x) && ok
		}
		if !ok {
			continue
		}
		x.Name = f.Name.V
		x.Finding = f.Finding.V
		if !f.Name.set() {
			x.Name = defaultExpectationName(x, p.unitOf(x.Metric))
		}
		at := e.node
		if f.Name.set() {
			at = f.Name.node
		}
		if prev, dup := names[x.Name]; dup {
			p.errAt(at, path+".name", fmt.Sprintf("two expectations are called %q (the other at line %d)", x.Name, prev.Line), "give them different names")
			continue
		}
		names[x.Name] = at
		p.spec.Expect = append(p.spec.Expect, x)
	}
}

func (p *parser) checkPassRate(path string, e rawExpect, x *Expectation) bool {
	f := e.fields
	if f.Metric.set() || f.Percentile.set() || f.Stat.set() || f.Min.node != nil || f.Max.node != nil {
		p.errAt(e.node, path, "passRate takes no metric or statistic, and its bounds go inside it", "passRate: {min: 0.99}")
		return false
	}
	pr, node := &f.PassRate.V, f.PassRate.node
	x.PassRate = true
	ok := true
	for _, b := range []struct {
		v    located[float64]
		name string
		dst  **float64
	}{{pr.Min, "min", &x.Min}, {pr.Max, "max", &x.Max}} {
		if !b.v.set() {
			continue
		}
		if b.v.V < 0 || b.v.V > 1 {
			p.errAt(b.v.node, path+".passRate."+b.name, fmt.Sprintf("a pass rate is between 0 and 1, got %s", formatNumber(b.v.V)), "0.99 means 99% of the runs")
			ok = false
			continue
		}
		v := b.v.V
		*b.dst = &v
	}
	if !pr.Min.set() && !pr.Max.set() {
		p.errAt(node, path+".passRate", "no bound", "passRate: {min: 0.99}")
		return false
	}
	return ok
}

func (p *parser) metricByName(name string) (Metric, bool) {
	for _, m := range p.spec.Metrics {
		if m.Name == name {
			return m, true
		}
	}
	return Metric{}, false
}

func (p *parser) unitOf(metric string) string {
	m, _ := p.metricByName(metric)
	return m.Unit()
}

func (p *parser) checkMetricExpectation(path string, e rawExpect, x *Expectation) bool {
	f := e.fields
	ok := true
	if !f.Metric.set() {
		p.errAt(e.node, path, "missing metric", "metric: NAME (a metric of this sweep), or passRate: {min: 0.99}")
		return false
	}
	x.Metric = f.Metric.V
	m, found := p.metricByName(f.Metric.V)
	if !found {
		var names []string
		for _, m := range p.spec.Metrics {
			names = append(names, m.Name)
		}
		hint := "metrics of this sweep: " + strings.Join(names, ", ")
		if len(names) == 0 {
			hint = "define it under metrics:"
		}
		if h := didYouMean(f.Metric.V, names); h != "" {
			hint = h
		}
		p.errAt(f.Metric.node, path+".metric", fmt.Sprintf("no metric called %q", f.Metric.V), hint)
		ok = false
	}
	switch {
	case f.Percentile.set() && f.Stat.set():
		p.errAt(f.Stat.node, path+".stat", "both percentile and stat are set", statHint)
		ok = false
	case f.Percentile.set():
		if f.Percentile.V < 0 || f.Percentile.V > 100 {
			p.errAt(f.Percentile.node, path+".percentile", fmt.Sprintf("a percentile is between 0 and 100, got %s", formatNumber(f.Percentile.V)), "")
			ok = false
		}
		v := f.Percentile.V
		x.Percentile = &v
	case f.Stat.set():
		if pct, isPct := parseStat(f.Stat.V); isPct {
			x.Percentile = &pct
		} else if f.Stat.V == "mean" || f.Stat.V == "min" || f.Stat.V == "max" {
			x.Stat = f.Stat.V
		} else {
			hint := statHint
			if h := didYouMean(f.Stat.V, []string{"mean", "min", "max", "median", "p50", "p90", "p95", "p99"}); h != "" {
				hint = h
			}
			p.errAt(f.Stat.node, path+".stat", fmt.Sprintf("unknown statistic %q", f.Stat.V), hint)
			ok = false
		}
	default:
		p.errAt(e.node, path, "no statistic", statHint)
		ok = false
	}
	unit := m.Unit()
	for _, b := range []struct {
		n    *yaml.Node
		name string
		dst  **float64
	}{{f.Min.node, "min", &x.Min}, {f.Max.node, "max", &x.Max}} {
		if b.n == nil {
			continue
		}
		v, bok := p.bound(b.n, path+"."+b.name, unit)
		if !bok {
			ok = false
			continue
		}
		*b.dst = &v
	}
	if f.Min.node == nil && f.Max.node == nil {
		p.errAt(e.node, path, "no bound", "max: 8m, min: 0.5, or both")
		return false
	}
	if x.Min != nil && x.Max != nil && *x.Min > *x.Max {
		p.errAt(f.Max.node, path+".max", "max is less than min", "")
		ok = false
	}
	return ok
}

// parseStat reads "median" or "pNN" as a percentile.
func parseStat(s string) (float64, bool) {
	if s == "median" {
		return 50, true
	}
	rest, ok := strings.CutPrefix(s, "p")
	if !ok {
		return 0, false
	}
	v, err := strconv.ParseFloat(rest, 64)
	if err != nil || v < 0 || v > 100 || math.IsNaN(v) {
		return 0, false
	}
	return v, true
}

// bound reads a min or max: for a metric in seconds a duration ("8m") or a number of
// seconds, otherwise a number.
func (p *parser) bound(n *yaml.Node, path, unit string) (float64, bool) {
	if n.Kind == yaml.ScalarNode {
		switch n.ShortTag() {
		case "!!int", "!!float":
			v, err := strconv.ParseFloat(n.Value, 64)
			if err == nil && !math.IsNaN(v) && !math.IsInf(v, 0) {
				return v, true
			}
		case "!!str":
			if unit == "seconds" {
				if d, err := time.ParseDuration(strings.TrimSpace(n.Value)); err == nil {
					return d.Seconds(), true
				}
				p.errAt(n, path, fmt.Sprintf("invalid duration %q", n.Value), `a duration such as "8m" or "90s", or a number of seconds`)
				return 0, false
			}
		}
	}
	hint := "a number"
	if unit == "seconds" {
		hint = `a duration such as "8m", or a number of seconds`
	}
	p.errAt(n, path, fmt.Sprintf("expected a bound, got %s", describe(n)), hint)
	return 0, false
}

// defaultExpectationName names an expectation by what it checks: "recovery p95 <= 8m",
// "pass rate >= 0.99".
func defaultExpectationName(x Expectation, unit string) string {
	subject := x.statLabel()
	if !x.PassRate {
		subject = x.Metric + " " + subject
	}
	var cond string
	switch {
	case x.Min != nil && x.Max != nil:
		cond = fmt.Sprintf("in [%s, %s]", formatIn(unit, *x.Min), formatIn(unit, *x.Max))
	case x.Max != nil:
		cond = "<= " + formatIn(unit, *x.Max)
	default:
		cond = ">= " + formatIn(unit, *x.Min)
	}
	return subject + " " + cond
}
