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

// TestAllocGeneratedStatus: a generated status has room for every container's status, state
// and started flag, and a one-container pod's is one allocation.
func TestAllocGeneratedStatus(t *testing.T) {
	for _, c := range []struct{ n, nInit, regular int }{{1, 0, 1}, {2, 0, 2}, {3, 1, 2}, {2, 1, 1}} {
		m := allocGeneratedStatus(c.n, c.nInit, c.regular)
		if len(m.status.ContainerStatuses) != c.regular || len(m.status.InitContainerStatuses) != c.nInit {
			t.Fatalf("allocGeneratedStatus%+v: %d container statuses, %d init", c, len(m.status.ContainerStatuses), len(m.status.InitContainerStatuses))
		}
		if len(m.started) != c.n || len(m.running) != c.n || len(m.waiting) != c.n {
			t.Fatalf("allocGeneratedStatus%+v: %d started, %d running, %d waiting", c, len(m.started), len(m.running), len(m.waiting))
		}
	}
	if allocs := testing.AllocsPerRun(100, func() { _ = allocGeneratedStatus(1, 0, 1) }); allocs != 1 {
		t.Fatalf("allocGeneratedStatus(1, 0, 1) makes %v allocations, want 1", allocs)
	}
}
