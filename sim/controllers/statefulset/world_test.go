package statefulset

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

// world is a small cluster for trace tests: a kernel, the real API server, and the
// StatefulSet controller with its own client and informers. The test plays the scheduler and
// the kubelets (fakeNodes): it binds new pods to the live node with the fewest pods, starts
// them (Running and Ready) startDelay later, and finishes a graceful deletion
// terminationDelay after it starts, with the kubelet's final delete (grace 0, UID
// precondition). A dead node's kubelet does nothing at all.
type world struct {
	t     testing.TB
	k     *sim.Kernel
	srv   *apiserver.Server
	store *apiserver.Store
	ssc   *Controller
	sink  *record.FakeSink
	nodes *fakeNodes

	trace   bytes.Buffer
	printed int

	inv invariants
}

func newWorld(t testing.TB, cfg Config) *world {
	w := &world{t: t, k: sim.New(1), sink: &record.FakeSink{}}
	w.inv = invariants{t: t, pods: map[string]*model.Pod{}, boundTo: map[string]string{}, policy: map[string]string{}}
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
	ssc, err := New(w.k, c, f, rec, cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	w.ssc = ssc
	w.nodes = newFakeNodes(w)
	f.Start(w.k)
	ssc.Start()
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

// pods returns the pods of the test namespace, sorted by name.
func (w *world) pods() []*model.Pod {
	objs, _, err := w.store.List(model.KindPod, model.ListOptions{Namespace: testNS})
	if err != nil {
		w.t.Fatalf("list pods: %v", err)
	}
	out := make([]*model.Pod, 0, len(objs))
	for _, o := range objs {
		out = append(out, o.(*model.Pod))
	}
	slices.SortFunc(out, func(a, b *model.Pod) int { return strings.Compare(a.Name, b.Name) })
	return out
}

func (w *world) pod(name string) *model.Pod {
	obj, err := w.store.Get(model.KindPod, testNS, name)
	if err != nil {
		w.t.Fatalf("get pod %s: %v", name, err)
	}
	return obj.(*model.Pod)
}

func (w *world) set(name string) *model.StatefulSet {
	obj, err := w.store.Get(model.KindStatefulSet, testNS, name)
	if err != nil {
		w.t.Fatalf("get statefulset %s: %v", name, err)
	}
	return obj.(*model.StatefulSet)
}

func (w *world) revisions() []*model.ControllerRevision {
	objs, _, err := w.store.List(model.KindControllerRevision, model.ListOptions{Namespace: testNS})
	if err != nil {
		w.t.Fatalf("list revisions: %v", err)
	}
	out := make([]*model.ControllerRevision, 0, len(objs))
	for _, o := range objs {
		out = append(out, o.(*model.ControllerRevision))
	}
	sortControllerRevisions(out)
	return out
}

// newTrace returns the trace lines since the last call that keep accepts.
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
	node := p.Spec.NodeName
	if node == "" {
		node = "<none>"
	}
	state := p.Status.Phase
	if isPodReady(p) {
		state += ",Ready"
	}
	if p.DeletionTimestamp != nil {
		state += ",Terminating"
	}
	owner := "-"
	if ref := model.ControllerOf(p); ref != nil {
		owner = string(ref.Kind) + "/" + ref.Name
	}
	return fmt.Sprintf("%s node=%s %s rev=%s index=%s owner=%s image=%s", p.Name, node, state,
		p.Labels[StatefulSetRevisionLabel], p.Labels[PodIndexLabel], owner, image(p))
}

func image(p *model.Pod) string {
	if len(p.Spec.Containers) == 0 {
		return "-"
	}
	return p.Spec.Containers[0].Image
}

// newSet builds a StatefulSet with one container.
func newSet(name string, replicas int32, policy string, img string) *model.StatefulSet {
	set := &model.StatefulSet{}
	set.Name, set.Namespace = name, testNS
	set.Spec.Replicas = model.Ptr(replicas)
	set.Spec.PodManagementPolicy = policy
	set.Spec.ServiceName = name
	set.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": name}}
	set.Spec.Template.Labels = map[string]string{"app": name}
	set.Spec.Template.Spec.Containers = []model.Container{{Name: "app", Image: img}}
	return set
}

// ---- the test-played scheduler and kubelets ----

// fakeNodes plays the scheduler and one kubelet per node through a watch on pods.
type fakeNodes struct {
	w                *world
	names            []string
	dead             map[string]bool
	neverReady       map[string]bool // pod names that never become Ready
	startDelay       time.Duration
	terminationDelay time.Duration
	pending          map[string]bool // "<uid>/<action>" already scheduled
}

func newFakeNodes(w *world) *fakeNodes {
	fn := &fakeNodes{w: w, dead: map[string]bool{}, neverReady: map[string]bool{}, pending: map[string]bool{},
		startDelay: 2 * time.Second, terminationDelay: time.Second}
	if _, err := w.store.Watch(model.KindPod, model.ListOptions{Namespace: testNS}, 0, fn); err != nil {
		w.t.Fatalf("watch pods: %v", err)
	}
	return fn
}

// OnWatchEvent reacts to a pod change as a scheduler and kubelet would, a little later.
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

// OnWatchClosed is not expected in these tests.
func (fn *fakeNodes) OnWatchClosed(err error) {
	fn.w.t.Errorf("pod watch closed: %v", err)
}

// later runs act on the pod's current state after d, once per pod and action.
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

func (fn *fakeNodes) bind(p *model.Pod) {
	if p.Spec.NodeName != "" || p.DeletionTimestamp != nil {
		return
	}
	load := map[string]int{}
	for _, q := range fn.w.pods() {
		if q.Spec.NodeName != "" {
			load[q.Spec.NodeName]++
		}
	}
	best := ""
	for _, n := range fn.names {
		if fn.dead[n] {
			continue
		}
		if best == "" || load[n] < load[best] {
			best = n
		}
	}
	if best == "" {
		return
	}
	p = p.DeepCopy()
	p.Spec.NodeName = best
	if _, err := fn.w.store.Update(p); err != nil {
		fn.w.t.Errorf("bind %s: %v", p.Name, err)
		return
	}
	fn.w.emit("bind", "Pod "+podKeyOf(p), "node="+best)
}

func (fn *fakeNodes) start(p *model.Pod) {
	if p.Status.Phase != model.PodPending || p.DeletionTimestamp != nil || fn.dead[p.Spec.NodeName] {
		return
	}
	p = p.DeepCopy()
	p.Status.Phase = model.PodRunning
	ready := !fn.neverReady[p.Name]
	setReady(p, ready, fn.w.k.Now())
	if _, err := fn.w.store.UpdateStatus(p); err != nil {
		fn.w.t.Errorf("start %s: %v", p.Name, err)
		return
	}
	fn.w.emit("kubelet-start", "Pod "+podKeyOf(p), fmt.Sprintf("node=%s ready=%t", p.Spec.NodeName, ready))
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
	fn.w.emit("kubelet-deleted", "Pod "+podKeyOf(p), "node="+p.Spec.NodeName)
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

// invariants follows every committed write (the store's commit hook) and records the first
// violation of:
//   - resourceVersions only grow;
//   - a pod once bound stays on its node;
//   - a pod has at most one controller;
//   - OrderedReady: pod i of a set is created only while pods 0..i-1 of the set exist and are
//     Running, Ready and not being deleted.
type invariants struct {
	t       testing.TB
	lastRV  uint64
	pods    map[string]*model.Pod // by name, as committed
	boundTo map[string]string     // pod uid -> node
	policy  map[string]string     // set name -> pod management policy, as committed
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
	case model.KindStatefulSet:
		if set, ok := new.(*model.StatefulSet); ok {
			p := set.Spec.PodManagementPolicy
			if p == "" {
				p = model.OrderedReadyPodManagement
			}
			inv.policy[set.Name] = p
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
		}
		if old == nil {
			inv.checkOrderedCreate(p)
		}
		inv.pods[p.Name] = p
	}
}

func (inv *invariants) checkOrderedCreate(p *model.Pod) {
	ref := model.ControllerOf(p)
	if ref == nil || ref.Kind != model.KindStatefulSet || inv.policy[ref.Name] != model.OrderedReadyPodManagement {
		return
	}
	_, ord := parentNameAndOrdinal(p.Name)
	for i := 0; i < ord; i++ {
		q, ok := inv.pods[podName(ref.Name, i)]
		if !ok || !isRunningAndReady(q) || q.DeletionTimestamp != nil {
			state := "missing"
			if ok {
				state = podState(q)
			}
			inv.fail("OrderedReady: %s created while %s is not Running and Ready (%s)", p.Name, podName(ref.Name, i), state)
			return
		}
	}
}
