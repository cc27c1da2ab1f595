package node

import "testing"

// TestAllocPodWorker: a worker's per-container state has one entry per container, and a
// one-container pod's worker is one allocation with its state.
func TestAllocPodWorker(t *testing.T) {
	for n := range 4 {
		w := allocPodWorker(n)
		if len(w.reasons) != n || len(w.view) != n || len(w.probes) != n {
			t.Fatalf("allocPodWorker(%d): %d reasons, %d views, %d probes", n, len(w.reasons), len(w.view), len(w.probes))
		}
	}
	if allocs := testing.AllocsPerRun(100, func() { _ = allocPodWorker(1) }); allocs != 1 {
		t.Fatalf("allocPodWorker(1) makes %v allocations, want 1", allocs)
	}
}
