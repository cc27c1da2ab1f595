package drain

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim"
	"github.com/reconsim/reconsim/sim/client"
	"github.com/reconsim/reconsim/sim/client/record"
	"github.com/reconsim/reconsim/sim/controllers/disruption"
	"github.com/reconsim/reconsim/sim/controllers/replicaset"
	"github.com/reconsim/reconsim/sim/controllers/scheduler"
	"github.com/reconsim/reconsim/sim/internal/testworld"
	"github.com/reconsim/reconsim/sim/node"
)

const testNS = testworld.Namespace

// world is the shared test world for drain tests: the real ReplicaSet and disruption
// controllers and scheduler, and, for nodes added with a kubelet, the real kubelet model. Pods
// on nodes without a kubelet are played by the test.
type world struct {
	*testworld.World

	kubectl  *client.Client
	kubelets map[string]*node.Kubelet
	drainers []*Drainer
	drainErr map[string]error

	// budgetMet is, per budget, whether its minAvailable has been met once; from then on the
	// number of Ready, non-terminating pods it covers must never drop below it, unless a
	// drain bypassed the budgets (bypassed: --disable-eviction deletes regardless).
	budgetMet map[string]bool
	bypassed  bool
}

func newWorld(t testing.TB) *world {
	w := &world{kubelets: map[string]*node.Kubelet{}, drainErr: map[string]error{}, budgetMet: map[string]bool{}}
	w.World = testworld.New(t, testworld.Options{AfterRun: w.checkNodeCapacity})
	w.kubectl = client.New(w.Server, "kubectl", client.Config{QPS: -1})

	// kube-controller-manager: --kube-api-qps 20, --kube-api-burst 30, one client per
	// controller, shared informers.
	_, kcm := w.Client("kube-controller-manager/shared-informers")
	kcmClient := client.Config{QPS: 20, Burst: 30}
	rsc, err := replicaset.New(w.K, client.New(w.Server, replicaset.Component, kcmClient), kcm, w.Recorder(replicaset.Component), replicaset.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	dc, err := disruption.New(w.K, client.New(w.Server, disruption.Component, kcmClient), kcm, w.Recorder(disruption.EventSourceComponent), disruption.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	schedCfg := scheduler.DefaultConfig()
	sc, schedInformers := w.ClientWith(schedCfg.SchedulerName, client.Config{QPS: schedCfg.KubeAPIQPS, Burst: schedCfg.KubeAPIBurst})
	sched, err := scheduler.New(w.K, sc, schedInformers, w.Recorder(schedCfg.SchedulerName), schedCfg)
	if err != nil {
		t.Fatal(err)
	}
	w.Show = w.show
	w.PodLine = func(_ int, p *model.Pod) string { return podLine(p) }
	kcm.Start(w.K)
	schedInformers.Start(w.K)
	rsc.Start()
	dc.Start()
	sched.Start()
	w.K.Every(100*time.Millisecond, w.checkBudgets)
	w.Settle(100 * time.Millisecond)
	return w
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
	now := w.K.Now()
	n.Status.Conditions = []model.NodeCondition{{Type: model.NodeReady, Status: model.ConditionTrue, LastHeartbeatTime: now,
		LastTransitionTime: now, Reason: "KubeletReady", Message: "kubelet is posting ready status"}}
	if _, err := w.Store.Create(n.DeepCopy()); err != nil {
		w.T.Fatalf("create node: %v", err)
	}
	if !withKubelet {
		return
	}
	cfg := node.DefaultConfig()
	c := client.New(w.Server, "kubelet/"+name, client.Config{QPS: cfg.KubeAPIQPS, Burst: cfg.KubeAPIBurst})
	kl, err := node.New(w.K, c, record.New(w.K, w.Sink, "kubelet", name), n, cfg)
	if err != nil {
		w.T.Fatalf("kubelet: %v", err)
	}
	kl.SetServer(w.Server)
	kl.Start()
	w.kubelets[name] = kl
}

// checkNodeCapacity runs after every step (on top of the shared world's invariants): no node
// holds more pods than its allocatable "pods".
func (w *world) checkNodeCapacity() string {
	perNode := map[string]int64{}
	for _, p := range w.pods("") {
		if p.Spec.NodeName != "" {
			perNode[p.Spec.NodeName]++
		}
	}
	for _, n := range testworld.List[*model.Node](w.World, model.KindNode, "") {
		limit := n.Status.Allocatable[model.ResourcePods]
		if perNode[n.Name] > limit.Value() {
			return fmt.Sprintf("node %s holds %d pods, allocatable %d", n.Name, perNode[n.Name], limit.Value())
		}
	}
	return ""
}

// checkBudgets runs every 100ms of virtual time: a budget with an integer minAvailable that
// has been met once must stay met, counting Ready pods that are not terminating — evictions
// must never take a protected workload below it.
func (w *world) checkBudgets() {
	if w.bypassed {
		return
	}
	objs, _, err := w.Store.List(model.KindPodDisruptionBudget, model.ListOptions{})
	if err != nil {
		w.T.Errorf("list budgets: %v", err)
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
			if p.DeletionTimestamp == nil && sel.Matches(labels.Set(p.Labels)) && testworld.IsReady(p) {
				healthy++
			}
		}
		key := model.Key(pdb)
		min := int(pdb.Spec.MinAvailable.IntVal)
		if healthy >= min {
			w.budgetMet[key] = true
		} else if w.budgetMet[key] {
			w.T.Errorf("invariant at %s: budget %s needs %d healthy pods, %d are", w.K.Now(), key, min, healthy)
		}
	}
}

// pods returns the pods of a namespace ("" for all), in key order.
func (w *world) pods(namespace string) []*model.Pod {
	return testworld.List[*model.Pod](w.World, model.KindPod, namespace)
}

// startDrain runs Drain in a process of its own, as the timeline does.
func (w *world) startDrain(nodeName string, opts Options) {
	d, err := New(w.kubectl, nodeName, opts)
	if err != nil {
		w.T.Fatalf("drain: %v", err)
	}
	w.drainers = append(w.drainers, d)
	w.bypassed = w.bypassed || opts.DisableEviction
	w.K.Spawn("test/drain/"+nodeName, func(p *sim.Proc) {
		w.drainErr[nodeName] = d.Run(p)
	})
}

func podLine(p *model.Pod) string {
	return fmt.Sprintf("%s node=%s %s owner=%s", p.Name, testworld.PodNode(p), testworld.PodState(p), testworld.OwnerText(p))
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
