package testworld

import (
	"fmt"
	"time"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim/apiserver"
)

// FakeNodes plays the scheduler and one kubelet per node through a watch on the test
// namespace's pods: an unbound pod is bound BindDelay later to the node Place chooses; a
// bound Pending pod is started (Running, Ready unless NeverReady names it) StartDelay later;
// a graceful deletion is finished TerminationDelay later by the kubelet's final delete (grace
// 0, UID precondition). A dead node's kubelet does nothing at all. Each action is taken at
// most once per pod and action at a time, on the pod's state when it runs.
type FakeNodes struct {
	w *World
	// Names are the nodes PlaceFewest chooses among, in order.
	Names []string
	// Dead marks nodes whose kubelet has stopped.
	Dead map[string]bool
	// NeverReady names pods that start but never become Ready.
	NeverReady map[string]bool

	BindDelay, StartDelay, TerminationDelay time.Duration

	// Place chooses the node for an unbound pod; an empty node with a non-empty reason leaves
	// an "unschedulable" trace line, with an empty reason nothing. Nil: PlaceFewest.
	Place func(p *model.Pod) (node, reason string)
	// StartDetail is the detail of the "kubelet-start" trace line (nil: "node=N").
	StartDetail func(p *model.Pod, ready bool) string

	pending map[string]bool // "<uid>/<action>" already scheduled
}

// StartFakeNodes starts the test-played scheduler and kubelets (bind after 100ms, start after
// 2s, finish a deletion after 1s) and makes them w.Nodes.
func (w *World) StartFakeNodes() *FakeNodes {
	fn := &FakeNodes{w: w, Dead: map[string]bool{}, NeverReady: map[string]bool{}, pending: map[string]bool{},
		BindDelay: 100 * time.Millisecond, StartDelay: 2 * time.Second, TerminationDelay: time.Second}
	if _, err := w.Store.Watch(model.KindPod, model.ListOptions{Namespace: w.NS}, 0, fn); err != nil {
		w.T.Fatalf("watch pods: %v", err)
	}
	w.Nodes = fn
	return fn
}

// Add makes node name a candidate for PlaceFewest.
func (fn *FakeNodes) Add(name string) { fn.Names = append(fn.Names, name) }

// OnWatchEvent reacts to a pod change as a scheduler and kubelet would, a little later.
func (fn *FakeNodes) OnWatchEvent(ev apiserver.WatchEvent) {
	if ev.Type != apiserver.Added && ev.Type != apiserver.Modified {
		return
	}
	pod, ok := ev.Object.(*model.Pod)
	if !ok {
		return
	}
	switch {
	case pod.DeletionTimestamp != nil:
		if pod.Spec.NodeName != "" && !fn.Dead[pod.Spec.NodeName] {
			fn.later(pod, "terminate", fn.TerminationDelay, fn.terminate)
		}
	case pod.Spec.NodeName == "":
		fn.later(pod, "bind", fn.BindDelay, fn.bind)
	case pod.Status.Phase == model.PodPending && !fn.Dead[pod.Spec.NodeName]:
		fn.later(pod, "start", fn.StartDelay, fn.start)
	}
}

// OnWatchClosed is not expected in these tests.
func (fn *FakeNodes) OnWatchClosed(err error) { fn.w.T.Errorf("pod watch closed: %v", err) }

// later runs act on the pod's current state after d, once per pod and action.
func (fn *FakeNodes) later(pod *model.Pod, action string, d time.Duration, act func(p *model.Pod)) {
	key := pod.UID + "/" + action
	if fn.pending[key] {
		return
	}
	fn.pending[key] = true
	ns, name, uid := pod.Namespace, pod.Name, pod.UID
	fn.w.K.After(d, func() {
		delete(fn.pending, key)
		obj, err := fn.w.Store.Get(model.KindPod, ns, name)
		if err != nil || obj.Meta().UID != uid {
			return
		}
		act(obj.(*model.Pod))
	})
}

// PlaceFewest chooses the live node of Names with the fewest pods bound (the first on ties).
func (fn *FakeNodes) PlaceFewest(*model.Pod) (string, string) {
	load := map[string]int{}
	for _, q := range fn.w.Pods() {
		if q.Spec.NodeName != "" {
			load[q.Spec.NodeName]++
		}
	}
	best := ""
	for _, n := range fn.Names {
		if fn.Dead[n] {
			continue
		}
		if best == "" || load[n] < load[best] {
			best = n
		}
	}
	return best, ""
}

func (fn *FakeNodes) bind(p *model.Pod) {
	if p.Spec.NodeName != "" || p.DeletionTimestamp != nil || p.Status.Phase == model.PodSucceeded || p.Status.Phase == model.PodFailed {
		return
	}
	place := fn.Place
	if place == nil {
		place = fn.PlaceFewest
	}
	node, reason := place(p)
	if node == "" {
		if reason != "" {
			fn.w.Emit("unschedulable", podRef(p), reason)
		}
		return
	}
	p = p.DeepCopy()
	p.Spec.NodeName = node
	if _, err := fn.w.Store.Update(p); err != nil {
		fn.w.T.Errorf("bind %s: %v", p.Name, err)
		return
	}
	fn.w.Emit("bind", podRef(p), "node="+node)
}

func (fn *FakeNodes) start(p *model.Pod) {
	if p.Status.Phase != model.PodPending || p.DeletionTimestamp != nil || fn.Dead[p.Spec.NodeName] {
		return
	}
	p = p.DeepCopy()
	p.Status.Phase = model.PodRunning
	ready := !fn.NeverReady[p.Name]
	SetReady(p, ready, fn.w.K.Now())
	if _, err := fn.w.Store.UpdateStatus(p); err != nil {
		fn.w.T.Errorf("start %s: %v", p.Name, err)
		return
	}
	detail := "node=" + p.Spec.NodeName
	if fn.StartDetail != nil {
		detail = fn.StartDetail(p, ready)
	}
	fn.w.Emit("kubelet-start", podRef(p), detail)
}

func (fn *FakeNodes) terminate(p *model.Pod) {
	if fn.Dead[p.Spec.NodeName] {
		return
	}
	uid := p.UID
	if _, err := fn.w.Store.Delete(model.KindPod, p.Namespace, p.Name, model.DeleteOptions{
		GracePeriodSeconds: model.Ptr(int64(0)), Preconditions: &model.Preconditions{UID: &uid}}); err != nil {
		fn.w.T.Errorf("kubelet delete %s: %v", p.Name, err)
		return
	}
	fn.w.Emit("kubelet-deleted", podRef(p), "node="+p.Spec.NodeName)
}

// StartedDetail is a StartDetail that also says whether the pod became Ready.
func StartedDetail(p *model.Pod, ready bool) string {
	return fmt.Sprintf("node=%s ready=%t", p.Spec.NodeName, ready)
}

func podRef(p *model.Pod) string { return "Pod " + model.KeyOf(p.Namespace, p.Name) }
