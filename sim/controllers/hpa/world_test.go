package hpa

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim/client"
	"github.com/reconsim/reconsim/sim/client/record"
	"github.com/reconsim/reconsim/sim/controllers/replicaset"
	"github.com/reconsim/reconsim/sim/controllers/scheduler"
	"github.com/reconsim/reconsim/sim/internal/testworld"
	"github.com/reconsim/reconsim/sim/metrics"
	"github.com/reconsim/reconsim/sim/node"
	"github.com/reconsim/reconsim/vtime"
)

const worldNS = "default"

// world is a small cluster for the HPA's trace tests: the API server, the scheduler, the
// ReplicaSet controller, kubelets, the metrics pipeline and the HPA, each with its own client
// as kube-controller-manager and the node agents have. A ReplicaSet "web" carries a load; the
// HPA "web" scales it.
type world struct {
	*testworld.World
	ms  *metrics.Server
	hpa *Controller

	spec worldSpec

	initial  int32
	rescales []rescale
}

type rescale struct {
	at       vtime.Time
	from, to int32
}

// worldSpec is what a test varies.
type worldSpec struct {
	behavior string // "legacy" (no behavior) or "default" (an empty behavior: the API defaults)
	replicas int32
	min, max int32
	target   int32 // cpu utilization percent
	nodes    int
	nodeCPU  string
	shape    metrics.Shape
	seed     uint64
	// spikeEnd is when the load drops back (for the stabilization check); 0 if none.
	spikeEnd time.Duration
}

func defaultWorldSpec() worldSpec {
	return worldSpec{
		behavior: "default", replicas: 5, min: 2, max: 20, target: 50, nodes: 4, nodeCPU: "8", seed: 1,
		// 100/s, tripled from 2m for 5 minutes.
		shape:    metrics.Shape{Spikes: &metrics.SpikesShape{Base: 100, Spikes: []metrics.Spike{{At: 2 * time.Minute, Duration: 5 * time.Minute, Factor: model.Ptr(3.0)}}}},
		spikeEnd: 7 * time.Minute,
	}
}

// webLoad: each pod requests 500m; it uses 20m plus 10m per request per second. At 100/s over
// 5 pods that is 220m (44% of the request); the 50% target needs ceil(0.88*5) = 5 pods.
func (s worldSpec) load() metrics.LoadSpec {
	return metrics.LoadSpec{
		Target: metrics.WorkloadRef{Kind: string(model.KindReplicaSet), Namespace: worldNS, Name: "web"},
		Shape:  s.shape,
		Usage: metrics.UsageModel{
			CPUPerUnit: resource.MustParse("10m"),
			BaseCPU:    resource.MustParse("20m"),
			BaseMemory: resource.MustParse("64Mi"),
		},
	}
}

func readyNodeConditions(t vtime.Time) []model.NodeCondition {
	cond := func(typ string, status model.ConditionStatus, reason string) model.NodeCondition {
		return model.NodeCondition{Type: typ, Status: status, LastHeartbeatTime: t, LastTransitionTime: t, Reason: reason}
	}
	return []model.NodeCondition{
		cond(model.NodeMemoryPressure, model.ConditionFalse, "KubeletHasSufficientMemory"),
		cond(model.NodeDiskPressure, model.ConditionFalse, "KubeletHasNoDiskPressure"),
		cond(model.NodePIDPressure, model.ConditionFalse, "KubeletHasSufficientPID"),
		cond(model.NodeReady, model.ConditionTrue, "KubeletReady"),
	}
}

func newHPAWorld(t testing.TB, spec worldSpec) *world {
	w := &world{spec: spec, initial: spec.replicas}
	w.World = testworld.New(t, testworld.Options{Seed: spec.seed, AfterRun: w.checkInvariants})
	k, srv := w.K, w.Server
	fatal := func(what string, err error) {
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}

	// Nodes, registered Ready, each with its kubelet.
	for i := 0; i < spec.nodes; i++ {
		name := "node-" + strconv.Itoa(i)
		capacity := model.ResourceList{
			model.ResourceCPU:    resource.MustParse(spec.nodeCPU),
			model.ResourceMemory: resource.MustParse("32Gi"),
			model.ResourcePods:   resource.MustParse("110"),
		}
		obj := &model.Node{
			ObjectMeta: model.ObjectMeta{Name: name, Labels: map[string]string{"kubernetes.io/hostname": name}},
			Status:     model.NodeStatus{Capacity: capacity, Allocatable: capacity.DeepCopy()},
		}
		cfg := node.DefaultConfig()
		kl, err := node.New(k, client.New(srv, "kubelet/"+name, client.Config{QPS: cfg.KubeAPIQPS, Burst: cfg.KubeAPIBurst}), record.New(k, w.Sink, "kubelet", name), obj, cfg)
		fatal("kubelet", err)
		kl.SetServer(srv)
		ready := obj.DeepCopy()
		ready.Status.Conditions = readyNodeConditions(0)
		_, err = w.Store.Create(ready)
		fatal("node", err)
		kl.Start()
	}

	schedCfg := scheduler.DefaultConfig()
	sc := client.New(srv, schedCfg.SchedulerName, client.Config{QPS: schedCfg.KubeAPIQPS, Burst: schedCfg.KubeAPIBurst})
	schedInformers := client.NewSharedInformerFactory(sc, 0)
	sched, err := scheduler.New(k, sc, schedInformers, w.Recorder(schedCfg.SchedulerName), schedCfg)
	fatal("scheduler", err)

	// kube-controller-manager: --kube-api-qps 20, --kube-api-burst 30, one client per
	// controller and one for the shared informers.
	kcm := client.Config{QPS: 20, Burst: 30}
	kcmInformers := client.NewSharedInformerFactory(client.New(srv, "kube-controller-manager/shared-informers", kcm), 0)
	rs, err := replicaset.New(k, client.New(srv, replicaset.Component, kcm), kcmInformers, w.Recorder(replicaset.Component), replicaset.DefaultConfig())
	fatal("replicaset", err)

	msInformers := client.NewSharedInformerFactory(client.New(srv, metrics.Component, client.Config{QPS: -1}), 0)
	w.ms, err = metrics.New(k, msInformers, []metrics.LoadSpec{spec.load()}, metrics.DefaultConfig())
	fatal("metrics", err)

	w.hpa, err = New(k, client.New(srv, Component, kcm), kcmInformers, w.Recorder(Component), w.ms, DefaultConfig())
	fatal("hpa", err)

	// The workload and its autoscaler, as a user would create them at time 0.
	_, err = w.Store.Create(&model.ReplicaSet{
		ObjectMeta: model.ObjectMeta{Name: "web", Namespace: worldNS},
		Spec: model.ReplicaSetSpec{
			Replicas: model.Ptr(spec.replicas),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: model.PodTemplateSpec{
				ObjectMeta: model.ObjectMeta{Labels: map[string]string{"app": "web"}},
				Spec: model.PodSpec{Containers: []model.Container{{
					Name: "app", Image: "registry.example/web:1",
					Resources: model.ResourceRequirements{Requests: model.ResourceList{
						model.ResourceCPU: resource.MustParse("500m"), model.ResourceMemory: resource.MustParse("256Mi"),
					}},
				}}},
			},
		},
	})
	fatal("replicaset web", err)
	hpaObj := &model.HorizontalPodAutoscaler{
		ObjectMeta: model.ObjectMeta{Name: "web", Namespace: worldNS},
		Spec: model.HorizontalPodAutoscalerSpec{
			ScaleTargetRef: model.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "web"},
			MinReplicas:    model.Ptr(spec.min),
			MaxReplicas:    spec.max,
			Metrics: []model.MetricSpec{{
				Type:     model.ResourceMetricSourceType,
				Resource: &model.ResourceMetricSource{Name: model.ResourceCPU, Target: model.MetricTarget{Type: model.UtilizationMetricType, AverageUtilization: model.Ptr(spec.target)}},
			}},
		},
	}
	if spec.behavior == "default" {
		hpaObj.Spec.Behavior = &model.HorizontalPodAutoscalerBehavior{}
	}
	_, err = w.Store.Create(hpaObj)
	fatal("hpa web", err)

	schedInformers.Start(k)
	kcmInformers.Start(k)
	msInformers.Start(k)
	sched.Start()
	rs.Start()
	w.ms.Start()
	w.hpa.Start()
	return w
}

func (w *world) runTo(at vtime.Time) { w.Run(at.Sub(w.K.Now())) }

var newSize = regexp.MustCompile(`^New size: (\d+);`)

// newEvents returns the HPA's events since the last call, one line each, and notes rescales.
func (w *world) newEvents() []string {
	var out []string
	for _, ev := range w.NewEvents() {
		if ev.Source.Component != Component {
			continue
		}
		out = append(out, fmt.Sprintf("%9.3fs %s %s: %s", ev.FirstTimestamp.Seconds(), ev.Type, ev.Reason, ev.Message))
		if ev.Reason == "SuccessfulRescale" {
			m := newSize.FindStringSubmatch(ev.Message)
			if m == nil {
				w.T.Fatalf("unparsable rescale message %q", ev.Message)
			}
			to, _ := strconv.Atoi(m[1])
			w.rescales = append(w.rescales, rescale{at: ev.FirstTimestamp, from: w.replicasAt(ev.FirstTimestamp), to: int32(to)})
		}
	}
	return out
}

// replicasAt is the scale the HPA had set at t (before any rescale at t itself): the target of
// the last rescale strictly before t, or the initial count.
func (w *world) replicasAt(t vtime.Time) int32 {
	r := w.initial
	for _, rs := range w.rescales {
		if rs.at < t {
			r = rs.to
		}
	}
	return r
}

// replicasAtOrBefore is the scale after every rescale at or before t.
func (w *world) replicasAtOrBefore(t vtime.Time) int32 {
	r := w.initial
	for _, rs := range w.rescales {
		if rs.at <= t {
			r = rs.to
		}
	}
	return r
}

func (w *world) replicaSet() *model.ReplicaSet {
	return testworld.Get[*model.ReplicaSet](w.World, model.KindReplicaSet, worldNS, "web")
}

func (w *world) hpaObject() *model.HorizontalPodAutoscaler {
	return testworld.Get[*model.HorizontalPodAutoscaler](w.World, model.KindHorizontalPodAutoscaler, worldNS, "web")
}

// sample is one line of the trace: offered load, the ReplicaSet's scale and ready pods, the
// utilization metrics-server reports, and the HPA's status.
func (w *world) sample() string {
	st := w.ms.Status()[0]
	rs := w.replicaSet()
	h := w.hpaObject()
	util := "-"
	if st.CPUUtilization >= 0 {
		util = strconv.Itoa(int(st.CPUUtilization)) + "%"
	}
	return fmt.Sprintf("%9.3fs load=%.1f replicas=%d ready=%d util=%s hpa=%d/%d", w.K.Now().Seconds(), st.Offered, *rs.Spec.Replicas, rs.Status.ReadyReplicas, util, h.Status.CurrentReplicas, h.Status.DesiredReplicas)
}

// checkInvariants runs after every step (on top of the shared world's): no node holds more
// pods' cpu requests than it can allocate, and the HPA never sets the scale outside
// [min, max].
func (w *world) checkInvariants() string {
	used := map[string]int64{}
	for _, p := range testworld.List[*model.Pod](w.World, model.KindPod, "") {
		if p.Spec.NodeName == "" || p.Status.Phase == model.PodSucceeded || p.Status.Phase == model.PodFailed {
			continue
		}
		for _, c := range p.Spec.Containers {
			q := c.Resources.Requests[model.ResourceCPU]
			used[p.Spec.NodeName] += q.MilliValue()
		}
	}
	alloc := resource.MustParse(w.spec.nodeCPU)
	for _, n := range testworld.List[*model.Node](w.World, model.KindNode, "") {
		if m := used[n.Name]; m > alloc.MilliValue() {
			return fmt.Sprintf("node %s has %dm of cpu requests bound, allocatable %dm", n.Name, m, alloc.MilliValue())
		}
	}
	if r := *w.replicaSet().Spec.Replicas; len(w.rescales) > 0 && (r < w.spec.min || r > w.spec.max) {
		return fmt.Sprintf("the HPA set %d replicas, outside [%d, %d]", r, w.spec.min, w.spec.max)
	}
	return ""
}

// checkPolicy asserts what the scaling policy promises over the recorded rescales, and
// describes them.
func (w *world) checkPolicy() string {
	var b strings.Builder
	firstDown := vtime.Time(-1)
	for _, rs := range w.rescales {
		if rs.to < rs.from {
			if firstDown < 0 {
				firstDown = rs.at
			}
			fmt.Fprintf(&b, "%9.3fs scale down %d -> %d\n", rs.at.Seconds(), rs.from, rs.to)
			continue
		}
		var allowed int32
		switch w.spec.behavior {
		case "default":
			// Default scale-up rules: max(Pods 4, Percent 100) per 15s, from the count at the
			// start of the period (events exactly 15s old are outside it).
			start := w.replicasAtOrBefore(rs.at.Add(-15 * time.Second))
			allowed = max(start+4, 2*start)
			fmt.Fprintf(&b, "%9.3fs scale up %d -> %d (15s ago %d: at most %d)\n", rs.at.Seconds(), rs.from, rs.to, start, allowed)
		default:
			// Legacy: at most max(2*current, 4) per reconcile.
			allowed = max(2*rs.from, 4)
			fmt.Fprintf(&b, "%9.3fs scale up %d -> %d (at most %d)\n", rs.at.Seconds(), rs.from, rs.to, allowed)
		}
		if rs.to > allowed {
			w.T.Errorf("scale-up at %s to %d exceeds the policy's %d", rs.at, rs.to, allowed)
		}
	}
	if w.spec.spikeEnd > 0 && firstDown >= 0 {
		// The scale-down needs 300s of recommendations no higher than it; they drop only once
		// the metrics see the load drop (at the spike's end at the earliest), so the first
		// scale-down comes at least 300s after it.
		after := firstDown.Sub(vtime.FromDuration(w.spec.spikeEnd))
		fmt.Fprintf(&b, "first scale-down %s after the load dropped\n", after)
		if after < 300*time.Second {
			w.T.Errorf("scale-down %s after the load dropped, within the 300s stabilization window", after)
		}
	}
	return b.String()
}
