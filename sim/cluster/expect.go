package cluster

import (
	"fmt"
	"strings"
	"time"

	"k8s.io/client-go/util/jsonpath"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/report"
	"github.com/reconsim/reconsim/scenarios"
	"github.com/reconsim/reconsim/sim/client"
	"github.com/reconsim/reconsim/sim/controllers/deployment"
	"github.com/reconsim/reconsim/vtime"
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
	start   vtime.Time
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
	// paths holds the parsed path of each field-equals condition (parsed once).
	paths map[*scenarios.FieldEqualsArgs]*jsonpath.JSONPath
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
func (ex *expectations) windowStart(m *monitor) (vtime.Time, bool) {
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
	case c.NodeOvercommitted != nil:
		over := o.overcommittedNodes()
		if len(over) == 0 {
			return false, "no node overcommitted"
		}
		return true, "overcommitted: " + strings.Join(over, ", ")
	case c.PodsAtMost != nil:
		return ex.podsAtMost(c.PodsAtMost)
	case c.AvailableAtLeast != nil:
		return ex.availableAtLeast(c.AvailableAtLeast)
	case c.ReplicasAtMost != nil:
		return ex.replicasAtMost(c.ReplicasAtMost)
	case c.ReadyEndpointsAtLeast != nil:
		a := c.ReadyEndpointsAtLeast
		ns := a.Namespace
		if ns == "" {
			ns = "default"
		}
		key := ns + "/" + a.Service
		n := int32(o.readyEndpoints(key))
		msg := fmt.Sprintf("Service %s/%s has %d ready endpoints (min %d)", ns, a.Service, n, a.Count)
		if len(o.slices[key]) == 0 {
			msg += "; it has no EndpointSlice yet (the EndpointSlice controller writes them after the Service is created; a Service under settled: true starts with them)"
		}
		return n >= a.Count, msg
	case c.FieldEquals != nil:
		return ex.fieldEquals(c.FieldEquals)
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
	switch o := obj.(type) {
	case *model.ReplicaSet:
		return o.Status.ReadyReplicas
	case *model.Deployment:
		return o.Status.ReadyReplicas
	case *model.StatefulSet:
		return o.Status.ReadyReplicas
	}
	return 0
}

// workloadPods returns the active pods the workload owns (directly, or through a ReplicaSet
// it controls) and the workload object (nil if it does not exist), read from the store now.
func (ex *expectations) workloadPods(ref scenarios.ObjectRef) ([]*model.Pod, model.Object) {
	store := ex.w.srv.Store()
	obj, err := store.Get(ref.Kind, ref.Namespace, ref.Name)
	if err != nil {
		return nil, nil
	}
	owners := map[string]bool{obj.Meta().UID: true}
	if ref.Kind == model.KindDeployment {
		rss, _, _ := store.List(model.KindReplicaSet, model.ListOptions{Namespace: ref.Namespace})
		for _, o := range rss {
			if c := model.ControllerOf(o); c != nil && c.UID == obj.Meta().UID {
				owners[o.Meta().UID] = true
			}
		}
	}
	pods, _, _ := store.List(model.KindPod, model.ListOptions{Namespace: ref.Namespace})
	var out []*model.Pod
	for _, o := range pods {
		p := o.(*model.Pod)
		c := model.ControllerOf(p)
		if c == nil || !owners[c.UID] || p.DeletionTimestamp != nil || p.Status.Phase == model.PodSucceeded || p.Status.Phase == model.PodFailed {
			continue
		}
		out = append(out, p)
	}
	return out, obj
}

// fenceposts resolves a RollingUpdate Deployment's maxSurge and maxUnavailable.
func fenceposts(obj model.Object) (replicas, surge, unavailable int32, err error) {
	d, ok := client.ObjectAs[*model.Deployment](obj)
	if !ok || d.Spec.Strategy.RollingUpdate == nil {
		return 0, 0, 0, fmt.Errorf("not a RollingUpdate Deployment")
	}
	replicas = ptrOr(d.Spec.Replicas, 1)
	surge, unavailable, err = deployment.ResolveFenceposts(d.Spec.Strategy.RollingUpdate.MaxSurge, d.Spec.Strategy.RollingUpdate.MaxUnavailable, replicas)
	return replicas, surge, unavailable, err
}

func (ex *expectations) podsAtMost(a *scenarios.PodsAtMostArgs) (bool, string) {
	pods, obj := ex.workloadPods(a.Target)
	n := int32(len(pods))
	if a.Count != nil {
		return n <= *a.Count, fmt.Sprintf("%s has %d active pods (max %d)", a.Target, n, *a.Count)
	}
	replicas, surge, _, err := fenceposts(obj)
	if err != nil {
		return false, fmt.Sprintf("%s: %v", a.Target, err)
	}
	return n <= replicas+surge, fmt.Sprintf("%s has %d active pods (max %d = replicas %d + maxSurge %d)", a.Target, n, replicas+surge, replicas, surge)
}

// replicasAtMost sums spec.replicas over the Deployment's ReplicaSets, as the Deployment
// controller does (GetReplicaCountForReplicaSets).
func (ex *expectations) replicasAtMost(a *scenarios.ReplicasAtMostArgs) (bool, string) {
	store := ex.w.srv.Store()
	obj, err := store.Get(a.Target.Kind, a.Target.Namespace, a.Target.Name)
	if err != nil {
		return false, fmt.Sprintf("%s not found", a.Target)
	}
	rss, _, _ := store.List(model.KindReplicaSet, model.ListOptions{Namespace: a.Target.Namespace})
	var sum int32
	for _, o := range rss {
		if c := model.ControllerOf(o); c != nil && c.UID == obj.Meta().UID {
			sum += ptrOr(o.(*model.ReplicaSet).Spec.Replicas, 1)
		}
	}
	if a.Count != nil {
		return sum <= *a.Count, fmt.Sprintf("%s's ReplicaSets want %d replicas (max %d)", a.Target, sum, *a.Count)
	}
	replicas, surge, _, err := fenceposts(obj)
	if err != nil {
		return false, fmt.Sprintf("%s: %v", a.Target, err)
	}
	return sum <= replicas+surge, fmt.Sprintf("%s's ReplicaSets want %d replicas (max %d = replicas %d + maxSurge %d)", a.Target, sum, replicas+surge, replicas, surge)
}

func (ex *expectations) availableAtLeast(a *scenarios.AvailableAtLeastArgs) (bool, string) {
	pods, obj := ex.workloadPods(a.Target)
	var minReady int32
	switch o := obj.(type) {
	case *model.Deployment:
		minReady = o.Spec.MinReadySeconds
	case *model.ReplicaSet:
		minReady = o.Spec.MinReadySeconds
	case *model.StatefulSet:
		minReady = o.Spec.MinReadySeconds
	}
	now := ex.w.k.Now()
	var n int32
	for _, p := range pods {
		for _, c := range p.Status.Conditions {
			if c.Type == model.PodReady && c.Status == model.ConditionTrue && c.LastTransitionTime.Add(time.Duration(minReady)*time.Second) <= now {
				n++
			}
		}
	}
	if a.Count != nil {
		return n >= *a.Count, fmt.Sprintf("%s has %d available pods (min %d)", a.Target, n, *a.Count)
	}
	replicas, _, unavailable, err := fenceposts(obj)
	if err != nil {
		return false, fmt.Sprintf("%s: %v", a.Target, err)
	}
	return n >= replicas-unavailable, fmt.Sprintf("%s has %d available pods (min %d = replicas %d - maxUnavailable %d)", a.Target, n, replicas-unavailable, replicas, unavailable)
}

// metric decides a metric expectation from the recorded series (a step function: each sample
// holds until the next).
func (ex *expectations) metric(m *scenarios.MetricExpectation, series []report.Series, end vtime.Time) (bool, string) {
	var s *report.Series
	for i := range series {
		if series[i].Name == m.Series {
			s = &series[i]
		}
	}
	if s == nil || len(s.Points) == 0 {
		return false, fmt.Sprintf("no series named %s was recorded", m.Series)
	}
	from, to := 0.0, end.Seconds()
	if m.Within != nil {
		r := ex.tl.recordFor(m.Within.After)
		if r == nil || !r.ran {
			return false, fmt.Sprintf("the window never opened (%q never ran)", m.Within.After)
		}
		from, to = r.at.Seconds(), min(end.Seconds(), r.at.Add(m.Within.Within).Seconds())
	}
	var value, firstBadT, firstBadV float64
	firstBad := false
	var integral, covered float64
	started := false
	for i, p := range s.Points {
		next := to
		if i+1 < len(s.Points) {
			next = min(s.Points[i+1].T, to)
		}
		lo := max(p.T, from)
		if next < from || p.T > to {
			continue
		}
		if !started {
			value, started = p.V, true
		}
		switch m.Aggregate {
		case scenarios.AggregateMax:
			value = max(value, p.V)
		case scenarios.AggregateMin:
			value = min(value, p.V)
		case scenarios.AggregateLast:
			value = p.V
		case scenarios.AggregateMean:
			if next > lo {
				integral += p.V * (next - lo)
				covered += next - lo
			}
		}
		if !firstBad && ((m.Max != nil && p.V > *m.Max) || (m.Min != nil && p.V < *m.Min)) {
			firstBad, firstBadT, firstBadV = true, max(p.T, from), p.V
		}
	}
	if !started {
		return false, fmt.Sprintf("series %s has no sample in the window", m.Series)
	}
	if m.Aggregate == scenarios.AggregateMean && covered > 0 {
		value = integral / covered
	}
	ok := (m.Max == nil || value <= *m.Max) && (m.Min == nil || value >= *m.Min)
	msg := fmt.Sprintf("%s of %s = %g", m.Aggregate, m.Series, value)
	if m.Max != nil {
		msg += fmt.Sprintf(" (max %g)", *m.Max)
	}
	if m.Min != nil {
		msg += fmt.Sprintf(" (min %g)", *m.Min)
	}
	if !ok && firstBad && (m.Aggregate == scenarios.AggregateMax || m.Aggregate == scenarios.AggregateMin) {
		msg += fmt.Sprintf("; first past the threshold at %.3fs with %g", firstBadT, firstBadV)
	}
	return ok, msg
}

// results decides every expectation at the end of the run.
func (ex *expectations) results(verdicts []report.Verdict, series []report.Series, end vtime.Time) []report.ExpectationResult {
	var out []report.ExpectationResult
	monitors := map[string]*monitor{}
	for _, m := range ex.monitors {
		monitors[m.exp.Name] = m
	}
	covered := make([]bool, len(verdicts))
	none := false
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
		case "metric":
			res.Passed, res.Message = ex.metric(e.Metric, series, end)
		case "verdict":
			none = none || e.Verdict.Policy == scenarios.VerdictNone
			res.Passed, res.Message = verdictOutcome(*e.Verdict, verdicts, covered)
		}
		out = append(out, res)
	}
	// A verdict no expectation covers fails the run: an impossible spec, a pod that never
	// schedules, a drain that never finished are findings, not a pass.
	var uncovered []report.Verdict
	for i, v := range verdicts {
		if !covered[i] {
			uncovered = append(uncovered, v)
		}
	}
	if !none && len(uncovered) > 0 {
		out = append(out, report.ExpectationResult{Name: "no-verdicts", Passed: false,
			Message: fmt.Sprintf("the run ended with %d verdict(s) no expectation covers: %s (declare the expected ones with verdict: {reason: ...})",
				len(uncovered), verdictList(uncovered))})
	}
	return out
}

// verdictList names verdicts briefly: "ReplicaSet default/big (Unschedulable), ...".
func verdictList(vs []report.Verdict) string {
	var names []string
	for _, v := range vs {
		names = append(names, fmt.Sprintf("%s (%s)", v.Workload, v.Reason))
	}
	return strings.Join(names, ", ")
}

// verdictOutcome decides a verdict expectation and marks the verdicts it covers.
func verdictOutcome(e scenarios.VerdictExpectation, verdicts []report.Verdict, covered []bool) (bool, string) {
	switch e.Policy {
	case scenarios.VerdictNone:
		if len(verdicts) == 0 {
			return true, "the run ended converged"
		}
		return false, fmt.Sprintf("the run ended with %d verdict(s): %s", len(verdicts), verdictList(verdicts))
	case scenarios.VerdictAny:
		for i := range covered {
			covered[i] = true
		}
		if len(verdicts) == 0 {
			return true, "the run ended converged"
		}
		return true, fmt.Sprintf("the run ended with %d verdict(s), as allowed: %s", len(verdicts), verdictList(verdicts))
	}
	var matched []report.Verdict
	for i, v := range verdicts {
		if e.Matches(v.Reason, v.Kind, v.Namespace, v.Name) {
			covered[i] = true
			matched = append(matched, v)
		}
	}
	if len(matched) == 0 {
		return false, fmt.Sprintf("no verdict matches %s (verdicts: %d)", e, len(verdicts))
	}
	return true, fmt.Sprintf("%d verdict(s) match %s: %s", len(matched), e, verdictList(matched))
}

func (m *monitor) final(end vtime.Time) (bool, string) {
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

func (ex *expectations) converged(c *scenarios.ConvergedExpectation, end vtime.Time) (bool, string) {
	r := ex.tl.recordFor(c.After)
	label := c.After
	if label == "" {
		label = "the start"
	}
	if r == nil || !r.ran {
		return false, fmt.Sprintf("%s never ran", label)
	}
	if r.failed {
		return false, fmt.Sprintf("%s did not complete, so the world did not converge after it", label)
	}
	if !r.converged {
		return false, fmt.Sprintf("not converged %s after %s (still not converged when the run ended at %.3fs)",
			fmtDur(end.Sub(r.at)), label, end.Seconds())
	}
	again := ""
	if r.divergences > 0 {
		again = fmt.Sprintf("; first converged %s after it, then diverged %d time(s)", fmtDur(r.convergedAt.Sub(r.at)), r.divergences)
	}
	if !r.stable {
		return false, fmt.Sprintf("not converged when the run ended at %.3fs%s", end.Seconds(), again)
	}
	took := r.stableSince.Sub(r.at)
	if took > c.Within {
		return false, fmt.Sprintf("converged for good %s after %s, later than %s%s", fmtDur(took), label, fmtDur(c.Within), again)
	}
	return true, fmt.Sprintf("converged %s after %s (within %s)%s", fmtDur(took), label, fmtDur(c.Within), again)
}

func (ex *expectations) event(e *scenarios.EventExpectation) (bool, string) {
	from, to := vtime.Time(0), vtime.Never
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
	for ev := range ex.w.events.all() {
		if ev.Reason != e.Reason || (e.Kind != "" && ev.Kind != string(e.Kind)) ||
			(e.Name != "" && ev.Name != e.Name) || (e.Namespace != "" && ev.Namespace != e.Namespace) {
			continue
		}
		// Event times went through float seconds: allow a nanosecond of rounding at the edges.
		t := vtime.Time(ev.Time * 1e9)
		if t+1 < from || (to != vtime.Never && t-1 > to) {
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
