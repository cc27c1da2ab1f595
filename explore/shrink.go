package explore

import (
	"context"
	"fmt"
	"time"
)

// shrinker delta-debugs one failing run for one invariant: every step is kept only if the
// invariant still fails (with the same seed). Steps, in order: drop faults (one at a time,
// until none can go), move each timed fault earlier (to the window's start, else by
// bisection), shorten each duration (halving), target fewer nodes, drop each object source. It stops when its
// run budget is spent.
type shrinker struct {
	s      *Search
	ctx    context.Context
	inv    string
	budget int
	runs   int
	steps  []string
	msg    string // the failure message of the newest kept variant
	// breaks, when set, decides whether a variant breaks the invariant instead of running it
	// (a test seam).
	breaks func(v variant) bool
}

// fails runs v and reports whether inv still fails; false once the budget is spent.
func (sh *shrinker) fails(v variant) bool {
	if sh.runs >= sh.budget || sh.ctx.Err() != nil {
		return false
	}
	sh.runs++
	if sh.breaks != nil {
		return sh.breaks(v)
	}
	res, err := sh.s.runVariant(sh.ctx, v, nil)
	fs, _ := sh.s.failures(res, err)
	for _, f := range fs {
		if f.Invariant == sh.inv {
			sh.msg = f.Message
			return true
		}
	}
	return false
}

func cloneFaults(fs []Fault) []Fault {
	out := make([]Fault, len(fs))
	copy(out, fs)
	return out
}

// shrink returns the smallest variant found that still fails inv.
func (sh *shrinker) shrink(v variant) variant {
	// 1. Drop faults.
	for changed := true; changed && len(v.faults) > 0; {
		changed = false
		for i := len(v.faults) - 1; i >= 0; i-- {
			cand := v
			cand.faults = append(cloneFaults(v.faults[:i]), v.faults[i+1:]...)
			if sh.fails(cand) {
				sh.steps = append(sh.steps, "dropped fault "+v.faults[i].String())
				v, changed = cand, true
			}
		}
	}
	// 2. Move timed faults earlier.
	from := Duration(sh.s.scn.Explore.Window.From)
	for i := range v.faults {
		f := v.faults[i]
		if f.Write > 0 || f.At <= from {
			continue
		}
		orig := f.At
		lo, hi := from, f.At // hi fails; try lo, then bisect
		for step := 0; step < 8 && hi-lo > Duration(time.Second); step++ {
			t := lo
			if step > 0 {
				t = (lo + hi) / 2 / Duration(timeGrain) * Duration(timeGrain)
			}
			cand := v
			cand.faults = cloneFaults(v.faults)
			cand.faults[i].At = t
			if sh.fails(cand) {
				v, hi = cand, t
				if step == 0 {
					break
				}
			} else {
				lo = t
			}
		}
		if v.faults[i].At != orig {
			sh.steps = append(sh.steps, fmt.Sprintf("moved %s from %s to %s", v.faults[i].Action, time.Duration(orig), time.Duration(v.faults[i].At)))
		}
	}
	// 3. Shorten durations.
	for i := range v.faults {
		for _, field := range []string{"for", "downtime", "heal", "latency"} {
			orig := *durationField(&v.faults[i], field)
			if orig <= 0 {
				continue
			}
			for tries := 0; tries < 6; tries++ {
				cur := *durationField(&v.faults[i], field)
				next := cur / 2 / Duration(timeGrain) * Duration(timeGrain)
				if next < Duration(timeGrain) || (field != "downtime" && next < Duration(time.Second)) {
					break
				}
				cand := v
				cand.faults = cloneFaults(v.faults)
				*durationField(&cand.faults[i], field) = next
				if !sh.fails(cand) {
					break
				}
				v = cand
			}
			if now := *durationField(&v.faults[i], field); now != orig {
				sh.steps = append(sh.steps, fmt.Sprintf("shortened %s of %s from %s to %s", field, v.faults[i].Action, time.Duration(orig), time.Duration(now)))
			}
		}
	}
	// 4. Target fewer nodes.
	for i := range v.faults {
		for j := len(v.faults[i].Nodes) - 1; j >= 0 && len(v.faults[i].Nodes) > 1; j-- {
			cand := v
			cand.faults = cloneFaults(v.faults)
			nodes := v.faults[i].Nodes
			cand.faults[i].Nodes = append(append([]string(nil), nodes[:j]...), nodes[j+1:]...)
			if sh.fails(cand) {
				sh.steps = append(sh.steps, fmt.Sprintf("dropped node %s from %s", nodes[j], v.faults[i].Action))
				v = cand
			}
		}
	}
	// 5. Drop object sources the failure does not need.
	for j := range sh.s.scn.Objects {
		cand := v
		cand.dropped = append(append([]int(nil), v.dropped...), j)
		if sh.fails(cand) {
			sh.steps = append(sh.steps, fmt.Sprintf("dropped objects[%d]", j))
			v = cand
		}
	}
	return v
}

func durationField(f *Fault, name string) *Duration {
	switch name {
	case "for":
		return &f.For
	case "downtime":
		return &f.Downtime
	case "heal":
		return &f.Heal
	default:
		return &f.Latency
	}
}
