package explore

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"time"

	"github.com/reconsim/reconsim/scenarios"
)

// Strategies, in the order a search with --strategy all runs them.
const (
	StrategyReference    = "reference"
	StrategyIntermediate = "intermediate"
	StrategyStale        = "stale"
	StrategyUnobserved   = "unobserved"
	StrategyRandom       = "random"
	StrategyAll          = "all"
)

// Strategies lists the values --strategy accepts.
func Strategies() []string {
	return []string{StrategyRandom, StrategyIntermediate, StrategyStale, StrategyUnobserved, StrategyAll}
}

// The windows of the targeted strategies: how long a stale view lasts, and how long watch
// events coalesce. A stale view of 30 s outlasts the default node-monitor period (5 s) and
// the informers' relist back-off, so a controller acts on it; a coalescing window of 5 s
// spans the few round trips (each a few milliseconds of simulated service time) a controller
// takes between two writes.
const (
	StaleWindow      = 30 * time.Second
	UnobservedWindow = 5 * time.Second
)

// Limits.
const (
	// MaxRuns bounds --runs: the run list and explore.json hold every run (a few hundred
	// bytes each), so a search stays within tens of megabytes; shard a bigger search into
	// several with different seeds.
	MaxRuns = 100_000
	// maxPlannedRuns bounds the whole run list (targeted plus random).
	maxPlannedRuns = 200_000
	// timeGrain is the resolution drawn times and durations have.
	timeGrain = time.Millisecond
)

// Duration is a time.Duration written in JSON as a Go duration string ("1m30s").
type Duration time.Duration

// MarshalJSON writes the duration as a string.
func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(time.Duration(d).String()) }

// UnmarshalJSON reads a duration string.
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	v, err := time.ParseDuration(s)
	*d = Duration(v)
	return err
}

// Fault is one drawn or enumerated fault: a timeline entry (two, with Heal).
type Fault struct {
	Action string `json:"action"`
	// At is when it runs, since the start; unused when Write is set.
	At Duration `json:"at"`
	// Write and By: it runs right after By's Write-th acknowledged write.
	Write     int      `json:"write,omitempty"`
	By        string   `json:"by,omitempty"`
	Nodes     []string `json:"nodes,omitempty"`
	Component string   `json:"component,omitempty"`
	For       Duration `json:"for,omitempty"`
	Downtime  Duration `json:"downtime,omitempty"`
	// Heal: a node-recover of the same nodes follows this long after.
	Heal    Duration `json:"heal,omitempty"`
	Latency Duration `json:"latency,omitempty"`
	Code    int      `json:"code,omitempty"`
	Clients []string `json:"clients,omitempty"`
}

// String describes the fault in a few words: "node-crash worker-0 at 12.5s".
func (f Fault) String() string {
	parts := []string{f.Action}
	if len(f.Nodes) > 0 {
		parts = append(parts, strings.Join(f.Nodes, ","))
	}
	if f.Component != "" {
		parts = append(parts, f.Component)
	}
	if f.For > 0 {
		parts = append(parts, "for "+time.Duration(f.For).String())
	}
	if f.Write > 0 {
		parts = append(parts, fmt.Sprintf("after write %d of %s", f.Write, f.By))
	} else {
		parts = append(parts, "at "+time.Duration(f.At).String())
	}
	return strings.Join(parts, " ")
}

// PlannedRun is one run of the search, fixed before any run executes.
type PlannedRun struct {
	Index    int
	ID       string
	Strategy string
	Seed     uint64
	Faults   []Fault
}

// plan lists the search's runs: the reference run, the targeted runs of the strategies
// asked for (given the reference run's write counts), then the random runs.
func plan(scn *scenarios.Scenario, strategy string, randomRuns int, exploreSeed uint64, writes map[string]int) ([]PlannedRun, error) {
	runs := []PlannedRun{{Index: 0, ID: "reference", Strategy: StrategyReference, Seed: scn.Seed}}
	x := scn.Explore
	var targeted []string
	switch strategy {
	case StrategyAll:
		targeted = []string{StrategyIntermediate, StrategyStale, StrategyUnobserved}
	case StrategyIntermediate, StrategyStale, StrategyUnobserved:
		targeted = []string{strategy}
	}
	controllers := targetControllers(x, writes)
	for _, st := range targeted {
		for _, c := range controllers {
			for k := 1; k <= min(x.Bound, writes[c]); k++ {
				f := Fault{Write: k, By: c}
				switch st {
				case StrategyIntermediate:
					f.Action, f.Component = "controller-restart", c
				case StrategyStale:
					f.Action, f.Component, f.For = "watch-stall", watchComponent(c), Duration(StaleWindow)
				case StrategyUnobserved:
					f.Action, f.Component, f.For = "watch-coalesce", watchComponent(c), Duration(UnobservedWindow)
				}
				runs = append(runs, PlannedRun{Index: len(runs), ID: fmt.Sprintf("%s-%s-%d", st, c, k), Strategy: st, Seed: scn.Seed, Faults: []Fault{f}})
				if len(runs) > maxPlannedRuns {
					return nil, fmt.Errorf("the search has more than %d runs", maxPlannedRuns)
				}
			}
		}
	}
	if strategy == StrategyRandom || strategy == StrategyAll {
		if len(runs)+randomRuns > maxPlannedRuns {
			return nil, fmt.Errorf("the search has more than %d runs", maxPlannedRuns)
		}
		for i := 0; i < randomRuns; i++ {
			idx := len(runs)
			seed, faults := draw(scn, exploreSeed, idx)
			runs = append(runs, PlannedRun{Index: idx, ID: fmt.Sprintf("random-%d", i), Strategy: StrategyRandom, Seed: seed, Faults: faults})
		}
	}
	return runs, nil
}

// targetControllers are the components the targeted strategies perturb: explore.controllers,
// or every component but kube-controller-manager as a whole that wrote in the reference run.
func targetControllers(x *scenarios.Explore, writes map[string]int) []string {
	if len(x.Controllers) > 0 {
		out := append([]string(nil), x.Controllers...)
		sort.Strings(out)
		return out
	}
	var out []string
	for c, n := range writes {
		if n > 0 && c != scenarios.ComponentControllerManager {
			out = append(out, c)
		}
	}
	sort.Strings(out)
	return out
}

// watchComponent is whose watches a stale view or coalescing perturbs for component c: the
// scheduler's own, or kube-controller-manager's shared informers, which every controller in
// it reads.
func watchComponent(c string) string {
	if c == scenarios.ComponentScheduler {
		return scenarios.ComponentScheduler
	}
	return scenarios.ComponentControllerManager
}

// draw draws random run idx's simulation seed and faults from the stream seeded by (explore
// seed, idx).
func draw(scn *scenarios.Scenario, exploreSeed uint64, idx int) (uint64, []Fault) {
	r := rand.New(rand.NewPCG(exploreSeed, uint64(idx)))
	seed := r.Uint64()
	x := scn.Explore
	if len(x.Actions) == 0 {
		return seed, nil
	}
	n := x.Faults.Min + r.IntN(x.Faults.Max-x.Faults.Min+1)
	total := 0
	for _, a := range x.Actions {
		total += a.Weight
	}
	nodes := scn.Nodes()
	faults := make([]Fault, 0, n)
	for range n {
		pick := r.IntN(total)
		var a scenarios.ExploreAction
		for _, c := range x.Actions {
			if pick < c.Weight {
				a = c
				break
			}
			pick -= c.Weight
		}
		f := Fault{Action: a.Action, At: Duration(drawIn(r, x.Window.From, x.Window.To))}
		if a.Nodes != nil {
			t := *a.Nodes
			count := max(t.Random, 1)
			t.Random = 0
			cands := t.Select(nodes, nil)
			count = min(count, len(cands))
			for i := 0; i < count; i++ {
				j := i + r.IntN(len(cands)-i)
				cands[i], cands[j] = cands[j], cands[i]
			}
			f.Nodes = cands[:count]
		}
		if len(a.Component) > 0 {
			f.Component = a.Component[r.IntN(len(a.Component))]
		}
		if a.For != nil {
			f.For = Duration(drawIn(r, a.For.Min, a.For.Max))
		}
		if a.Downtime != nil {
			f.Downtime = Duration(drawIn(r, a.Downtime.Min, a.Downtime.Max))
		}
		if a.Heal != nil {
			f.Heal = Duration(drawIn(r, a.Heal.Min, a.Heal.Max))
		}
		if a.Latency != nil {
			f.Latency = Duration(drawIn(r, a.Latency.Min, a.Latency.Max))
		}
		if len(a.Code) > 0 {
			f.Code = a.Code[r.IntN(len(a.Code))]
		}
		f.Clients = a.Clients
		faults = append(faults, f)
	}
	sort.SliceStable(faults, func(i, j int) bool { return faults[i].At < faults[j].At })
	return seed, faults
}

// drawIn draws a duration uniformly in [lo, hi] at timeGrain.
func drawIn(r *rand.Rand, lo, hi time.Duration) time.Duration {
	steps := int64((hi - lo) / timeGrain)
	if steps <= 0 {
		return lo
	}
	return lo + time.Duration(r.Int64N(steps+1))*timeGrain
}
