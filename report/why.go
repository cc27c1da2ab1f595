package report

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Phase is one part of a convergence interval: the time from one milestone to the next.
type Phase struct {
	// Interval names the convergence interval the phase belongs to ("crash (node-crash at
	// 60s)").
	Interval string
	// Name is the phase ("detection", "toleration", ..., or "other" when nothing explains it).
	Name string
	// Cause says what the time was spent waiting for, naming the upstream setting that sets
	// its length when there is one.
	Cause string
	// From and To are virtual seconds; Seconds is To-From.
	From, To, Seconds float64
}

// milestone is one step of the chain Why looks for, in the order it happens after a fault.
// The phase that ends at the milestone is called name and is explained by cause.
type milestone struct {
	name, cause string
	// last: take the last match inside the interval instead of the first one after the
	// previous milestone (a burst of pod creations ends at its last pod).
	last  bool
	event func(e *EventRecord) bool
	trace func(component, action, rest string) bool
}

// whyChain is the recovery path of a failed node, as upstream implements it: the node
// lifecycle controller marks the node NotReady/Unknown once node-monitor-grace-period has
// passed without a heartbeat (kube-controller-manager --node-monitor-grace-period, 50 s in
// 1.32), taints it NoExecute on its next monitor pass (--node-monitor-period, 5 s), the
// taint-eviction controller deletes the pods once their tolerationSeconds for the
// not-ready/unreachable taints has run out (300 s, added by the DefaultTolerationSeconds
// admission plugin), and the workload controller creates replacements that are scheduled and
// started. Milestones that a run does not show are skipped, so the chain also explains runs
// that start half-way (a scale or a rollout: create, schedule, start).
var whyChain = []milestone{
	{
		name:  "detection",
		cause: "node-monitor-grace-period: the node controller waits this long without a heartbeat before marking the node NotReady",
		event: func(e *EventRecord) bool { return e.Reason == "NodeNotReady" && e.Kind == "Node" },
	},
	{
		name:  "taint",
		cause: "waiting for the next node monitor pass (node-monitor-period) before tainting the node NoExecute",
		trace: func(component, action, rest string) bool {
			return component == "nodelifecycle" && action == "taint-add" && strings.Contains(rest, "NoExecute")
		},
	},
	{
		name:  "toleration",
		cause: "tolerationSeconds of the not-ready/unreachable NoExecute taints (DefaultTolerationSeconds, 300 s) before eviction",
		event: func(e *EventRecord) bool { return e.Reason == "TaintManagerEviction" },
	},
	{
		name:  "replacement: create",
		cause: "the workload controller notices the missing replicas and creates pods (slow-start batches)",
		last:  true,
		event: func(e *EventRecord) bool { return e.Reason == "SuccessfulCreate" },
	},
	{
		name:  "replacement: schedule",
		cause: "the scheduler binds the new pods (queueing, backoff, filtering)",
		last:  true,
		event: func(e *EventRecord) bool { return e.Reason == "Scheduled" },
	},
}

// finalPhase names the phase from the last milestone found to convergence.
var finalPhase = map[string][2]string{
	"detection":             {"other", "after detection, no taint or eviction was seen before convergence"},
	"taint":                 {"other", "after the NoExecute taint, no eviction was seen before convergence"},
	"toleration":            {"replacement", "create, schedule, start pods"},
	"replacement: create":   {"replacement: start", "pods scheduled and started: sandbox, containers, readiness, status reported"},
	"replacement: schedule": {"replacement: start", "sandbox, container start, readiness probe, status reported"},
	"":                      {"other", "no known milestone (node events, taints, evictions, pod creation or scheduling) in this interval"},
}

// Why breaks each convergence interval of res (every Convergence entry but "start" that
// converged after a positive time) into consecutive phases, from the milestones the run's
// events and trace lines show; the phases of an interval start at its action, end at its
// convergence and their Seconds add up to the interval. Time no milestone explains is an
// explicit "other" phase. Trace lines that show the mechanism at work (the grace period the
// node controller applied, the evictions scheduled) or what slowed it (409 conflicts, 429s)
// are appended to the cause of the phase they fall in (phaseNotes). traceLines are trace.txt
// lines ("<seconds> <component> <action> ..."); lines that do not parse are ignored, and nil
// is allowed (events only). The result is in interval order, then time order.
func Why(res *Result, traceLines []string) []Phase {
	return why(res, parseTrace(traceLines))
}

// why is Why from parsed trace lines in time order; the lines whyUses rejects may be left out.
func why(res *Result, trace []traceLine) []Phase {
	if res == nil {
		return nil
	}
	var out []Phase
	for _, c := range res.Convergence {
		if c.Action == "start" || c.ConvergedAt == nil || !finite(c.At) || !finite(*c.ConvergedAt) || *c.ConvergedAt <= c.At {
			continue
		}
		out = append(out, whyInterval(res, trace, c)...)
	}
	return out
}

// IntervalLabel is how Why names a convergence interval.
func IntervalLabel(c Convergence) string {
	name := c.Name
	if name == "" {
		name = c.Action
	}
	return fmt.Sprintf("%s (%s at %ss)", name, c.Action, strconv.FormatFloat(c.At, 'f', -1, 64))
}

func whyInterval(res *Result, trace []traceLine, c Convergence) []Phase {
	from, end := c.At, *c.ConvergedAt
	label := IntervalLabel(c)
	var phases []Phase
	last := ""
	for _, m := range whyChain {
		t, ok := findMilestone(res, trace, m, from, end)
		if !ok {
			continue
		}
		phases = append(phases, Phase{Interval: label, Name: m.name, Cause: m.cause, From: from, To: t, Seconds: t - from})
		from, last = t, m.name
	}
	fin := finalPhase[last]
	phases = append(phases, Phase{Interval: label, Name: fin[0], Cause: fin[1], From: from, To: end, Seconds: end - from})
	annotate(phases, trace)
	return phases
}

// phaseNote is evidence from the trace that Why adds to the cause of the phase it happened
// in: what this run shows of the mechanism (the grace period the node controller applied,
// the toleration the taint-eviction controller scheduled) and what slowed it (conflicts,
// 429s). Add a note here to explain more; a note never moves a phase boundary.
type phaseNote struct {
	match func(l traceLine) bool
	// say turns the first matching line of one phase and how many matched into a clause.
	say func(first traceLine, n int) string
}

var phaseNotes = []phaseNote{
	{
		// A replicated kube-controller-manager or kube-scheduler without a leader reconciles
		// nothing: the failover (client-go tools/leaderelection) is time no milestone can
		// move in, so the phase it falls in says how long it was.
		match: func(l traceLine) bool { return l.component == "leaderelection" && l.action == "new-leader" },
		say: func(first traceLine, n int) string {
			msg := "leader failover: " + withoutObject(first.rest)
			if n > 1 {
				msg += fmt.Sprintf(" (%d failovers in this phase)", n)
			}
			return msg
		},
	},
	{
		match: func(l traceLine) bool {
			return l.component == "nodelifecycle" && (l.action == "mark-unknown" || l.action == "mark-not-ready")
		},
		say: func(first traceLine, _ int) string {
			return "the node controller: " + first.action + " " + withoutRV(first.rest)
		},
	},
	{
		match: func(l traceLine) bool { return l.component == "tainteviction" && l.action == "schedule-eviction" },
		say: func(first traceLine, n int) string {
			return fmt.Sprintf("the taint-eviction controller scheduled %s: %s", plural(n, "pod deletion"), withoutRV(first.rest))
		},
	},
	{
		match: func(l traceLine) bool {
			return strings.HasSuffix(l.rest, " Conflict") || strings.Contains(l.rest, " Conflict ")
		},
		say: func(_ traceLine, n int) string { return plural(n, "update conflict") + " (409), retried" },
	},
	{
		match: func(l traceLine) bool {
			return strings.Contains(l.rest, "TooManyRequests") || strings.Contains(l.rest, " 429")
		},
		say: func(_ traceLine, n int) string { return plural(n, "request") + " rejected with 429 Too Many Requests" },
	},
}

// annotate appends to each phase's cause the notes of the trace lines that fall in it. A line
// belongs to the first phase that ends at or after it; trace times are rounded to the
// microsecond while event times are not, so a phase's end is widened by a little more than
// that.
func annotate(phases []Phase, trace []traceLine) {
	if len(phases) == 0 {
		return
	}
	const resolution = 1.5e-6
	type key struct{ phase, note int }
	first := map[key]traceLine{}
	counts := map[key]int{}
	start := phases[0].From - resolution
	for i := range trace {
		l := &trace[i]
		if l.seconds < start || l.seconds > phases[len(phases)-1].To+resolution {
			continue
		}
		for n, note := range phaseNotes {
			if !note.match(*l) {
				continue
			}
			p := 0
			for p < len(phases)-1 && l.seconds > phases[p].To+resolution {
				p++
			}
			k := key{p, n}
			if counts[k] == 0 {
				first[k] = *l
			}
			counts[k]++
		}
	}
	for p := range phases {
		var clauses []string
		for n, note := range phaseNotes {
			k := key{p, n}
			if counts[k] > 0 {
				clauses = append(clauses, note.say(first[k], counts[k]))
			}
		}
		if len(clauses) > 0 {
			phases[p].Cause += ". In this run: " + strings.Join(clauses, "; ")
		}
	}
}

// withoutObject drops the "Kind namespace/name" that starts a trace line's rest.
func withoutObject(rest string) string {
	f := strings.SplitN(rest, " ", 3)
	if len(f) < 3 {
		return rest
	}
	return f[2]
}

// withoutRV drops the rv=N word of a trace line's details, which says nothing to a reader.
func withoutRV(rest string) string {
	words := strings.Fields(rest)
	out := words[:0]
	for _, w := range words {
		if !strings.HasPrefix(w, "rv=") {
			out = append(out, w)
		}
	}
	return strings.Join(out, " ")
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

// findMilestone returns when m happened in [from, end]: its first match at or after from,
// or with m.last the last match in that window.
func findMilestone(res *Result, trace []traceLine, m milestone, from, end float64) (float64, bool) {
	found, at := false, 0.0
	consider := func(t float64) bool {
		if t < from || t > end {
			return false
		}
		if !found || (m.last && t > at) || (!m.last && t < at) {
			found, at = true, t
		}
		return !m.last
	}
	if m.event != nil {
		for i := range res.Events {
			if m.event(&res.Events[i]) && consider(res.Events[i].Time) {
				break
			}
		}
	}
	if m.trace != nil {
		for _, l := range trace {
			if m.trace(l.component, l.action, l.rest) && consider(l.seconds) {
				break
			}
		}
	}
	return at, found
}

// traceLine is one parsed trace.txt line.
type traceLine struct {
	seconds           float64
	component, action string
	// rest is everything after the action: the object and details.
	rest string
}

// parseTrace parses "<seconds> <component> <action> <rest>" lines (parseTraceLine), skipping
// the ones that do not parse, and sorts them by time, keeping the order of equal times.
func parseTrace(lines []string) []traceLine {
	out := make([]traceLine, 0, len(lines))
	for _, l := range lines {
		if tl, ok := parseTraceLine(l); ok {
			out = append(out, tl)
		}
	}
	sortTrace(out)
	return out
}

// sortTrace sorts trace lines by time, keeping the order of equal times.
func sortTrace(trace []traceLine) {
	sort.SliceStable(trace, func(i, j int) bool { return trace[i].seconds < trace[j].seconds })
}

// parseTraceLine parses one "<seconds> <component> <action> <rest>" line; it is false for a
// line that does not start with a finite, non-negative number and two words (the summary
// text a --trace run appends).
func parseTraceLine(l string) (traceLine, bool) {
	secs, r, ok := strings.Cut(l, " ")
	if !ok {
		return traceLine{}, false
	}
	component, r, ok := strings.Cut(r, " ")
	if !ok || component == "" {
		return traceLine{}, false
	}
	action, rest, _ := strings.Cut(r, " ")
	if action == "" {
		return traceLine{}, false
	}
	t, err := strconv.ParseFloat(secs, 64)
	if err != nil || !finite(t) || t < 0 {
		return traceLine{}, false
	}
	return traceLine{seconds: t, component: component, action: action, rest: rest}, true
}

// whyUses reports whether Why can use the trace line l: whether it is a milestone of the
// chain or evidence for a phase note. Why gives the same phases from the lines it uses alone,
// in time order, as from the whole trace.
func whyUses(l traceLine) bool {
	for _, m := range whyChain {
		if m.trace != nil && m.trace(l.component, l.action, l.rest) {
			return true
		}
	}
	for _, n := range phaseNotes {
		if n.match(l) {
			return true
		}
	}
	return false
}
