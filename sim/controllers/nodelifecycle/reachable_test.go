package nodelifecycle

import (
	"math/rand/v2"
	"testing"

	"github.com/reconsim/reconsim/model"
)

// removeTaintOffNodeWouldEdit is removeTaintOffNode's test of a node, with no shortcut: whether
// either of markNodeAsReachable's two calls finds its taint on node and goes on to edit it.
func removeTaintOffNodeWouldEdit(node *model.Node) bool {
	for _, t := range []model.Taint{unreachableTaintTemplate, notReadyTaintTemplate} {
		if taintExists(node.Spec.Taints, &t) {
			return true
		}
	}
	return false
}

// TestMemoNoExecuteTaintedIsRemoveTaintOffNodesTest holds the memo's noExecuteTainted, by which
// a pass skips markNodeAsReachable's removeTaintOffNode calls, to the test those calls make,
// over seeded sequences of node versions whose taints mix both NoExecute taints, their keys
// with other effects and other taints. A version seen again keeps its answer.
func TestMemoNoExecuteTaintedIsRemoveTaintOffNodesTest(t *testing.T) {
	pool := []model.Taint{
		unreachableTaintTemplate,
		notReadyTaintTemplate,
		{Key: model.TaintNodeUnreachable, Effect: model.TaintEffectNoSchedule},
		{Key: model.TaintNodeNotReady, Effect: model.TaintEffectNoSchedule},
		{Key: "example.com/other", Effect: model.TaintEffectNoExecute},
		{Key: model.TaintNodeNotReady, Effect: model.TaintEffectNoExecute, Value: "v"},
	}
	rng := rand.New(rand.NewPCG(17, 27))
	tainted := 0
	for seq := 0; seq < 200; seq++ {
		m := &nodeMemo{}
		var versions []*model.Node
		for step := 0; step < 20; step++ {
			var node *model.Node
			if len(versions) > 0 && rng.IntN(3) == 0 {
				node = versions[rng.IntN(len(versions))] // a version seen before
			} else {
				node = &model.Node{}
				node.Name = "n"
				for range rng.IntN(4) {
					node.Spec.Taints = append(node.Spec.Taints, pool[rng.IntN(len(pool))])
				}
				versions = append(versions, node)
			}
			got, want := m.of(node).noExecuteTainted, removeTaintOffNodeWouldEdit(node)
			if got != want {
				t.Fatalf("sequence %d step %d: taints %v: noExecuteTainted %v, removeTaintOffNode's test %v", seq, step, node.Spec.Taints, got, want)
			}
			if want {
				tainted++
			}
		}
	}
	if tainted == 0 || tainted == 200*20 {
		t.Fatalf("%d of %d steps tainted: the sequences do not cover both answers", tainted, 200*20)
	}
}
