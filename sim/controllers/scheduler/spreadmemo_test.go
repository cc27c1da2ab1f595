package scheduler

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/vtime"
)

// TestSpreadMemoMatchesFullCount is a property test of spreadMemos: over random clusters that
// change between cycles (pods added, removed, relabelled or marked for deletion; nodes
// relabelled, added and removed), PodTopologySpread's PreScore with the memos gives exactly the
// sums of a full count of every node, for pods with and without a nodeSelector (which turns
// the memo off) and for zone and region constraints (requireAllTopologies).
func TestSpreadMemoMatchesFullCount(t *testing.T) {
	zones := []string{"", "a", "b", "c"}
	apps := []string{"web", "api", "db"}
	for seed := uint64(1); seed <= 20; seed++ {
		rng := rand.New(rand.NewPCG(seed, 7))
		memos := newSpreadMemos()
		var infos []*NodeInfo
		newNode := func(i int) *NodeInfo {
			n := zoneNode(fmt.Sprintf("n%d", i), zones[rng.IntN(len(zones))])
			if rng.IntN(3) > 0 {
				n.Labels["topology.kubernetes.io/region"] = "r" + fmt.Sprint(rng.IntN(2))
			}
			return newNodeInfo(n)
		}
		for i := range 12 {
			infos = append(infos, newNode(i))
		}
		podSeq := 0
		for step := range 60 {
			// Change the cluster.
			for range 1 + rng.IntN(4) {
				ni := infos[rng.IntN(len(infos))]
				switch op := rng.IntN(10); {
				case op < 4:
					podSeq++
					ns := []string{"default", "other"}[rng.IntN(2)]
					p := labelled(fmt.Sprintf("p%d", podSeq), ns, "app", apps[rng.IntN(len(apps))])
					p.Spec.NodeName = ni.node.Name
					ni.addPod(model.Key(p), p)
				case op < 6 && len(ni.pods) > 0:
					ni.removePod(anyPodKey(ni, rng))
				case op < 8 && len(ni.pods) > 0:
					p := ni.pods[anyPodKey(ni, rng)]
					changed := p.pod.DeepCopy()
					if rng.IntN(2) == 0 {
						changed.Labels = map[string]string{"app": apps[rng.IntN(len(apps))]}
					} else {
						changed.DeletionTimestamp = model.Ptr(vtime.Time(1))
					}
					ni.replacePod(p, changed)
				case op == 8:
					n := ni.node.DeepCopy()
					n.Labels[LabelTopologyZone] = zones[1+rng.IntN(len(zones)-1)]
					ni.setNode(n)
				default:
					i := rng.IntN(len(infos))
					if rng.IntN(2) == 0 && len(infos) > 2 {
						infos = append(infos[:i:i], infos[i+1:]...)
					} else {
						infos = append(infos, newNode(100+step))
					}
				}
			}
			// Score a pod with the memos and without, and compare.
			app := apps[rng.IntN(len(apps))]
			pod := withSpread(labelled("incoming", "default", "app", app),
				model.TopologySpreadConstraint{MaxSkew: 1, TopologyKey: LabelTopologyZone, WhenUnsatisfiable: model.ScheduleAnyway, LabelSelector: sel("app", app)})
			if rng.IntN(2) == 0 {
				pod.Spec.TopologySpreadConstraints = append(pod.Spec.TopologySpreadConstraints,
					model.TopologySpreadConstraint{MaxSkew: 2, TopologyKey: "topology.kubernetes.io/region", WhenUnsatisfiable: model.ScheduleAnyway, LabelSelector: sel("app", app)})
			}
			if rng.IntN(4) == 0 {
				pod.Spec.NodeSelector = map[string]string{LabelTopologyZone: "a"}
			}
			feasible := infos[:1+rng.IntN(len(infos))]
			score := func(m *spreadMemos) *spreadScoreState {
				s := newCycleState(pod)
				s.spreadMemos = m
				s.preFilter(infos)
				return s.spreadPreScore(feasible)
			}
			want, got := score(nil), score(memos)
			if want == nil {
				require.Nil(t, got, "seed %d step %d", seed, step)
				continue
			}
			require.Equal(t, want.podCounts, got.podCounts, "seed %d step %d: pod counts per domain", seed, step)
			require.Equal(t, want.weights, got.weights, "seed %d step %d", seed, step)
			require.Equal(t, want.ignored, got.ignored, "seed %d step %d", seed, step)
		}
	}
}

// anyPodKey returns the key of one of the node's pods, chosen by rng in key order.
func anyPodKey(ni *NodeInfo, rng *rand.Rand) string {
	keys := make([]string, 0, len(ni.pods))
	for k := range ni.pods { //detlint:ordered sorted below
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys[rng.IntN(len(keys))]
}
