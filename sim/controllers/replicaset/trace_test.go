package replicaset

import (
	"fmt"
	"testing"

	"github.com/cockroachdb/datadriven"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim/internal/testworld"
)

// TestTraces runs the datadriven scripts in testdata/. Commands:
//
//	init [burst=N]                       new world with the controller started
//	create-rs name=X replicas=N [min-ready=S] [controller-uid=U]
//	scale name=X replicas=N              a user edits spec.replicas
//	run for=D [show=all]                 advance virtual time; print what happened
//	pods                                 list the namespace's pods (index: name order)
//	kubelet pod=I [node=N] [phase=P] [ready=true|false] [at=S]
//	                                     bind (if unbound) and set the pod's status
//	create-pod name=X labels=k=v         an orphan pod
//	relabel pod=I labels=k=v             replace a pod's labels
//	delete-pod pod=I                     a graceful delete by a user
//	fail-creates after=N count=M         refuse some pod creations (quota-like)
//	expectations name=X                  the controller's expectations for X
//	status name=X                        the ReplicaSet's status
//	events                               events recorded since the last call
func TestTraces(t *testing.T) {
	testworld.Walk(t, "testdata", func(t *testing.T, d *datadriven.TestData) (*world, string) {
		cfg := DefaultConfig()
		d.MaybeScanArgs(t, "burst", &cfg.BurstReplicas)
		w := newWorld(t, cfg)
		w.Show = func(d *datadriven.TestData, f []string) bool {
			kind := ""
			if len(f) > 3 {
				kind = f[3]
			}
			switch f[1] {
			case Component, "test":
				return true
			case "kube-apiserver":
				if d.HasArg("show") {
					return kind == "Pod" || kind == "ReplicaSet"
				}
				// Creations are shown by the SuccessfulCreate events, status
				// writes by update-status; show the rest of what happens to pods.
				return kind == "Pod" && f[2] != "create"
			}
			return false
		}
		return w, ""
	}, func(t *testing.T, w *world) testworld.Commands {
		return testworld.Commands{
			"create-rs": func(d *datadriven.TestData) string {
				var minReady int
				name := testworld.Arg[string](t, d, "name")
				replicas := testworld.Arg[int](t, d, "replicas")
				d.MaybeScanArgs(t, "min-ready", &minReady)
				rs := &model.ReplicaSet{}
				rs.Name, rs.Namespace = name, testNS
				rs.Spec.Replicas = model.Ptr(int32(replicas))
				rs.Spec.MinReadySeconds = int32(minReady)
				rs.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": name}}
				rs.Spec.Template = template(name)
				if d.HasArg("controller-uid") {
					uid := testworld.Arg[string](t, d, "controller-uid")
					rs.OwnerReferences = []model.OwnerReference{{APIVersion: "apps/v1", Kind: "Deployment", Name: name, UID: uid, Controller: model.Ptr(true)}}
				}
				if _, err := w.Store.Create(rs); err != nil {
					t.Fatalf("create rs: %v", err)
				}
				return ""
			},
			"scale": func(d *datadriven.TestData) string {
				name := testworld.Arg[string](t, d, "name")
				replicas := testworld.Arg[int](t, d, "replicas")
				rs := w.rs(name).DeepCopy()
				rs.Spec.Replicas = model.Ptr(int32(replicas))
				if _, err := w.Store.Update(rs); err != nil {
					t.Fatalf("scale: %v", err)
				}
				w.Emit("scale", rsRef(rs), fmt.Sprintf("replicas=%d", replicas))
				return ""
			},
			"kubelet": func(d *datadriven.TestData) string {
				p := w.PodArg(d).DeepCopy()
				if d.HasArg("node") && p.Spec.NodeName == "" {
					node := testworld.Arg[string](t, d, "node")
					p.Spec.NodeName = node
					bound, err := w.Store.Update(p)
					if err != nil {
						t.Fatalf("bind: %v", err)
					}
					p = bound.(*model.Pod).DeepCopy()
				}
				phase := model.PodRunning
				d.MaybeScanArgs(t, "phase", &phase)
				ready := true
				d.MaybeScanArgs(t, "ready", &ready)
				p.Status.Phase = phase
				testworld.SetReady(p, ready, w.K.Now())
				if _, err := w.Store.UpdateStatus(p); err != nil {
					t.Fatalf("kubelet status: %v", err)
				}
				return podLine(w.PodArg(d))
			},
			"create-pod": func(d *datadriven.TestData) string {
				w.CreatePod(d, "registry.example/app:1")
				return ""
			},
			"relabel": func(d *datadriven.TestData) string {
				w.Relabel(d)
				return podLine(w.PodArg(d))
			},
			"delete-pod": func(d *datadriven.TestData) string {
				p := w.PodArg(d)
				if _, err := w.Store.Delete(model.KindPod, p.Namespace, p.Name, model.DeleteOptions{}); err != nil {
					t.Fatalf("delete pod: %v", err)
				}
				return ""
			},
			"fail-creates": func(d *datadriven.TestData) string {
				f := &createFault{}
				d.ScanArgs(t, "after", &f.after)
				d.ScanArgs(t, "count", &f.count)
				w.Server.AddFault(f)
				return ""
			},
			"expectations": func(d *datadriven.TestData) string {
				name := testworld.Arg[string](t, d, "name")
				key := model.KeyOf(testNS, name)
				e, ok := w.rsc.Expectations().GetExpectations(key)
				if !ok {
					return fmt.Sprintf("none satisfied=%t\n", w.rsc.Expectations().SatisfiedExpectations(key))
				}
				add, del := e.GetExpectations()
				return fmt.Sprintf("add=%d del=%d satisfied=%t tracked=%v\n", add, del, w.rsc.Expectations().SatisfiedExpectations(key), w.rsc.Expectations().GetUIDs(key))
			},
			"status": func(d *datadriven.TestData) string {
				name := testworld.Arg[string](t, d, "name")
				rs := w.rs(name)
				s := rs.Status
				out := fmt.Sprintf("replicas=%d fullyLabeled=%d ready=%d available=%d terminating=%d observedGeneration=%d generation=%d\n",
					s.Replicas, s.FullyLabeledReplicas, s.ReadyReplicas, s.AvailableReplicas, ptr.Deref(s.TerminatingReplicas, 0), s.ObservedGeneration, rs.Generation)
				for _, c := range s.Conditions {
					out += fmt.Sprintf("condition %s=%s reason=%s message=%q\n", c.Type, c.Status, c.Reason, c.Message)
				}
				return out
			},
		}
	})
}
