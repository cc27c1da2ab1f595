package disruption

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim/controllers/internal/controllerutil"
	"github.com/reconsim/reconsim/sim/internal/testworld"
	"github.com/reconsim/reconsim/vtime"
)

const testNS = testworld.Namespace

// world is the shared test world with the disruption controller on its own client and
// informers. The test plays every other actor (workload controllers, kubelets, users evicting
// pods) by writing to the store directly.
type world struct {
	*testworld.World
	dc *Controller
}

func newWorld(t testing.TB, cfg Config) *world {
	w := &world{World: testworld.New(t, testworld.Options{Check: checkBudget})}
	dc, f := testworld.NewController(w.World, Component, EventSourceComponent, New, cfg)
	w.dc = dc
	w.Show = testworld.Sources(Component, "test", EventSourceComponent)
	w.EventLine = func(ev *model.Event) string {
		return fmt.Sprintf("%s %s %s %s: %s", ev.FirstTimestamp, ev.InvolvedObject.Kind, ev.Type, ev.Reason, ev.Message)
	}
	f.Start(w.K)
	dc.Start()
	w.Settle(100 * time.Millisecond)
	return w
}

// checkBudget is an invariant on every committed budget: disruptionsAllowed is never negative
// and never more than currentHealthy.
func checkBudget(kind model.Kind, _, new model.Object) string {
	pdb, ok := new.(*model.PodDisruptionBudget)
	if kind != model.KindPodDisruptionBudget || !ok {
		return ""
	}
	st := pdb.Status
	if st.DisruptionsAllowed < 0 || (st.DisruptionsAllowed > 0 && st.DisruptionsAllowed > st.CurrentHealthy) {
		return fmt.Sprintf("budget %s has disruptionsAllowed=%d with currentHealthy=%d", model.Key(pdb), st.DisruptionsAllowed, st.CurrentHealthy)
	}
	return ""
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
		w.T.Fatalf("unknown workload kind %q", kind)
	}
	created, err := w.Store.Create(obj)
	if err != nil {
		w.T.Fatalf("create %s: %v", kind, err)
	}
	if kind == "Deployment" {
		rs := &model.ReplicaSet{}
		rs.Name, rs.Namespace = name+"-rs", testNS
		rs.Spec = model.ReplicaSetSpec{Replicas: model.Ptr(replicas), Selector: sel, Template: tmpl}
		rs.OwnerReferences = []model.OwnerReference{controllerRef(created)}
		if _, err := w.Store.Create(rs); err != nil {
			w.T.Fatalf("create rs: %v", err)
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
	created, err := w.Store.Create(p)
	if err != nil {
		w.T.Fatalf("create pod: %v", err)
	}
	w.SetPodReady(created.(*model.Pod), ready)
}

func (w *world) workload(kind, name string) model.Object {
	return testworld.Get[model.Object](w.World, model.Kind(kind), testNS, name)
}

func (w *world) statusLine(name string) string {
	pdb := testworld.Get[*model.PodDisruptionBudget](w.World, model.KindPodDisruptionBudget, testNS, name)
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
	testworld.Walk(t, "testdata", func(t *testing.T, d *datadriven.TestData) (*world, string) {
		cfg := DefaultConfig()
		d.MaybeScanArgs(t, "deletion-timeout", &cfg.DeletionTimeout)
		return newWorld(t, cfg), ""
	}, func(t *testing.T, w *world) testworld.Commands {
		return testworld.Commands{
			"workload": func(d *datadriven.TestData) string {
				var kind, name string
				replicas := 1
				d.ScanArgs(t, "kind", &kind)
				d.ScanArgs(t, "name", &name)
				d.MaybeScanArgs(t, "replicas", &replicas)
				w.createWorkload(kind, name, int32(replicas))
				return ""
			},
			"pods": func(d *datadriven.TestData) string {
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
					w.Emit("create-pod", "Pod "+model.KeyOf(testNS, fmt.Sprintf("%s-%d", name, i)), fmt.Sprintf("ready=%t", ready))
				}
				return ""
			},
			"orphan": func(d *datadriven.TestData) string {
				name := testworld.Arg[string](t, d, "name")
				lbl := testworld.Arg[string](t, d, "labels")
				w.createPod(name, testworld.ParseLabels(t, lbl), nil, true)
				return ""
			},
			"pdb": func(d *datadriven.TestData) string {
				pdb := testworld.PDBArgs(t, d, testNS)
				if _, err := w.Store.Create(pdb); err != nil {
					t.Fatalf("create pdb: %v", err)
				}
				return ""
			},
			"scale": func(d *datadriven.TestData) string {
				kind := testworld.Arg[string](t, d, "kind")
				name := testworld.Arg[string](t, d, "name")
				replicas := testworld.Arg[int](t, d, "replicas")
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
				if _, err := w.Store.Update(obj); err != nil {
					t.Fatalf("scale: %v", err)
				}
				w.Emit("scale", kind+" "+model.KeyOf(testNS, name), fmt.Sprintf("replicas=%d", replicas))
				return ""
			},
			"ready": func(d *datadriven.TestData) string { return w.Ready(d) },
			"evict": func(d *datadriven.TestData) string {
				name := testworld.Arg[string](t, d, "pod")
				ev := &model.Eviction{}
				ev.Name, ev.Namespace = name, testNS
				_, err := w.Store.Evict(testNS, name, ev)
				if err == nil {
					w.Emit("evicted", "Pod "+model.KeyOf(testNS, name), "")
					return "evicted\n"
				}
				w.Emit("eviction-refused", "Pod "+model.KeyOf(testNS, name), controllerutil.ErrorReason(err))
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
			},
			"mark-disrupted": func(d *datadriven.TestData) string {
				name := testworld.Arg[string](t, d, "pdb")
				pod := testworld.Arg[string](t, d, "pod")
				obj, err := w.Store.Get(model.KindPodDisruptionBudget, testNS, name)
				if err != nil {
					t.Fatal(err)
				}
				pdb := obj.(*model.PodDisruptionBudget).DeepCopy()
				if pdb.Status.DisruptedPods == nil {
					pdb.Status.DisruptedPods = map[string]vtime.Time{}
				}
				pdb.Status.DisruptedPods[pod] = w.K.Now()
				pdb.Status.DisruptionsAllowed = max(pdb.Status.DisruptionsAllowed-1, 0)
				if _, err := w.Store.UpdateStatus(pdb); err != nil {
					t.Fatal(err)
				}
				w.Emit("mark-disrupted", "PodDisruptionBudget "+model.Key(pdb), pod)
				return ""
			},
			"disruption-target": func(d *datadriven.TestData) string {
				name := testworld.Arg[string](t, d, "pod")
				p := w.Pod(name).DeepCopy()
				p.Status.Conditions = append(p.Status.Conditions, model.PodCondition{Type: model.PodDisruptionTarget,
					Status: model.ConditionTrue, Reason: "EvictionByEvictionAPI", LastTransitionTime: w.K.Now()})
				if _, err := w.Store.UpdateStatus(p); err != nil {
					t.Fatal(err)
				}
				w.Emit("disruption-target", "Pod "+model.Key(p), "")
				return ""
			},
			"pod-conditions": func(d *datadriven.TestData) string {
				name := testworld.Arg[string](t, d, "pod")
				var b strings.Builder
				for _, c := range w.Pod(name).Status.Conditions {
					fmt.Fprintf(&b, "%s=%s reason=%s since %s\n", c.Type, c.Status, c.Reason, c.LastTransitionTime)
				}
				return b.String()
			},
			"status": func(d *datadriven.TestData) string {
				name := testworld.Arg[string](t, d, "name")
				return w.statusLine(name)
			},
		}
	})
}
