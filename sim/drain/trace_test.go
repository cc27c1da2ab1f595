package drain

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim/controllers/disruption"
	"github.com/reconsim/reconsim/sim/controllers/replicaset"
)

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

// TestTraces runs the datadriven scripts in testdata/. The world runs the real ReplicaSet and
// disruption controllers and scheduler; nodes get the real kubelet model unless added with
// kubelet=false, in which case the test plays their pods. Commands:
//
//	init
//	node name=X [kubelet=false]          register a Ready node
//	rs name=X replicas=N                 a ReplicaSet of pods app=X (100m CPU each)
//	pdb name=X selector=k=v (min-available=V | max-unavailable=V)
//	daemonset name=X                     a DaemonSet object (its pods are played)
//	pod name=X node=N [owner=Kind/Name] [mirror=true] [phase=P] [labels=k=v]
//	                                     a Running, Ready pod bound to N (test-played)
//	drain node=X [grace=N] [timeout=D] [ignore-daemonsets=B] [force=B] [disable-eviction=B]
//	             [skip-wait=N] [pod-selector=S]
//	                                     start `kubectl drain` in its own process
//	run for=D [show=all]                 advance virtual time; print what happened
//	pods                                 every pod, in key order
//	drain-status node=X                  the drainer's status
func TestTraces(t *testing.T) {
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		var w *world
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			if d.Cmd != "init" && w == nil {
				t.Fatalf("%s: the first command must be init", d.Pos)
			}
			switch d.Cmd {
			case "init":
				w = newWorld(t)
				return ""
			case "node":
				var name string
				kubelet := true
				d.ScanArgs(t, "name", &name)
				d.MaybeScanArgs(t, "kubelet", &kubelet)
				w.addNode(name, kubelet)
				w.emit("node", "Node "+name, fmt.Sprintf("kubelet=%t", kubelet))
				return ""
			case "rs":
				var name string
				var replicas int
				d.ScanArgs(t, "name", &name)
				d.ScanArgs(t, "replicas", &replicas)
				rs := &model.ReplicaSet{}
				rs.Name, rs.Namespace = name, testNS
				rs.Spec.Replicas = model.Ptr(int32(replicas))
				rs.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": name}}
				rs.Spec.Template.Labels = map[string]string{"app": name}
				rs.Spec.Template.Spec.Containers = []model.Container{{Name: "app", Image: "registry.example/" + name + ":1",
					Resources: model.ResourceRequirements{Requests: model.ResourceList{model.ResourceCPU: resource.MustParse("100m")}}}}
				if _, err := w.store.Create(rs); err != nil {
					t.Fatalf("create rs: %v", err)
				}
				w.emit("create", "ReplicaSet "+model.KeyOf(testNS, name), fmt.Sprintf("replicas=%d", replicas))
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
				w.emit("create", "PodDisruptionBudget "+model.KeyOf(testNS, name), "")
				return ""
			case "daemonset":
				var name string
				d.ScanArgs(t, "name", &name)
				ds := &model.DaemonSet{}
				ds.Name, ds.Namespace = name, testNS
				ds.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": name}}
				ds.Spec.Template.Labels = map[string]string{"app": name}
				ds.Spec.Template.Spec.Containers = []model.Container{{Name: "agent", Image: "registry.example/agent:1"}}
				if _, err := w.store.Create(ds); err != nil {
					t.Fatalf("create ds: %v", err)
				}
				return ""
			case "pod":
				var name, nodeName, owner, phase, lbl string
				var mirror bool
				d.ScanArgs(t, "name", &name)
				d.ScanArgs(t, "node", &nodeName)
				d.MaybeScanArgs(t, "owner", &owner)
				d.MaybeScanArgs(t, "mirror", &mirror)
				d.MaybeScanArgs(t, "labels", &lbl)
				phase = model.PodRunning
				d.MaybeScanArgs(t, "phase", &phase)
				p := &model.Pod{}
				p.Name, p.Namespace = name, testNS
				p.Labels = map[string]string{"app": name}
				if lbl != "" {
					p.Labels = parseLabels(t, lbl)
				}
				p.Spec.NodeName = nodeName
				p.Spec.Containers = []model.Container{{Name: "app", Image: "registry.example/app:1"}}
				if mirror {
					p.Annotations = map[string]string{MirrorPodAnnotationKey: "hash"}
				}
				if owner != "" {
					kind, oname, _ := strings.Cut(owner, "/")
					info, _ := model.LookupKind(model.Kind(kind))
					ownerObj, err := w.store.Get(model.Kind(kind), testNS, oname)
					uid := "uid-of-missing-" + oname
					if err == nil {
						uid = ownerObj.Meta().UID
					}
					p.OwnerReferences = []model.OwnerReference{{APIVersion: info.APIVersion, Kind: model.Kind(kind), Name: oname, UID: uid, Controller: model.Ptr(true)}}
				}
				created, err := w.store.Create(p)
				if err != nil {
					t.Fatalf("create pod: %v", err)
				}
				p = created.(*model.Pod).DeepCopy()
				p.Status.Phase = phase
				p.Status.PodIP = "10.1.0.1"
				if phase == model.PodRunning {
					p.Status.Conditions = []model.PodCondition{{Type: model.PodReady, Status: model.ConditionTrue, LastTransitionTime: w.k.Now()}}
				}
				if _, err := w.store.UpdateStatus(p); err != nil {
					t.Fatalf("pod status: %v", err)
				}
				return ""
			case "drain":
				var nodeName, timeout string
				d.ScanArgs(t, "node", &nodeName)
				opts := DefaultOptions()
				d.MaybeScanArgs(t, "grace", &opts.GracePeriodSeconds)
				if d.MaybeScanArgs(t, "timeout", &timeout); timeout != "" {
					dur, err := time.ParseDuration(timeout)
					if err != nil {
						t.Fatal(err)
					}
					opts.Timeout = dur
				}
				d.MaybeScanArgs(t, "ignore-daemonsets", &opts.IgnoreAllDaemonSets)
				d.MaybeScanArgs(t, "force", &opts.Force)
				d.MaybeScanArgs(t, "disable-eviction", &opts.DisableEviction)
				d.MaybeScanArgs(t, "skip-wait", &opts.SkipWaitForDeleteTimeoutSeconds)
				d.MaybeScanArgs(t, "pod-selector", &opts.PodSelector)
				w.startDrain(nodeName, opts)
				return ""
			case "run":
				var dur, show string
				d.ScanArgs(t, "for", &dur)
				d.MaybeScanArgs(t, "show", &show)
				du, err := time.ParseDuration(dur)
				if err != nil {
					t.Fatalf("run: %v", err)
				}
				w.run(du)
				return w.newTrace(show == "all")
			case "pods":
				var b strings.Builder
				for _, p := range w.pods(testNS) {
					b.WriteString(w.podLine(p))
					b.WriteByte('\n')
				}
				return b.String()
			case "drain-status":
				var nodeName string
				d.ScanArgs(t, "node", &nodeName)
				for _, dr := range slices.Backward(w.drainers) {
					if dr.node == nodeName {
						return w.statusText(dr.Status())
					}
				}
				t.Fatalf("no drain of %s", nodeName)
			}
			t.Fatalf("%s: unknown command %q", d.Pos, d.Cmd)
			return ""
		})
	})
}

// newTrace returns the trace since the last call: drain's lines, the test's, the budget's
// status writes and events, the ReplicaSet controller's events, and bindings; with all, also
// the kubelets' pod lifecycle lines.
func (w *world) newTrace(all bool) string {
	text := w.trace.String()[w.printed:]
	w.printed = w.trace.Len()
	var b strings.Builder
	for _, line := range strings.Split(text, "\n") {
		f := strings.Fields(line)
		if len(f) < 4 {
			continue
		}
		keep := false
		switch f[1] {
		case Component, "test":
			keep = true
		case disruption.Component:
			keep = f[2] == "update-status"
		case disruption.EventSourceComponent, replicaset.Component:
			keep = f[2] == "event"
		case "default-scheduler":
			keep = f[2] == "event"
		case "kubelet":
			keep = all
		}
		if strings.HasPrefix(f[1], "kubelet/") {
			keep = all && (f[2] == "status" || f[2] == "pod-removed" || f[2] == "container-kill")
		}
		if keep {
			b.WriteString(line)
			b.WriteByte('\n')
		}
	}
	return b.String()
}
