package statefulset

import (
	"testing"
	"time"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim"
	"github.com/reconsim/reconsim/sim/internal/testworld"
)

// runScenario drives a world through scale-ups of both policies, a rolling update and a node
// failure, and returns the trace hash and the number of trace lines.
func runScenario(t testing.TB, replicas int32) *world {
	w := newWorld(t, DefaultConfig())
	w.Nodes.Names = []string{"worker-0", "worker-1", "worker-2"}
	for _, s := range []*model.StatefulSet{
		newSet("ordered", replicas, model.OrderedReadyPodManagement, "app:v1"),
		newSet("parallel", replicas, model.ParallelPodManagement, "app:v1"),
	} {
		if _, err := w.Store.Create(s); err != nil {
			t.Fatalf("create: %v", err)
		}
	}
	w.Run(time.Duration(replicas) * 3 * time.Second)
	for _, name := range []string{"ordered", "parallel"} {
		set := w.set(name).DeepCopy()
		set.Spec.Template.Spec.Containers[0].Image = "app:v2"
		if _, err := w.Store.Update(set); err != nil {
			t.Fatalf("update: %v", err)
		}
	}
	w.Run(time.Duration(replicas) * 4 * time.Second)
	w.Nodes.Dead["worker-1"] = true
	for _, p := range w.Pods() {
		if p.Spec.NodeName == "worker-1" {
			if _, err := w.Store.Delete(model.KindPod, p.Namespace, p.Name, deleteOptions()); err != nil {
				t.Fatalf("evict: %v", err)
			}
		}
	}
	w.Run(time.Minute)
	return w
}

// TestDeterminism: the same calls give the same trace, byte for byte.
func TestDeterminism(t *testing.T) {
	testworld.CheckDeterminism(t, 100, func() *sim.Kernel { return runScenario(t, 6).K })
}

// BenchmarkParallelAndOrderedRollout measures a whole scenario of two 50-replica sets: scale-up,
// rolling update and a node failure.
func BenchmarkParallelAndOrderedRollout(b *testing.B) {
	for i := 0; i < b.N; i++ {
		runScenario(b, 50)
	}
}
