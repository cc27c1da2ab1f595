package daemonset

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim"
	"github.com/reconsim/reconsim/sim/apiserver"
	"github.com/reconsim/reconsim/sim/client"
	"github.com/reconsim/reconsim/sim/client/record"
	"github.com/reconsim/reconsim/vtime"
)

const testNS = "default"

// world is a small cluster for trace tests: a kernel, the real API server with Node objects,
// and the DaemonSet controller with its own client and informers. The test plays the scheduler
// and the kubelets (fakeNodes): an unscheduled pod is bound to the node its required node
// affinity names (matchFields metadata.name) if that node exists, is alive and has no
// NoSchedule/NoExecute taint the pod does not tolerate; a bound pod is started (Running and
// Ready) startDelay later; a graceful deletion is finished terminationDelay later by the
// kubelet's final delete. A dead node's kubelet does nothing.
type world struct {
	t     testing.TB
	k     *sim.Kernel
	srv   *apiserver.Server
	store *apiserver.Store
	dsc   *Controller
	sink  *record.FakeSink
	nodes *fakeNodes

	trace   bytes.Buffer
	printed int

	inv invariants
}

func newWorld(t testing.TB, cfg Config) *world {
	w := &world{t: t, k: sim.New(1), sink: &record.FakeSink{}}
	w.inv = invariants{pods: map[string]*model.Pod{}, boundTo: map[string]string{}, surge: map[string]bool{}}
	w.k.Trace().SetWriter(&w.trace)
	scfg := apiserver.DefaultConfig()
	scfg.Store.IsSignificantWrite = func(kind model.Kind, old, new model.Object) bool {
		w.inv.commit(kind, old, new)
		return apiserver.DefaultSignificantWrite(kind, old, new)
	}
	w.srv = apiserver.NewServer(w.k, scfg)
	w.store = w.srv.Store()
	// kube-controller-manager's client: --kube-api-qps 20, --kube-api-burst 30.
	c := client.New(w.srv, Component, client.Config{QPS: 20, Burst: 30})
	f := client.NewSharedInformerFactory(c, 0)
	rec := record.New(w.k, w.sink, Component, "")
	dsc, err := New(w.k, c, f, rec, cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	w.dsc = dsc
	w.nodes = newFakeNodes(w)
	f.Start(w.k)
	dsc.Start()
	w.run(100 * time.Millisecond)
	w.printed = w.trace.Len()
	return w
}

func (w *world) run(d time.Duration) {
	out := w.k.Run(sim.Limits{MaxTime: w.k.Now().Add(d)})
	if out.Reason == sim.StopError {
		w.t.Fatalf("run failed: %v", out.Err)
	}
	if w.inv.failure != "" {
		w.t.Fatalf("invariant: %s", w.inv.failure)
	}
}

func (w *world) emit(action, object, detail string) { w.k.Emit("test", action, object, 0, detail) }

func (w *world) pods() []*model.Pod {
	objs, _, err := w.store.List(model.KindPod, model.ListOptions{Namespace: testNS})
	if err != nil {
		w.t.Fatalf("list pods: %v", err)
	}
	out := make([]*model.Pod, 0, len(objs))
	for _, o := range objs {
		out = append(out, o.(*model.Pod))
	}
	// By target node, then name: one line per node reads like a DaemonSet.
	slices.SortFunc(out, func(a, b *model.Pod) int {
		na, _ := getTargetNodeName(a)
		nb, _ := getTargetNodeName(b)
		if c := strings.Compare(na, nb); c != 0 {
			return c
		}
		return strings.Compare(a.Name, b.Name)
	})
	return out
}

func (w *world) pod(name string) *model.Pod {
	obj, err := w.store.Get(model.KindPod, testNS, name)
	if err != nil {
		w.t.Fatalf("get pod %s: %v", name, err)
	}
	return obj.(*model.Pod)
}

func (w *world) node(name string) *model.Node {
	obj, err := w.store.Get(model.KindNode, "", name)
	if err != nil {
		w.t.Fatalf("get node %s: %v", name, err)
	}
	return obj.(*model.Node)
}

func (w *world) ds(name string) *model.DaemonSet {
	obj, err := w.store.Get(model.KindDaemonSet, testNS, name)
	if err != nil {
		w.t.Fatalf("get daemonset %s: %v", name, err)
	}
	return obj.(*model.DaemonSet)
}

func (w *world) newTrace(keep func(fields []string) bool) string {
	all := w.trace.String()[w.printed:]
	w.printed = w.trace.Len()
	var b strings.Builder
	for _, line := range strings.Split(all, "\n") {
		f := strings.Fields(line)
		if len(f) < 3 || !keep(f) {
			continue
		}
		b.WriteString(line)
		b.WriteByte('\n')
	}
	return b.String()
}

func (w *world) podLine(p *model.Pod) string {
	target, err := getTargetNodeName(p)
	if err != nil {
		target = "?"
	}
	bound := p.Spec.NodeName
	if bound == "" {
		bound = "<none>"
	}
	state := p.Status.Phase
	if isPodReady(p) {
		state += ",Ready"
	}
	if p.DeletionTimestamp != nil {
		state += ",Terminating"
	}
	img := "-"
	if len(p.Spec.Containers) > 0 {
		img = p.Spec.Containers[0].Image
	}
	return fmt.Sprintf("%s for=%s node=%s %s hash=%s image=%s", p.Name, target, bound, state, p.Labels[DefaultDaemonSetUniqueLabelKey], img)
}

// newDaemonSet builds a DaemonSet with one container.
func newDaemonSet(name, img string) *model.DaemonSet {
	ds := &model.DaemonSet{}
	ds.Name, ds.Namespace = name, testNS
	ds.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": name}}
	ds.Spec.Template.Labels = map[string]string{"app": name}
	ds.Spec.Template.Spec.Containers = []model.Container{{Name: "agent", Image: img}}
	return ds
}

// newNode builds a Ready node.
func newNode(name string, lbls map[string]string, taints []model.Taint) *model.Node {
	n := &model.Node{}
	n.Name = name
	n.Labels = lbls
	n.Spec.Taints = taints
	n.Status.Conditions = []model.NodeCondition{{Type: model.NodeReady, Status: model.ConditionTrue}}
	return n
}

// ---- the test-played scheduler and kubelets ----

type fakeNodes struct {
	w                *world
	dead             map[string]bool
	startDelay       time.Duration
	terminationDelay time.Duration
	pending          map[string]bool
}

func newFakeNodes(w *world) *fakeNodes {
	fn := &fakeNodes{w: w, dead: map[string]bool{}, pending: map[string]bool{}, startDelay: 2 * time.Second, terminationDelay: time.Second}
	if _, err := w.store.Watch(model.KindPod, model.ListOptions{Namespace: testNS}, 0, fn); err != nil {
		w.t.Fatalf("watch pods: %v", err)
	}
	return fn
}

func (fn *fakeNodes) OnWatchEvent(ev apiserver.WatchEvent) {
	if ev.Type != apiserver.Added && ev.Type != apiserver.Modified {
		return
	}
	pod, ok := ev.Object.(*model.Pod)
	if !ok {
		return
	}
	switch {
	case pod.DeletionTimestamp != nil:
		if pod.Spec.NodeName != "" && !fn.dead[pod.Spec.NodeName] {
			fn.later(pod, "terminate", fn.terminationDelay, fn.terminate)
		}
	case pod.Spec.NodeName == "":
		fn.later(pod, "bind", 100*time.Millisecond, fn.bind)
	case pod.Status.Phase == model.PodPending && !fn.dead[pod.Spec.NodeName]:
		fn.later(pod, "start", fn.startDelay, fn.start)
	}
}

func (fn *fakeNodes) OnWatchClosed(err error) { fn.w.t.Errorf("pod watch closed: %v", err) }

func (fn *fakeNodes) later(pod *model.Pod, action string, d time.Duration, act func(p *model.Pod)) {
	key := pod.UID + "/" + action
	if fn.pending[key] {
		return
	}
	fn.pending[key] = true
	name, uid := pod.Name, pod.UID
	fn.w.k.After(d, func() {
		delete(fn.pending, key)
		obj, err := fn.w.store.Get(model.KindPod, testNS, name)
		if err != nil || obj.Meta().UID != uid {
			return
		}
		act(obj.(*model.Pod))
	})
}

// bind plays the scheduler for a daemon pod: the node its affinity names, if that node fits.
func (fn *fakeNodes) bind(p *model.Pod) {
	if p.Spec.NodeName != "" || p.DeletionTimestamp != nil || isPodTerminal(p) {
		return
	}
	target, err := getTargetNodeName(p)
	if err != nil {
		fn.w.emit("unschedulable", podRef(p), err.Error())
		return
	}
	obj, err := fn.w.store.Get(model.KindNode, "", target)
	if err != nil || fn.dead[target] {
		fn.w.emit("unschedulable", podRef(p), "node "+target+" is not available")
		return
	}
	node := obj.(*model.Node)
	if ok, _ := matchesRequiredNodeAffinity(&p.Spec, node); !ok {
		fn.w.emit("unschedulable", podRef(p), "node affinity does not match "+target)
		return
	}
	if taint, bad := findMatchingUntoleratedTaint(node.Spec.Taints, p.Spec.Tolerations, func(t *model.Taint) bool {
		return t.Effect == model.TaintEffectNoSchedule || t.Effect == model.TaintEffectNoExecute
	}); bad {
		fn.w.emit("unschedulable", podRef(p), "untolerated taint "+taint.Key)
		return
	}
	p = p.DeepCopy()
	p.Spec.NodeName = target
	if _, err := fn.w.store.Update(p); err != nil {
		fn.w.t.Errorf("bind %s: %v", p.Name, err)
		return
	}
	fn.w.emit("bind", podRef(p), "node="+target)
}

func (fn *fakeNodes) start(p *model.Pod) {
	if p.Status.Phase != model.PodPending || p.DeletionTimestamp != nil || fn.dead[p.Spec.NodeName] {
		return
	}
	p = p.DeepCopy()
	p.Status.Phase = model.PodRunning
	setReady(p, true, fn.w.k.Now())
	if _, err := fn.w.store.UpdateStatus(p); err != nil {
		fn.w.t.Errorf("start %s: %v", p.Name, err)
		return
	}
	fn.w.emit("kubelet-start", podRef(p), "node="+p.Spec.NodeName)
}

func (fn *fakeNodes) terminate(p *model.Pod) {
	if fn.dead[p.Spec.NodeName] {
		return
	}
	uid := p.UID
	if _, err := fn.w.store.Delete(model.KindPod, p.Namespace, p.Name, model.DeleteOptions{
		GracePeriodSeconds: model.Ptr(int64(0)), Preconditions: &model.Preconditions{UID: &uid}}); err != nil {
		fn.w.t.Errorf("kubelet delete %s: %v", p.Name, err)
		return
	}
	fn.w.emit("kubelet-deleted", podRef(p), "node="+p.Spec.NodeName)
}

func setReady(p *model.Pod, ready bool, now vtime.Time) {
	st := model.ConditionFalse
	if ready {
		st = model.ConditionTrue
	}
	for i := range p.Status.Conditions {
		if p.Status.Conditions[i].Type == model.PodReady {
			if p.Status.Conditions[i].Status != st {
				p.Status.Conditions[i].Status = st
				p.Status.Conditions[i].LastTransitionTime = now
			}
			return
		}
	}
	p.Status.Conditions = append(p.Status.Conditions, model.PodCondition{Type: model.PodReady, Status: st, LastTransitionTime: now})
}

// ---- invariants, checked at every write the API server commits ----

// invariants follows every committed write and records the first violation of:
//   - resourceVersions only grow;
//   - a pod once bound stays on its node, and a daemon pod is bound only to the node its
//     affinity names;
//   - a pod has at most one controller;
//   - a DaemonSet without surge never has two pods for one node that are not being deleted
//     (with surge: never three).
type invariants struct {
	lastRV  uint64
	pods    map[string]*model.Pod // by name
	boundTo map[string]string     // pod uid -> node
	surge   map[string]bool       // DaemonSet UID -> maxSurge > 0
	failure string
}

func (inv *invariants) fail(format string, args ...any) {
	if inv.failure == "" {
		inv.failure = fmt.Sprintf(format, args...)
	}
}

func (inv *invariants) commit(kind model.Kind, old, new model.Object) {
	if new != nil {
		if rv := new.Meta().ResourceVersion; rv <= inv.lastRV {
			inv.fail("resourceVersion went from %d to %d on %s", inv.lastRV, rv, model.Ref(new))
		} else {
			inv.lastRV = rv
		}
	}
	switch kind {
	case model.KindDaemonSet:
		if ds, ok := new.(*model.DaemonSet); ok {
			inv.surge[ds.UID] = allowsSurge(ds)
		}
	case model.KindPod:
		if new == nil {
			delete(inv.pods, old.Meta().Name)
			return
		}
		p := new.(*model.Pod)
		n := 0
		for _, r := range p.OwnerReferences {
			if r.Controller != nil && *r.Controller {
				n++
			}
		}
		if n > 1 {
			inv.fail("pod %s has %d controllers", p.Name, n)
		}
		if p.Spec.NodeName != "" {
			if prev, ok := inv.boundTo[p.UID]; ok && prev != p.Spec.NodeName {
				inv.fail("pod %s moved from node %s to %s", p.Name, prev, p.Spec.NodeName)
			}
			inv.boundTo[p.UID] = p.Spec.NodeName
			if a := p.Spec.Affinity; a != nil && a.NodeAffinity != nil && a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution != nil {
				cp := p.DeepCopy()
				cp.Spec.NodeName = ""
				if target, err := getTargetNodeName(cp); err == nil && target != p.Spec.NodeName {
					inv.fail("daemon pod %s is for node %s but bound to %s", p.Name, target, p.Spec.NodeName)
				}
			}
		}
		inv.pods[p.Name] = p
		inv.checkPerNode(p)
	}
}

func (inv *invariants) checkPerNode(p *model.Pod) {
	ref := model.ControllerOf(p)
	if ref == nil || ref.Kind != model.KindDaemonSet || p.DeletionTimestamp != nil {
		return
	}
	target, err := getTargetNodeName(p)
	if err != nil {
		return
	}
	count := 0
	for _, q := range inv.pods { //detlint:ordered counting
		qref := model.ControllerOf(q)
		if qref == nil || qref.UID != ref.UID || q.DeletionTimestamp != nil || isPodTerminal(q) {
			continue
		}
		if t, err := getTargetNodeName(q); err == nil && t == target {
			count++
		}
	}
	limit := 1
	if inv.surge[ref.UID] {
		limit = 2
	}
	if count > limit {
		inv.fail("DaemonSet %s has %d live pods for node %s (limit %d)", ref.Name, count, target, limit)
	}
}
