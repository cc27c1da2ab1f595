package drain

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim"
	"github.com/reconsim/reconsim/sim/apiserver"
	"github.com/reconsim/reconsim/sim/client"
	"github.com/reconsim/reconsim/sim/client/record"
	"github.com/reconsim/reconsim/sim/controllers/disruption"
	"github.com/reconsim/reconsim/sim/controllers/replicaset"
	"github.com/reconsim/reconsim/sim/controllers/scheduler"
	"github.com/reconsim/reconsim/sim/node"
)

const testNS = "default"

// world is a cluster for drain tests: the API server, the real ReplicaSet and disruption
// controllers and scheduler, and, for nodes added with a kubelet, the real kubelet model. Pods
// on nodes without a kubelet are played by the test.
type world struct {
	t     testing.TB
	k     *sim.Kernel
	srv   *apiserver.Server
	store *apiserver.Store
	sink  *record.FakeSink

	kubectl  *client.Client
	kubelets map[string]*node.Kubelet
	drainers []*Drainer
	drainErr map[string]error

	trace   bytes.Buffer
	printed int

	lastRV       uint64
	invariantsAt int
	boundTo      map[string]string // pod UID -> node
	// budgetMet is, per budget, whether its minAvailable has been met once; from then on the
	// number of Ready, non-terminating pods it covers must never drop below it, unless a
	// drain bypassed the budgets (bypassed: --disable-eviction deletes regardless).
	budgetMet map[string]bool
	bypassed  bool
}

func newWorld(t testing.TB) *world {
	w := &world{t: t, k: sim.New(1), sink: &record.FakeSink{}, kubelets: map[string]*node.Kubelet{},
		drainErr: map[string]error{}, boundTo: map[string]string{}, budgetMet: map[string]bool{}}
	w.k.Trace().SetWriter(&w.trace)
	w.srv = apiserver.NewServer(w.k, apiserver.DefaultConfig())
	w.store = w.srv.Store()
	w.kubectl = client.New(w.srv, "kubectl", client.Config{QPS: -1})

	// kube-controller-manager: --kube-api-qps 20, --kube-api-burst 30, one client per
	// controller, shared informers.
	kcm := client.NewSharedInformerFactory(client.New(w.srv, "kube-controller-manager/shared-informers", client.Config{QPS: 20, Burst: 30}), 0)
	rsc, err := replicaset.New(w.k, client.New(w.srv, replicaset.Component, client.Config{QPS: 20, Burst: 30}), kcm,
		record.New(w.k, w.sink, replicaset.Component, ""), replicaset.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	dc, err := disruption.New(w.k, client.New(w.srv, disruption.Component, client.Config{QPS: 20, Burst: 30}), kcm,
		record.New(w.k, w.sink, disruption.EventSourceComponent, ""), disruption.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	schedCfg := scheduler.DefaultConfig()
	sc := client.New(w.srv, schedCfg.SchedulerName, client.Config{QPS: schedCfg.KubeAPIQPS, Burst: schedCfg.KubeAPIBurst})
	schedInformers := client.NewSharedInformerFactory(sc, 0)
	sched, err := scheduler.New(w.k, sc, schedInformers, record.New(w.k, w.sink, schedCfg.SchedulerName, ""), schedCfg)
	if err != nil {
		t.Fatal(err)
	}
	kcm.Start(w.k)
	schedInformers.Start(w.k)
	rsc.Start()
	dc.Start()
	sched.Start()
	w.k.Every(100*time.Millisecond, w.checkBudgets)
	w.run(100 * time.Millisecond)
	w.printed = w.trace.Len()
	return w
}

func (w *world) run(d time.Duration) {
	out := w.k.Run(sim.Limits{MaxTime: w.k.Now().Add(d)})
	if out.Reason == sim.StopError {
		w.t.Fatalf("run failed: %v", out.Err)
	}
	w.checkInvariants()
}

// addNode registers a Ready node (4 CPUs, 110 pods) and, with kubelet, starts the kubelet
// model on it.
func (w *world) addNode(name string, withKubelet bool) {
	n := &model.Node{}
	n.Name = name
	n.Labels = map[string]string{"kubernetes.io/hostname": name}
	capacity := model.ResourceList{
		model.ResourceCPU:    resource.MustParse("4"),
		model.ResourceMemory: resource.MustParse("16Gi"),
		model.ResourcePods:   resource.MustParse("110"),
	}
	n.Status.Capacity, n.Status.Allocatable = capacity, capacity.DeepCopy()
	now := w.k.Now()
	n.Status.Conditions = []model.NodeCondition{{Type: model.NodeReady, Status: model.ConditionTrue, LastHeartbeatTime: now,
		LastTransitionTime: now, Reason: "KubeletReady", Message: "kubelet is posting ready status"}}
	if _, err := w.store.Create(n.DeepCopy()); err != nil {
		w.t.Fatalf("create node: %v", err)
	}
	if !withKubelet {
		return
	}
	cfg := node.DefaultConfig()
	c := client.New(w.srv, "kubelet/"+name, client.Config{QPS: cfg.KubeAPIQPS, Burst: cfg.KubeAPIBurst})
	kl, err := node.New(w.k, c, record.New(w.k, w.sink, "kubelet", name), n, cfg)
	if err != nil {
		w.t.Fatalf("kubelet: %v", err)
	}
	kl.SetServer(w.srv)
	kl.Start()
	w.kubelets[name] = kl
}

// checkInvariants runs after every step: resourceVersions only grow, a pod is bound to one
// node at most and never moves, and no node holds more pods than its allocatable "pods".
func (w *world) checkInvariants() {
	for _, line := range strings.Split(w.trace.String()[w.invariantsAt:], "\n") {
		f := strings.Fields(line)
		if len(f) < 5 || f[1] != "kube-apiserver" || !strings.HasPrefix(f[4], "rv=") {
			continue
		}
		rv, err := strconv.ParseUint(strings.TrimPrefix(f[4], "rv="), 10, 64)
		if err != nil {
			continue
		}
		if rv <= w.lastRV {
			w.t.Fatalf("invariant: resourceVersion went from %d to %d: %s", w.lastRV, rv, line)
		}
		w.lastRV = rv
	}
	w.invariantsAt = w.trace.Len()
	perNode := map[string]int64{}
	for _, p := range w.pods("") {
		if p.Spec.NodeName == "" {
			continue
		}
		if prev, ok := w.boundTo[p.UID]; ok && prev != p.Spec.NodeName {
			w.t.Fatalf("invariant: pod %s moved from %s to %s", p.Name, prev, p.Spec.NodeName)
		}
		w.boundTo[p.UID] = p.Spec.NodeName
		perNode[p.Spec.NodeName]++
	}
	nodes, _, _ := w.store.List(model.KindNode, model.ListOptions{})
	for _, obj := range nodes {
		n := obj.(*model.Node)
		limit := n.Status.Allocatable[model.ResourcePods]
		if perNode[n.Name] > limit.Value() {
			w.t.Fatalf("invariant: node %s holds %d pods, allocatable %d", n.Name, perNode[n.Name], limit.Value())
		}
	}
}

// checkBudgets runs every 100ms of virtual time: a budget with an integer minAvailable that
// has been met once must stay met, counting Ready pods that are not terminating — evictions
// must never take a protected workload below it.
func (w *world) checkBudgets() {
	if w.bypassed {
		return
	}
	objs, _, err := w.store.List(model.KindPodDisruptionBudget, model.ListOptions{})
	if err != nil {
		w.t.Errorf("list budgets: %v", err)
		return
	}
	for _, obj := range objs {
		pdb := obj.(*model.PodDisruptionBudget)
		if pdb.Spec.MinAvailable == nil || pdb.Spec.MinAvailable.Type != intstr.Int {
			continue
		}
		sel, err := metav1.LabelSelectorAsSelector(pdb.Spec.Selector)
		if err != nil {
			continue
		}
		healthy := 0
		for _, p := range w.pods(pdb.Namespace) {
			if p.DeletionTimestamp == nil && sel.Matches(labels.Set(p.Labels)) && isReady(p) {
				healthy++
			}
		}
		key := model.Key(pdb)
		min := int(pdb.Spec.MinAvailable.IntVal)
		if healthy >= min {
			w.budgetMet[key] = true
		} else if w.budgetMet[key] {
			w.t.Errorf("invariant at %s: budget %s needs %d healthy pods, %d are", w.k.Now(), key, min, healthy)
		}
	}
}

func isReady(p *model.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == model.PodReady {
			return c.Status == model.ConditionTrue
		}
	}
	return false
}

// pods returns the pods of a namespace ("" for all), in key order.
func (w *world) pods(namespace string) []*model.Pod {
	objs, _, err := w.store.List(model.KindPod, model.ListOptions{Namespace: namespace})
	if err != nil {
		w.t.Fatalf("list pods: %v", err)
	}
	out := make([]*model.Pod, len(objs))
	for i, o := range objs {
		out[i] = o.(*model.Pod)
	}
	return out
}

func (w *world) emit(action, object, detail string) { w.k.Emit("test", action, object, 0, detail) }

// startDrain runs Drain in a process of its own, as the timeline does.
func (w *world) startDrain(nodeName string, opts Options) {
	d, err := New(w.kubectl, nodeName, opts)
	if err != nil {
		w.t.Fatalf("drain: %v", err)
	}
	w.drainers = append(w.drainers, d)
	w.bypassed = w.bypassed || opts.DisableEviction
	w.k.Spawn("test/drain/"+nodeName, func(p *sim.Proc) {
		w.drainErr[nodeName] = d.Run(p)
	})
}

func (w *world) podLine(p *model.Pod) string {
	nodeName := p.Spec.NodeName
	if nodeName == "" {
		nodeName = "<none>"
	}
	state := p.Status.Phase
	if isReady(p) {
		state += ",Ready"
	}
	if p.DeletionTimestamp != nil {
		state += ",Terminating"
	}
	owner := "-"
	if ref := model.ControllerOf(p); ref != nil {
		owner = string(ref.Kind) + "/" + ref.Name
	}
	return fmt.Sprintf("%s node=%s %s owner=%s", p.Name, nodeName, state, owner)
}

func (w *world) statusText(st Status) string {
	var b strings.Builder
	fmt.Fprintf(&b, "node=%s phase=%s cordoned=%t started=%s", st.Node, st.Phase, st.Cordoned, st.StartedAt)
	if st.Phase == PhaseDone || st.Phase == PhaseFailed {
		fmt.Fprintf(&b, " finished=%s", st.FinishedAt)
	}
	b.WriteByte('\n')
	if st.Warnings != "" {
		fmt.Fprintf(&b, "warnings: %s\n", st.Warnings)
	}
	if st.Err != "" {
		fmt.Fprintf(&b, "error: %s\n", st.Err)
	}
	for _, p := range st.Pods {
		fmt.Fprintf(&b, "  %s/%s %s refusals=%d", p.Namespace, p.Name, p.State, p.Refusals)
		if p.State == PodEvicted || p.State == PodGone {
			fmt.Fprintf(&b, " evicted=%s", p.EvictedAt)
		}
		if p.State == PodGone {
			fmt.Fprintf(&b, " gone=%s", p.GoneAt)
		}
		if p.Err != "" {
			fmt.Fprintf(&b, " err=%q", p.Err)
		}
		b.WriteByte('\n')
	}
	return b.String()
}
