package replicaset

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/vtime"
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
				d.MaybeScanArgs(t, "burst", &cfg.BurstReplicas)
				w = newWorld(t, cfg)
				eventsShown = 0
				return ""
			case "create-rs":
				var name string
				var replicas, minReady int
				d.ScanArgs(t, "name", &name)
				d.ScanArgs(t, "replicas", &replicas)
				d.MaybeScanArgs(t, "min-ready", &minReady)
				rs := &model.ReplicaSet{}
				rs.Name, rs.Namespace = name, testNS
				rs.Spec.Replicas = model.Ptr(int32(replicas))
				rs.Spec.MinReadySeconds = int32(minReady)
				rs.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": name}}
				rs.Spec.Template = template(name)
				if d.HasArg("controller-uid") {
					var uid string
					d.ScanArgs(t, "controller-uid", &uid)
					rs.OwnerReferences = []model.OwnerReference{{APIVersion: "apps/v1", Kind: "Deployment", Name: name, UID: uid, Controller: model.Ptr(true)}}
				}
				if _, err := w.store.Create(rs); err != nil {
					t.Fatalf("create rs: %v", err)
				}
				return ""
			case "scale":
				var name string
				var replicas int
				d.ScanArgs(t, "name", &name)
				d.ScanArgs(t, "replicas", &replicas)
				rs := w.rs(name).DeepCopy()
				rs.Spec.Replicas = model.Ptr(int32(replicas))
				if _, err := w.store.Update(rs); err != nil {
					t.Fatalf("scale: %v", err)
				}
				w.emit("scale", rsRef(rs), fmt.Sprintf("replicas=%d", replicas))
				return ""
			case "run":
				var dur string
				d.ScanArgs(t, "for", &dur)
				du, err := time.ParseDuration(dur)
				if err != nil {
					t.Fatalf("run: %v", err)
				}
				w.run(du)
				showAll := d.HasArg("show")
				return w.newTrace(func(component, action, kind string) bool {
					switch component {
					case Component, "test":
						return true
					case "kube-apiserver":
						if showAll {
							return kind == "Pod" || kind == "ReplicaSet"
						}
						// Creations are shown by the SuccessfulCreate events, status
						// writes by update-status; show the rest of what happens to pods.
						return kind == "Pod" && action != "create"
					}
					return false
				})
			case "pods":
				var b strings.Builder
				for i, p := range w.pods() {
					fmt.Fprintf(&b, "%d %s\n", i, w.podLine(p))
				}
				return b.String()
			case "kubelet":
				p := w.podArg(d).DeepCopy()
				if d.HasArg("node") && p.Spec.NodeName == "" {
					var node string
					d.ScanArgs(t, "node", &node)
					p.Spec.NodeName = node
					bound, err := w.store.Update(p)
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
				st := model.ConditionFalse
				if ready {
					st = model.ConditionTrue
				}
				setPodCondition(p, model.PodReady, st, w.k.Now())
				if _, err := w.store.UpdateStatus(p); err != nil {
					t.Fatalf("kubelet status: %v", err)
				}
				return w.podLine(w.podArg(d))
			case "create-pod":
				var name, lbl string
				d.ScanArgs(t, "name", &name)
				d.ScanArgs(t, "labels", &lbl)
				p := &model.Pod{}
				p.Name, p.Namespace = name, testNS
				p.Labels = parseLabels(t, lbl)
				p.Spec.Containers = []model.Container{{Name: "app", Image: "registry.example/app:1"}}
				if _, err := w.store.Create(p); err != nil {
					t.Fatalf("create pod: %v", err)
				}
				return ""
			case "relabel":
				var lbl string
				d.ScanArgs(t, "labels", &lbl)
				p := w.podArg(d).DeepCopy()
				p.Labels = parseLabels(t, lbl)
				if _, err := w.store.Update(p); err != nil {
					t.Fatalf("relabel: %v", err)
				}
				return w.podLine(w.podArg(d))
			case "delete-pod":
				p := w.podArg(d)
				if _, err := w.store.Delete(model.KindPod, p.Namespace, p.Name, model.DeleteOptions{}); err != nil {
					t.Fatalf("delete pod: %v", err)
				}
				return ""
			case "fail-creates":
				f := &createFault{}
				d.ScanArgs(t, "after", &f.after)
				d.ScanArgs(t, "count", &f.count)
				w.srv.AddFault(f)
				return ""
			case "expectations":
				var name string
				d.ScanArgs(t, "name", &name)
				key := model.KeyOf(testNS, name)
				e, ok := w.rsc.Expectations().GetExpectations(key)
				if !ok {
					return fmt.Sprintf("none satisfied=%t\n", w.rsc.Expectations().SatisfiedExpectations(key))
				}
				add, del := e.GetExpectations()
				return fmt.Sprintf("add=%d del=%d satisfied=%t tracked=%v\n", add, del, w.rsc.Expectations().SatisfiedExpectations(key), w.rsc.Expectations().GetUIDs(key))
			case "status":
				var name string
				d.ScanArgs(t, "name", &name)
				rs := w.rs(name)
				s := rs.Status
				out := fmt.Sprintf("replicas=%d fullyLabeled=%d ready=%d available=%d terminating=%d observedGeneration=%d generation=%d\n",
					s.Replicas, s.FullyLabeledReplicas, s.ReadyReplicas, s.AvailableReplicas, derefInt32(s.TerminatingReplicas), s.ObservedGeneration, rs.Generation)
				for _, c := range s.Conditions {
					out += fmt.Sprintf("condition %s=%s reason=%s message=%q\n", c.Type, c.Status, c.Reason, c.Message)
				}
				return out
			case "events":
				var b strings.Builder
				for _, ev := range w.sink.Events[eventsShown:] {
					fmt.Fprintf(&b, "%s %s %s: %s\n", ev.FirstTimestamp, ev.Type, ev.Reason, ev.Message)
				}
				eventsShown = len(w.sink.Events)
				return b.String()
			}
			t.Fatalf("%s: unknown command %q", d.Pos, d.Cmd)
			return ""
		})
	})
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

func setPodCondition(p *model.Pod, typ string, st model.ConditionStatus, now vtime.Time) {
	for i := range p.Status.Conditions {
		if p.Status.Conditions[i].Type == typ {
			if p.Status.Conditions[i].Status != st {
				p.Status.Conditions[i].Status = st
				p.Status.Conditions[i].LastTransitionTime = now
			}
			return
		}
	}
	p.Status.Conditions = append(p.Status.Conditions, model.PodCondition{Type: typ, Status: st, LastTransitionTime: now})
}
