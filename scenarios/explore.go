package scenarios

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
)

// Explore is a scenario's `explore:` section: the fault space `sim explore` searches
// (docs/explore.md) and the invariants every run is held to. `sim run` checks the invariants
// too, so a reproducer `sim explore` writes fails `sim run` the way it failed the search.
type Explore struct {
	// Faults is how many faults a random run draws, uniformly in [Min, Max].
	Faults CountRange `json:"faults,omitempty"`
	// Window is when drawn faults may start (default: the whole run).
	Window TimeRange `json:"window,omitempty"`
	// Settle is how long after the last fault the world has to converge (invariant converges).
	Settle time.Duration `json:"settle,omitempty"`
	// Actions are the faults a random run draws from.
	Actions []ExploreAction `json:"actions,omitempty"`
	// Invariants are checked in every run: built-in ones by name (Invariants), or the name of
	// one of the scenario's expectations.
	Invariants []string `json:"invariants,omitempty"`
	// Controllers are the components the targeted strategies perturb (default: every
	// controller that writes in the reference run).
	Controllers []string `json:"controllers,omitempty"`
	// Bound is the largest k the targeted strategies try: the first Bound writes of each
	// controller.
	Bound int `json:"bound,omitempty"`
}

// CountRange is an inclusive range of counts.
type CountRange struct {
	Min int `json:"min"`
	Max int `json:"max"`
}

// TimeRange is the stretch of virtual time from From to To (inclusive).
type TimeRange struct {
	From time.Duration `json:"from"`
	To   time.Duration `json:"to"`
}

// DurationRange is an inclusive range of durations a parameter is drawn from.
type DurationRange struct {
	Min time.Duration `json:"min"`
	Max time.Duration `json:"max"`
}

// ExploreAction is one kind of fault a random run may draw, with the choices its arguments
// are drawn from.
type ExploreAction struct {
	// Action is one of ExploreActions.
	Action string `json:"action"`
	// Weight is the relative chance of drawing this entry (default 1).
	Weight int `json:"weight,omitempty"`
	// Nodes are the candidate nodes of a node action; one of them (Random of them, when set)
	// is drawn per fault.
	Nodes *NodeTarget `json:"nodes,omitempty"`
	// Component lists the candidates of controller-restart, watch-stall and watch-coalesce.
	Component []string `json:"component,omitempty"`
	// For is the length of kubelet-stall, watch-stall, watch-coalesce, api-errors and
	// api-latency.
	For *DurationRange `json:"for,omitempty"`
	// Downtime is controller-restart's downtime (default 0).
	Downtime *DurationRange `json:"downtime,omitempty"`
	// Heal, for node-crash and node-partition, adds a node-recover of the same nodes this
	// long after the fault (default: the nodes stay down).
	Heal *DurationRange `json:"heal,omitempty"`
	// Latency is api-latency's extra latency (a constant drawn from the range).
	Latency *DurationRange `json:"latency,omitempty"`
	// Code lists the status codes api-errors draws from (default [500]).
	Code []int `json:"code,omitempty"`
	// Clients are the client name patterns of api-errors and api-latency (default: all).
	Clients []string `json:"clients,omitempty"`
}

// Limits of the explore section.
const (
	// MaxExploreFaults bounds faults.max.
	MaxExploreFaults = 20
	// MaxExploreActions bounds the actions list.
	MaxExploreActions = 100
	// MaxExploreBound bounds bound.
	MaxExploreBound = 1000
	// DefaultExploreBound is bound when the file does not set it.
	DefaultExploreBound = 8
	// DefaultSettle is settle when the file does not set it: the default quiescence window.
	DefaultSettle = DefaultQuiescence
	// MaxExploreWeight bounds an action's weight.
	MaxExploreWeight = 1000
)

// The built-in invariants (docs/explore.md). Safety invariants are checked on every committed
// write; no-lost-update and converges at the end of the run.
const (
	InvariantPodBoundOnce           = "pod-bound-once"
	InvariantNodeWithinAllocatable  = "node-within-allocatable"
	InvariantResourceVersionsGrow   = "resource-versions-grow"
	InvariantStatefulSetOrdinalOnce = "statefulset-ordinal-once"
	InvariantPDBRespected           = "pdb-respected"
	InvariantNoLostUpdate           = "no-lost-update"
	InvariantConverges              = "converges"
)

// Invariants returns the names of the built-in invariants.
func Invariants() []string {
	return []string{InvariantPodBoundOnce, InvariantNodeWithinAllocatable, InvariantResourceVersionsGrow,
		InvariantStatefulSetOrdinalOnce, InvariantPDBRespected, InvariantNoLostUpdate, InvariantConverges}
}

// DefaultInvariants are checked when the explore section names none: every built-in safety
// invariant.
func DefaultInvariants() []string {
	return []string{InvariantPodBoundOnce, InvariantNodeWithinAllocatable, InvariantResourceVersionsGrow,
		InvariantStatefulSetOrdinalOnce, InvariantPDBRespected, InvariantNoLostUpdate}
}

// exploreActionArgs lists, per action a random run may draw, the arguments it takes and
// which of them are required.
var exploreActionArgs = map[string]struct{ args, required []string }{
	"node-crash":         {[]string{"nodes", "heal"}, []string{"nodes"}},
	"node-partition":     {[]string{"nodes", "heal"}, []string{"nodes"}},
	"node-recover":       {[]string{"nodes"}, []string{"nodes"}},
	"node-delete":        {[]string{"nodes"}, []string{"nodes"}},
	"kubelet-stall":      {[]string{"nodes", "for"}, []string{"nodes", "for"}},
	"controller-restart": {[]string{"component", "downtime"}, []string{"component"}},
	"watch-stall":        {[]string{"component", "for"}, []string{"component", "for"}},
	"watch-coalesce":     {[]string{"component", "for"}, []string{"component", "for"}},
	"api-errors":         {[]string{"for", "code", "clients"}, []string{"for"}},
	"api-latency":        {[]string{"for", "latency", "clients"}, []string{"for", "latency"}},
}

// ExploreActions returns the actions a random run may draw, sorted.
func ExploreActions() []string { return slices.Sorted(maps.Keys(exploreActionArgs)) }

// exploreArgKeys are the keys of an explore action besides action and weight.
var exploreArgKeys = []string{"nodes", "component", "for", "downtime", "heal", "latency", "code", "clients"}

// apiErrorCodes are the codes api-errors accepts (see checkAPIErrors).
var exploreErrorCodes = []int{409, 429, 500, 503, 504}

func (l *loader) defaultExplore() {
	x := l.s.Explore
	if x == nil {
		return
	}
	if !l.ix.has("explore.faults") {
		x.Faults = CountRange{Min: 1, Max: 1}
	}
	if !l.ix.has("explore.window") {
		x.Window = TimeRange{From: 0, To: l.s.Duration}
	} else if !l.ix.has("explore.window.to") {
		x.Window.To = l.s.Duration
	}
	if !l.ix.has("explore.settle") {
		x.Settle = DefaultSettle
	}
	if !l.ix.has("explore.bound") {
		x.Bound = DefaultExploreBound
	}
	if !l.ix.has("explore.invariants") {
		x.Invariants = DefaultInvariants()
	}
	for i := range x.Actions {
		a := &x.Actions[i]
		p := indexPath("explore.actions", i)
		if !l.ix.has(childPath(p, "weight")) {
			a.Weight = 1
		}
		if a.Action == "api-errors" && len(a.Code) == 0 {
			a.Code = []int{500}
		}
	}
}

// checkExplore validates the explore section: known actions with the arguments they take,
// non-empty ranges, a window inside the run, invariants that name something.
func (l *loader) checkExplore(nodes []ClusterNode) {
	x := l.s.Explore
	if x == nil || l.broken("explore") {
		return
	}
	s := l.s
	if l.ix.has("explore.faults") && !l.bad("explore.faults") {
		switch {
		case x.Faults.Min < 0:
			l.errPath("explore.faults.min", fmt.Sprintf("faults.min must not be negative, got %d", x.Faults.Min), "")
		case x.Faults.Max > MaxExploreFaults:
			l.errPath("explore.faults.max", fmt.Sprintf("faults.max %d is more than the limit of %d", x.Faults.Max, MaxExploreFaults), "")
		case x.Faults.Max < x.Faults.Min:
			l.errPath("explore.faults", fmt.Sprintf("the range is empty: min %d is above max %d", x.Faults.Min, x.Faults.Max), "write min ≤ max, e.g. {min: 1, max: 3}")
		}
	}
	if !l.bad("explore.window") {
		w := x.Window
		switch {
		case w.From < 0:
			l.errPath("explore.window.from", fmt.Sprintf("from must not be negative, got %s", w.From), "times count from the start of the run")
		case w.To > s.Duration && s.Duration > 0:
			l.errPath("explore.window.to", fmt.Sprintf("the window ends at %s, after the run ends (duration %s)", formatDuration(w.To), formatDuration(s.Duration)),
				"faults must fall inside the run: end the window at or before duration")
		case w.To < w.From:
			l.errPath("explore.window", fmt.Sprintf("the window is empty: from %s is after to %s", formatDuration(w.From), formatDuration(w.To)), "write from ≤ to, e.g. {from: 30s, to: 5m}")
		}
	}
	if !l.bad("explore.settle") && x.Settle < 0 {
		l.errPath("explore.settle", fmt.Sprintf("settle must not be negative, got %s", x.Settle), "")
	}
	if !l.bad("explore.bound") && (x.Bound < 1 || x.Bound > MaxExploreBound) {
		l.errPath("explore.bound", fmt.Sprintf("bound must be between 1 and %d, got %d", MaxExploreBound, x.Bound), "")
	}
	if len(x.Actions) > MaxExploreActions {
		l.errPath("explore.actions", fmt.Sprintf("%d actions, more than the limit of %d", len(x.Actions), MaxExploreActions), "")
		return
	}
	for i, a := range x.Actions {
		l.checkExploreAction(a, indexPath("explore.actions", i), nodes)
	}
	if x.Faults.Max > 0 && len(x.Actions) == 0 && !l.bad("explore.actions") && l.ix.has("explore.actions") {
		l.errPath("explore.actions", "actions is empty", "list the faults a random run may draw, e.g. - {action: node-crash, nodes: {selector: pool=a}}")
	}
	var expectations []string
	for _, e := range s.Expect {
		if e.Name != "" {
			expectations = append(expectations, e.Name)
		}
	}
	seen := map[string]bool{}
	for i, inv := range x.Invariants {
		p := indexPath("explore.invariants", i)
		if l.bad(p) {
			continue
		}
		if seen[inv] {
			l.errPath(p, fmt.Sprintf("invariant %q is listed twice", inv), "")
			continue
		}
		seen[inv] = true
		if slices.Contains(Invariants(), inv) || slices.Contains(expectations, inv) {
			continue
		}
		known := append(Invariants(), expectations...)
		l.errPath(p, fmt.Sprintf("invariant %q names neither a built-in invariant nor an expectation of this scenario", inv),
			hintOr(didYouMean(inv, known), "built-in: "+strings.Join(Invariants(), ", ")))
	}
	for i, c := range x.Controllers {
		l.checkComponentName(c, indexPath("explore.controllers", i), l.restartable())
	}
}

func (l *loader) checkExploreAction(a ExploreAction, p string, nodes []ClusterNode) {
	if l.broken(p) {
		return
	}
	ap := childPath(p, "action")
	spec, ok := exploreActionArgs[a.Action]
	switch {
	case !l.ix.has(ap):
		l.errAt(l.ix.nearest(p), p, "missing action", "one of: "+strings.Join(ExploreActions(), ", "))
		return
	case !ok:
		l.errPath(ap, fmt.Sprintf("unknown action %q for explore", a.Action), hintOr(didYouMean(a.Action, ExploreActions()), "explore draws: "+strings.Join(ExploreActions(), ", ")))
		return
	}
	for _, k := range exploreArgKeys {
		kp := childPath(p, k)
		if l.ix.has(kp) && !slices.Contains(spec.args, k) {
			l.errAt(l.ix.keyOrNearest(kp), kp, fmt.Sprintf("%q is not an argument of %s", k, a.Action), a.Action+" takes "+strings.Join(spec.args, ", "))
		}
	}
	for _, k := range spec.required {
		if !l.ix.has(childPath(p, k)) {
			l.errAt(l.ix.nearest(p), p, "missing "+k, a.Action+" takes "+strings.Join(spec.args, ", "))
		}
	}
	if !l.bad(childPath(p, "weight")) && (a.Weight < 1 || a.Weight > MaxExploreWeight) {
		l.errPath(childPath(p, "weight"), fmt.Sprintf("weight must be between 1 and %d, got %d", MaxExploreWeight, a.Weight), "")
	}
	if a.Nodes != nil {
		l.checkNodes(*a.Nodes, p, nodes)
		cands := *a.Nodes
		cands.Random = 0 // the candidates; a fault draws from them
		if len(cands.Select(nodes, nil)) == 0 && !l.bad(childPath(p, "nodes")) {
			l.errPath(childPath(p, "nodes"), "the target selects no nodes", nodesHint)
		}
	}
	cp := childPath(p, "component")
	if l.ix.has(cp) && !l.bad(cp) {
		if len(a.Component) == 0 {
			l.errPath(cp, "component is empty", "list the candidates, e.g. [kube-controller-manager]")
		}
		allowed := l.restartable()
		if a.Action != "controller-restart" {
			allowed = stallableComponents()
		}
		for k, c := range a.Component {
			l.checkComponentName(c, indexPath(cp, k), allowed)
		}
	}
	for _, r := range []struct {
		key      string
		rng      *DurationRange
		positive bool
	}{{"for", a.For, true}, {"downtime", a.Downtime, false}, {"heal", a.Heal, true}, {"latency", a.Latency, true}} {
		rp := childPath(p, r.key)
		if r.rng == nil || l.bad(rp) {
			continue
		}
		switch {
		case r.rng.Min < 0 || (r.positive && r.rng.Min <= 0):
			l.errPath(childPath(rp, "min"), fmt.Sprintf("%s.min must be greater than 0, got %s", r.key, r.rng.Min), "")
		case r.rng.Max < r.rng.Min:
			l.errPath(rp, fmt.Sprintf("the range is empty: min %s is above max %s", formatDuration(r.rng.Min), formatDuration(r.rng.Max)), "write min ≤ max, e.g. {min: 10s, max: 1m}")
		case r.rng.Max > MaxDuration:
			l.errPath(childPath(rp, "max"), fmt.Sprintf("%s.max %s is longer than the limit of %s", r.key, r.rng.Max, MaxDuration), "")
		}
	}
	codep := childPath(p, "code")
	if l.ix.has(codep) && !l.bad(codep) {
		if len(a.Code) == 0 {
			l.errPath(codep, "code is empty", "list the status codes to draw from, e.g. [500, 503]")
		}
		for k, c := range a.Code {
			if !slices.Contains(exploreErrorCodes, c) {
				l.errPath(indexPath(codep, k), fmt.Sprintf("unsupported status code %d", c), "api-errors injects 409, 429, 500, 503 or 504")
			}
		}
	}
	if len(a.Clients) > 0 {
		l.checkClientPatterns(a.Clients, childPath(p, "clients"), nodes)
	}
}
