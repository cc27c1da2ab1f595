package cluster

import (
	"fmt"
	"strings"
	"time"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/report"
	"github.com/reconsim/reconsim/scenarios"
	"github.com/reconsim/reconsim/sim"
)

// monitor checks one eventually/always/never condition over its window, at the window's start
// and after every change of the world inside it: conditions only change when the world does,
// so this is exact.
type monitor struct {
	exp     scenarios.Expectation
	kind    string // eventually, always, never
	cond    scenarios.Condition
	window  *scenarios.Window
	started bool
	start   sim.Time
	// outcome
	decided bool
	passed  bool
	message string
	lastVal string
}

type expectations struct {
	w        *world
	tl       *timeline
	monitors []*monitor
}

func newExpectations(w *world, tl *timeline) *expectations {
	ex := &expectations{w: w, tl: tl}
	for _, e := range w.scn.Expect {
		var ce *scenarios.ConditionExpectation
		kind := e.Kind()
		switch kind {
		case "eventually":
			ce = e.Eventually
		case "always":
			ce = e.Always
		case "never":
			ce = e.Never
		default:
			continue
		}
		ex.monitors = append(ex.monitors, &monitor{exp: e, kind: kind, cond: ce.Condition, window: ce.Within})
	}
	return ex
}

// windowStart returns when m's window opens, and whether that is known yet.
func (ex *expectations) windowStart(m *monitor) (sim.Time, bool) {
	if m.window == nil {
		return 0, true
	}
	r := ex.tl.recordFor(m.window.After)
	if r == nil || !r.ran {
		return 0, false
	}
	return r.at, true
}

// onChange evaluates every open monitor now.
func (ex *expectations) onChange() {
	now := ex.w.k.Now()
	for _, m := range ex.monitors {
		if m.decided {
			continue
		}
		if !m.started {
			start, ok := ex.windowStart(m)
			if !ok {
				continue
			}
			m.started, m.start = true, start
		}
		if m.window != nil && now > m.start.Add(m.window.Within) {
			continue // past the window: decided at the end
		}
		holds, values := ex.evaluate(m.cond)
		m.lastVal = values
		switch m.kind {
		case "always":
			if !holds {
				m.decided, m.passed = true, false
				m.message = fmt.Sprintf("%s first failed at %.3fs: %s", m.cond.Name(), now.Seconds(), values)
			}
		case "never":
			if holds {
				m.decided, m.passed = true, false
				m.message = fmt.Sprintf("%s first held at %.3fs: %s", m.cond.Name(), now.Seconds(), values)
			}
		case "eventually":
			if holds {
				m.decided, m.passed = true, true
				m.message = fmt.Sprintf("%s held at %.3fs: %s", m.cond.Name(), now.Seconds(), values)
			}
		}
	}
}

// evaluate returns whether the condition holds now and a description of the values involved.
func (ex *expectations) evaluate(c scenarios.Condition) (bool, string) {
	o := ex.w.obs
	switch {
	case c.NoPendingPods != nil:
		n := o.podsByPhase[model.PodPending]
		return n == 0, fmt.Sprintf("%d pods pending", n)
	case c.NoNodeOvercommitted != nil:
		over := o.overcommittedNodes()
		if len(over) == 0 {
			return true, "no node overcommitted"
		}
		return false, "overcommitted: " + strings.Join(over, ", ")
	case c.ReadyReplicas != nil:
		t := c.ReadyReplicas.Target
		obj, err := ex.w.srv.Store().Get(t.Kind, t.Namespace, t.Name)
		if err != nil {
			return false, fmt.Sprintf("%s not found", t)
		}
		ready := readyReplicasOf(obj)
		return ready >= c.ReadyReplicas.Min, fmt.Sprintf("%s has %d ready replicas (min %d)", t, ready, c.ReadyReplicas.Min)
	}
	return false, "unknown condition"
}

func readyReplicasOf(obj model.Object) int32 {
	if rs, ok := obj.(*model.ReplicaSet); ok {
		return rs.Status.ReadyReplicas
	}
	return 0
}

// results decides every expectation at the end of the run.
func (ex *expectations) results(verdicts []report.Verdict, end sim.Time) []report.ExpectationResult {
	var out []report.ExpectationResult
	monitors := map[string]*monitor{}
	for _, m := range ex.monitors {
		monitors[m.exp.Name] = m
	}
	verdictPolicy := scenarios.VerdictPolicy("")
	for _, e := range ex.w.scn.Expect {
		res := report.ExpectationResult{Name: e.Name}
		switch e.Kind() {
		case "converged":
			res.Passed, res.Message = ex.converged(e.Converged, end)
		case "event":
			res.Passed, res.Message = ex.event(e.Event)
		case "eventually", "always", "never":
			m := monitors[e.Name]
			res.Passed, res.Message = m.final(end)
		case "verdict":
			verdictPolicy = *e.Verdict
			res.Passed, res.Message = verdictOutcome(*e.Verdict, verdicts)
		}
		out = append(out, res)
	}
	// Without a verdict expectation, a run that ends with workloads short fails: an
	// impossible spec is a finding, not a pass.
	if verdictPolicy == "" && len(verdicts) > 0 {
		passed, msg := verdictOutcome(scenarios.VerdictNone, verdicts)
		out = append(out, report.ExpectationResult{Name: "no-verdicts", Passed: passed, Message: msg})
	}
	return out
}

func verdictOutcome(p scenarios.VerdictPolicy, verdicts []report.Verdict) (bool, string) {
	if len(verdicts) == 0 {
		return true, "the run ended converged"
	}
	var names []string
	for _, v := range verdicts {
		names = append(names, v.Workload)
	}
	msg := fmt.Sprintf("the run ended with %d workload(s) short: %s", len(verdicts), strings.Join(names, ", "))
	return p == scenarios.VerdictAny, msg
}

func (m *monitor) final(end sim.Time) (bool, string) {
	if m.decided {
		return m.passed, m.message
	}
	if !m.started {
		return false, fmt.Sprintf("the window never opened (%q never ran)", m.window.After)
	}
	switch m.kind {
	case "eventually":
		return false, fmt.Sprintf("%s never held in the window; last: %s", m.cond.Name(), m.lastVal)
	default:
		return true, fmt.Sprintf("%s: held throughout (last: %s)", m.kind, m.lastVal)
	}
}

func (ex *expectations) converged(c *scenarios.ConvergedExpectation, end sim.Time) (bool, string) {
	r := ex.tl.recordFor(c.After)
	label := c.After
	if label == "" {
		label = "the start"
	}
	if r == nil || !r.ran {
		return false, fmt.Sprintf("%s never ran", label)
	}
	if !r.converged {
		return false, fmt.Sprintf("not converged %s after %s (still not converged when the run ended at %.3fs)",
			fmtDur(end.Sub(r.at)), label, end.Seconds())
	}
	took := r.convergedAt.Sub(r.at)
	if took > c.Within {
		return false, fmt.Sprintf("converged %s after %s, later than %s", fmtDur(took), label, fmtDur(c.Within))
	}
	return true, fmt.Sprintf("converged %s after %s (within %s)", fmtDur(took), label, fmtDur(c.Within))
}

func (ex *expectations) event(e *scenarios.EventExpectation) (bool, string) {
	from, to := sim.Time(0), sim.Never
	if e.Within != nil {
		r := ex.tl.recordFor(e.Within.After)
		if r == nil || !r.ran {
			return false, fmt.Sprintf("the window never opened (%q never ran)", e.Within.After)
		}
		from, to = r.at, r.at.Add(e.Within.Within)
	}
	want := max(e.Count, 1)
	count := 0
	first := -1.0
	for _, ev := range ex.w.events {
		if ev.Reason != e.Reason || (e.Kind != "" && ev.Kind != string(e.Kind)) ||
			(e.Name != "" && ev.Name != e.Name) || (e.Namespace != "" && ev.Namespace != e.Namespace) {
			continue
		}
		// Event times went through float seconds: allow a nanosecond of rounding at the edges.
		t := sim.Time(ev.Time * 1e9)
		if t+1 < from || (to != sim.Never && t-1 > to) {
			continue
		}
		if first < 0 {
			first = ev.Time
		}
		count++
	}
	if count >= want {
		return true, fmt.Sprintf("%d %s event(s), the first at %.3fs", count, e.Reason, first)
	}
	return false, fmt.Sprintf("%d %s event(s) in the window, want at least %d", count, e.Reason, want)
}

// fmtDur writes a duration rounded to milliseconds ("5m50.123s").
func fmtDur(d time.Duration) string { return d.Round(time.Millisecond).String() }
