package statefulset

import (
	"fmt"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim/controllers/internal/history"
	"github.com/reconsim/reconsim/sim/internal/testworld"
)

// TestTraces runs the datadriven scripts in testdata/ (regenerate with -rewrite and read the
// diff). The API server is the real one; the scheduler and kubelets are played by the test
// (see fakeNodes). Commands:
//
//	init [legacy-update]                  new world; legacy-update turns MaxUnavailableStatefulSet off
//	nodes names=a,b                       the nodes the fake scheduler binds to
//	create-set name=X replicas=N [policy=Parallel] [image=I] [partition=P] [max-unavailable=M]
//	           [strategy=OnDelete] [min-ready=S] [history-limit=H]
//	scale name=X replicas=N               a user edits spec.replicas
//	set-image name=X image=I              a user changes the template (a rollout)
//	partition name=X partition=P          a user moves the partition
//	run for=D [show=status]               advance virtual time; print what happened (status
//	                                      writes only with show=status)
//	pods                                  list the namespace's pods
//	status name=X                         the set's status
//	revisions                             the ControllerRevisions
//	events                                events recorded since the last call
//	waiting name=X                        what WaitingFor says about the set
//	never-ready pod=P                     the fake kubelet will not make pod P Ready
//	kill-node node=N                      the node's kubelet dies: nothing more happens there
//	mark-not-ready node=N                 the node lifecycle controller marks its pods not Ready
//	evict pod=P                           a graceful delete (taint eviction, a user)
//	delete-node node=N                    the Node is deleted (the fake scheduler forgets it)
//	force-delete pod=P                    pod GC's force delete (grace 0)
//	fail pod=P                            the pod's containers exit with an error: phase Failed
//	create-pod name=P labels=k=v,...      an orphan pod (no owner)
//	relabel pod=P labels=k=v,...          replace a pod's labels
func TestTraces(t *testing.T) {
	testworld.Walk(t, "testdata", func(t *testing.T, d *datadriven.TestData) (*world, string) {
		cfg := DefaultConfig()
		if d.HasArg("legacy-update") {
			cfg.MaxUnavailableStatefulSet = false
		}
		return newWorld(t, cfg), ""
	}, func(t *testing.T, w *world) testworld.Commands {
		edit := func(d *datadriven.TestData) string {
			name := testworld.Arg[string](t, d, "name")
			set := w.set(name).DeepCopy()
			var detail string
			switch d.Cmd {
			case "scale":
				n := testworld.Arg[int](t, d, "replicas")
				set.Spec.Replicas = model.Ptr(int32(n))
				detail = fmt.Sprintf("replicas=%d", n)
			case "set-image":
				img := testworld.Arg[string](t, d, "image")
				set.Spec.Template.Spec.Containers[0].Image = img
				detail = "image=" + img
			case "partition":
				p := testworld.Arg[int](t, d, "partition")
				set.Spec.UpdateStrategy.RollingUpdate.Partition = model.Ptr(int32(p))
				detail = fmt.Sprintf("partition=%d", p)
			}
			if _, err := w.Store.Update(set); err != nil {
				t.Fatalf("%s: %v", d.Cmd, err)
			}
			w.Emit(d.Cmd, setRef(set), detail)
			return ""
		}
		return testworld.Commands{
			"nodes": func(d *datadriven.TestData) string {
				names := testworld.Arg[string](t, d, "names")
				w.Nodes.Names = strings.Split(names, ",")
				return ""
			},
			"create-set": func(d *datadriven.TestData) string {
				var name string
				var replicas int
				policy, img := model.OrderedReadyPodManagement, "app:v1"
				d.ScanArgs(t, "name", &name)
				d.ScanArgs(t, "replicas", &replicas)
				d.MaybeScanArgs(t, "policy", &policy)
				d.MaybeScanArgs(t, "image", &img)
				set := newSet(name, int32(replicas), policy, img)
				set.Spec.UpdateStrategy.Type = model.RollingUpdateStatefulSetStrategyType
				set.Spec.UpdateStrategy.RollingUpdate = &model.RollingUpdateStatefulSetStrategy{Partition: model.Ptr(int32(0))}
				testworld.MaybePtrArg(t, d, "partition", &set.Spec.UpdateStrategy.RollingUpdate.Partition)
				if d.HasArg("max-unavailable") {
					m := testworld.Arg[int](t, d, "max-unavailable")
					set.Spec.UpdateStrategy.RollingUpdate.MaxUnavailable = model.Ptr(intstr.FromInt32(int32(m)))
				}
				if d.HasArg("strategy") {
					d.ScanArgs(t, "strategy", &set.Spec.UpdateStrategy.Type)
					if set.Spec.UpdateStrategy.Type == model.OnDeleteStatefulSetStrategyType {
						set.Spec.UpdateStrategy.RollingUpdate = nil
					}
				}
				d.MaybeScanArgs(t, "min-ready", &set.Spec.MinReadySeconds)
				testworld.MaybePtrArg(t, d, "history-limit", &set.Spec.RevisionHistoryLimit)
				if _, err := w.Store.Create(set); err != nil {
					t.Fatalf("create statefulset: %v", err)
				}
				w.Emit("create", setRef(set), fmt.Sprintf("replicas=%d policy=%s image=%s", replicas, policy, img))
				return ""
			},
			"scale":     edit,
			"set-image": edit,
			"partition": edit,
			"status": func(d *datadriven.TestData) string {
				name := testworld.Arg[string](t, d, "name")
				set := w.set(name)
				return fmt.Sprintf("%s collisionCount=%d generation=%d\n", statusLine(set.Status), ptr.Deref(set.Status.CollisionCount, 0), set.Generation)
			},
			"revisions": func(d *datadriven.TestData) string {
				var b strings.Builder
				for _, r := range w.revisions() {
					fmt.Fprintf(&b, "%s revision=%d hash=%s image=%s\n", r.Name, r.Revision, r.Labels[history.ControllerRevisionHashLabel], r.Data.Template.Spec.Containers[0].Image)
				}
				return b.String()
			},
			"waiting": func(d *datadriven.TestData) string {
				name := testworld.Arg[string](t, d, "name")
				pod, reason, ok := w.ssc.WaitingFor(model.KeyOf(testNS, name))
				if !ok {
					return "not blocked\n"
				}
				return fmt.Sprintf("pod=%s\nreason=%s\n", pod, reason)
			},
			"never-ready": func(d *datadriven.TestData) string {
				name := testworld.Arg[string](t, d, "pod")
				w.Nodes.NeverReady[name] = true
				return ""
			},
			"mark-not-ready": func(d *datadriven.TestData) string {
				node := testworld.Arg[string](t, d, "node")
				for _, p := range w.Pods() {
					if p.Spec.NodeName != node {
						continue
					}
					p = p.DeepCopy()
					testworld.SetReady(p, false, w.K.Now())
					if _, err := w.Store.UpdateStatus(p); err != nil {
						t.Fatalf("mark not ready: %v", err)
					}
					w.Emit("mark-not-ready", podRef(p), "node="+node)
				}
				return ""
			},
			"evict":        func(d *datadriven.TestData) string { return w.DeletePod(d, false) },
			"force-delete": func(d *datadriven.TestData) string { return w.DeletePod(d, true) },
			"create-pod": func(d *datadriven.TestData) string {
				p, lbl := w.CreatePod(d, "app:v1")
				w.Emit("create-pod", podRef(p), "labels="+lbl)
				return ""
			},
			"relabel": func(d *datadriven.TestData) string {
				p, lbl := w.Relabel(d)
				w.Emit("relabel", podRef(p), "labels="+lbl)
				return ""
			},
			"delete-node": func(d *datadriven.TestData) string {
				node := testworld.Arg[string](t, d, "node")
				var keep []string
				for _, n := range w.Nodes.Names {
					if n != node {
						keep = append(keep, n)
					}
				}
				w.Nodes.Names = keep
				w.Emit("delete-node", "Node "+node, "")
				return ""
			},
		}
	})
}
