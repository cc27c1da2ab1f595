package daemonset

import (
	"fmt"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim/internal/testworld"
)

// TestTraces runs the datadriven scripts in testdata/ (regenerate with -rewrite and read the
// diff). The API server is the real one, with Node objects; the scheduler and kubelets are
// played by the test (testworld.FakeNodes). Commands:
//
//	init
//	add-node name=N [labels=k=v,...] [taints=key=value:Effect,...]   a node registers
//	taint-node name=N taints=key=value:Effect,...                      replace the node's taints
//	label-node name=N labels=k=v,...                                   replace the node's labels
//	delete-node name=N                                                 the Node object is deleted
//	kill-node name=N                                                   its kubelet dies
//	create-ds name=X [image=I] [max-unavailable=U] [max-surge=S] [strategy=OnDelete]
//	          [node-selector=k=v] [tolerate=key] [min-ready=S] [history-limit=H]
//	set-image name=X image=I                                           a rollout
//	run for=D [show=status]                                            advance time; print what happened
//	pods                                                               the namespace's pods, by node
//	status name=X                                                      the DaemonSet's status
//	revisions                                                          the ControllerRevisions
//	events                                                             events since the last call
//	fail pod=P                                                         the pod's phase becomes Failed
//	delete-pod pod=P                                                   a user deletes the pod
//	describe pod=P                                                     the pod's tolerations and node affinity
//	create-pod name=P node=N labels=k=v,...                            an orphan pod bound to node N
func TestTraces(t *testing.T) {
	testworld.Walk(t, "testdata", func(t *testing.T, d *datadriven.TestData) (*world, string) {
		return newWorld(t, DefaultConfig()), ""
	}, func(t *testing.T, w *world) testworld.Commands {
		editNode := func(d *datadriven.TestData) string {
			name := testworld.Arg[string](t, d, "name")
			n := w.Node(name).DeepCopy()
			if d.Cmd == "taint-node" {
				n.Spec.Taints = testworld.TaintsArg(t, d, "taints")
			} else {
				n.Labels = testworld.LabelsArg(t, d, "labels")
			}
			if _, err := w.Store.Update(n); err != nil {
				t.Fatalf("%s: %v", d.Cmd, err)
			}
			w.Emit(d.Cmd, "Node "+name, testworld.NodeDetail(n))
			return ""
		}
		return testworld.Commands{
			"taint-node": editNode,
			"label-node": editNode,
			"delete-node": func(d *datadriven.TestData) string {
				name := testworld.Arg[string](t, d, "name")
				if _, err := w.Store.Delete(model.KindNode, "", name, model.DeleteOptions{}); err != nil {
					t.Fatalf("delete node: %v", err)
				}
				w.Emit("delete-node", "Node "+name, "")
				return ""
			},
			"create-ds": func(d *datadriven.TestData) string {
				var name string
				img := "agent:v1"
				d.ScanArgs(t, "name", &name)
				d.MaybeScanArgs(t, "image", &img)
				ds := newDaemonSet(name, img)
				ds.Spec.UpdateStrategy.Type = model.RollingUpdateDaemonSetStrategyType
				ds.Spec.UpdateStrategy.RollingUpdate = &model.RollingUpdateDaemonSet{
					MaxUnavailable: model.Ptr(intstr.FromInt32(1)), MaxSurge: model.Ptr(intstr.FromInt32(0))}
				if d.HasArg("max-unavailable") {
					s := testworld.Arg[string](t, d, "max-unavailable")
					ds.Spec.UpdateStrategy.RollingUpdate.MaxUnavailable = model.Ptr(intstr.Parse(s))
				}
				if d.HasArg("max-surge") {
					s := testworld.Arg[string](t, d, "max-surge")
					ds.Spec.UpdateStrategy.RollingUpdate.MaxSurge = model.Ptr(intstr.Parse(s))
				}
				if d.HasArg("strategy") {
					d.ScanArgs(t, "strategy", &ds.Spec.UpdateStrategy.Type)
					if ds.Spec.UpdateStrategy.Type == model.OnDeleteDaemonSetStrategyType {
						ds.Spec.UpdateStrategy.RollingUpdate = nil
					}
				}
				if sel := testworld.LabelsArg(t, d, "node-selector"); sel != nil {
					ds.Spec.Template.Spec.NodeSelector = sel
				}
				if d.HasArg("tolerate") {
					key := testworld.Arg[string](t, d, "tolerate")
					ds.Spec.Template.Spec.Tolerations = append(ds.Spec.Template.Spec.Tolerations, model.Toleration{Key: key, Operator: TolerationOpExists})
				}
				d.MaybeScanArgs(t, "min-ready", &ds.Spec.MinReadySeconds)
				testworld.MaybePtrArg(t, d, "history-limit", &ds.Spec.RevisionHistoryLimit)
				if _, err := w.Store.Create(ds); err != nil {
					t.Fatalf("create daemonset: %v", err)
				}
				w.Emit("create", dsRef(ds), "image="+img)
				return ""
			},
			"set-image": func(d *datadriven.TestData) string {
				name := testworld.Arg[string](t, d, "name")
				img := testworld.Arg[string](t, d, "image")
				ds := w.ds(name).DeepCopy()
				ds.Spec.Template.Spec.Containers[0].Image = img
				if _, err := w.Store.Update(ds); err != nil {
					t.Fatalf("set-image: %v", err)
				}
				w.Emit("set-image", dsRef(ds), "image="+img)
				return ""
			},
			"status": func(d *datadriven.TestData) string {
				name := testworld.Arg[string](t, d, "name")
				ds := w.ds(name)
				return fmt.Sprintf("%s generation=%d collisionCount=%d\n", statusLine(ds.Status), ds.Generation, ptr.Deref(ds.Status.CollisionCount, 0))
			},
			"revisions": func(d *datadriven.TestData) string {
				objs, _, err := w.Store.List(model.KindControllerRevision, model.ListOptions{Namespace: testNS})
				if err != nil {
					t.Fatalf("list revisions: %v", err)
				}
				var b strings.Builder
				for _, o := range objs {
					r := o.(*model.ControllerRevision)
					fmt.Fprintf(&b, "%s revision=%d hash=%s image=%s\n", r.Name, r.Revision, r.Labels[DefaultDaemonSetUniqueLabelKey], r.Data.Template.Spec.Containers[0].Image)
				}
				return b.String()
			},
			"describe": func(d *datadriven.TestData) string {
				name := testworld.Arg[string](t, d, "pod")
				p := w.Pod(name)
				var b strings.Builder
				for _, tol := range p.Spec.Tolerations {
					secs := "forever"
					if tol.TolerationSeconds != nil {
						secs = fmt.Sprintf("%ds", *tol.TolerationSeconds)
					}
					fmt.Fprintf(&b, "toleration %s %s %s %s\n", tol.Key, tol.Operator, tol.Effect, secs)
				}
				if a := p.Spec.Affinity; a != nil && a.NodeAffinity != nil && a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution != nil {
					for _, term := range a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
						for _, f := range term.MatchFields {
							fmt.Fprintf(&b, "required node affinity: matchFields %s %s %v\n", f.Key, f.Operator, f.Values)
						}
						for _, e := range term.MatchExpressions {
							fmt.Fprintf(&b, "required node affinity: matchExpressions %s %s %v\n", e.Key, e.Operator, e.Values)
						}
					}
				}
				return b.String()
			},
			"create-pod": func(d *datadriven.TestData) string {
				name := testworld.Arg[string](t, d, "name")
				node := testworld.Arg[string](t, d, "node")
				lbl := testworld.Arg[string](t, d, "labels")
				p := &model.Pod{}
				p.Name, p.Namespace = name, testNS
				p.Labels = testworld.ParseLabels(t, lbl)
				p.Spec.NodeName = node
				p.Spec.Containers = []model.Container{{Name: "agent", Image: "agent:v0"}}
				if _, err := w.Store.Create(p); err != nil {
					t.Fatalf("create pod: %v", err)
				}
				w.Emit("create-pod", podRef(p), "node="+node)
				return ""
			},
		}
	})
}
