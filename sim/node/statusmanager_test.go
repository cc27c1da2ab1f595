package node

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/reconsim/reconsim/model"
)

// unsettledPods names the pods the status manager's next periodic check will examine.
func unsettledPods(sm *statusManager) map[string]bool {
	out := map[string]bool{}
	for _, e := range sm.entries { //detlint:ordered building a set
		if e.unsettled {
			out[e.name] = true
		}
	}
	return out
}

// TestStatusManagerSettles checks the bookkeeping behind the periodic check: pods in order
// are settled and not examined again; a status someone else changes unsettles its pod (only
// that one), the next check repairs it, and the pod settles again once the repair is seen.
func TestStatusManagerSettles(t *testing.T) {
	w := newWorld(t, 1)
	capacity := model.ResourceList{model.ResourceCPU: mustQuantity(t, "4")}
	kl := w.addNode("n1", capacity, DefaultConfig(), true)
	for _, name := range []string{"a", "b", "c"} {
		w.createPod(podSpec{name: name, node: "n1", cpu: "100m", running: true})
	}
	kl.Start()
	w.Run(30 * time.Second)
	require.Len(t, kl.status.entries, 3)
	require.Empty(t, unsettledPods(kl.status), "adopted pods in order are settled")

	// What the node lifecycle controller's MarkPodsNotReady does.
	pod, ok := w.pod("b")
	require.True(t, ok)
	pod = pod.DeepCopy()
	for i := range pod.Status.Conditions {
		if pod.Status.Conditions[i].Type == model.PodReady {
			pod.Status.Conditions[i].Status = model.ConditionFalse
		}
	}
	_, err := w.Store.UpdateStatus(pod)
	require.NoError(t, err)
	w.Run(100 * time.Millisecond)
	require.Equal(t, map[string]bool{"b": true}, unsettledPods(kl.status), "the informer's update unsettles b only")

	w.Run(kl.cfg.StatusSyncPeriod)
	pod, ok = w.pod("b")
	require.True(t, ok)
	require.True(t, podReady(&pod.Status), "the periodic check wrote the kubelet's status back")

	w.Run(2 * kl.cfg.StatusSyncPeriod)
	require.Empty(t, unsettledPods(kl.status), "the repaired pod settles again")
}

// TestSetPodStatusCachesConditionsOfItsOwn holds setPodStatus's scratch normalisation to the
// copy it replaced: each cached status keeps the conditions it was given while later statuses
// are normalised in the same scratch slice, a status without conditions stays without, the
// generated list is left as it was, and the worker's status then holds the entry's
// conditions, at full capacity.
func TestSetPodStatusCachesConditionsOfItsOwn(t *testing.T) {
	w := newWorld(t, 1)
	capacity := model.ResourceList{model.ResourceCPU: mustQuantity(t, "4")}
	kl := w.addNode("n1", capacity, DefaultConfig(), true)
	w.createPod(podSpec{name: "a", node: "n1", cpu: "100m", running: true})
	kl.Start()
	w.Run(5 * time.Second)
	var pw *podWorker
	for _, uid := range kl.workerUIDs() {
		pw = kl.workers[uid]
	}
	require.NotNil(t, pw)
	sm := kl.status

	set := func(ready model.ConditionStatus) []model.PodCondition {
		st := pw.pod.Status
		st.Conditions = []model.PodCondition{
			{Type: model.PodReady, Status: ready},
			{Type: model.PodScheduled, Status: model.ConditionTrue},
		}
		generated := st.Conditions
		pw.lastStatus = &st
		sm.setPodStatus(pw, false)
		require.True(t, model.SameSlice(pw.lastStatus.Conditions, sm.entries[pw.uid].status.Conditions),
			"the worker's status holds the entry's conditions")
		return generated
	}
	first := set(model.ConditionFalse)
	cached := sm.entries[pw.uid].status
	require.Equal(t, model.ConditionFalse, cached.Conditions[0].Status)
	require.Equal(t, w.K.Now(), cached.Conditions[0].LastTransitionTime, "a changed condition's transition time is now")
	require.Zero(t, first[0].LastTransitionTime, "the generated status is not normalised in place")
	require.Equal(t, len(cached.Conditions), cap(cached.Conditions), "the cached conditions are at full capacity")

	w.Run(time.Second)
	version := sm.entries[pw.uid].version
	set(model.ConditionFalse)
	require.Equal(t, version, sm.entries[pw.uid].version, "an unchanged status is not cached again")
	require.Same(t, cached, sm.entries[pw.uid].status)

	set(model.ConditionTrue)
	require.Equal(t, model.ConditionFalse, cached.Conditions[0].Status, "the earlier cached status keeps its conditions")
	second := sm.entries[pw.uid].status
	require.Equal(t, model.ConditionTrue, second.Conditions[0].Status)

	none := pw.pod.Status
	none.Conditions = nil
	pw.lastStatus = &none
	sm.setPodStatus(pw, false)
	require.Nil(t, sm.entries[pw.uid].status.Conditions, "no conditions stay nil")
	require.Nil(t, pw.lastStatus.Conditions)
	require.Equal(t, model.ConditionTrue, second.Conditions[0].Status, "the earlier cached status keeps its conditions")
}

// TestPodUpdateUnsettlesBothUIDs: the pod informer's update handler unsettles the entry of
// the new pod's uid, and the old pod's too when an update replaced the pod under its name.
func TestPodUpdateUnsettlesBothUIDs(t *testing.T) {
	w := newWorld(t, 1)
	capacity := model.ResourceList{model.ResourceCPU: mustQuantity(t, "4")}
	kl := w.addNode("n1", capacity, DefaultConfig(), true)
	a := w.createPod(podSpec{name: "a", node: "n1", cpu: "100m", running: true})
	b := w.createPod(podSpec{name: "b", node: "n1", cpu: "100m", running: true})
	kl.Start()
	w.Run(30 * time.Second)
	require.Empty(t, unsettledPods(kl.status), "adopted pods in order are settled")

	newer := a.DeepCopy()
	newer.ResourceVersion++
	kl.podInformerUpdate(a, newer)
	require.Equal(t, map[string]bool{"a": true}, unsettledPods(kl.status), "an update unsettles its pod")

	w.Run(2 * kl.cfg.StatusSyncPeriod)
	require.Empty(t, unsettledPods(kl.status))
	replaced := b.DeepCopy()
	replaced.UID = a.UID // b's name, a's uid: the old pod b is not the new pod's uid
	kl.podInformerUpdate(b, replaced)
	require.Equal(t, map[string]bool{"a": true, "b": true}, unsettledPods(kl.status), "a replacement unsettles both uids")
}
