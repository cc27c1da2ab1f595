package explore

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/reconsim/reconsim/scenarios"
)

// TestShrink: each step is kept only while the predicate (standing in for "the invariant
// still breaks") holds, and the budget bounds the runs.
func TestShrink(t *testing.T) {
	scn := &scenarios.Scenario{Explore: &scenarios.Explore{Window: scenarios.TimeRange{From: 10 * time.Second, To: 10 * time.Minute}}, Objects: make([]scenarios.ObjectSource, 3)}
	crash := Fault{Action: "node-crash", At: Duration(5 * time.Minute), Nodes: []string{"worker-0", "worker-1"}, Heal: Duration(4 * time.Minute)}
	stall := Fault{Action: "kubelet-stall", At: Duration(time.Minute), Nodes: []string{"worker-2"}, For: Duration(time.Minute)}
	restart := Fault{Action: "controller-restart", Write: 3, By: "replicaset-controller", Component: "replicaset-controller"}
	// Breaks while a crash of worker-1 at or after 2m, healed after at least 30s, is there
	// and objects[1] is kept. Bisection stops within 8 tries of 2m (at 2m1.015s).
	breaks := func(v variant) bool {
		if slices.Contains(v.dropped, 1) {
			return false
		}
		for _, f := range v.faults {
			if f.Action == "node-crash" && f.At >= Duration(2*time.Minute) && f.Heal >= Duration(30*time.Second) && slices.Contains(f.Nodes, "worker-1") {
				return true
			}
		}
		return false
	}
	for _, c := range []struct {
		name   string
		budget int
		want   variant
		steps  int
	}{
		{"unbounded", 1000, variant{seed: 9, faults: []Fault{{Action: "node-crash", At: Duration(2*time.Minute + time.Second + 15*time.Millisecond), Nodes: []string{"worker-1"}, Heal: Duration(30 * time.Second)}}, dropped: []int{0, 2}}, 7},
		{"one run", 1, variant{seed: 9, faults: []Fault{crash, stall}}, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			sh := &shrinker{s: &Search{scn: scn}, ctx: context.Background(), inv: "x", budget: c.budget, breaks: breaks}
			got := sh.shrink(variant{seed: 9, faults: []Fault{crash, stall, restart}})
			assert.Equal(t, c.want, got, "%v", sh.steps)
			assert.Len(t, sh.steps, c.steps, "%v", sh.steps)
			assert.LessOrEqual(t, sh.runs, c.budget)
			assert.True(t, breaks(got), "the result still breaks")
		})
	}
}
