package node

import (
	"slices"
	"testing"
	"time"

	"github.com/reconsim/reconsim/model"
)

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

// TestSyncContainersKeepsRecords: the runtime's records follow the spec by name whether the
// list stays (containers as they were) or is rebuilt (reordered, added, duplicated names),
// and a one-container pod's runtime is one allocation.
func TestSyncContainersKeepsRecords(t *testing.T) {
	pod := func(names ...string) *model.Pod {
		p := &model.Pod{ObjectMeta: model.ObjectMeta{Name: "p", Namespace: "d", UID: "u"}}
		for _, n := range names {
			p.Spec.Containers = append(p.Spec.Containers, model.Container{Name: n, Image: n + ":1"})
		}
		return p
	}
	rt := newPodRuntime(pod("a", "b"), "d/p", false)
	a, b := rt.containers[0], rt.containers[1]
	list := rt.containers

	rt.syncContainers(pod("a", "b"), false)
	if &rt.containers[0] != &list[0] || rt.containers[0] != a || rt.containers[1] != b {
		t.Fatalf("the same containers: the list and its records should stay")
	}
	rt.syncContainers(pod("b", "a"), false)
	if rt.containers[0] != b || rt.containers[1] != a || a.idx != 1 || b.idx != 0 {
		t.Fatalf("reordered: records %v do not follow the spec by name", rt.containers)
	}
	if list[0] != a || list[1] != b {
		t.Fatalf("a rebuilt list must not change the one it replaces")
	}
	rt.syncContainers(pod("b", "a", "c"), false)
	if rt.containers[0] != b || rt.containers[1] != a || rt.containers[2].name != "c" || rt.containers[2].idx != 2 {
		t.Fatalf("added: records %v do not follow the spec by name", rt.containers)
	}
	// Two records of one name (never valid, but possible in a runtime's memory): the first
	// serves both, as the lookup by name gives.
	dup := &containerRecord{name: "a"}
	rt.containers = []*containerRecord{a, dup}
	rt.syncContainers(pod("a", "a"), false)
	if rt.containers[0] != a || rt.containers[1] != a {
		t.Fatalf("duplicate names: got %p %p, want the first record (%p) twice", rt.containers[0], rt.containers[1], a)
	}

	one := pod("app")
	if allocs := testing.AllocsPerRun(100, func() { _ = newPodRuntime(one, "d/p", false) }); allocs != 1 {
		t.Fatalf("newPodRuntime of a one-container pod makes %v allocations, want 1", allocs)
	}
}

// TestRequestsFollowTheContainers holds the worker's cached requests to podRequests of its
// current pod across versions that share their containers with the version the cache was
// computed from (a status write's) and versions that do not.
func TestRequestsFollowTheContainers(t *testing.T) {
	container := func(name, cpu string) model.Container {
		return model.Container{Name: name, Resources: model.ResourceRequirements{Requests: model.ResourceList{
			model.ResourceCPU: mustQuantity(t, cpu), model.ResourceMemory: mustQuantity(t, "64Mi"),
		}}}
	}
	v1 := &model.Pod{}
	v1.Spec.Containers = []model.Container{container("app", "100m")}
	statusWrite := func(p *model.Pod) *model.Pod {
		c := *p
		c.ResourceVersion++
		c.Status.Phase = model.PodRunning
		return &c
	}
	v2 := statusWrite(v1)
	v3 := v2.DeepCopy()
	v3.Spec.Containers[0] = container("app", "300m")
	v4 := statusWrite(v3)
	v4.Spec.InitContainers = []model.Container{container("init", "2")}
	v5 := statusWrite(v4)
	v6 := statusWrite(v5)
	v6.Spec.Containers = append(slices.Clone(v5.Spec.Containers), container("side", "50m"))

	w := allocPodWorker(1)
	for i, pod := range []*model.Pod{v1, v2, v3, v4, v5, v6, v1} {
		w.pod = pod
		cpu, mem := w.requests()
		wantCPU, wantMem := podRequests(pod)
		if cpu != wantCPU || mem != wantMem {
			t.Fatalf("version %d: requests %d, %d; podRequests %d, %d", i+1, cpu, mem, wantCPU, wantMem)
		}
	}
}

// TestWorkerNamesThePod: a worker's key is the pod's informer key and its object name the
// pod as traces name it, though they are one string.
func TestWorkerNamesThePod(t *testing.T) {
	w := newWorld(t, 1)
	kl := w.addNode("n1", model.ResourceList{model.ResourceCPU: mustQuantity(t, "4")}, DefaultConfig(), true)
	pod := w.createPod(podSpec{name: "a", node: "n1", cpu: "100m", running: true})
	kl.Start()
	w.Run(time.Second)
	pw := kl.workers[pod.UID]
	if pw == nil {
		t.Fatal("no worker for the pod")
	}
	if pw.key != model.Key(pod) || pw.objectName != "Pod "+model.Key(pod) {
		t.Fatalf("worker key %q, object name %q; want %q and %q", pw.key, pw.objectName, model.Key(pod), "Pod "+model.Key(pod))
	}
}
