package daemonset

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/reconsim/reconsim/model"
)

// TestTraces runs the datadriven scripts in testdata/ (regenerate with -rewrite and read the
// diff). The API server is the real one, with Node objects; the scheduler and kubelets are
// played by the test (see fakeNodes). Commands:
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
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		var w *world
		eventsShown := 0
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			if d.Cmd != "init" && w == nil {
				t.Fatalf("%s: the first command must be init", d.Pos)
			}
			switch d.Cmd {
			case "init":
				w = newWorld(t, DefaultConfig())
				eventsShown = 0
				return ""
			case "add-node":
				var name string
				d.ScanArgs(t, "name", &name)
				n := newNode(name, argLabels(t, d), argTaints(t, d))
				if _, err := w.store.Create(n); err != nil {
					t.Fatalf("add node: %v", err)
				}
				w.emit("add-node", "Node "+name, nodeDetail(n))
				return ""
			case "taint-node", "label-node":
				var name string
				d.ScanArgs(t, "name", &name)
				n := w.node(name).DeepCopy()
				if d.Cmd == "taint-node" {
					n.Spec.Taints = argTaints(t, d)
				} else {
					n.Labels = argLabels(t, d)
				}
				if _, err := w.store.Update(n); err != nil {
					t.Fatalf("%s: %v", d.Cmd, err)
				}
				w.emit(d.Cmd, "Node "+name, nodeDetail(n))
				return ""
			case "delete-node":
				var name string
				d.ScanArgs(t, "name", &name)
				if _, err := w.store.Delete(model.KindNode, "", name, model.DeleteOptions{}); err != nil {
					t.Fatalf("delete node: %v", err)
				}
				w.emit("delete-node", "Node "+name, "")
				return ""
			case "kill-node":
				var name string
				d.ScanArgs(t, "name", &name)
				w.nodes.dead[name] = true
				w.emit("kill-node", "Node "+name, "the kubelet stops")
				return ""
			case "create-ds":
				var name string
				img := "agent:v1"
				d.ScanArgs(t, "name", &name)
				d.MaybeScanArgs(t, "image", &img)
				ds := newDaemonSet(name, img)
				ds.Spec.UpdateStrategy.Type = model.RollingUpdateDaemonSetStrategyType
				ds.Spec.UpdateStrategy.RollingUpdate = &model.RollingUpdateDaemonSet{
					MaxUnavailable: model.Ptr(intstr.FromInt32(1)), MaxSurge: model.Ptr(intstr.FromInt32(0))}
				if d.HasArg("max-unavailable") {
					var s string
					d.ScanArgs(t, "max-unavailable", &s)
					ds.Spec.UpdateStrategy.RollingUpdate.MaxUnavailable = model.Ptr(intstr.Parse(s))
				}
				if d.HasArg("max-surge") {
					var s string
					d.ScanArgs(t, "max-surge", &s)
					ds.Spec.UpdateStrategy.RollingUpdate.MaxSurge = model.Ptr(intstr.Parse(s))
				}
				if d.HasArg("strategy") {
					d.ScanArgs(t, "strategy", &ds.Spec.UpdateStrategy.Type)
					if ds.Spec.UpdateStrategy.Type == model.OnDeleteDaemonSetStrategyType {
						ds.Spec.UpdateStrategy.RollingUpdate = nil
					}
				}
				if d.HasArg("node-selector") {
					var s string
					d.ScanArgs(t, "node-selector", &s)
					ds.Spec.Template.Spec.NodeSelector = parseLabels(t, s)
				}
				if d.HasArg("tolerate") {
					var key string
					d.ScanArgs(t, "tolerate", &key)
					ds.Spec.Template.Spec.Tolerations = append(ds.Spec.Template.Spec.Tolerations, model.Toleration{Key: key, Operator: TolerationOpExists})
				}
				if d.HasArg("min-ready") {
					var s int
					d.ScanArgs(t, "min-ready", &s)
					ds.Spec.MinReadySeconds = int32(s)
				}
				if d.HasArg("history-limit") {
					var h int
					d.ScanArgs(t, "history-limit", &h)
					ds.Spec.RevisionHistoryLimit = model.Ptr(int32(h))
				}
				if _, err := w.store.Create(ds); err != nil {
					t.Fatalf("create daemonset: %v", err)
				}
				w.emit("create", dsRef(ds), "image="+img)
				return ""
			case "set-image":
				var name, img string
				d.ScanArgs(t, "name", &name)
				d.ScanArgs(t, "image", &img)
				ds := w.ds(name).DeepCopy()
				ds.Spec.Template.Spec.Containers[0].Image = img
				if _, err := w.store.Update(ds); err != nil {
					t.Fatalf("set-image: %v", err)
				}
				w.emit("set-image", dsRef(ds), "image="+img)
				return ""
			case "run":
				var dur string
				d.ScanArgs(t, "for", &dur)
				du, err := time.ParseDuration(dur)
				if err != nil {
					t.Fatalf("run: %v", err)
				}
				w.run(du)
				showStatus := d.HasArg("show")
				return w.newTrace(func(f []string) bool {
					if f[1] == Component && strings.HasPrefix(f[2], "update-status") {
						return showStatus
					}
					return f[1] == Component || f[1] == "test"
				})
			case "pods":
				var b strings.Builder
				for _, p := range w.pods() {
					b.WriteString(w.podLine(p))
					b.WriteByte('\n')
				}
				return b.String()
			case "status":
				var name string
				d.ScanArgs(t, "name", &name)
				ds := w.ds(name)
				return fmt.Sprintf("%s generation=%d collisionCount=%d\n", statusLine(ds.Status), ds.Generation, derefInt32(ds.Status.CollisionCount))
			case "revisions":
				objs, _, err := w.store.List(model.KindControllerRevision, model.ListOptions{Namespace: testNS})
				if err != nil {
					t.Fatalf("list revisions: %v", err)
				}
				var b strings.Builder
				for _, o := range objs {
					r := o.(*model.ControllerRevision)
					fmt.Fprintf(&b, "%s revision=%d hash=%s image=%s\n", r.Name, r.Revision, r.Labels[DefaultDaemonSetUniqueLabelKey], r.Data.Template.Spec.Containers[0].Image)
				}
				return b.String()
			case "events":
				var b strings.Builder
				for _, ev := range w.sink.Events[eventsShown:] {
					fmt.Fprintf(&b, "%s %s %s: %s\n", ev.FirstTimestamp, ev.Type, ev.Reason, ev.Message)
				}
				eventsShown = len(w.sink.Events)
				return b.String()
			case "fail":
				var name string
				d.ScanArgs(t, "pod", &name)
				p := w.pod(name).DeepCopy()
				p.Status.Phase = model.PodFailed
				setReady(p, false, w.k.Now())
				if _, err := w.store.UpdateStatus(p); err != nil {
					t.Fatalf("fail: %v", err)
				}
				w.emit("fail", podRef(p), "phase=Failed")
				return ""
			case "describe":
				var name string
				d.ScanArgs(t, "pod", &name)
				p := w.pod(name)
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
			case "create-pod":
				var name, node, lbl string
				d.ScanArgs(t, "name", &name)
				d.ScanArgs(t, "node", &node)
				d.ScanArgs(t, "labels", &lbl)
				p := &model.Pod{}
				p.Name, p.Namespace = name, testNS
				p.Labels = parseLabels(t, lbl)
				p.Spec.NodeName = node
				p.Spec.Containers = []model.Container{{Name: "agent", Image: "agent:v0"}}
				if _, err := w.store.Create(p); err != nil {
					t.Fatalf("create pod: %v", err)
				}
				w.emit("create-pod", podRef(p), "node="+node)
				return ""
			case "delete-pod":
				var name string
				d.ScanArgs(t, "pod", &name)
				if _, err := w.store.Delete(model.KindPod, testNS, name, model.DeleteOptions{}); err != nil {
					t.Fatalf("delete pod: %v", err)
				}
				w.emit("delete-pod", "Pod "+model.KeyOf(testNS, name), "")
				return ""
			}
			t.Fatalf("%s: unknown command %q", d.Pos, d.Cmd)
			return ""
		})
	})
}

func argLabels(t *testing.T, d *datadriven.TestData) map[string]string {
	if !d.HasArg("labels") {
		return nil
	}
	var s string
	d.ScanArgs(t, "labels", &s)
	return parseLabels(t, s)
}

// argTaints parses taints=key=value:Effect,key:Effect.
func argTaints(t *testing.T, d *datadriven.TestData) []model.Taint {
	if !d.HasArg("taints") {
		return nil
	}
	var s string
	d.ScanArgs(t, "taints", &s)
	var out []model.Taint
	for _, item := range strings.Split(s, ",") {
		kv, effect, ok := strings.Cut(item, ":")
		if !ok {
			t.Fatalf("bad taint %q (want key[=value]:Effect)", item)
		}
		k, v, _ := strings.Cut(kv, "=")
		out = append(out, model.Taint{Key: k, Value: v, Effect: model.TaintEffect(effect)})
	}
	return out
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

func nodeDetail(n *model.Node) string {
	var parts []string
	keys := make([]string, 0, len(n.Labels))
	for k := range n.Labels { //detlint:ordered sorted below
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		parts = append(parts, "label "+k+"="+n.Labels[k])
	}
	for _, tt := range n.Spec.Taints {
		parts = append(parts, fmt.Sprintf("taint %s=%s:%s", tt.Key, tt.Value, tt.Effect))
	}
	return strings.Join(parts, " ")
}
