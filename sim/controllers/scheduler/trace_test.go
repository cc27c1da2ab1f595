package scheduler

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim"
	"github.com/reconsim/reconsim/sim/apiserver"
	"github.com/reconsim/reconsim/sim/client"
	"github.com/reconsim/reconsim/sim/internal/testworld"
)

// schedulerActions are the trace actions this package emits (the client, which shares the
// component name, emits others).
var schedulerActions = map[string]bool{"attempt": true, "assume": true, "bound": true, "bind-conflict": true,
	"failed": true, "queue": true, "skip": true, "status-error": true, "preempt": true, "victim": true}

// world is the shared test world with the scheduler on its client, informers and recorder.
// The test plays every other actor through the store. A run prints the trace lines of the
// scheduler and its event recorder, without resourceVersions (which depend on how many
// objects the API server creates for itself).
type world struct {
	*testworld.World
	s *Scheduler
}

// testServerConfig pins the API server's latencies, so that these traces do not move when
// the server's defaults do.
func testServerConfig() apiserver.Config {
	cfg := apiserver.DefaultConfig()
	cfg.ServiceTime = map[model.Verb]sim.Dist{
		client.VerbGet: sim.Constant(time.Millisecond), client.VerbList: sim.Constant(5 * time.Millisecond),
		client.VerbWatch: sim.Constant(time.Millisecond), client.VerbCreate: sim.Constant(5 * time.Millisecond),
		client.VerbUpdate: sim.Constant(5 * time.Millisecond), client.VerbPatch: sim.Constant(5 * time.Millisecond),
		client.VerbDelete: sim.Constant(5 * time.Millisecond),
	}
	cfg.ListItemCost = 0
	cfg.Store.WatchDelay = sim.Constant(5 * time.Millisecond)
	return cfg
}

func newWorld(t *testing.T, d *datadriven.TestData) *world {
	cfg := DefaultConfig()
	// The scripts were written with the v1.34 TaintToleration message, which names the taint;
	// TestFailedSchedulingMessageByRelease covers the later one.
	cfg.TaintMessageWithoutKey = false
	seed := uint64(1)
	d.MaybeScanArgs(t, "seed", &seed)
	d.MaybeScanArgs(t, "pop-from-backoffq", &cfg.PopFromBackoffQ)
	d.MaybeScanArgs(t, "bind-retries", &cfg.BindRetries)
	var cycle time.Duration
	if d.MaybeScanArgs(t, "cycle", &cycle) {
		cfg.CycleBase = sim.Constant(cycle)
	}
	d.MaybeScanArgs(t, "per-node", &cfg.CyclePerNode)
	return newWorldConfig(t, seed, cfg)
}

// newWorldConfig builds a world with the scheduler started on cfg.
func newWorldConfig(t testing.TB, seed uint64, cfg Config) *world {
	w := &world{}
	w.World = testworld.New(t, testworld.Options{
		Seed:         seed,
		Server:       func(c *apiserver.Config) { *c = testServerConfig() },
		AfterRun:     w.checkCapacity,
		AdvanceClock: true,
		StripRV:      true,
	})
	c, f := w.ClientWith(component, client.Config{QPS: cfg.KubeAPIQPS, Burst: cfg.KubeAPIBurst})
	s, err := New(w.K, c, f, w.Recorder(DefaultSchedulerName), cfg)
	require.NoError(t, err)
	w.s = s
	w.Show = func(_ *datadriven.TestData, f []string) bool {
		return (f[1] == component && schedulerActions[f[2]]) || f[1] == DefaultSchedulerName
	}
	s.Start()
	f.Start(w.K)
	return w
}

// applyResources sets cpu, memory and pods arguments on a resource list.
func applyResources(t testing.TB, d *datadriven.TestData, l model.ResourceList) {
	for _, name := range []string{"cpu", "memory", "pods"} {
		var v string
		if d.MaybeScanArgs(t, name, &v) {
			l[name] = resource.MustParse(v)
		}
	}
}

// parseTaints reads testworld.ParseTaints' "key=value:Effect,key:Effect"; "none" is no
// taints.
func parseTaints(t testing.TB, s string) []model.Taint {
	if s == "none" {
		return nil
	}
	return testworld.ParseTaints(t, s)
}

// parseTolerations reads "key=value:Effect" (Equal), "key:Effect" or "key" (Exists), and
// "*" (tolerate everything).
func parseTolerations(s string) []model.Toleration {
	var out []model.Toleration
	for _, item := range strings.Split(s, ",") {
		if item == "*" {
			out = append(out, model.Toleration{Operator: TolerationOpExists})
			continue
		}
		kv, effect, _ := strings.Cut(item, ":")
		tol := model.Toleration{Effect: model.TaintEffect(effect)}
		if key, value, ok := strings.Cut(kv, "="); ok {
			tol.Key, tol.Operator, tol.Value = key, TolerationOpEqual, value
		} else {
			tol.Key, tol.Operator = kv, TolerationOpExists
		}
		out = append(out, tol)
	}
	return out
}

func (w *world) node(d *datadriven.TestData) {
	var name, taints string
	d.ScanArgs(w.T, "name", &name)
	n := &model.Node{ObjectMeta: model.ObjectMeta{Name: name, Labels: testworld.LabelsArg(w.T, d, "labels")}}
	n.Status.Allocatable = model.ResourceList{"cpu": resource.MustParse("4"), "memory": resource.MustParse("8Gi"), "pods": resource.MustParse("110")}
	applyResources(w.T, d, n.Status.Allocatable)
	n.Status.Capacity = n.Status.Allocatable.DeepCopy()
	if d.MaybeScanArgs(w.T, "taints", &taints) {
		n.Spec.Taints = parseTaints(w.T, taints)
	}
	n.Spec.Unschedulable = d.HasArg("unschedulable")
	n.Status.Conditions = []model.NodeCondition{{Type: model.NodeReady, Status: model.ConditionTrue}}
	_, err := w.Store.Create(n)
	require.NoError(w.T, err)
}

func (w *world) updateNode(d *datadriven.TestData) {
	var name, labels, taints string
	var unschedulable bool
	d.ScanArgs(w.T, "name", &name)
	obj, err := w.Store.Get(model.KindNode, "", name)
	require.NoError(w.T, err)
	n := obj.DeepCopyObject().(*model.Node)
	specChanged := false
	if d.MaybeScanArgs(w.T, "labels", &labels) {
		n.Labels, specChanged = testworld.ParseLabels(w.T, labels), true
	}
	if d.MaybeScanArgs(w.T, "taints", &taints) {
		n.Spec.Taints, specChanged = parseTaints(w.T, taints), true
	}
	if d.MaybeScanArgs(w.T, "unschedulable", &unschedulable) {
		n.Spec.Unschedulable, specChanged = unschedulable, true
	}
	if specChanged {
		updated, err := w.Store.Update(n)
		require.NoError(w.T, err)
		n = updated.DeepCopyObject().(*model.Node)
	}
	if d.HasArg("cpu") || d.HasArg("memory") || d.HasArg("pods") {
		applyResources(w.T, d, n.Status.Allocatable)
		_, err := w.Store.UpdateStatus(n)
		require.NoError(w.T, err)
	}
}

func (w *world) pod(d *datadriven.TestData) {
	var name, tolerations, schedulerName, policy, node string
	var priority int
	d.ScanArgs(w.T, "name", &name)
	p := &model.Pod{ObjectMeta: model.ObjectMeta{Name: name, Namespace: "default"}}
	if d.MaybeScanArgs(w.T, "preemption-policy", &policy) {
		p.Spec.PreemptionPolicy = &policy
	}
	// node= creates the pod bound, as if another scheduler had placed it earlier.
	if d.MaybeScanArgs(w.T, "node", &node) {
		p.Spec.NodeName = node
	}
	p.Spec.Containers = []model.Container{{Name: "c", Image: "app"}}
	req := model.ResourceList{}
	for _, r := range []string{"cpu", "memory"} {
		var v string
		if d.MaybeScanArgs(w.T, r, &v) {
			req[r] = resource.MustParse(v)
		}
	}
	if len(req) > 0 {
		p.Spec.Containers[0].Resources.Requests = req
	}
	if d.MaybeScanArgs(w.T, "priority", &priority) {
		p.Spec.Priority = model.Ptr(int32(priority))
	}
	if d.MaybeScanArgs(w.T, "tolerations", &tolerations) {
		p.Spec.Tolerations = parseTolerations(tolerations)
	}
	p.Spec.NodeSelector = testworld.LabelsArg(w.T, d, "node-selector")
	if d.MaybeScanArgs(w.T, "scheduler", &schedulerName) {
		p.Spec.SchedulerName = schedulerName
	}
	var finalizer string
	if d.MaybeScanArgs(w.T, "finalizer", &finalizer) {
		p.Finalizers = []string{finalizer}
	}
	w.podScheduling(d, p)
	_, err := w.Store.Create(p)
	require.NoError(w.T, err)
}

// podScheduling reads the pod's labels, controller and inter-pod scheduling constraints:
// labels=k=v,...; owner=ReplicaSet/name (the controller reference); spread=key:maxSkew:action
// (one topology spread constraint selecting the pod's own labels); anti-affinity=key and
// affinity=key (a required term on that topology key selecting the pod's own labels, or
// affinity-selector=k=v when given).
func (w *world) podScheduling(d *datadriven.TestData, p *model.Pod) {
	var owner, spread, anti, aff, affSel string
	p.Labels = testworld.LabelsArg(w.T, d, "labels")
	if d.MaybeScanArgs(w.T, "owner", &owner) {
		kind, name, _ := strings.Cut(owner, "/")
		p.OwnerReferences = []model.OwnerReference{{APIVersion: "apps/v1", Kind: model.Kind(kind), Name: name, UID: "uid-" + name, Controller: model.Ptr(true)}}
	}
	own := &metav1.LabelSelector{MatchLabels: p.Labels}
	if d.MaybeScanArgs(w.T, "spread", &spread) {
		parts := strings.Split(spread, ":")
		require.Len(w.T, parts, 3, "spread=key:maxSkew:action")
		skew, err := strconv.Atoi(parts[1])
		require.NoError(w.T, err)
		p.Spec.TopologySpreadConstraints = []model.TopologySpreadConstraint{{TopologyKey: parts[0], MaxSkew: int32(skew), WhenUnsatisfiable: parts[2], LabelSelector: own}}
	}
	if d.MaybeScanArgs(w.T, "anti-affinity", &anti) {
		if p.Spec.Affinity == nil {
			p.Spec.Affinity = &model.Affinity{}
		}
		p.Spec.Affinity.PodAntiAffinity = &model.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []model.PodAffinityTerm{{LabelSelector: own, TopologyKey: anti}}}
	}
	if d.MaybeScanArgs(w.T, "affinity", &aff) {
		sel := own
		if d.MaybeScanArgs(w.T, "affinity-selector", &affSel) {
			sel = &metav1.LabelSelector{MatchLabels: testworld.ParseLabels(w.T, affSel)}
		}
		if p.Spec.Affinity == nil {
			p.Spec.Affinity = &model.Affinity{}
		}
		p.Spec.Affinity.PodAffinity = &model.PodAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []model.PodAffinityTerm{{LabelSelector: sel, TopologyKey: aff}}}
	}
}

// replicaSet creates a ReplicaSet selecting selector=k=v (no controller runs it here: it is
// only what PodTopologySpread's default selector reads).
func (w *world) replicaSet(d *datadriven.TestData) {
	var name, sel string
	d.ScanArgs(w.T, "name", &name)
	d.ScanArgs(w.T, "selector", &sel)
	rs := &model.ReplicaSet{ObjectMeta: model.ObjectMeta{Name: name, Namespace: "default"}}
	rs.Spec.Replicas = model.Ptr(int32(0))
	rs.Spec.Selector = &metav1.LabelSelector{MatchLabels: testworld.ParseLabels(w.T, sel)}
	rs.Spec.Template.Labels = testworld.ParseLabels(w.T, sel)
	rs.Spec.Template.Spec.Containers = []model.Container{{Name: "c", Image: "app"}}
	rs.Spec.Template.Spec.RestartPolicy = model.RestartPolicyAlways
	_, err := w.Store.Create(rs)
	require.NoError(w.T, err)
}

// touchPod changes a pod's labels, moving its resourceVersion (what any other writer would do).
func (w *world) touchPod(d *datadriven.TestData) {
	var name string
	d.ScanArgs(w.T, "name", &name)
	obj, err := w.Store.Get(model.KindPod, "default", name)
	require.NoError(w.T, err)
	p := obj.DeepCopyObject().(*model.Pod)
	if p.Labels == nil {
		p.Labels = map[string]string{}
	}
	p.Labels["touched"] = strconv.Itoa(len(p.Labels))
	_, err = w.Store.Update(p)
	require.NoError(w.T, err)
}

// bindPod binds a pod as another scheduler would.
func (w *world) bindPod(d *datadriven.TestData) {
	var name, node string
	d.ScanArgs(w.T, "name", &name)
	d.ScanArgs(w.T, "node", &node)
	obj, err := w.Store.Get(model.KindPod, "default", name)
	require.NoError(w.T, err)
	p := obj.DeepCopyObject().(*model.Pod)
	p.Spec.NodeName = node
	_, err = w.Store.Update(p)
	require.NoError(w.T, err)
}

// pdb creates a PodDisruptionBudget selecting labels, with status.disruptionsAllowed set as
// the disruption controller would have computed it.
func (w *world) pdb(d *datadriven.TestData) {
	var name, selector string
	var allowed int
	d.ScanArgs(w.T, "name", &name)
	d.ScanArgs(w.T, "selector", &selector)
	d.ScanArgs(w.T, "allowed", &allowed)
	pdb := &model.PodDisruptionBudget{ObjectMeta: model.ObjectMeta{Name: name, Namespace: "default"}}
	pdb.Spec.Selector = &metav1.LabelSelector{MatchLabels: testworld.ParseLabels(w.T, selector)}
	created, err := w.Store.Create(pdb)
	require.NoError(w.T, err)
	pdb = created.DeepCopyObject().(*model.PodDisruptionBudget)
	pdb.Status.DisruptionsAllowed = int32(allowed)
	_, err = w.Store.UpdateStatus(pdb)
	require.NoError(w.T, err)
}

func (w *world) deletePod(d *datadriven.TestData) {
	var name string
	d.ScanArgs(w.T, "name", &name)
	_, err := w.Store.Delete(model.KindPod, "default", name, model.DeleteOptions{GracePeriodSeconds: model.Ptr(int64(0))})
	require.NoError(w.T, err)
}

func (w *world) pods() []*model.Pod {
	return testworld.List[*model.Pod](w.World, model.KindPod, "")
}

func (w *world) nodes() []*model.Node {
	return testworld.List[*model.Node](w.World, model.KindNode, "")
}

// checkCapacity runs after every step (on top of the shared world's invariants): no node
// holds more than its allocatable (cpu, memory, pod count) of non-terminal pods.
func (w *world) checkCapacity() string {
	type usage struct {
		req  Resource
		pods int64
	}
	used := map[string]*usage{}
	for _, p := range w.pods() {
		if p.Spec.NodeName == "" || model.IsPodTerminal(p) {
			continue
		}
		u := used[p.Spec.NodeName]
		if u == nil {
			u = &usage{}
			used[p.Spec.NodeName] = u
		}
		u.req.addResource(PodRequests(p, false))
		u.pods++
	}
	for _, n := range w.nodes() {
		u := used[n.Name]
		if u == nil {
			continue
		}
		alloc := nodeAllocatable(n)
		switch {
		case u.req.MilliCPU > alloc.MilliCPU:
			return fmt.Sprintf("node %s over cpu: %d > %d", n.Name, u.req.MilliCPU, alloc.MilliCPU)
		case u.req.Memory > alloc.Memory:
			return fmt.Sprintf("node %s over memory: %d > %d", n.Name, u.req.Memory, alloc.Memory)
		case u.pods > alloc.AllowedPodNumber:
			return fmt.Sprintf("node %s over pods: %d > %d", n.Name, u.pods, alloc.AllowedPodNumber)
		}
	}
	return ""
}

// placement prints every pod's node and PodScheduled condition, and the pods per node.
func (w *world) placement() string {
	var b strings.Builder
	perNode := map[string]int{}
	for _, p := range w.pods() {
		node := p.Spec.NodeName
		if node == "" {
			node = "<none>"
		} else {
			perNode[node]++
		}
		cond := "-"
		for _, c := range p.Status.Conditions {
			if c.Type == model.PodScheduled {
				cond = string(c.Status)
				if c.Reason != "" {
					cond += " " + c.Reason
				}
			}
		}
		extra := ""
		if p.Status.NominatedNodeName != "" {
			extra += " nominated=" + p.Status.NominatedNodeName
		}
		if podTerminatingByPreemption(p) {
			extra += " terminating(PreemptionByScheduler)"
		}
		fmt.Fprintf(&b, "%s node=%s PodScheduled=%s%s\n", model.Key(p), node, cond, extra)
	}
	names := make([]string, 0, len(perNode))
	for n := range perNode { //detlint:ordered sorted below
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(&b, "%s: %d pods\n", n, perNode[n])
	}
	return b.String()
}

func (w *world) queues() string {
	q := w.s.QueueLengths()
	st := w.s.Stats()
	return fmt.Sprintf("activeQ=%d backoffQ=%d unschedulablePods=%d\nattempts=%d scheduled=%d unschedulable=%d errors=%d bindConflicts=%d conditionWrites=%d\n",
		q.Active, q.Backoff, q.Unschedulable, st.Attempts, st.Scheduled, st.Unschedulable, st.Errors, st.BindConflicts, st.ConditionWrites)
}

// TestSchedulerTraces runs the scripts in testdata (-rewrite regenerates them): the
// scheduler's behaviour over time in a small cluster, printed as its trace lines.
func TestSchedulerTraces(t *testing.T) {
	testworld.Walk(t, "testdata", func(t *testing.T, d *datadriven.TestData) (*world, string) {
		return newWorld(t, d), ""
	}, func(t *testing.T, w *world) testworld.Commands {
		do := func(f func(d *datadriven.TestData)) testworld.Command {
			return func(d *datadriven.TestData) string { f(d); return "" }
		}
		return testworld.Commands{
			"node":        do(func(d *datadriven.TestData) { w.node(d) }),
			"update-node": do(func(d *datadriven.TestData) { w.updateNode(d) }),
			"pod":         do(func(d *datadriven.TestData) { w.pod(d) }),
			"replicaset":  do(func(d *datadriven.TestData) { w.replicaSet(d) }),
			"touch-pod":   do(func(d *datadriven.TestData) { w.touchPod(d) }),
			"bind-pod":    do(func(d *datadriven.TestData) { w.bindPod(d) }),
			"delete-pod":  do(func(d *datadriven.TestData) { w.deletePod(d) }),
			"pdb":         do(func(d *datadriven.TestData) { w.pdb(d) }),
			"stop":        do(func(*datadriven.TestData) { w.s.Stop() }),
			"start":       do(func(*datadriven.TestData) { w.s.Start() }),
			"placement":   func(*datadriven.TestData) string { return w.placement() },
			"queues":      func(*datadriven.TestData) string { return w.queues() },
			"last-failure": func(d *datadriven.TestData) string {
				name := testworld.Arg[string](t, d, "name")
				msg, ok := w.s.LastFailure("default/" + name)
				return fmt.Sprintf("%v %q attempts=%d\n", ok, msg, w.s.Attempts("default/"+name))
			},
		}
	})
}
