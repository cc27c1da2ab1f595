package sweep

import (
	"math"

	"github.com/reconsim/reconsim/report"
)

// value extracts the metric from a run's result. ok is false when the run has no value for
// it: a convergence that never happened (or an entry that never ran), an expectation or a
// series the run did not record. An Event recorded with Count n counts n times (the
// recorder aggregates repeats into one Event).
func (m Metric) value(res *report.Result) (v float64, ok bool) {
	switch m.Kind() {
	case "convergence":
		for _, c := range res.Convergence {
			if c.Name == m.Convergence && c.Seconds != nil {
				return *c.Seconds, true
			}
		}
		return 0, false
	case "expectation":
		for _, e := range res.Expectations {
			if e.Name == m.Expectation {
				if e.Passed {
					return 1, true
				}
				return 0, true
			}
		}
		return 0, false
	case "series":
		for _, s := range res.Series {
			if s.Name == m.Series.Name {
				return seriesAggregate(s.Points, m.Series.Aggregate, res.VirtualSeconds)
			}
		}
		return 0, false
	case "virtualSeconds":
		return res.VirtualSeconds, true
	case "eventsProcessed":
		return float64(res.EventsProcessed), true
	case "events":
		n := 0.0
		for _, e := range res.Events {
			if e.Reason == m.Events {
				n += float64(max(e.Count, 1))
			}
		}
		return n, true
	}
	return 0, false
}

// seriesAggregate aggregates a step series (each value holds until the next point, the last
// until end). max, min and last look at the points; integral is Σ value × how long it held,
// from the first point to end; mean is the integral divided by that span (the last value
// when the span is empty). ok is false for a series without points. Products are rounded
// before they are summed (an explicit conversion), so no machine fuses them into an FMA and
// every machine gives the same bits.
func seriesAggregate(points []report.Point, aggregate string, end float64) (float64, bool) {
	if len(points) == 0 {
		return 0, false
	}
	switch aggregate {
	case "max":
		v := math.Inf(-1)
		for _, p := range points {
			v = math.Max(v, p.V)
		}
		return v, true
	case "min":
		v := math.Inf(1)
		for _, p := range points {
			v = math.Min(v, p.V)
		}
		return v, true
	case "last":
		return points[len(points)-1].V, true
	}
	integral := 0.0
	for i, p := range points {
		next := end
		if i+1 < len(points) {
			next = points[i+1].T
		}
		if next > p.T {
			integral += float64(p.V * (next - p.T))
		}
	}
	if aggregate == "integral" {
		return integral, true
	}
	span := end - points[0].T
	if span <= 0 {
		return points[len(points)-1].V, true
	}
	return integral / span, true
}
