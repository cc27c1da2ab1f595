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
