package disruption

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim"
	"github.com/reconsim/reconsim/sim/apiserver"
	"github.com/reconsim/reconsim/sim/client"
	"github.com/reconsim/reconsim/sim/client/record"
	"github.com/reconsim/reconsim/vtime"
)

const testNS = "default"

// world is a small cluster for trace tests: a kernel, an API server and the disruption
// controller with its own client and informers. The test plays every other actor (workload
// controllers, kubelets, users evicting pods) by writing to the store directly.
type world struct {
	t     testing.TB
	k     *sim.Kernel
	srv   *apiserver.Server
	store *apiserver.Store
	dc    *Controller
	sink  *record.FakeSink

	trace   bytes.Buffer
	printed int

	lastRV       uint64
	invariantsAt int
}

func newWorld(t testing.TB, cfg Config) *world {
	w := &world{t: t, k: sim.New(1), sink: &record.FakeSink{}}
	w.k.Trace().SetWriter(&w.trace)
	w.srv = apiserver.NewServer(w.k, apiserver.DefaultConfig())
	w.store = w.srv.Store()
	// kube-controller-manager's client: --kube-api-qps 20, --kube-api-burst 30.
	c := client.New(w.srv, Component, client.Config{QPS: 20, Burst: 30})
	f := client.NewSharedInformerFactory(c, 0)
	rec := record.New(w.k, w.sink, EventSourceComponent, "")
	dc, err := New(w.k, c, f, rec, cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	w.dc = dc
	f.Start(w.k)
	dc.Start()
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

// checkInvariants runs after every step: resourceVersions only grow, and every budget's
// status is consistent (disruptionsAllowed never negative, never more than currentHealthy).
func (w *world) checkInvariants() {
	for _, line := range strings.Split(w.trace.String()[w.invariantsAt:], "\n") {
		f := strings.Fields(line)
		if len(f) < 5 || f[1] != "kube-apiserver" {
			continue
		}
		for _, field := range f[4:] {
			if !strings.HasPrefix(field, "rv=") {
				continue
			}
			rv, err := strconv.ParseUint(strings.TrimPrefix(field, "rv="), 10, 64)
			if err != nil {
				continue
			}
			if rv <= w.lastRV {
				w.t.Fatalf("invariant: resourceVersion went from %d to %d: %s", w.lastRV, rv, line)
			}
			w.lastRV = rv
		}
	}
	w.invariantsAt = w.trace.Len()
	objs, _, err := w.store.List(model.KindPodDisruptionBudget, model.ListOptions{})
	if err != nil {
		w.t.Fatalf("list budgets: %v", err)
	}
	for _, obj := range objs {
		st := obj.(*model.PodDisruptionBudget).Status
		if st.DisruptionsAllowed < 0 || (st.DisruptionsAllowed > 0 && st.DisruptionsAllowed > st.CurrentHealthy) {
			w.t.Fatalf("invariant: budget %s has disruptionsAllowed=%d with currentHealthy=%d", model.Key(obj), st.DisruptionsAllowed, st.CurrentHealthy)
		}
	}
}

func (w *world) pod(name string) *model.Pod {
	obj, err := w.store.Get(model.KindPod, testNS, name)
	if err != nil {
		w.t.Fatalf("get pod %s: %v", name, err)
	}
	return obj.(*model.Pod)
}

func (w *world) emit(action, object, detail string) { w.k.Emit("test", action, object, 0, detail) }

// newTrace returns the trace lines since the last call that keep accepts.
func (w *world) newTrace(keep func(f []string) bool) string {
	all := w.trace.String()[w.printed:]
	w.printed = w.trace.Len()
	var b strings.Builder
	for _, line := range strings.Split(all, "\n") {
		f := strings.Fields(line)
		if len(f) >= 3 && keep(f) {
			b.WriteString(line)
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// createWorkload creates a workload object the test's pods will point to. A Deployment also
// gets a ReplicaSet "<name>-rs" that it controls.
func (w *world) createWorkload(kind, name string, replicas int32) model.Object {
	sel := &metav1.LabelSelector{MatchLabels: map[string]string{"app": name}}
	tmpl := model.PodTemplateSpec{}
	tmpl.Labels = map[string]string{"app": name}
	tmpl.Spec.Containers = []model.Container{{Name: "app", Image: "registry.example/app:1"}}
	var obj model.Object
	switch kind {
	case "ReplicaSet":
		rs := &model.ReplicaSet{}
		rs.Name, rs.Namespace = name, testNS
		rs.Spec = model.ReplicaSetSpec{Replicas: model.Ptr(replicas), Selector: sel, Template: tmpl}
		obj = rs
	case "Deployment":
		d := &model.Deployment{}
		d.Name, d.Namespace = name, testNS
		d.Spec = model.DeploymentSpec{Replicas: model.Ptr(replicas), Selector: sel, Template: tmpl}
		obj = d
	case "StatefulSet":
		ss := &model.StatefulSet{}
		ss.Name, ss.Namespace = name, testNS
		ss.Spec = model.StatefulSetSpec{Replicas: model.Ptr(replicas), Selector: sel, Template: tmpl}
		obj = ss
	case "DaemonSet":
		ds := &model.DaemonSet{}
		ds.Name, ds.Namespace = name, testNS
		ds.Spec = model.DaemonSetSpec{Selector: sel, Template: tmpl}
		obj = ds
	default:
		w.t.Fatalf("unknown workload kind %q", kind)
	}
	created, err := w.store.Create(obj)
	if err != nil {
		w.t.Fatalf("create %s: %v", kind, err)
	}
	if kind == "Deployment" {
		rs := &model.ReplicaSet{}
		rs.Name, rs.Namespace = name+"-rs", testNS
		rs.Spec = model.ReplicaSetSpec{Replicas: model.Ptr(replicas), Selector: sel, Template: tmpl}
		rs.OwnerReferences = []model.OwnerReference{controllerRef(created)}
		if _, err := w.store.Create(rs); err != nil {
			w.t.Fatalf("create rs: %v", err)
		}
	}
	return created
}

func controllerRef(owner model.Object) model.OwnerReference {
	info, _ := model.LookupKind(owner.GetKind())
	return model.OwnerReference{APIVersion: info.APIVersion, Kind: owner.GetKind(), Name: owner.Meta().Name,
		UID: owner.Meta().UID, Controller: model.Ptr(true)}
}

// createPod creates a Running pod on node-a, Ready unless ready is false, controlled by owner
// (nil: an orphan).
func (w *world) createPod(name string, labels map[string]string, owner model.Object, ready bool) {
	p := &model.Pod{}
	p.Name, p.Namespace, p.Labels = name, testNS, labels
	p.Spec.Containers = []model.Container{{Name: "app", Image: "registry.example/app:1"}}
	p.Spec.NodeName = "node-a"
	if owner != nil {
		p.OwnerReferences = []model.OwnerReference{controllerRef(owner)}
	}
	created, err := w.store.Create(p)
	if err != nil {
		w.t.Fatalf("create pod: %v", err)
	}
	w.setReady(created.(*model.Pod), ready)
}

func (w *world) setReady(p *model.Pod, ready bool) {
	p = p.DeepCopy()
	p.Status.Phase = model.PodRunning
	st := model.ConditionFalse
	if ready {
		st = model.ConditionTrue
	}
	found := false
	for i := range p.Status.Conditions {
		if p.Status.Conditions[i].Type == model.PodReady {
			found = true
			if p.Status.Conditions[i].Status != st {
				p.Status.Conditions[i].Status, p.Status.Conditions[i].LastTransitionTime = st, w.k.Now()
			}
		}
	}
	if !found {
		p.Status.Conditions = append(p.Status.Conditions, model.PodCondition{Type: model.PodReady, Status: st, LastTransitionTime: w.k.Now()})
	}
	if _, err := w.store.UpdateStatus(p); err != nil {
		w.t.Fatalf("pod status: %v", err)
	}
}

func (w *world) workload(kind, name string) model.Object {
	obj, err := w.store.Get(model.Kind(kind), testNS, name)
	if err != nil {
		w.t.Fatalf("get %s %s: %v", kind, name, err)
	}
	return obj
}

func (w *world) statusLine(name string) string {
	obj, err := w.store.Get(model.KindPodDisruptionBudget, testNS, name)
	if err != nil {
		w.t.Fatalf("get pdb: %v", err)
	}
	pdb := obj.(*model.PodDisruptionBudget)
	st := pdb.Status
	var b strings.Builder
	fmt.Fprintf(&b, "expected=%d desired=%d healthy=%d allowed=%d observedGeneration=%d generation=%d\n",
		st.ExpectedPods, st.DesiredHealthy, st.CurrentHealthy, st.DisruptionsAllowed, st.ObservedGeneration, pdb.Generation)
	names := make([]string, 0, len(st.DisruptedPods))
	for n := range st.DisruptedPods { //detlint:ordered sorted below
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		fmt.Fprintf(&b, "disrupted %s at %s\n", n, st.DisruptedPods[n])
	}
	for _, c := range st.Conditions {
		fmt.Fprintf(&b, "condition %s=%s reason=%s message=%q since %s\n", c.Type, c.Status, c.Reason, c.Message, c.LastTransitionTime)
	}
	return b.String()
}

func parseLabels(t *testing.T, s string) map[string]string {
	out := map[string]string{}
	for _, kv := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			t.Fatalf("bad label %q", kv)
		}
		out[k] = v
	}
	return out
}

// TestTraces runs the datadriven scripts in testdata/. Commands:
//
//	init [deletion-timeout=D]
//	workload kind=ReplicaSet|Deployment|StatefulSet|DaemonSet name=X [replicas=N]
//	pods owner=Kind/Name n=N [from=I] [ready=false]
//	                                         pods <name>-I.. controlled by the owner
//	                                         (a Deployment's pods by its ReplicaSet)
//	orphan name=X labels=k=v                 a Ready pod without a controller
//	pdb name=X selector=k=v (min-available=V | max-unavailable=V)
//	scale kind=K name=X replicas=N
//	ready pod=X [ready=false]                the kubelet reports readiness
//	delete-pod pod=X                         a graceful delete (deletionTimestamp set)
//	remove-pod pod=X                         the pod object goes away
//	evict pod=X                              a create on pods/eviction, served at once
//	mark-disrupted pdb=X pod=Y               an approved eviction whose delete never came:
//	                                         status.disruptedPods[Y] = now
//	disruption-target pod=X                  the pod gets DisruptionTarget=True (no delete)
//	pod-conditions pod=X                     the pod's conditions
//	run for=D                                advance virtual time; print what happened
//	status name=X                            the budget's status
//	events                                   events recorded since the last call
func TestTraces(t *testing.T) {
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		var w *world
		eventsShown := 0
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			if d.Cmd != "init" && w == nil {
				t.Fatalf("%s: the first command must be init", d.Pos)
			}
			switch d.Cmd {
			case "init":
				cfg := DefaultConfig()
				if d.HasArg("deletion-timeout") {
					var s string
					d.ScanArgs(t, "deletion-timeout", &s)
					dur, err := time.ParseDuration(s)
					if err != nil {
						t.Fatal(err)
					}
					cfg.DeletionTimeout = dur
				}
				w = newWorld(t, cfg)
				eventsShown = 0
				return ""
			case "workload":
				var kind, name string
				replicas := 1
				d.ScanArgs(t, "kind", &kind)
				d.ScanArgs(t, "name", &name)
				d.MaybeScanArgs(t, "replicas", &replicas)
				w.createWorkload(kind, name, int32(replicas))
				return ""
			case "pods":
				var owner string
				var n, from int
				ready := true
				d.ScanArgs(t, "owner", &owner)
				d.ScanArgs(t, "n", &n)
				d.MaybeScanArgs(t, "from", &from)
				d.MaybeScanArgs(t, "ready", &ready)
				kind, name, _ := strings.Cut(owner, "/")
				obj := w.workload(kind, name)
				if kind == "Deployment" {
					obj = w.workload("ReplicaSet", name+"-rs")
				}
				for i := from; i < from+n; i++ {
					w.createPod(fmt.Sprintf("%s-%d", name, i), map[string]string{"app": name}, obj, ready)
					w.emit("create-pod", "Pod "+model.KeyOf(testNS, fmt.Sprintf("%s-%d", name, i)), fmt.Sprintf("ready=%t", ready))
				}
				return ""
			case "orphan":
				var name, lbl string
				d.ScanArgs(t, "name", &name)
				d.ScanArgs(t, "labels", &lbl)
				w.createPod(name, parseLabels(t, lbl), nil, true)
				return ""
			case "pdb":
				var name, sel string
				d.ScanArgs(t, "name", &name)
				d.ScanArgs(t, "selector", &sel)
				pdb := &model.PodDisruptionBudget{}
				pdb.Name, pdb.Namespace = name, testNS
				pdb.Spec.Selector = &metav1.LabelSelector{MatchLabels: parseLabels(t, sel)}
				if d.HasArg("min-available") {
					var v string
					d.ScanArgs(t, "min-available", &v)
					pdb.Spec.MinAvailable = model.Ptr(intstr.Parse(v))
				}
				if d.HasArg("max-unavailable") {
					var v string
					d.ScanArgs(t, "max-unavailable", &v)
					pdb.Spec.MaxUnavailable = model.Ptr(intstr.Parse(v))
				}
				if _, err := w.store.Create(pdb); err != nil {
					t.Fatalf("create pdb: %v", err)
				}
				return ""
			case "scale":
				var kind, name string
				var replicas int
				d.ScanArgs(t, "kind", &kind)
				d.ScanArgs(t, "name", &name)
				d.ScanArgs(t, "replicas", &replicas)
				obj := w.workload(kind, name).DeepCopyObject()
				r := model.Ptr(int32(replicas))
				switch o := obj.(type) {
				case *model.ReplicaSet:
					o.Spec.Replicas = r
				case *model.Deployment:
					o.Spec.Replicas = r
				case *model.StatefulSet:
					o.Spec.Replicas = r
				}
				if _, err := w.store.Update(obj); err != nil {
					t.Fatalf("scale: %v", err)
				}
				w.emit("scale", kind+" "+model.KeyOf(testNS, name), fmt.Sprintf("replicas=%d", replicas))
				return ""
			case "ready":
				var name string
				ready := true
				d.ScanArgs(t, "pod", &name)
				d.MaybeScanArgs(t, "ready", &ready)
				w.setReady(w.pod(name), ready)
				w.emit("kubelet", "Pod "+model.KeyOf(testNS, name), fmt.Sprintf("ready=%t", ready))
				return ""
			case "delete-pod", "remove-pod":
				var name string
				d.ScanArgs(t, "pod", &name)
				opts := model.DeleteOptions{}
				if d.Cmd == "remove-pod" {
					opts.GracePeriodSeconds = model.Ptr(int64(0))
				}
				if _, err := w.store.Delete(model.KindPod, testNS, name, opts); err != nil {
					t.Fatalf("delete: %v", err)
				}
				w.emit(d.Cmd, "Pod "+model.KeyOf(testNS, name), "")
				return ""
			case "evict":
				var name string
				d.ScanArgs(t, "pod", &name)
				ev := &model.Eviction{}
				ev.Name, ev.Namespace = name, testNS
				_, err := w.store.Evict(testNS, name, ev)
				if err == nil {
					w.emit("evicted", "Pod "+model.KeyOf(testNS, name), "")
					return "evicted\n"
				}
				w.emit("eviction-refused", "Pod "+model.KeyOf(testNS, name), reasonOf(err))
				var status apierrors.APIStatus
				if s, ok := err.(apierrors.APIStatus); ok {
					status = s
				}
				out := fmt.Sprintf("refused: %d %s: %s\n", status.Status().Code, status.Status().Reason, status.Status().Message)
				if det := status.Status().Details; det != nil {
					for _, c := range det.Causes {
						out += fmt.Sprintf("cause %s: %s\n", c.Type, c.Message)
					}
				}
				return out
			case "mark-disrupted":
				var name, pod string
				d.ScanArgs(t, "pdb", &name)
				d.ScanArgs(t, "pod", &pod)
				obj, err := w.store.Get(model.KindPodDisruptionBudget, testNS, name)
				if err != nil {
					t.Fatal(err)
				}
				pdb := obj.(*model.PodDisruptionBudget).DeepCopy()
				if pdb.Status.DisruptedPods == nil {
					pdb.Status.DisruptedPods = map[string]vtime.Time{}
				}
				pdb.Status.DisruptedPods[pod] = w.k.Now()
				pdb.Status.DisruptionsAllowed = max(pdb.Status.DisruptionsAllowed-1, 0)
				if _, err := w.store.UpdateStatus(pdb); err != nil {
					t.Fatal(err)
				}
				w.emit("mark-disrupted", "PodDisruptionBudget "+model.Key(pdb), pod)
				return ""
			case "disruption-target":
				var name string
				d.ScanArgs(t, "pod", &name)
				p := w.pod(name).DeepCopy()
				p.Status.Conditions = append(p.Status.Conditions, model.PodCondition{Type: model.PodDisruptionTarget,
					Status: model.ConditionTrue, Reason: "EvictionByEvictionAPI", LastTransitionTime: w.k.Now()})
				if _, err := w.store.UpdateStatus(p); err != nil {
					t.Fatal(err)
				}
				w.emit("disruption-target", "Pod "+model.Key(p), "")
				return ""
			case "pod-conditions":
				var name string
				d.ScanArgs(t, "pod", &name)
				var b strings.Builder
				for _, c := range w.pod(name).Status.Conditions {
					fmt.Fprintf(&b, "%s=%s reason=%s since %s\n", c.Type, c.Status, c.Reason, c.LastTransitionTime)
				}
				return b.String()
			case "run":
				var dur string
				d.ScanArgs(t, "for", &dur)
				du, err := time.ParseDuration(dur)
				if err != nil {
					t.Fatalf("run: %v", err)
				}
				w.run(du)
				return w.newTrace(func(f []string) bool {
					switch f[1] {
					case Component, "test", EventSourceComponent:
						return true
					}
					return false
				})
			case "status":
				var name string
				d.ScanArgs(t, "name", &name)
				return w.statusLine(name)
			case "events":
				var b strings.Builder
				for _, ev := range w.sink.Events[eventsShown:] {
					fmt.Fprintf(&b, "%s %s %s %s: %s\n", ev.FirstTimestamp, ev.InvolvedObject.Kind, ev.Type, ev.Reason, ev.Message)
				}
				eventsShown = len(w.sink.Events)
				return b.String()
			}
			t.Fatalf("%s: unknown command %q", d.Pos, d.Cmd)
			return ""
		})
	})
}
