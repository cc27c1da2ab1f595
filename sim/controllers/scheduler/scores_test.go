package scheduler

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/reconsim/reconsim/model"
)

// scoreCase is one score plugin case: pod scored on node with the existing pods on it.
type scoreCase struct {
	name     string
	node     *model.Node
	existing []*model.Pod
	pod      *model.Pod
	want     int64
}

// checkScores runs each case against score.
func checkScores(t *testing.T, score func(*cycleState, *NodeInfo) int64, cases []scoreCase) {
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, score(newCycleState(tt.pod), nodeInfoWith(tt.node, tt.existing...)))
		})
	}
}

// The expected numbers are worked out by hand in each case's comment; the first cases are the
// ones of upstream's least_allocated_test.go and balanced_allocation_test.go.
func TestLeastAllocatedScore(t *testing.T) {
	checkScores(t, leastAllocatedScore, []scoreCase{
		// cpu (4000-3000)*100/4000 = 25; memory (10000-5000)*100/10000 = 50; (25+50)/2 = 37.
		{"differently sized node 1", testNode("n1", "4", "10000", 110), nil, testPod("p", "cpu", "3", "memory", "5000"), 37},
		// cpu (6000-3000)*100/6000 = 50; memory 50; 50.
		{"differently sized node 2", testNode("n2", "6", "10000", 110), nil, testPod("p", "cpu", "3", "memory", "5000"), 50},
		// requested cpu 1000+1000 of 4000 -> 50; memory 2Gi+2Gi of 8Gi -> 50.
		{"half full after the pod", testNode("n", "4", "8Gi", 110), []*model.Pod{testPod("a", "cpu", "1", "memory", "2Gi")}, testPod("p", "cpu", "1", "memory", "2Gi"), 50},
		// cpu over capacity scores 0; memory (10000-5000)*100/10000 = 50; (0+50)/2 = 25.
		{"request above capacity scores 0 for that resource", testNode("n", "2", "10000", 110), nil, testPod("p", "cpu", "3", "memory", "5000"), 25},
		// no requests: defaults 100m and 200Mi. cpu 3900*100/4000 = 97 (97.5 truncated);
		// memory (8192Mi-200Mi)*100/8192Mi = 97 (97.56 truncated).
		{"best-effort pod counts the defaults", testNode("n", "4", "8Gi", 110), nil, testPod("p"), 97},
		// existing best-effort pod counts 100m/200Mi too: cpu (4000-100-1000)*100/4000 = 72
		// (72.5); memory (8192-200-1024)Mi*100/8192Mi = 85 (85.05).
		{"existing best-effort pod counts the defaults", testNode("n", "4", "8Gi", 110), []*model.Pod{testPod("a")}, testPod("p", "cpu", "1", "memory", "1Gi"), (72 + 85) / 2},
	})
}

func TestBalancedAllocationScore(t *testing.T) {
	checkScores(t, balancedAllocationScore, []scoreCase{
		// fractions cpu 3000/4000 = 0.75, memory 5000/10000 = 0.5; std = |0.75-0.5|/2 = 0.125;
		// (1-0.125)*100 = 87.5 -> 87.
		{"differently sized node 1", testNode("n1", "4", "10000", 110), nil, testPod("p", "cpu", "3", "memory", "5000"), 87},
		// fractions 0.5 and 0.5: std 0, score 100.
		{"differently sized node 2", testNode("n2", "6", "10000", 110), nil, testPod("p", "cpu", "3", "memory", "5000"), 100},
		// cpu 3000/2000 capped at 1, memory 0.5: std 0.25, score 75.
		{"fraction capped at 1", testNode("n", "2", "10000", 110), nil, testPod("p", "cpu", "3", "memory", "5000"), 75},
		// existing 1000m/1000 plus the pod 1000m/4000 of 4000m/10000: 0.5 and 0.5 -> 100.
		{"existing pods count with real requests", testNode("n", "4", "10000", 110), []*model.Pod{testPod("a", "cpu", "1", "memory", "1000")}, testPod("p", "cpu", "1", "memory", "4000"), 100},
		// existing best-effort pod adds nothing (useRequested): 0.25 and 0 -> std 0.125 -> 87.
		{"best-effort neighbours add nothing", testNode("n", "4", "10000", 110), []*model.Pod{testPod("a")}, testPod("p", "cpu", "1"), 87},
	})
}

func TestBalancedResourceScoreThreeResources(t *testing.T) {
	// fractions 0.2, 0.5, 0.8: mean 0.5, variance (0.09+0+0.09)/3 = 0.06, std 0.2449;
	// (1-0.2449)*100 = 75.5 -> 75.
	assert.Equal(t, int64(75), balancedResourceScore([]int64{2, 5, 8}, []int64{10, 10, 10}))
	// A resource the node does not have is left out: one fraction, std 0.
	assert.Equal(t, int64(100), balancedResourceScore([]int64{3, 5}, []int64{10, 0}))
}

func TestBalancedAllocationSkipsBestEffortPods(t *testing.T) {
	assert.True(t, newCycleState(testPod("p")).skipBalanced)
	assert.False(t, newCycleState(testPod("p", "memory", "1Gi")).skipBalanced)
}

func TestDefaultNormalizeScore(t *testing.T) {
	tests := []struct {
		name    string
		in      []int64
		reverse bool
		want    []int64
	}{
		{"scale to max", []int64{0, 5, 10}, false, []int64{0, 50, 100}},
		{"integer division", []int64{3, 7}, false, []int64{42, 100}},
		{"reverse", []int64{0, 1, 2}, true, []int64{100, 50, 0}},
		{"all zero", []int64{0, 0}, false, []int64{0, 0}},
		{"all zero reversed", []int64{0, 0}, true, []int64{100, 100}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := append([]int64(nil), tt.in...)
			defaultNormalizeScore(MaxNodeScore, tt.reverse, got)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestPrioritizeNodesWeights(t *testing.T) {
	// Three equal empty nodes 4 cpu / 8Gi; the pod asks 1 cpu / 2Gi, so every node has
	// LeastAllocated 75 and BalancedAllocation 100 (fractions 0.25 and 0.25).
	// n2 carries one PreferNoSchedule taint: TaintToleration raw [0,1,0] -> reversed [100,0,100].
	// The pod prefers zone=a (weight 5) and disk=ssd (weight 5): n1 has both (10), n3 zone=a
	// only (5): NodeAffinity raw [10,0,5] -> [100,0,50].
	// Totals: 75 + 100 + 3*taint + 2*affinity = n1 175+300+200 = 675, n2 175, n3 175+300+100 = 575.
	n1 := testNode("n1", "4", "8Gi", 110)
	n1.Labels = map[string]string{"zone": "a", "disk": "ssd"}
	n2 := testNode("n2", "4", "8Gi", 110)
	n2.Spec.Taints = []model.Taint{{Key: "spot", Effect: model.TaintEffectPreferNoSchedule}}
	n3 := testNode("n3", "4", "8Gi", 110)
	n3.Labels = map[string]string{"zone": "a"}
	pod := testPod("p", "cpu", "1", "memory", "2Gi")
	pod.Spec.Affinity = &model.Affinity{NodeAffinity: &model.NodeAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []model.PreferredSchedulingTerm{
		{Weight: 5, Preference: model.NodeSelectorTerm{MatchExpressions: []model.NodeSelectorRequirement{{Key: "zone", Operator: "In", Values: []string{"a"}}}}},
		{Weight: 5, Preference: model.NodeSelectorTerm{MatchExpressions: []model.NodeSelectorRequirement{{Key: "disk", Operator: "In", Values: []string{"ssd"}}}}},
		{Weight: 0, Preference: model.NodeSelectorTerm{MatchExpressions: []model.NodeSelectorRequirement{{Key: "zone", Operator: "Exists"}}}},
	}}}
	scores := prioritizeNodes(newCycleState(pod), []*NodeInfo{nodeInfoWith(n1), nodeInfoWith(n2), nodeInfoWith(n3)})
	got := []int64{scores[0].total, scores[1].total, scores[2].total}
	assert.Equal(t, []int64{675, 175, 575}, got)

	// A toleration for the PreferNoSchedule taint removes the penalty: every taint score 100.
	pod.Spec.Tolerations = []model.Toleration{{Key: "spot", Operator: "Exists", Effect: model.TaintEffectPreferNoSchedule}}
	scores = prioritizeNodes(newCycleState(pod), []*NodeInfo{nodeInfoWith(n1), nodeInfoWith(n2), nodeInfoWith(n3)})
	assert.Equal(t, int64(175+300), scores[1].total)
}
