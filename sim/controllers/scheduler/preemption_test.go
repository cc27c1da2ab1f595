package scheduler

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/vtime"
)

// prio returns a 1-cpu pod with priority p and the given labels and start time (0: not started).
func prio(name string, p int32, start vtime.Time, labels map[string]string) *model.Pod {
	pod := testPod(name, "cpu", "1")
	pod.Spec.Priority = &p
	pod.Labels = labels
	if start != 0 {
		pod.Status.StartTime = &start
	}
	return pod
}

func names(pods []*model.Pod) []string {
	if len(pods) == 0 {
		return nil
	}
	out := make([]string, len(pods))
	for i, p := range pods {
		out[i] = p.Name
	}
	return out
}

// TestCalculateNumCandidates follows DefaultPreemption.calculateNumCandidates with the default
// args (minCandidateNodesPercentage 10, minCandidateNodesAbsolute 100).
func TestCalculateNumCandidates(t *testing.T) {
	for _, tt := range []struct{ nodes, want int32 }{
		{1, 1}, {50, 50}, {100, 100}, {500, 100}, {1000, 100}, {1001, 100}, {2000, 200}, {5000, 500},
	} {
		assert.Equal(t, tt.want, calculateNumCandidates(tt.nodes), "%d nodes", tt.nodes)
	}
}

// TestFilterPodsWithPDBViolation follows filterPodsWithPDBViolation: each matching budget
// loses one allowed disruption per pod; a pod taking it below zero violates it; a pod listed
// in disruptedPods, a pod without labels, another namespace and an empty selector do not count.
func TestFilterPodsWithPDBViolation(t *testing.T) {
	pdb := func(ns string, allowed int32, sel map[string]string, disrupted ...string) *model.PodDisruptionBudget {
		b := &model.PodDisruptionBudget{ObjectMeta: model.ObjectMeta{Name: "b", Namespace: ns}}
		b.Spec.Selector = &metav1.LabelSelector{MatchLabels: sel}
		b.Status.DisruptionsAllowed = allowed
		if len(disrupted) > 0 {
			b.Status.DisruptedPods = map[string]vtime.Time{}
			for _, d := range disrupted {
				b.Status.DisruptedPods[d] = 0
			}
		}
		return b
	}
	app := map[string]string{"app": "a"}
	tests := []struct {
		name                    string
		pods                    []*model.Pod
		pdbs                    []*model.PodDisruptionBudget
		violating, nonViolating []string
	}{
		{"no budgets", []*model.Pod{prio("p1", 1, 0, app)}, nil, nil, []string{"p1"}},
		{"one allowed: the second violates", []*model.Pod{prio("p1", 1, 0, app), prio("p2", 1, 0, app)},
			[]*model.PodDisruptionBudget{pdb("default", 1, app)}, []string{"p2"}, []string{"p1"}},
		{"none allowed", []*model.Pod{prio("p1", 1, 0, app), prio("p2", 1, 0, nil)},
			[]*model.PodDisruptionBudget{pdb("default", 0, app)}, []string{"p1"}, []string{"p2"}},
		{"already disrupted pods do not count", []*model.Pod{prio("p1", 1, 0, app)},
			[]*model.PodDisruptionBudget{pdb("default", 0, app, "p1")}, nil, []string{"p1"}},
		{"other namespace", []*model.Pod{prio("p1", 1, 0, app)},
			[]*model.PodDisruptionBudget{pdb("other", 0, app)}, nil, []string{"p1"}},
		{"empty selector matches nothing", []*model.Pod{prio("p1", 1, 0, app)},
			[]*model.PodDisruptionBudget{pdb("default", 0, map[string]string{})}, nil, []string{"p1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, nv := filterPodsWithPDBViolation(tt.pods, tt.pdbs)
			assert.Equal(t, tt.violating, names(v))
			assert.Equal(t, tt.nonViolating, names(nv))
		})
	}
}

// TestPickOneNodeForPreemption follows pickOneNodeForPreemption's order of criteria.
func TestPickOneNodeForPreemption(t *testing.T) {
	c := func(node string, violations int, victims ...*model.Pod) *candidate {
		return &candidate{node: node, victims: victims, numPDBViolations: violations}
	}
	tests := []struct {
		name       string
		candidates []*candidate
		want       string
	}{
		{"fewest PDB violations first", []*candidate{c("a", 1, prio("x", 1, 0, nil)), c("b", 0, prio("y", 50, 0, nil))}, "b"},
		{"lowest highest-priority victim", []*candidate{c("a", 0, prio("x", 20, 0, nil)), c("b", 0, prio("y", 10, 0, nil), prio("z", 10, 0, nil))}, "b"},
		{"smallest priority sum", []*candidate{c("a", 0, prio("x", 10, 0, nil), prio("x2", 5, 0, nil)), c("b", 0, prio("y", 10, 0, nil), prio("y2", 1, 0, nil))}, "b"},
		{"negative priorities are shifted", []*candidate{c("a", 0, prio("x", -5, 0, nil), prio("x2", -5, 0, nil)), c("b", 0, prio("y", -5, 0, nil))}, "b"},
		{"fewest victims", []*candidate{c("a", 0, prio("x", 10, 0, nil), prio("x2", 0, 0, nil), prio("x3", 0, 0, nil)), c("b", 0, prio("y", 10, 0, nil), prio("y2", 0, 0, nil))}, "b"},
		{"latest start of the top victims", []*candidate{c("a", 0, prio("x", 10, 100, nil)), c("b", 0, prio("y", 10, 200, nil))}, "b"},
		{"then the first", []*candidate{c("a", 0, prio("x", 10, 100, nil)), c("b", 0, prio("y", 10, 100, nil))}, "a"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, pickOneNodeForPreemption(tt.candidates, 1000).node)
		})
	}
}

// TestSelectVictimsOnNode follows SelectVictimsOnNode: remove the lower-priority pods, then
// reprieve the most important ones that still fit, PDB-violating ones first.
func TestSelectVictimsOnNode(t *testing.T) {
	app := map[string]string{"app": "a"}
	node := testNode("n", "3", "8Gi", 110)
	guard := &model.PodDisruptionBudget{ObjectMeta: model.ObjectMeta{Name: "g", Namespace: "default"}}
	guard.Spec.Selector = &metav1.LabelSelector{MatchLabels: app}
	tests := []struct {
		name       string
		pods       []*model.Pod
		pdbs       []*model.PodDisruptionBudget
		preemptor  *model.Pod
		victims    []string
		violations int
		code       Code
	}{
		{"the least important goes", []*model.Pod{prio("hi", 50, 0, nil), prio("lo", 10, 0, nil), prio("mid", 20, 0, nil)}, nil,
			prio("p", 100, 0, nil), []string{"lo"}, 0, Success},
		{"equal priority: the one started last goes", []*model.Pod{prio("old", 10, 100, nil), prio("new", 10, 200, nil), prio("x", 10, 150, nil)}, nil,
			prio("p", 100, 0, nil), []string{"new"}, 0, Success},
		{"higher or equal priority pods stay", []*model.Pod{prio("a", 100, 0, nil), prio("b", 100, 0, nil), prio("c", 100, 0, nil)}, nil,
			prio("p", 100, 0, nil), nil, 0, UnschedulableAndUnresolvable},
		{"PDB-guarded pods are reprieved first", []*model.Pod{prio("guarded", 10, 0, app), prio("free", 20, 0, nil), prio("top", 90, 0, nil)},
			[]*model.PodDisruptionBudget{guard}, prio("p", 100, 0, nil), []string{"free"}, 0, Success},
		{"not enough room even without victims", []*model.Pod{prio("a", 200, 0, nil), prio("b", 200, 0, nil), prio("c", 10, 0, nil)}, nil,
			func() *model.Pod { p := testPod("p", "cpu", "2"); p.Spec.Priority = model.Ptr(int32(100)); return p }(), nil, 0, Unschedulable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ni := nodeInfoWith(node, tt.pods...)
			before := ni.Requested()
			victims, violations, st := selectVictimsOnNode(newCycleState(tt.preemptor), ni, tt.pdbs, 1000)
			require.Equal(t, tt.code, st.Code(), "%v", st.Reasons())
			if tt.code == Success {
				assert.Equal(t, tt.victims, names(victims))
			}
			assert.Equal(t, tt.violations, violations)
			assert.Equal(t, before, ni.Requested(), "the dry run works on a copy")
			assert.Equal(t, len(tt.pods), ni.NumPods())
		})
	}
}

// TestNominatorKeepsTheNominationThroughUpdates follows nominator.UpdateNominatedPod: an update
// without nominatedNodeName on either side keeps the in-memory nomination; one that clears it
// removes it.
func TestNominatorKeepsTheNominationThroughUpdates(t *testing.T) {
	n := newNominator()
	p := prio("p", 10, 0, nil)
	n.override(p, "n1")
	require.Len(t, n.podsForNode("n1"), 1)
	n.update(p, p.DeepCopy())
	assert.Len(t, n.podsForNode("n1"), 1, "kept through an update without nominatedNodeName")
	withNNN := p.DeepCopy()
	withNNN.Status.NominatedNodeName = "n2"
	n.update(p, withNNN)
	assert.Empty(t, n.podsForNode("n1"))
	assert.Len(t, n.podsForNode("n2"), 1)
	cleared := withNNN.DeepCopy()
	cleared.Status.NominatedNodeName = ""
	n.update(withNNN, cleared)
	assert.Zero(t, n.count())
	n.add(withNNN, "")
	bound := withNNN.DeepCopy()
	bound.Spec.NodeName = "n2"
	n.update(withNNN, bound)
	assert.Zero(t, n.count(), "a bound pod is not nominated")
}
