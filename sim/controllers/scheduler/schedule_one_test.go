package scheduler

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim"
)

func TestNumFeasibleNodesToFind(t *testing.T) {
	tests := []struct {
		percentage int32
		nodes      int32
		want       int32
	}{
		{0, 0, 0},
		{0, 50, 50},      // below 100 nodes: all
		{0, 99, 99},      // still all
		{0, 100, 100},    // 50% of 100 = 50, raised to the minimum 100
		{0, 250, 120},    // 50 - 250/125 = 48%; 250*48/100 = 120
		{0, 1000, 420},   // 50 - 8 = 42%; 420
		{0, 5000, 500},   // 50 - 40 = 10%; 500
		{0, 6000, 300},   // 50 - 48 = 2%, floored at 5%; 300
		{0, 20000, 1000}, // 50 - 160 < 5, so 5%; 1000
		{10, 1000, 100},  // explicit 10%: 100
		{5, 1000, 100},   // 50 is below the minimum: 100
		{100, 5000, 5000},
		{30, 50, 50}, // the percentage does not apply below 100 nodes
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%d%%-of-%d", tt.percentage, tt.nodes), func(t *testing.T) {
			assert.Equal(t, tt.want, NumFeasibleNodesToFind(tt.percentage, tt.nodes))
		})
	}
}

func TestFitErrorMessage(t *testing.T) {
	st := func(code Code, reasons ...string) *Status { return newStatus(code, "p", reasons...) }
	taint := "node(s) had untolerated taint {node.kubernetes.io/unreachable: }"
	tests := []struct {
		name string
		err  FitError
		want string
	}{
		{
			"the upstream example",
			FitError{NumAllNodes: 3, NodeToStatus: map[string]*Status{
				"n1": st(UnschedulableAndUnresolvable, taint),
				"n2": st(Unschedulable, "Insufficient cpu"),
				"n3": st(Unschedulable, "Insufficient cpu"),
			}, PostFilterMsg: "preemption: 0/3 nodes are available: 1 Preemption is not helpful for scheduling, 2 No preemption victims found for incoming pod."},
			"0/3 nodes are available: 1 node(s) had untolerated taint {node.kubernetes.io/unreachable: }, 2 Insufficient cpu. " +
				"preemption: 0/3 nodes are available: 1 Preemption is not helpful for scheduling, 2 No preemption victims found for incoming pod.",
		},
		{
			"counts sort as strings, so 10 comes before 2",
			FitError{NumAllNodes: 12, NodeToStatus: func() map[string]*Status {
				m := map[string]*Status{"a": st(Unschedulable, "Insufficient cpu"), "b": st(Unschedulable, "Insufficient cpu")}
				for i := range 10 {
					m[fmt.Sprintf("u%d", i)] = st(UnschedulableAndUnresolvable, ErrReasonUnschedulable)
				}
				return m
			}()},
			"0/12 nodes are available: 10 node(s) were unschedulable, 2 Insufficient cpu.",
		},
		{
			"every reason of a node counts",
			FitError{NumAllNodes: 2, NodeToStatus: map[string]*Status{
				"n1": st(Unschedulable, ErrReasonTooManyPods, "Insufficient cpu", "Insufficient memory"),
				"n2": st(Unschedulable, "Insufficient memory"),
			}},
			"0/2 nodes are available: 1 Insufficient cpu, 1 Too many pods, 2 Insufficient memory.",
		},
		{
			"affinity",
			FitError{NumAllNodes: 3, NodeToStatus: map[string]*Status{
				"n1": st(UnschedulableAndUnresolvable, ErrReasonAffinity), "n2": st(UnschedulableAndUnresolvable, ErrReasonAffinity), "n3": st(UnschedulableAndUnresolvable, ErrReasonAffinity),
			}},
			"0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector.",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, tt.err.Error())
		})
	}
}

// fitErrorFor runs the whole failure path of a cycle: filters, then the preemption message,
// with the messages of v1.34 (the taint named, one period; gates SchedulerFitErrorSinglePeriod
// on, TaintTolerationGenericMessage off).
func fitErrorFor(t *testing.T, pod *model.Pod, nodes ...*NodeInfo) string {
	t.Helper()
	return fitErrorWith(t, pod, true, false, nodes...)
}

func fitErrorWith(t *testing.T, pod *model.Pod, taintWithKey, doublePeriod bool, nodes ...*NodeInfo) string {
	t.Helper()
	s := newCycleState(pod)
	s.taintWithKey = taintWithKey
	next := 0
	_, fitErr, _, err := schedulePod(s, nodes, 0, &next, sim.NewRand(1, "test"))
	require.NoError(t, err)
	require.NotNil(t, fitErr, "the pod should fit nowhere")
	fitErr.PostFilterMsg = preempt(s, nodes, fitErr.NodeToStatus, func(int32) int32 { return 0 }, nil, 0).msg
	fitErr.DoublePeriod = doublePeriod
	return fitErr.Error()
}

// TestFailedSchedulingMessageByRelease follows FitError.Error (pkg/scheduler/framework/types.go)
// and tainttoleration.Filter in the releases the gates separate: v1.32-v1.33 print the
// preemption sentence with a doubled period and name the taint; v1.34 one period; v1.35 and
// later (#134740) no taint.
func TestFailedSchedulingMessageByRelease(t *testing.T) {
	unreachable := testNode("n1", "4", "8Gi", 110)
	unreachable.Spec.Taints = []model.Taint{{Key: model.TaintNodeUnreachable, Effect: model.TaintEffectNoExecute}}
	pod := testPod("p", "cpu", "1")
	tests := []struct {
		release                    string
		taintWithKey, doublePeriod bool
		want                       string
	}{
		{"1.33", true, true, "0/1 nodes are available: 1 node(s) had untolerated taint {node.kubernetes.io/unreachable: }. preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.."},
		{"1.34", true, false, "0/1 nodes are available: 1 node(s) had untolerated taint {node.kubernetes.io/unreachable: }. preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling."},
		{"1.35", false, false, "0/1 nodes are available: 1 node(s) had untolerated taint(s). preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling."},
	}
	for _, tt := range tests {
		t.Run(tt.release, func(t *testing.T) {
			assert.Equal(t, tt.want, fitErrorWith(t, pod, tt.taintWithKey, tt.doublePeriod, nodeInfoWith(unreachable)))
		})
	}
}

func TestFailedSchedulingMessageWithPreemption(t *testing.T) {
	unreachable := testNode("n1", "4", "8Gi", 110)
	unreachable.Spec.Taints = []model.Taint{{Key: model.TaintNodeUnreachable, Effect: model.TaintEffectNoExecute}}
	full := func(name string) *NodeInfo {
		return nodeInfoWith(testNode(name, "4", "8Gi", 110), testPod("filler-"+name, "cpu", "3500m"))
	}
	pod := testPod("p", "cpu", "1")

	got := fitErrorFor(t, pod, nodeInfoWith(unreachable), full("n2"), full("n3"))
	assert.Equal(t, "0/3 nodes are available: 1 node(s) had untolerated taint {node.kubernetes.io/unreachable: }, 2 Insufficient cpu. "+
		"preemption: 0/3 nodes are available: 1 Preemption is not helpful for scheduling, 2 No preemption victims found for incoming pod.", got)

	// Only unresolvable nodes: preemption is not helpful anywhere.
	cordoned := testNode("n4", "4", "8Gi", 110)
	cordoned.Spec.Unschedulable = true
	got = fitErrorFor(t, pod, nodeInfoWith(unreachable), nodeInfoWith(cordoned))
	assert.Equal(t, "0/2 nodes are available: 1 node(s) had untolerated taint {node.kubernetes.io/unreachable: }, 1 node(s) were unschedulable. "+
		"preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.", got)

	// Lower-priority pods that would not make enough room: the dry run reports the filter.
	low := testPod("low", "cpu", "500m")
	low.Spec.Priority = model.Ptr(int32(-1))
	high := testPod("high", "cpu", "3")
	big := testPod("big", "cpu", "4")
	got = fitErrorFor(t, big, nodeInfoWith(testNode("n5", "4", "8Gi", 110), low, high))
	assert.Equal(t, "0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available: 1 Insufficient cpu.", got)

	// Lower-priority pods whose eviction would make room: upstream would preempt, and its
	// PostFilter message is empty.
	small := testPod("small", "cpu", "1")
	got = fitErrorFor(t, small, nodeInfoWith(testNode("n6", "4", "8Gi", 110), testPod("low2", "cpu", "3500m")), nodeInfoWith(testNode("n7", "4", "8Gi", 110), func() *model.Pod {
		p := testPod("low3", "cpu", "3500m")
		p.Spec.Priority = model.Ptr(int32(-5))
		return p
	}()))
	assert.Equal(t, "0/2 nodes are available: 2 Insufficient cpu.", got)
}

func TestTruncateMessage(t *testing.T) {
	short := "0/1 nodes are available: 1 Insufficient cpu."
	assert.Equal(t, short, truncateMessage(short))
	long := strings.Repeat("x", 2000)
	got := truncateMessage(long)
	assert.Len(t, got, eventMessageLimit)
	assert.True(t, strings.HasSuffix(got, " ..."))
}

func TestFindNodesRotatesTheStartIndex(t *testing.T) {
	nodes := make([]*NodeInfo, 200)
	for i := range nodes {
		nodes[i] = nodeInfoWith(testNode(fmt.Sprintf("n%03d", i), "4", "8Gi", 110))
	}
	s := newCycleState(testPod("p", "cpu", "1"))
	next := 0
	diag := diagnosis{nodeToStatus: map[string]*Status{}}
	feasible := findNodesThatPassFilters(s, nodes, 0, &next, &diag)
	require.Len(t, feasible, 100, "200 nodes: 50 - 200/125 = 49%% is 98, raised to 100")
	assert.Equal(t, "n000", feasible[0].node.Name)
	assert.Equal(t, 100, next)
	feasible = findNodesThatPassFilters(s, nodes, 0, &next, &diag)
	assert.Equal(t, "n100", feasible[0].node.Name)
	assert.Equal(t, 0, next)

	// Rejected nodes count as processed: with the first 10 nodes cordoned, the cycle walks
	// 10 + 100 nodes.
	for i := range 10 {
		cordoned := nodes[i].node.DeepCopy()
		cordoned.Spec.Unschedulable = true
		nodes[i].setNode(cordoned) // a new version, as the informer delivers it
	}
	feasible = findNodesThatPassFilters(s, nodes, 0, &next, &diag)
	assert.Equal(t, "n010", feasible[0].node.Name)
	assert.Len(t, diag.nodeToStatus, 10)
	assert.Equal(t, 110, next)
	assert.Equal(t, []string{PluginNodeUnschedulable}, diag.unschedulablePlugins.names())
}

func TestSelectHostBreaksTiesUniformly(t *testing.T) {
	scores := []nodeScore{{ni: nodeInfoWith(testNode("a", "1", "1", 1)), total: 300}, {ni: nodeInfoWith(testNode("b", "1", "1", 1)), total: 299},
		{ni: nodeInfoWith(testNode("c", "1", "1", 1)), total: 300}, {ni: nodeInfoWith(testNode("d", "1", "1", 1)), total: 300}}
	r := sim.NewRand(7, "kube-scheduler")
	counts := map[string]int{}
	const draws = 3000
	for range draws {
		counts[selectHost(scores, r).node.Name]++
	}
	assert.Zero(t, counts["b"], "a lower score is never picked")
	for _, name := range []string{"a", "c", "d"} {
		assert.InDelta(t, draws/3, counts[name], draws/3*0.1, "node %s picked %d times", name, counts[name])
	}
	// Deterministic for a seed.
	r1, r2 := sim.NewRand(9, "kube-scheduler"), sim.NewRand(9, "kube-scheduler")
	for range 50 {
		assert.Equal(t, selectHost(scores, r1).node.Name, selectHost(scores, r2).node.Name)
	}
}

func TestSchedulePodOutcomes(t *testing.T) {
	next := 0
	r := sim.NewRand(1, "test")
	_, fitErr, _, err := schedulePod(newCycleState(testPod("p")), nil, 0, &next, r)
	assert.Nil(t, fitErr)
	assert.Equal(t, "no nodes available to schedule pods", err.Error())

	// One feasible node is taken without scoring.
	cordoned := testNode("a", "4", "8Gi", 110)
	cordoned.Spec.Unschedulable = true
	res, fitErr, _, err := schedulePod(newCycleState(testPod("p")), []*NodeInfo{nodeInfoWith(cordoned), nodeInfoWith(testNode("b", "4", "8Gi", 110))}, 0, &next, r)
	require.NoError(t, err)
	require.Nil(t, fitErr)
	assert.Equal(t, scheduleResult{host: "b", evaluated: 2, feasible: 1}, res)

	// LeastAllocated prefers the emptier node.
	busy := nodeInfoWith(testNode("c", "4", "8Gi", 110), testPod("x", "cpu", "2", "memory", "4Gi"))
	res, _, _, _ = schedulePod(newCycleState(testPod("p", "cpu", "1", "memory", "1Gi")), []*NodeInfo{busy, nodeInfoWith(testNode("d", "4", "8Gi", 110))}, 0, &next, r)
	assert.Equal(t, "d", res.host)
}
