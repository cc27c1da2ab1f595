package node

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim/client"
	"github.com/reconsim/reconsim/sim/client/record"
	"github.com/reconsim/reconsim/sim/internal/testworld"
)

// world is a small cluster for tests: a kernel, an API server, and kubelets talking to it
// through their own clients. Other actors (scheduler, controllers) are played by the test
// through the store.
type world struct {
	*testworld.World
	kubelets map[string]*Kubelet
	clients  map[string]*client.Client
}

func newWorld(t testing.TB, seed uint64) *world {
	t.Helper()
	w := &world{kubelets: map[string]*Kubelet{}, clients: map[string]*client.Client{}}
	w.World = testworld.New(t, testworld.Options{Seed: seed, AfterRun: w.checkInvariants})
	return w
}

// addNode makes a kubelet for a node with the given capacity. With settled, the Node is
// created in the store first, as the integrator does for settled objects.
func (w *world) addNode(name string, capacity model.ResourceList, cfg Config, settled bool) *Kubelet {
	w.T.Helper()
	node := &model.Node{}
	node.Name = name
	node.Labels = map[string]string{"kubernetes.io/hostname": name}
	node.Status.Capacity = capacity
	if settled {
		n := node.DeepCopy()
		n.Status.Conditions = []model.NodeCondition{{Type: model.NodeReady, Status: model.ConditionTrue, Reason: "KubeletReady", Message: "kubelet is posting ready status"}}
		_, err := w.Store.Create(n)
		require.NoError(w.T, err)
	}
	c := client.New(w.Server, "kubelet/"+name, client.Config{QPS: cfg.KubeAPIQPS, Burst: cfg.KubeAPIBurst})
	rec := record.New(w.K, w.Sink, "kubelet", name)
	kl, err := New(w.K, c, rec, node, cfg)
	require.NoError(w.T, err)
	kl.SetServer(w.Server)
	w.kubelets[name] = kl
	w.clients[name] = c
	return kl
}

// podSpec describes a test pod.
type podSpec struct {
	name, node  string
	containers  int
	image       string
	cpu, memory string
	annotations map[string]string
	readiness   *model.Probe
	liveness    *model.Probe
	startup     *model.Probe
	// inits are the init containers, in order: "name" for a plain one, "name:sidecar" for a
	// restartable one (restartPolicy Always), which gets sidecarStartup as its startup probe
	// and the pod's liveness probe.
	inits          []string
	sidecarStartup *model.Probe
	restartPolicy  string
	graceSeconds   *int64
	running        bool // settled: created with a Running status
}

func (w *world) createPod(ps podSpec) *model.Pod {
	w.T.Helper()
	pod := &model.Pod{}
	pod.Name = ps.name
	pod.Namespace = "default"
	pod.Annotations = ps.annotations
	pod.Spec.NodeName = ps.node
	pod.Spec.RestartPolicy = ps.restartPolicy
	pod.Spec.TerminationGracePeriodSeconds = ps.graceSeconds
	n := max(ps.containers, 1)
	for i := 0; i < n; i++ {
		c := model.Container{Name: "app", Image: ps.image}
		if n > 1 {
			c.Name = fmt.Sprintf("app%d", i)
		}
		if c.Image == "" {
			c.Image = "registry.example/app:1.0"
		}
		c.Resources.Requests = model.ResourceList{}
		if ps.cpu != "" {
			c.Resources.Requests[model.ResourceCPU] = mustQuantity(w.T, ps.cpu)
		}
		if ps.memory != "" {
			c.Resources.Requests[model.ResourceMemory] = mustQuantity(w.T, ps.memory)
		}
		c.ReadinessProbe = model.CopyPtr(ps.readiness)
		c.StartupProbe = model.CopyPtr(ps.startup)
		c.LivenessProbe = model.CopyPtr(ps.liveness)
		pod.Spec.Containers = append(pod.Spec.Containers, c)
	}
	for _, ic := range ps.inits {
		name, kind, _ := strings.Cut(ic, ":")
		c := model.Container{Name: name, Image: "registry.example/" + name + ":1.0"}
		if kind == "sidecar" {
			c.RestartPolicy = model.Ptr(model.ContainerRestartPolicyAlways)
			c.StartupProbe = model.CopyPtr(ps.sidecarStartup)
			c.LivenessProbe = model.CopyPtr(ps.liveness)
		}
		pod.Spec.InitContainers = append(pod.Spec.InitContainers, c)
	}
	model.SetDefaults(pod)
	created, err := w.Store.Create(pod)
	require.NoError(w.T, err)
	pod = created.(*model.Pod).DeepCopy()
	if ps.running {
		// Create resets the status, as upstream's pod strategy does; a settled pod's status
		// is written afterwards, as the integrator does.
		now := w.K.Now()
		pod.Status.Phase = model.PodRunning
		pod.Status.PodIP = "10.1.1.1"
		pod.Status.StartTime = model.Ptr(now)
		for _, c := range pod.Spec.Containers {
			pod.Status.ContainerStatuses = append(pod.Status.ContainerStatuses, model.ContainerStatus{
				Name: c.Name, Image: c.Image, Ready: true, Started: model.Ptr(true),
				State: model.ContainerState{Running: &model.ContainerStateRunning{StartedAt: now}},
			})
		}
		pod.Status.Conditions = []model.PodCondition{
			{Type: model.PodReady, Status: model.ConditionTrue},
			{Type: model.PodScheduled, Status: model.ConditionTrue},
		}
		updated, err := w.Store.UpdateStatus(pod)
		require.NoError(w.T, err)
		return updated.(*model.Pod)
	}
	return created.(*model.Pod)
}

// apiDelete is a plain graceful delete.
func apiDelete() model.DeleteOptions { return model.DeleteOptions{} }

func mustQuantity(t testing.TB, s string) resource.Quantity {
	t.Helper()
	q, err := resource.ParseQuantity(s)
	require.NoError(t, err)
	return q
}

func (w *world) pod(name string) (*model.Pod, bool) {
	obj, err := w.Store.Get(model.KindPod, "default", name)
	if err != nil {
		return nil, false
	}
	return obj.(*model.Pod), true
}

// checkInvariants is what must hold in every test after every run, on top of the shared
// world's invariants: a pod is on at most one node (its containers run on one kubelet only),
// and no node admitted more than its allocatable.
func (w *world) checkInvariants() string {
	runningOn := map[string]string{}
	for _, name := range slices.Sorted(maps.Keys(w.kubelets)) {
		kl := w.kubelets[name]
		for _, uid := range kl.runtimeUIDs() {
			if !kl.runtime[uid].anyRunning() {
				continue
			}
			if other, ok := runningOn[uid]; ok {
				return fmt.Sprintf("pod %s runs on %s and %s", uid, other, name)
			}
			runningOn[uid] = name
		}
		_, alloc := kl.capacity()
		var cpu, mem, pods int64
		for _, uid := range kl.workerUIDs() {
			pw := kl.workers[uid]
			if !pw.admitted || pw.terminated {
				continue
			}
			c, m := podRequests(pw.pod)
			cpu, mem, pods = cpu+c, mem+m, pods+1
		}
		if q, ok := alloc[model.ResourceCPU]; ok && cpu > q.MilliValue() {
			return fmt.Sprintf("node %s admitted %dm cpu over %s", name, cpu, q.String())
		}
		if q, ok := alloc[model.ResourceMemory]; ok && mem > q.Value() {
			return fmt.Sprintf("node %s admitted %d bytes over %s", name, mem, q.String())
		}
		if q := alloc[model.ResourcePods]; pods > q.Value() {
			return fmt.Sprintf("node %s admitted %d pods over %d", name, pods, q.Value())
		}
	}
	return ""
}

// newTrace returns the trace lines written since the last call that pass keep.
func (w *world) newTrace(keep func(line string) bool) string {
	return w.NewTrace(func(f []string) bool { return keep(strings.Join(f, " ") + "\n") })
}

// traceFields splits a trace line into time, component, action and the rest.
func traceFields(line string) (at, component, action, rest string) {
	parts := strings.SplitN(strings.TrimSuffix(line, "\n"), " ", 4)
	for len(parts) < 4 {
		parts = append(parts, "")
	}
	return parts[0], parts[1], parts[2], parts[3]
}
