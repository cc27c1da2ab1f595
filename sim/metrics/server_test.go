package metrics

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim"
	"github.com/reconsim/reconsim/sim/apiserver"
	"github.com/reconsim/reconsim/sim/client"
	"github.com/reconsim/reconsim/vtime"
)

// mworld is a kernel, an API server with instant watch delivery, a Deployment "web" and the
// pipeline; the test plays the kubelets by writing pod statuses to the store.
type mworld struct {
	t     testing.TB
	k     *sim.Kernel
	store *apiserver.Store
	s     *Server
}

func webLoad() LoadSpec {
	return LoadSpec{
		Target: WorkloadRef{Kind: "Deployment", Name: "web"},
		Shape:  Shape{Constant: &ConstantShape{Value: 100}},
		Usage: UsageModel{
			CPUPerUnit:    resource.MustParse("10m"),
			BaseCPU:       resource.MustParse("50m"),
			MemoryPerUnit: resource.MustParse("1Mi"),
			BaseMemory:    resource.MustParse("64Mi"),
		},
		MetricLabels: map[string]string{"queue": "web"},
		Objects:      []ObjectRef{{Kind: "Service", Name: "web"}},
	}
}

func newMWorld(t testing.TB, seed uint64, cfg Config, loads ...LoadSpec) *mworld {
	k := sim.New(seed)
	acfg := apiserver.DefaultConfig()
	acfg.Store.WatchDelay = sim.Constant(0)
	srv := apiserver.NewServer(k, acfg)
	w := &mworld{t: t, k: k, store: srv.Store()}
	replicas := int32(3)
	_, err := w.store.Create(&model.Deployment{
		ObjectMeta: model.ObjectMeta{Name: "web", Namespace: "default"},
		Spec: model.DeploymentSpec{
			Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: model.PodTemplateSpec{
				ObjectMeta: model.ObjectMeta{Labels: map[string]string{"app": "web"}},
				Spec:       model.PodSpec{Containers: []model.Container{{Name: "app", Image: "web:1"}}},
			},
		},
	})
	require.NoError(t, err)
	c := client.New(srv, Component, client.Config{QPS: -1})
	f := client.NewSharedInformerFactory(c, 0)
	w.s, err = New(k, f, loads, cfg)
	require.NoError(t, err)
	f.Start(k)
	w.s.Start()
	return w
}

func (w *mworld) runTo(at time.Duration) {
	out := w.k.Run(sim.Limits{MaxTime: vtime.FromDuration(at)})
	require.NotEqual(w.t, sim.StopError, out.Reason, "%v", out.Err)
}

// runningPod creates a pod of web on node, running since start and Ready as asked; cpu limit
// "" means none.
func (w *mworld) runningPod(name, node string, start time.Duration, ready bool, cpuLimit string) {
	ctr := model.Container{Name: "app", Image: "web:1", Resources: model.ResourceRequirements{
		Requests: model.ResourceList{model.ResourceCPU: resource.MustParse("500m"), model.ResourceMemory: resource.MustParse("128Mi")},
	}}
	if cpuLimit != "" {
		// The request may not exceed the limit.
		ctr.Resources.Requests[model.ResourceCPU] = resource.MustParse(cpuLimit)
		ctr.Resources.Limits = model.ResourceList{model.ResourceCPU: resource.MustParse(cpuLimit)}
	}
	obj, err := w.store.Create(&model.Pod{
		ObjectMeta: model.ObjectMeta{Name: name, Namespace: "default", Labels: map[string]string{"app": "web"}},
		Spec:       model.PodSpec{Containers: []model.Container{ctr}},
	})
	require.NoError(w.t, err)
	p := obj.(*model.Pod).DeepCopy()
	p.Spec.NodeName = node
	obj, err = w.store.Update(p)
	require.NoError(w.t, err)
	w.setStatus(obj.(*model.Pod), start, ready)
}

func (w *mworld) setStatus(pod *model.Pod, start time.Duration, ready bool) {
	p := pod.DeepCopy()
	st := model.ConditionFalse
	if ready {
		st = model.ConditionTrue
	}
	p.Status.Phase = model.PodRunning
	p.Status.StartTime = model.Ptr(vtime.FromDuration(start))
	p.Status.Conditions = []model.PodCondition{{Type: model.PodReady, Status: st, LastTransitionTime: w.k.Now()}}
	p.Status.ContainerStatuses = []model.ContainerStatus{{Name: "app", Ready: ready, State: model.ContainerState{Running: &model.ContainerStateRunning{StartedAt: vtime.FromDuration(start)}}}}
	_, err := w.store.UpdateStatus(p)
	require.NoError(w.t, err)
}

func (w *mworld) pod(name string) *model.Pod {
	obj, err := w.store.Get(model.KindPod, "default", name)
	require.NoError(w.t, err)
	return obj.(*model.Pod)
}

// cpu returns each pod's cpu in milli-cores as the HPA reads it, and the window.
// relabel moves the pod into the load's target (app=web) or out of it (app=idle).
func (w *mworld) relabel(t *testing.T, name string) {
	t.Helper()
	p := w.pod(name).DeepCopy()
	if p.Labels["app"] == "web" {
		p.Labels = map[string]string{"app": "idle"}
	} else {
		p.Labels = map[string]string{"app": "web"}
	}
	_, err := w.store.Update(p)
	require.NoError(t, err)
}

// deleteNow deletes the pod at once (grace period 0).
func (w *mworld) deleteNow(t *testing.T, name string) {
	t.Helper()
	_, err := w.store.Delete(model.KindPod, "default", name, model.DeleteOptions{GracePeriodSeconds: model.Ptr(int64(0))})
	require.NoError(t, err)
}

// appendCPU appends a line per pod metrics of namespace ("" for all) at virtual time at: the
// pod, the sample's time and window, and its cpu in milli-cores.
func (w *mworld) appendCPU(out []string, at time.Duration, namespace string) []string {
	for _, pm := range w.s.ListPodMetrics(namespace, nil) {
		q := pm.Containers[0].Usage[model.ResourceCPU]
		out = append(out, fmt.Sprintf("%s %s %s %s %dm", at, pm.Name, pm.Timestamp, pm.Window, q.MilliValue()))
	}
	return out
}

func (w *mworld) cpu() (map[string]int64, map[string]time.Duration) {
	pm, _, err := w.s.GetResourceMetric(context.Background(), model.ResourceCPU, "default", labels.Everything(), "")
	if err != nil {
		return map[string]int64{}, nil
	}
	out, win := map[string]int64{}, map[string]time.Duration{}
	for name, m := range pm {
		out[name] = m.Value
		win[name] = m.Window
	}
	return out, win
}

// TestScrapeArithmetic follows two scrapes by hand. Load 100/s, cpu 50m + 10m per unit, memory
// 64Mi + 1Mi per unit; kubelet samples taken at each scrape (housekeeping 0); scrapes at 0, 15,
// 30, 45 s.
func TestScrapeArithmetic(t *testing.T) {
	w := newMWorld(t, 1, Config{MetricResolution: 15 * time.Second}, webLoad())
	w.runTo(time.Second)
	w.runningPod("web-0", "node-a", time.Second, true, "")
	w.runningPod("web-1", "node-a", time.Second, true, "")

	w.runTo(15*time.Second + time.Millisecond)
	// Each pod served 50/s for 14s = 700 units: cpu 0.05*14 + 0.01*700 = 7.7 core-seconds. The
	// containers started 14s before the sample (at least 10s, less than a resolution), so
	// metrics-server uses a zero point at their start: 7.7/14 = 0.55 cores.
	cpu, win := w.cpu()
	assert.Equal(t, map[string]int64{"web-0": 550, "web-1": 550}, cpu)
	assert.Equal(t, 14*time.Second, win["web-0"])
	list := w.s.ListPodMetrics("default", nil)
	require.Len(t, list, 2)
	assert.Equal(t, vtime.FromDuration(15*time.Second), list[0].Timestamp)
	mem := list[0].Containers[0].Usage[model.ResourceMemory]
	assert.Equal(t, int64(114<<20), mem.Value(), "64Mi + 50 units * 1Mi")

	w.runTo(30*time.Second + time.Millisecond)
	cpu, win = w.cpu()
	assert.Equal(t, map[string]int64{"web-0": 550, "web-1": 550}, cpu)
	assert.Equal(t, 15*time.Second, win["web-0"])

	// A third pod becomes Ready at 31s on node-b: from then each pod gets 100/3 per second.
	w.runTo(31 * time.Second)
	w.runningPod("web-2", "node-b", 31*time.Second, true, "")
	w.runTo(45*time.Second + time.Millisecond)
	// web-0 over [30,45]: 50 units + 14s*33.33 = 516.67 units; cpu 0.75 + 5.1667 = 5.9167 /15
	// = 0.394444 cores = 394444444 nano-cores, 395m as MilliValue rounds up. web-2 over
	// [31,45] (a fresh container, zero point at 31s): 466.67 units, 0.7 + 4.6667 = 5.3667 /14
	// = 0.383333 cores, 384m.
	cpu, win = w.cpu()
	assert.Equal(t, map[string]int64{"web-0": 395, "web-1": 395, "web-2": 384}, cpu)
	assert.Equal(t, 14*time.Second, win["web-2"])

	// The Pods metric is each pod's served load per second over its window: 516.67/15 =
	// 34.444 -> 34444m; 466.67/14 = 33.333 -> 33333m.
	raw, _, err := w.s.GetRawMetric(context.Background(), DefaultMetricName, "default", labels.Everything(), labels.SelectorFromSet(labels.Set{"queue": "web"}))
	require.NoError(t, err)
	assert.Equal(t, int64(34444), raw["web-0"].Value)
	assert.Equal(t, int64(33333), raw["web-2"].Value)
	// Object and External: the offered 100/s over the last scrape interval.
	v, ts, err := w.s.GetObjectMetric(context.Background(), DefaultMetricName, "default", &model.CrossVersionObjectReference{Kind: "Service", Name: "web"}, labels.Everything())
	require.NoError(t, err)
	assert.Equal(t, int64(100000), v)
	assert.Equal(t, vtime.FromDuration(45*time.Second), ts)
	ext, _, err := w.s.GetExternalMetric(context.Background(), DefaultMetricName, "default", labels.SelectorFromSet(labels.Set{"queue": "web"}))
	require.NoError(t, err)
	assert.Equal(t, []int64{100000}, ext)

	st := w.s.Status()
	require.Len(t, st, 1)
	assert.Equal(t, 3, st[0].ReadyPods)
	assert.Equal(t, 3, st[0].RunningPods)
	assert.Equal(t, 100.0, st[0].Offered)
	assert.InDelta(t, 3*50+10*100, st[0].UsageCPUMillis, 1e-9)
	assert.Equal(t, 3, st[0].MetricPods)
	assert.Equal(t, int64(395+395+384), st[0].MetricCPUMillis)
	assert.Equal(t, int64(1500), st[0].MetricCPURequestMillis)
	assert.Equal(t, int32(1174*100/1500), st[0].CPUUtilization)
}

func TestMetricsErrors(t *testing.T) {
	w := newMWorld(t, 1, Config{MetricResolution: 15 * time.Second}, webLoad())
	w.runTo(time.Second)
	ctx := context.Background()
	_, _, err := w.s.GetResourceMetric(ctx, model.ResourceCPU, "default", labels.Everything(), "")
	assert.EqualError(t, err, "no metrics returned from resource metrics API")
	_, _, err = w.s.GetRawMetric(ctx, "other", "default", labels.Everything(), labels.Everything())
	assert.EqualError(t, err, "no metrics returned from custom metrics API")
	_, _, err = w.s.GetObjectMetric(ctx, DefaultMetricName, "default", &model.CrossVersionObjectReference{Kind: "Deployment", Name: "web"}, labels.Everything())
	assert.EqualError(t, err, "unable to fetch metrics from custom metrics API: no value yet for the metric requests_per_second for Deployment default/web")
	_, _, err = w.s.GetObjectMetric(ctx, DefaultMetricName, "default", &model.CrossVersionObjectReference{Kind: "Ingress", Name: "web"}, labels.Everything())
	assert.EqualError(t, err, "unable to fetch metrics from custom metrics API: the server could not find the metric requests_per_second for Ingress default/web")
	_, _, err = w.s.GetExternalMetric(ctx, DefaultMetricName, "default", labels.SelectorFromSet(labels.Set{"queue": "other"}))
	assert.EqualError(t, err, "no metrics returned from external metrics API")

	w.runningPod("web-0", "node-a", time.Second, true, "")
	w.runTo(16 * time.Second)
	_, _, err = w.s.GetResourceMetric(ctx, model.ResourceCPU, "default", labels.Everything(), "sidecar")
	assert.EqualError(t, err, "failed to get container metrics: container sidecar not present in metrics for pod default/web-0")
}

// Pods that are not Ready serve nothing, deleting pods stop serving, a cpu limit caps usage,
// and an unreachable node's pods lose their metrics.
func TestUsageRules(t *testing.T) {
	w := newMWorld(t, 1, Config{MetricResolution: 15 * time.Second}, webLoad())
	w.runTo(time.Second)
	w.runningPod("web-0", "node-a", time.Second, true, "")
	w.runningPod("web-1", "node-a", time.Second, false, "")
	w.runningPod("web-2", "node-b", time.Second, true, "200m")
	w.runTo(30*time.Second + time.Millisecond)
	// web-0 and web-2 share 100/s: 50m + 50*10m = 550m; web-1 is not Ready: its base 50m;
	// web-2 is throttled at its 200m limit.
	cpu, _ := w.cpu()
	assert.Equal(t, map[string]int64{"web-0": 550, "web-1": 50, "web-2": 200}, cpu)

	// web-0 starts terminating at 30s: from then web-2 serves everything.
	p := w.pod("web-0").DeepCopy()
	_, err := w.store.Delete(model.KindPod, p.Namespace, p.Name, model.DeleteOptions{GracePeriodSeconds: model.Ptr(int64(60))})
	require.NoError(t, err)
	w.s.SetNodeReachable(func(node string) bool { return node != "node-a" })
	w.runTo(45*time.Second + time.Millisecond)
	st := w.s.Status()
	assert.Equal(t, 1, st[0].ReadyPods)
	assert.Equal(t, 3, st[0].RunningPods)
	cpu, _ = w.cpu()
	assert.Equal(t, map[string]int64{"web-2": 200}, cpu, "node-a's pods are not scraped")
	assert.Equal(t, uint64(1), w.s.Stats().UnreachableNodeScrapes)
}

// A container that restarts starts a new instance: no metrics until metrics-server has two
// points of it, and no negative rate from the counter reset.
func TestContainerRestart(t *testing.T) {
	w := newMWorld(t, 1, Config{MetricResolution: 15 * time.Second}, webLoad())
	w.runTo(time.Second)
	w.runningPod("web-0", "node-a", time.Second, true, "")
	w.runTo(30 * time.Second)
	cpu, _ := w.cpu()
	assert.Equal(t, map[string]int64{"web-0": 1050}, cpu, "one pod: 50m + 100*10m")
	// Restarted at 40s: at the 45s scrape it is 5s old, too fresh for a start point.
	w.runTo(40 * time.Second)
	w.setStatus(w.pod("web-0"), 40*time.Second, true)
	w.runTo(45*time.Second + time.Millisecond)
	cpu, _ = w.cpu()
	assert.Empty(t, cpu)
	w.runTo(60*time.Second + time.Millisecond)
	cpu, win := w.cpu()
	assert.Equal(t, map[string]int64{"web-0": 1050}, cpu)
	assert.Equal(t, 15*time.Second, win["web-0"])
}

// With housekeeping, the kubelet samples at a per-node phase: metrics lag the scrape by less
// than an interval and windows are whole multiples of the interval; the run is reproducible.
func TestHousekeepingLagIsDeterministic(t *testing.T) {
	run := func(seed uint64) []string {
		w := newMWorld(t, seed, DefaultConfig(), webLoad())
		w.runTo(time.Second)
		w.runningPod("web-0", "node-a", time.Second, true, "")
		w.runningPod("web-1", "node-b", time.Second, true, "")
		var out []string
		for i := 1; i <= 12; i++ {
			at := time.Duration(i)*15*time.Second + time.Millisecond
			w.runTo(at)
			for _, pm := range w.s.ListPodMetrics("default", nil) {
				lag := vtime.FromDuration(at).Sub(pm.Timestamp)
				assert.True(t, lag >= 0 && lag < DefaultHousekeepingInterval+time.Millisecond, "lag %s", lag)
				// A window runs between two samples of the node (a whole number of intervals),
				// or, for the first one, from the container's start at 1s.
				if start := pm.Timestamp.Add(-pm.Window); start != vtime.FromDuration(time.Second) {
					assert.Zero(t, pm.Window%DefaultHousekeepingInterval, "window %s", pm.Window)
				}
				q := pm.Containers[0].Usage[model.ResourceCPU]
				out = append(out, fmt.Sprintf("%s %s %s %dm", pm.Name, pm.Timestamp, pm.Window, q.MilliValue()))
			}
		}
		assert.NotEmpty(t, out)
		return out
	}
	a, b := run(3), run(3)
	assert.Equal(t, a, b)
	assert.NotEqual(t, a, run(4), "another seed gives other phases")
}

func TestStopEndsScrapes(t *testing.T) {
	w := newMWorld(t, 1, DefaultConfig(), webLoad())
	w.runTo(31 * time.Second)
	assert.Equal(t, uint64(3), w.s.Stats().Scrapes, "at 0, 15 and 30s")
	w.s.Stop()
	w.runTo(2 * time.Minute)
	assert.Equal(t, uint64(3), w.s.Stats().Scrapes)
}

func TestNewRejectsBadInput(t *testing.T) {
	k := sim.New(1)
	srv := apiserver.NewServer(k, apiserver.DefaultConfig())
	f := client.NewSharedInformerFactory(client.New(srv, "m", client.Config{}), 0)
	_, err := New(k, f, nil, Config{MetricResolution: 5 * time.Second})
	assert.EqualError(t, err, "metric-resolution must be in [10s, 1h0m0s], got 5s")
	_, err = New(k, f, []LoadSpec{{Target: WorkloadRef{Kind: "Deployment", Name: "web"}}}, DefaultConfig())
	assert.EqualError(t, err, "invalid loads (1 problems), first: loads[0].shape: needs one of constant, steps, ramp, sine, spikes or series")
}

// TestIdlePodsSampleAsEagerly: idle pods (no load in their current container instance) are
// not visited by the housekeeping; their samples are derived when read (catchUp). A seeded
// script of pods starting, restarting, being relabelled into and out of the load's target and
// deleted, on three nodes, gives the same pod metrics and the same trace as sampling every pod
// at every tick.
func TestIdlePodsSampleAsEagerly(t *testing.T) {
	for seed := uint64(1); seed <= 8; seed++ {
		play := func(eager bool) ([]string, uint64) {
			w := newMWorld(t, seed, DefaultConfig(), webLoad())
			w.s.sampleIdleEagerly = eager
			var trace strings.Builder
			w.k.Trace().SetWriter(&trace)
			rng := rand.New(rand.NewPCG(seed, 99))
			var out []string
			live := map[string]bool{}
			for step := 1; step <= 60; step++ {
				at := time.Duration(step)*5*time.Second + time.Duration(rng.IntN(5000))*time.Millisecond
				w.runTo(at)
				name := fmt.Sprintf("p%d", rng.IntN(6))
				switch op := rng.IntN(4); {
				case !live[name]:
					w.runningPod(name, fmt.Sprintf("node-%d", rng.IntN(3)), at-time.Duration(rng.IntN(3))*time.Second, rng.IntN(2) == 0, "")
					if rng.IntN(2) == 0 { // most pods are idle: not the load's target
						p := w.pod(name).DeepCopy()
						p.Labels = map[string]string{"app": "idle"}
						_, err := w.store.Update(p)
						require.NoError(t, err)
					}
					live[name] = true
				case op == 0: // restart
					w.setStatus(w.pod(name), at, true)
				case op == 1: // relabel into or out of the load's target
					w.relabel(t, name)
				case op == 2:
					w.deleteNow(t, name)
					live[name] = false
				}
				out = w.appendCPU(out, at, "default")
				// The housekeeping skips a node by its count of loaded pods: it must be exact.
				for name, n := range w.s.nodes {
					want := 0
					for _, ps := range n.pods {
						if loaded(ps) {
							want++
						}
					}
					require.Equal(t, want, n.loadedPods, "seed %d step %d: loaded pods on %s", seed, step, name)
				}
			}
			out = append(out, trace.String())
			return out, w.s.Stats().Samples
		}
		lazy, lazySamples := play(false)
		eager, eagerSamples := play(true)
		require.Equal(t, eager, lazy, "seed %d", seed)
		assert.Less(t, lazySamples, eagerSamples, "seed %d: idle pods are sampled only when read", seed)
	}
}

// TestSharedIdlePodsScrapeAsEach: the scrape visits an idle pod only until its scrape state
// equals its node's stand-in's (canShare), and from then on scrapes the stand-in for it. A
// seeded script of idle and loaded pods starting, restarting, being relabelled, touched
// without change and deleted, on four nodes that become unreachable and reachable again, gives
// every pod the same scrape state, the same metrics, the same counters and the same trace as
// visiting every pod at every scrape, under resolutions and housekeeping intervals that put
// ticks between, on and across scrapes.
func TestSharedIdlePodsScrapeAsEach(t *testing.T) {
	configs := []Config{
		DefaultConfig(),
		{MetricResolution: 15 * time.Second, HousekeepingInterval: 40 * time.Second},
		{MetricResolution: 60 * time.Second, HousekeepingInterval: 7 * time.Second},
		{MetricResolution: 10 * time.Second, HousekeepingInterval: 10 * time.Second},
	}
	for ci, cfg := range configs {
		for seed := uint64(1); seed <= 6; seed++ {
			sharedSeen := 0
			play := func(noSharing bool) ([]string, Stats, map[string]*podState) {
				w := newMWorld(t, seed, cfg, webLoad())
				w.s.noIdleSharing = noSharing
				unreachable := map[string]bool{}
				w.s.SetNodeReachable(func(node string) bool { return !unreachable[node] })
				var trace strings.Builder
				w.k.Trace().SetWriter(&trace)
				rng := rand.New(rand.NewPCG(seed, uint64(ci)))
				var out []string
				live := map[string]bool{}
				for step := 1; step <= 120; step++ {
					at := time.Duration(step)*7*time.Second + time.Duration(rng.IntN(7000))*time.Millisecond
					w.runTo(at)
					name := fmt.Sprintf("p%d", rng.IntN(12))
					switch op := rng.IntN(10); {
					case op == 9: // a node goes away or comes back
						node := fmt.Sprintf("node-%d", rng.IntN(4))
						unreachable[node] = !unreachable[node]
					case !live[name]:
						w.runningPod(name, fmt.Sprintf("node-%d", rng.IntN(4)), at-time.Duration(rng.IntN(20))*time.Second, rng.IntN(2) == 0, "")
						if rng.IntN(4) != 0 { // most pods are idle: not the load's target
							p := w.pod(name).DeepCopy()
							p.Labels = map[string]string{"app": "idle"}
							_, err := w.store.Update(p)
							require.NoError(t, err)
						}
						live[name] = true
					case op == 0: // restart
						w.setStatus(w.pod(name), at-time.Duration(rng.IntN(3))*time.Second, true)
					case op == 1: // relabel into or out of the load's target
						w.relabel(t, name)
					case op == 2: // an update that changes nothing the pipeline reads
						p := w.pod(name).DeepCopy()
						p.Annotations = map[string]string{"step": fmt.Sprint(step)}
						_, err := w.store.Update(p)
						require.NoError(t, err)
					case op == 3:
						w.deleteNow(t, name)
						live[name] = false
					}
					out = w.appendCPU(out, at, "")
					for _, n := range w.s.nodes {
						sharedSeen += len(n.shared)
						for i, ps := range n.shared {
							require.True(t, ps.shared && ps.nodeIndex == i && !loaded(ps), "seed %d step %d: %s filed as shared", seed, step, ps.key)
						}
						for i, ps := range n.pods {
							require.True(t, !ps.shared && ps.nodeIndex == i, "seed %d step %d: %s filed as visited", seed, step, ps.key)
						}
					}
				}
				out = append(out, trace.String())
				states := map[string]*podState{}
				for key, ps := range w.s.pods {
					states[key] = w.s.scraped(ps)
				}
				return out, w.s.Stats(), states
			}
			each, eachStats, eachStates := play(true)
			require.Zero(t, sharedSeen, "no pod is shared with sharing off")
			shared, sharedStats, sharedStates := play(false)
			require.Equal(t, each, shared, "config %d seed %d", ci, seed)
			require.Equal(t, eachStats, sharedStats, "config %d seed %d", ci, seed)
			require.Equal(t, len(eachStates), len(sharedStates))
			for key, want := range eachStates {
				got := sharedStates[key]
				require.NotNil(t, got, key)
				ctx := fmt.Sprintf("config %d seed %d pod %s", ci, seed, key)
				assert.Equal(t, want.hasSample, got.hasSample, ctx)
				if want.hasSample {
					assert.Equal(t, want.sample.at, got.sample.at, ctx)
					assert.Equal(t, want.sample.cpu, got.sample.cpu, ctx)
					assert.Equal(t, want.sample.units, got.sample.units, ctx)
				}
				assert.Equal(t, want.caughtUpTicks, got.caughtUpTicks, ctx)
				assert.Equal(t, want.hasLast, got.hasLast, ctx)
				assert.Equal(t, want.hasPrev, got.hasPrev, ctx)
				assert.True(t, !want.hasLast || want.last.sameAs(got.last), ctx)
				assert.True(t, !want.hasPrev || want.prev.sameAs(got.prev), ctx)
			}
			assert.Positive(t, sharedSeen, "config %d seed %d: some idle pods are shared", ci, seed)
		}
	}
}

// TestYoungIdlePodIsNotShared: right after its node is reachable again, the stand-in has a last
// point and no previous one, as has a pod that started just before the node's latest tick and
// was sampled at it. The
// two are equal, but the pod is younger than a resolution: at the next scrape metrics-server
// gives it a zero point at its start, and the stand-in its last point, so the pod must not be
// shared yet.
func TestYoungIdlePodIsNotShared(t *testing.T) {
	metricsOf := func(noSharing bool) []PodMetrics {
		w := newMWorld(t, 3, DefaultConfig(), webLoad())
		w.s.noIdleSharing = noSharing
		down := true
		w.s.SetNodeReachable(func(string) bool { return !down })
		w.runTo(time.Second)
		w.runningPod("anchor", "node-a", time.Second, true, "")
		w.runTo(100 * time.Second)
		// The first scrape with a tick at most 5s before it: the next tick, 10s later, comes
		// before the next scrape, and a pod started 1ms before the first tick is 10.001s
		// old at it.
		lastTick := w.s.nodes["node-a"].lastTick
		scrapeAt := 105 * time.Second
		for (scrapeAt-lastTick.Duration())%(10*time.Second) >= 5*time.Second {
			scrapeAt += 15 * time.Second
		}
		tickAt := scrapeAt - (scrapeAt-lastTick.Duration())%(10*time.Second)
		// The pod is there at the tick (its kubelet samples it) and the node comes back.
		w.runTo(tickAt - time.Millisecond)
		down = false
		w.runningPod("young", "node-a", tickAt-2*time.Millisecond, false, "")
		p := w.pod("young").DeepCopy()
		p.Labels = map[string]string{"app": "idle"}
		_, err := w.store.Update(p)
		require.NoError(t, err)
		// A new container instance that never had a load: the pod is idle.
		w.setStatus(w.pod("young"), tickAt-time.Millisecond, false)
		w.runTo(scrapeAt + 15*time.Second + time.Millisecond)
		return w.s.ListPodMetrics("default", labels.SelectorFromSet(labels.Set{"app": "idle"}))
	}
	want := metricsOf(true)
	require.Len(t, want, 1)
	assert.Equal(t, 10*time.Second+time.Millisecond, want[0].Window, "a zero point at the start")
	assert.Equal(t, want, metricsOf(false))
}
