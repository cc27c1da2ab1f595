package scheduler

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim"
	"github.com/reconsim/reconsim/vtime"
)

func TestCalculateBackoffDuration(t *testing.T) {
	tests := []struct {
		attempts     int
		initial, max time.Duration
		want         time.Duration
	}{
		{0, time.Second, 10 * time.Second, 0},
		{1, time.Second, 10 * time.Second, time.Second},
		{2, time.Second, 10 * time.Second, 2 * time.Second},
		{3, time.Second, 10 * time.Second, 4 * time.Second},
		{4, time.Second, 10 * time.Second, 8 * time.Second},
		{5, time.Second, 10 * time.Second, 10 * time.Second},
		{6, time.Second, 10 * time.Second, 10 * time.Second},
		{70, time.Second, 10 * time.Second, 10 * time.Second}, // no overflow
		{1, 3 * time.Second, 10 * time.Second, 3 * time.Second},
		{2, 3 * time.Second, 10 * time.Second, 6 * time.Second},
		{3, 3 * time.Second, 10 * time.Second, 10 * time.Second},
		{4, time.Second, time.Second, time.Second},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, calculateBackoffDuration(tt.attempts, tt.initial, tt.max), "attempts=%d initial=%s max=%s", tt.attempts, tt.initial, tt.max)
	}
}

// queueWorld is a kernel and a queue, driven by hand.
type queueWorld struct {
	t *testing.T
	k *sim.Kernel
	q *priorityQueue
}

func newQueueWorld(t *testing.T, popFromBackoffQ bool) *queueWorld {
	cfg := DefaultConfig()
	cfg.PopFromBackoffQ = popFromBackoffQ
	k := sim.New(1)
	return &queueWorld{t: t, k: k, q: newPriorityQueue(k, cfg)}
}

// advanceTo moves virtual time to at, firing what is due on the way.
func (w *queueWorld) advanceTo(at time.Duration) {
	w.k.Schedule(vtime.FromDuration(at), sim.HandlerFunc(func(uint64) {}), 0, false)
	w.k.Run(sim.Limits{MaxTime: vtime.FromDuration(at)})
	require.Equal(w.t, vtime.FromDuration(at), w.k.Now())
}

// pop pops one pod now; it fails the test if Pop would block.
func (w *queueWorld) pop() *queuedPodInfo {
	var got *queuedPodInfo
	done := false
	w.k.Spawn("pop", func(p *sim.Proc) { got = w.q.Pop(p); done = true })
	w.k.Run(sim.Limits{MaxTime: w.k.Now()})
	require.True(w.t, done, "Pop blocked")
	return got
}

// fail pops the pod with key (which must be next) and puts it back as rejected by plugins.
func (w *queueWorld) fail(p *queuedPodInfo, plugins pluginSet) queueName {
	p.unschedulablePlugins = plugins
	where, err := w.q.AddUnschedulableIfNotPresent(p, p.pod)
	require.NoError(w.t, err)
	w.q.Done(p.key)
	return where
}

func (w *queueWorld) where(key string) queueName {
	p, ok := w.q.get(key)
	if !ok {
		return inNoQueue
	}
	return p.where
}

func TestActiveQueuePrioritySort(t *testing.T) {
	w := newQueueWorld(t, true)
	prio := func(name string, p int32) *model.Pod {
		pod := testPod(name)
		pod.Spec.Priority = model.Ptr(p)
		return pod
	}
	w.q.Add(prio("low-early", 0))
	w.advanceTo(time.Second)
	w.q.Add(prio("high-late", 100))
	w.q.Add(prio("low-late", 0))
	w.q.Add(prio("negative", -5))
	var order []string
	for range 4 {
		order = append(order, w.pop().pod.Name)
	}
	assert.Equal(t, []string{"high-late", "low-early", "low-late", "negative"}, order)
}

func TestQueueErrorBackoffClassic(t *testing.T) {
	w := newQueueWorld(t, false)
	w.q.Add(testPod("p"))
	p := w.pop()
	assert.Equal(t, 1, p.attempts)
	// No rejecting plugin (an error): after backoff, in the error backoff heap.
	assert.Equal(t, inErrorBackoffQ, w.fail(p, 0))
	assert.True(t, w.q.isPodBackingoff(p))
	w.advanceTo(999 * time.Millisecond)
	w.q.flushBackoffQCompleted()
	assert.Equal(t, inErrorBackoffQ, w.where("default/p"))
	w.advanceTo(time.Second)
	w.q.flushBackoffQCompleted()
	assert.Equal(t, inActiveQ, w.where("default/p"))
	p = w.pop()
	assert.Equal(t, 2, p.attempts)
	w.fail(p, 0)
	assert.Equal(t, vtime.FromDuration(3*time.Second), w.q.getBackoffTime(p), "second attempt backs off 2s from t=1s")
}

func TestQueueBackoffOrderingWindow(t *testing.T) {
	w := newQueueWorld(t, true)
	w.advanceTo(1500 * time.Millisecond)
	w.q.Add(testPod("p"))
	p := w.pop()
	w.fail(p, 0)
	// 1.5s + 1s = 2.5s, truncated to the window starting at 2s; a pod whose window is the
	// current one still backs off, so it is free from t=3s.
	assert.Equal(t, vtime.FromDuration(2*time.Second), w.q.getBackoffTime(p))
	w.advanceTo(2 * time.Second)
	assert.True(t, w.q.isPodBackingoff(p))
	w.advanceTo(2999 * time.Millisecond)
	assert.True(t, w.q.isPodBackingoff(p))
	w.advanceTo(3 * time.Second)
	assert.False(t, w.q.isPodBackingoff(p))
}

func TestQueueHintsMoveUnschedulablePods(t *testing.T) {
	w := newQueueWorld(t, false)
	w.q.Add(testPod("p", "cpu", "2"))
	p := w.pop()
	fit := pluginBit(PluginNodeResourcesFit)
	assert.Equal(t, inUnschedulablePods, w.fail(p, fit))

	small := testNode("small", "1", "8Gi", 110)
	w.q.MoveAllToActiveOrBackoffQueue(&clusterEvent{kind: eventNodeAdd, newNode: small})
	assert.Equal(t, inUnschedulablePods, w.where("default/p"), "a node too small does not help")

	labelled := small.DeepCopy()
	labelled.Labels = map[string]string{"x": "y"}
	w.q.MoveAllToActiveOrBackoffQueue(&clusterEvent{kind: eventNodeUpdate, nodeChanges: nodeChangeLabel, oldNode: small, newNode: labelled})
	assert.Equal(t, inUnschedulablePods, w.where("default/p"), "NodeResourcesFit does not watch labels")

	grown := testNode("small", "4", "8Gi", 110)
	w.q.MoveAllToActiveOrBackoffQueue(&clusterEvent{kind: eventNodeUpdate, nodeChanges: nodeChangeAllocatable, oldNode: small, newNode: grown})
	assert.Equal(t, inBackoffQ, w.where("default/p"), "allocatable grew enough, but the pod is still backing off")

	w.advanceTo(time.Second)
	w.q.flushBackoffQCompleted()
	assert.Equal(t, inActiveQ, w.where("default/p"))
}

func TestQueueHintsPerPlugin(t *testing.T) {
	tainted := testNode("n", "4", "8Gi", 110)
	tainted.Spec.Taints = []model.Taint{{Key: "k", Effect: model.TaintEffectNoSchedule}}
	untainted := testNode("n", "4", "8Gi", 110)
	cordoned := testNode("n", "4", "8Gi", 110)
	cordoned.Spec.Unschedulable = true
	labelled := testNode("n", "4", "8Gi", 110)
	labelled.Labels = map[string]string{"zone": "a"}
	affinityPod := testPod("p")
	affinityPod.Spec.NodeSelector = map[string]string{"zone": "a"}
	assigned := testPod("gone", "cpu", "1")
	assigned.Spec.NodeName = "n"

	tests := []struct {
		name      string
		pod       *model.Pod
		rejectors pluginSet
		event     *clusterEvent
		want      requeueStrategy
	}{
		{"taint removed", testPod("p"), pluginBit(PluginTaintToleration), &clusterEvent{kind: eventNodeUpdate, nodeChanges: nodeChangeTaint, oldNode: tainted, newNode: untainted}, queueAfterBackoff},
		{"taint added", testPod("p"), pluginBit(PluginTaintToleration), &clusterEvent{kind: eventNodeUpdate, nodeChanges: nodeChangeTaint, oldNode: untainted, newNode: tainted}, queueSkip},
		{"tainted node added", testPod("p"), pluginBit(PluginTaintToleration), &clusterEvent{kind: eventNodeAdd, newNode: tainted}, queueSkip},
		{"uncordoned", testPod("p"), pluginBit(PluginNodeUnschedulable), &clusterEvent{kind: eventNodeUpdate, nodeChanges: nodeChangeTaint, oldNode: cordoned, newNode: untainted}, queueAfterBackoff},
		{"label now matches", affinityPod, pluginBit(PluginNodeAffinity), &clusterEvent{kind: eventNodeUpdate, nodeChanges: nodeChangeLabel, oldNode: untainted, newNode: labelled}, queueAfterBackoff},
		{"label change still mismatching", affinityPod, pluginBit(PluginNodeAffinity), &clusterEvent{kind: eventNodeUpdate, nodeChanges: nodeChangeLabel, oldNode: labelled, newNode: untainted}, queueSkip},
		{"assigned pod deleted", testPod("p", "cpu", "1"), pluginBit(PluginNodeResourcesFit), &clusterEvent{kind: eventAssignedPodDelete, oldPod: assigned}, queueAfterBackoff},
		{"assigned pod deleted is no news for taints", testPod("p"), pluginBit(PluginTaintToleration), &clusterEvent{kind: eventAssignedPodDelete, oldPod: assigned}, queueSkip},
		{"condition-only update interests nobody", testPod("p"), pluginBit(PluginNodeResourcesFit) | pluginBit(PluginTaintToleration), &clusterEvent{kind: eventNodeUpdate, nodeChanges: nodeChangeCondition, oldNode: untainted, newNode: untainted}, queueSkip},
		{"any plugin may requeue", affinityPod, pluginBit(PluginTaintToleration) | pluginBit(PluginNodeAffinity), &clusterEvent{kind: eventNodeAdd, newNode: labelled}, queueAfterBackoff},
		{"an error requeues on anything", testPod("p"), 0, &clusterEvent{kind: eventNodeUpdate, nodeChanges: nodeChangeCondition, oldNode: untainted, newNode: untainted}, queueAfterBackoff},
		{"tolerations added to the pod", testPod("p"), pluginBit(PluginTaintToleration), &clusterEvent{kind: eventUnscheduledPodUpdate, tolerationsChanged: true}, queueAfterBackoff},
		{"timeout requeues everyone", testPod("p"), pluginBit(PluginNodeAffinity), &clusterEvent{kind: eventUnschedulableTimeout}, queueAfterBackoff},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, isPodWorthRequeuing(tt.pod, tt.rejectors, tt.event))
		})
	}
}

func TestQueueInFlightEventsAreNotLost(t *testing.T) {
	w := newQueueWorld(t, false)
	w.q.Add(testPod("p", "cpu", "2"))
	p := w.pop()
	// While the pod is being scheduled, a node that fits it appears.
	w.q.MoveAllToActiveOrBackoffQueue(&clusterEvent{kind: eventNodeAdd, newNode: testNode("big", "4", "8Gi", 110)})
	assert.Equal(t, inBackoffQ, w.fail(p, pluginBit(PluginNodeResourcesFit)))

	// Without such an event the pod parks in unschedulablePods.
	w.q.Add(testPod("r", "cpu", "2"))
	w.advanceTo(2 * time.Second)
	w.q.flushBackoffQCompleted()
	for range 2 {
		got := w.pop()
		if got.key == "default/r" {
			assert.Equal(t, inUnschedulablePods, w.fail(got, pluginBit(PluginNodeResourcesFit)))
		} else {
			w.q.Done(got.key)
		}
	}
}

func TestQueuePopFromBackoffQWhenIdle(t *testing.T) {
	w := newQueueWorld(t, true)
	w.q.Add(testPod("p", "cpu", "2"))
	w.q.Add(testPod("e"))
	p := w.pop()
	e := w.pop()
	w.fail(p, pluginBit(PluginNodeResourcesFit))
	w.fail(e, 0) // error: podErrorBackoffQ
	w.q.MoveAllToActiveOrBackoffQueue(&clusterEvent{kind: eventNodeAdd, newNode: testNode("big", "4", "8Gi", 110)})
	require.Equal(t, inBackoffQ, w.where("default/p"))
	// activeQ is empty: Pop takes p from backoffQ at once, though it is still backing off...
	got := w.pop()
	assert.Equal(t, "default/p", got.key)
	assert.Equal(t, 2, got.attempts)
	// ...but never a pod of the error backoff queue.
	assert.Equal(t, inErrorBackoffQ, w.where("default/e"))
	lengths := func() [3]int { a, b, u := w.q.lengths(); return [3]int{a, b, u} }
	assert.Equal(t, [3]int{0, 1, 0}, lengths())
}

func TestFlushUnschedulablePodsLeftover(t *testing.T) {
	w := newQueueWorld(t, false)
	w.q.Add(testPod("p"))
	w.fail(w.pop(), pluginBit(PluginNodeAffinity))
	w.advanceTo(5 * time.Minute)
	w.q.flushUnschedulablePodsLeftover()
	assert.Equal(t, inUnschedulablePods, w.where("default/p"), "exactly 5m is not longer than 5m")
	w.advanceTo(5*time.Minute + time.Nanosecond)
	w.q.flushUnschedulablePodsLeftover()
	assert.Equal(t, inActiveQ, w.where("default/p"), "backoff is long over, so straight to activeQ")
}

func TestQueueUpdateAndDelete(t *testing.T) {
	w := newQueueWorld(t, false)
	pod := testPod("p")
	w.q.Add(pod)
	w.fail(w.pop(), pluginBit(PluginTaintToleration))

	// A status-only change keeps the pod where it is, with the new object.
	withStatus := pod.DeepCopy()
	withStatus.ResourceVersion = 7
	withStatus.Status.Conditions = []model.PodCondition{{Type: model.PodScheduled, Status: model.ConditionFalse}}
	w.q.Update(pod, withStatus)
	assert.Equal(t, inUnschedulablePods, w.where("default/p"))
	got, _ := w.q.get("default/p")
	assert.Equal(t, uint64(7), got.pod.ResourceVersion)

	// New tolerations may help a pod TaintToleration rejected.
	tolerant := withStatus.DeepCopy()
	tolerant.Spec.Tolerations = []model.Toleration{{Operator: "Exists"}}
	w.q.Update(withStatus, tolerant)
	assert.Equal(t, inBackoffQ, w.where("default/p"))

	w.q.Delete(tolerant)
	assert.Equal(t, inNoQueue, w.where("default/p"))
	assert.Equal(t, [3]int{0, 0, 0}, func() [3]int { a, b, u := w.q.lengths(); return [3]int{a, b, u} }())

	// An update of a pod the queue does not know adds it.
	w.q.Update(nil, testPod("q"))
	assert.Equal(t, inActiveQ, w.where("default/q"))
}

func TestPodHeapRemoveKeepsOrder(t *testing.T) {
	h := podHeap{less: func(a, b *queuedPodInfo) bool { return a.seq < b.seq }}
	items := make([]*queuedPodInfo, 20)
	for i := range items {
		items[i] = &queuedPodInfo{seq: uint64((i * 7) % 20), heapIndex: -1}
		h.Push(items[i])
	}
	h.Remove(items[3])
	h.Remove(items[10])
	var got []uint64
	for h.Len() > 0 {
		got = append(got, h.Pop().seq)
	}
	require.Len(t, got, 18)
	for i := 1; i < len(got); i++ {
		assert.Less(t, got[i-1], got[i])
	}
	assert.NotContains(t, got, items[3].seq)
	assert.NotContains(t, got, items[10].seq)
}

func TestQueueAddReplacesAnInFlightPodOfTheSameName(t *testing.T) {
	w := newQueueWorld(t, false)
	w.q.Add(testPod("p"))
	old := w.pop()
	recreated := testPod("p")
	recreated.UID = "uid-p-2"
	w.q.Add(recreated)
	assert.Equal(t, inActiveQ, w.where("default/p"), "the new pod is queued while the old one is in flight")
	_, err := w.q.AddUnschedulableIfNotPresent(old, old.pod)
	assert.Error(t, err, "the old attempt cannot requeue the old pod")
	w.q.Done(old.key)
	assert.Equal(t, inActiveQ, w.where("default/p"), "Done for the old attempt leaves the new pod alone")
	assert.Equal(t, "uid-p-2", w.pop().pod.UID)
}

func TestNodeSchedulingPropertiesChange(t *testing.T) {
	base := testNode("n", "4", "8Gi", 110)
	base.Status.Conditions = []model.NodeCondition{{Type: model.NodeReady, Status: model.ConditionTrue, LastHeartbeatTime: 1}}
	tests := []struct {
		name   string
		change func(n *model.Node)
		want   nodeChange
	}{
		{"heartbeat only", func(n *model.Node) {
			n.Status.Conditions[0].LastHeartbeatTime = 2
			n.Status.Conditions[0].Message = "still ready"
		}, 0},
		{"ready turns unknown", func(n *model.Node) { n.Status.Conditions[0].Status = model.ConditionUnknown }, nodeChangeCondition},
		{"allocatable", func(n *model.Node) { n.Status.Allocatable = resources("cpu", "8", "memory", "8Gi", "pods", "110") }, nodeChangeAllocatable},
		{"labels", func(n *model.Node) { n.Labels = map[string]string{"zone": "a"} }, nodeChangeLabel},
		{"taint added", func(n *model.Node) { n.Spec.Taints = []model.Taint{{Key: "k", Effect: model.TaintEffectNoSchedule}} }, nodeChangeTaint},
		{"cordoned is no help", func(n *model.Node) { n.Spec.Unschedulable = true }, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := base.DeepCopy()
			tt.change(n)
			assert.Equal(t, tt.want, nodeSchedulingPropertiesChange(n, base))
		})
	}
	cordoned := base.DeepCopy()
	cordoned.Spec.Unschedulable = true
	assert.Equal(t, nodeChangeTaint, nodeSchedulingPropertiesChange(base, cordoned), "uncordoning counts as a taint change")
}
