package statefulset

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/reconsim/reconsim/model"
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
				if d.HasArg("legacy-update") {
					cfg.MaxUnavailableStatefulSet = false
				}
				w = newWorld(t, cfg)
				eventsShown = 0
				return ""
			case "nodes":
				var names string
				d.ScanArgs(t, "names", &names)
				w.nodes.names = strings.Split(names, ",")
				return ""
			case "create-set":
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
				if d.HasArg("partition") {
					var p int
					d.ScanArgs(t, "partition", &p)
					set.Spec.UpdateStrategy.RollingUpdate.Partition = model.Ptr(int32(p))
				}
				if d.HasArg("max-unavailable") {
					var m int
					d.ScanArgs(t, "max-unavailable", &m)
					set.Spec.UpdateStrategy.RollingUpdate.MaxUnavailable = model.Ptr(intstr.FromInt32(int32(m)))
				}
				if d.HasArg("strategy") {
					d.ScanArgs(t, "strategy", &set.Spec.UpdateStrategy.Type)
					if set.Spec.UpdateStrategy.Type == model.OnDeleteStatefulSetStrategyType {
						set.Spec.UpdateStrategy.RollingUpdate = nil
					}
				}
				if d.HasArg("min-ready") {
					var s int
					d.ScanArgs(t, "min-ready", &s)
					set.Spec.MinReadySeconds = int32(s)
				}
				if d.HasArg("history-limit") {
					var h int
					d.ScanArgs(t, "history-limit", &h)
					set.Spec.RevisionHistoryLimit = model.Ptr(int32(h))
				}
				if _, err := w.store.Create(set); err != nil {
					t.Fatalf("create statefulset: %v", err)
				}
				w.emit("create", setRef(set), fmt.Sprintf("replicas=%d policy=%s image=%s", replicas, policy, img))
				return ""
			case "scale", "set-image", "partition":
				var name string
				d.ScanArgs(t, "name", &name)
				set := w.set(name).DeepCopy()
				var detail string
				switch d.Cmd {
				case "scale":
					var n int
					d.ScanArgs(t, "replicas", &n)
					set.Spec.Replicas = model.Ptr(int32(n))
					detail = fmt.Sprintf("replicas=%d", n)
				case "set-image":
					var img string
					d.ScanArgs(t, "image", &img)
					set.Spec.Template.Spec.Containers[0].Image = img
					detail = "image=" + img
				case "partition":
					var p int
					d.ScanArgs(t, "partition", &p)
					set.Spec.UpdateStrategy.RollingUpdate.Partition = model.Ptr(int32(p))
					detail = fmt.Sprintf("partition=%d", p)
				}
				if _, err := w.store.Update(set); err != nil {
					t.Fatalf("%s: %v", d.Cmd, err)
				}
				w.emit(d.Cmd, setRef(set), detail)
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
				set := w.set(name)
				return fmt.Sprintf("%s collisionCount=%d generation=%d\n", statusLine(set.Status), deref(set.Status.CollisionCount), set.Generation)
			case "revisions":
				var b strings.Builder
				for _, r := range w.revisions() {
					fmt.Fprintf(&b, "%s revision=%d hash=%s image=%s\n", r.Name, r.Revision, r.Labels[ControllerRevisionHashLabel], r.Data.Template.Spec.Containers[0].Image)
				}
				return b.String()
			case "events":
				var b strings.Builder
				for _, ev := range w.sink.Events[eventsShown:] {
					fmt.Fprintf(&b, "%s %s %s: %s\n", ev.FirstTimestamp, ev.Type, ev.Reason, ev.Message)
				}
				eventsShown = len(w.sink.Events)
				return b.String()
			case "waiting":
				var name string
				d.ScanArgs(t, "name", &name)
				pod, reason, ok := w.ssc.WaitingFor(model.KeyOf(testNS, name))
				if !ok {
					return "not blocked\n"
				}
				return fmt.Sprintf("pod=%s\nreason=%s\n", pod, reason)
			case "never-ready":
				var name string
				d.ScanArgs(t, "pod", &name)
				w.nodes.neverReady[name] = true
				return ""
			case "kill-node":
				var node string
				d.ScanArgs(t, "node", &node)
				w.nodes.dead[node] = true
				w.emit("kill-node", "Node "+node, "the kubelet stops")
				return ""
			case "mark-not-ready":
				var node string
				d.ScanArgs(t, "node", &node)
				for _, p := range w.pods() {
					if p.Spec.NodeName != node {
						continue
					}
					p = p.DeepCopy()
					setReady(p, false, w.k.Now())
					if _, err := w.store.UpdateStatus(p); err != nil {
						t.Fatalf("mark not ready: %v", err)
					}
					w.emit("mark-not-ready", podRef(p), "node="+node)
				}
				return ""
			case "evict", "force-delete":
				var name string
				d.ScanArgs(t, "pod", &name)
				opts := model.DeleteOptions{}
				if d.Cmd == "force-delete" {
					opts.GracePeriodSeconds = model.Ptr(int64(0))
				}
				if _, err := w.store.Delete(model.KindPod, testNS, name, opts); err != nil {
					t.Fatalf("%s: %v", d.Cmd, err)
				}
				w.emit(d.Cmd, "Pod "+model.KeyOf(testNS, name), "")
				return ""
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
			case "create-pod":
				var name, lbl string
				d.ScanArgs(t, "name", &name)
				d.ScanArgs(t, "labels", &lbl)
				p := &model.Pod{}
				p.Name, p.Namespace = name, testNS
				p.Labels = parseLabels(t, lbl)
				p.Spec.Containers = []model.Container{{Name: "app", Image: "app:v1"}}
				if _, err := w.store.Create(p); err != nil {
					t.Fatalf("create pod: %v", err)
				}
				w.emit("create-pod", podRef(p), "labels="+lbl)
				return ""
			case "relabel":
				var name, lbl string
				d.ScanArgs(t, "pod", &name)
				d.ScanArgs(t, "labels", &lbl)
				p := w.pod(name).DeepCopy()
				p.Labels = parseLabels(t, lbl)
				if _, err := w.store.Update(p); err != nil {
					t.Fatalf("relabel: %v", err)
				}
				w.emit("relabel", podRef(p), "labels="+lbl)
				return ""
			case "delete-node":
				var node string
				d.ScanArgs(t, "node", &node)
				var keep []string
				for _, n := range w.nodes.names {
					if n != node {
						keep = append(keep, n)
					}
				}
				w.nodes.names = keep
				w.emit("delete-node", "Node "+node, "")
				return ""
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

func deref(p *int32) int32 {
	if p == nil {
		return 0
	}
	return *p
}
