package node

import (
	"fmt"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reconsim/reconsim/model"
)

// busyWorld runs three kubelets with default latencies and a mix of pods through faults for
// 20 virtual minutes.
func busyWorld(t testing.TB, seed uint64) *world {
	w := newWorld(t, seed)
	capacity := model.ResourceList{model.ResourceCPU: mustQuantity(t, "4"), model.ResourceMemory: mustQuantity(t, "8Gi")}
	for i := 1; i <= 3; i++ {
		w.addNode(fmt.Sprintf("n%d", i), capacity, DefaultConfig(), i == 3).Start()
	}
	behaviours := []map[string]string{
		nil,
		{AnnotationReadyAfter: "15s"},
		{AnnotationCrashAfter: "20s"},
		{AnnotationNeverReady: "true"},
		{AnnotationExitAfter: "40s", AnnotationExitCode: "0"},
		{AnnotationTerminationSeconds: "45s"},
	}
	for i := 0; i < 30; i++ {
		ps := podSpec{name: fmt.Sprintf("p%02d", i), node: fmt.Sprintf("n%d", 1+i%3), cpu: "300m",
			image: fmt.Sprintf("registry.example/app:%d", i%4), annotations: behaviours[i%len(behaviours)]}
		if i%4 == 1 {
			ps.readiness = &model.Probe{PeriodSeconds: 5}
		}
		if i%6 == 4 {
			ps.restartPolicy = model.RestartPolicyOnFailure
		}
		w.createPod(ps)
	}
	w.Run(2 * time.Minute)
	w.kubelets["n1"].Crash()
	require.NoError(t, w.kubelets["n2"].Partition())
	w.kubelets["n3"].Stall(45 * time.Second)
	for i := 0; i < 30; i += 5 {
		_, err := w.Store.Delete(model.KindPod, "default", fmt.Sprintf("p%02d", i), apiDelete())
		require.NoError(t, err)
	}
	w.Run(3 * time.Minute)
	for _, name := range []string{"n1", "n2", "n3"} {
		w.kubelets[name].Recover()
	}
	w.Run(15 * time.Minute)
	return w
}

func traceHash(t testing.TB, seed uint64) (uint64, uint64) {
	w := busyWorld(t, seed)
	return w.K.Trace().Hash(), w.K.Trace().Lines()
}

func TestDeterminism(t *testing.T) {
	h1, n1 := traceHash(t, 42)
	h2, n2 := traceHash(t, 42)
	assert.Equal(t, h1, h2, "same seed, same trace")
	assert.Equal(t, n1, n2)
	h3, _ := traceHash(t, 43)
	assert.NotEqual(t, h1, h3, "another seed draws other latencies")
}

// TestBusyWorldSettles checks the end state of the busy world: every kubelet is back, the
// deleted pods are gone and every surviving pod has a status the kubelet wrote.
func TestBusyWorldSettles(t *testing.T) {
	w := busyWorld(t, 7)
	for _, name := range slices.Sorted(maps.Keys(w.kubelets)) {
		kl := w.kubelets[name]
		assert.Equal(t, StateRunning, kl.State(), name)
		assert.True(t, kl.Ready(), name)
	}
	for i := 0; i < 30; i++ {
		name := fmt.Sprintf("p%02d", i)
		pod, ok := w.pod(name)
		if i%5 == 0 {
			assert.False(t, ok, "%s was deleted and must be gone", name)
			continue
		}
		require.True(t, ok, name)
		assert.NotEmpty(t, pod.Status.ContainerStatuses, "%s has a status from its kubelet", name)
		if pod.Annotations[AnnotationNeverReady] == "true" && pod.Spec.Containers[0].ReadinessProbe != nil {
			assert.False(t, podReady(&pod.Status), "%s never gets ready", name)
		}
		if pod.Annotations[AnnotationExitAfter] != "" && pod.Spec.RestartPolicy == model.RestartPolicyOnFailure {
			assert.Equal(t, model.PodSucceeded, pod.Status.Phase, name)
		}
	}
	lease, err := w.Store.Get(model.KindLease, NodeLeaseNamespace, "n1")
	require.NoError(t, err)
	assert.Greater(t, *lease.(*model.Lease).Spec.RenewTime, w.K.Now().Add(-15*time.Second), "n1 renews its lease again")
}

// TestIdlePodWorkersHoldNoProcess checks that a pod worker has a process only while it has
// work: none for a settled pod the kubelet adopts, one while a new pod starts, and none once
// the pods run or are gone (with a process per pod, all 20 would stay, parked).
func TestIdlePodWorkersHoldNoProcess(t *testing.T) {
	w := newWorld(t, 3)
	capacity := model.ResourceList{model.ResourceCPU: mustQuantity(t, "8"), model.ResourceMemory: mustQuantity(t, "16Gi")}
	kl := w.addNode("n1", capacity, DefaultConfig(), true)
	for i := range 10 {
		w.createPod(podSpec{name: fmt.Sprintf("settled-%d", i), node: "n1", cpu: "100m", running: true})
	}
	kl.Start()
	for i := range 10 {
		w.createPod(podSpec{name: fmt.Sprintf("new-%d", i), node: "n1", cpu: "100m",
			annotations: map[string]string{AnnotationTerminationSeconds: "20s"}})
	}
	live := func() (n int) {
		for _, pw := range kl.workers { //detlint:ordered counting
			if pw.proc != nil && !pw.proc.Finished() {
				n++
			}
		}
		return n
	}
	w.Run(100 * time.Millisecond)
	assert.Equal(t, 10, live(), "the new pods' workers are starting them; the settled ones are idle")
	w.Run(2 * time.Minute)
	require.Len(t, kl.workers, 20)
	assert.Zero(t, live(), "every pod runs: no worker has work")

	_, err := w.Store.Delete(model.KindPod, "default", "new-3", apiDelete())
	require.NoError(t, err)
	w.Run(time.Minute)
	_, ok := w.pod("new-3")
	assert.False(t, ok, "the deleted pod terminated and is gone")
	assert.Zero(t, live())
}
