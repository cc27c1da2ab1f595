package drain

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim/controllers/disruption"
	"github.com/reconsim/reconsim/sim/controllers/replicaset"
	"github.com/reconsim/reconsim/sim/internal/testworld"
)

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
	testworld.Walk(t, "testdata", func(t *testing.T, d *datadriven.TestData) (*world, string) {
		return newWorld(t), ""
	}, func(t *testing.T, w *world) testworld.Commands {
		return testworld.Commands{
			"node": func(d *datadriven.TestData) string {
				var name string
				kubelet := true
				d.ScanArgs(t, "name", &name)
				d.MaybeScanArgs(t, "kubelet", &kubelet)
				w.addNode(name, kubelet)
				w.Emit("node", "Node "+name, fmt.Sprintf("kubelet=%t", kubelet))
				return ""
			},
			"rs": func(d *datadriven.TestData) string {
				name := testworld.Arg[string](t, d, "name")
				replicas := testworld.Arg[int](t, d, "replicas")
				rs := &model.ReplicaSet{}
				rs.Name, rs.Namespace = name, testNS
				rs.Spec.Replicas = model.Ptr(int32(replicas))
				rs.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": name}}
				rs.Spec.Template.Labels = map[string]string{"app": name}
				rs.Spec.Template.Spec.Containers = []model.Container{{Name: "app", Image: "registry.example/" + name + ":1",
					Resources: model.ResourceRequirements{Requests: model.ResourceList{model.ResourceCPU: resource.MustParse("100m")}}}}
				if _, err := w.Store.Create(rs); err != nil {
					t.Fatalf("create rs: %v", err)
				}
				w.Emit("create", "ReplicaSet "+model.KeyOf(testNS, name), fmt.Sprintf("replicas=%d", replicas))
				return ""
			},
			"pdb": func(d *datadriven.TestData) string {
				pdb := testworld.PDBArgs(t, d, testNS)
				if _, err := w.Store.Create(pdb); err != nil {
					t.Fatalf("create pdb: %v", err)
				}
				w.Emit("create", "PodDisruptionBudget "+model.Key(pdb), "")
				return ""
			},
			"daemonset": func(d *datadriven.TestData) string {
				name := testworld.Arg[string](t, d, "name")
				ds := &model.DaemonSet{}
				ds.Name, ds.Namespace = name, testNS
				ds.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": name}}
				ds.Spec.Template.Labels = map[string]string{"app": name}
				ds.Spec.Template.Spec.Containers = []model.Container{{Name: "agent", Image: "registry.example/agent:1"}}
				if _, err := w.Store.Create(ds); err != nil {
					t.Fatalf("create ds: %v", err)
				}
				return ""
			},
			"pod": func(d *datadriven.TestData) string {
				var owner, phase, lbl string
				var mirror bool
				name := testworld.Arg[string](t, d, "name")
				nodeName := testworld.Arg[string](t, d, "node")
				d.MaybeScanArgs(t, "owner", &owner)
				d.MaybeScanArgs(t, "mirror", &mirror)
				d.MaybeScanArgs(t, "labels", &lbl)
				phase = model.PodRunning
				d.MaybeScanArgs(t, "phase", &phase)
				p := &model.Pod{}
				p.Name, p.Namespace = name, testNS
				p.Labels = map[string]string{"app": name}
				if lbl != "" {
					p.Labels = testworld.ParseLabels(t, lbl)
				}
				p.Spec.NodeName = nodeName
				p.Spec.Containers = []model.Container{{Name: "app", Image: "registry.example/app:1"}}
				if mirror {
					p.Annotations = map[string]string{MirrorPodAnnotationKey: "hash"}
				}
				if owner != "" {
					kind, oname, _ := strings.Cut(owner, "/")
					info, _ := model.LookupKind(model.Kind(kind))
					ownerObj, err := w.Store.Get(model.Kind(kind), testNS, oname)
					uid := "uid-of-missing-" + oname
					if err == nil {
						uid = ownerObj.Meta().UID
					}
					p.OwnerReferences = []model.OwnerReference{{APIVersion: info.APIVersion, Kind: model.Kind(kind), Name: oname, UID: uid, Controller: model.Ptr(true)}}
				}
				created, err := w.Store.Create(p)
				if err != nil {
					t.Fatalf("create pod: %v", err)
				}
				p = created.(*model.Pod).DeepCopy()
				p.Status.Phase = phase
				p.Status.PodIP = "10.1.0.1"
				if phase == model.PodRunning {
					p.Status.Conditions = []model.PodCondition{{Type: model.PodReady, Status: model.ConditionTrue, LastTransitionTime: w.K.Now()}}
				}
				if _, err := w.Store.UpdateStatus(p); err != nil {
					t.Fatalf("pod status: %v", err)
				}
				return ""
			},
			"drain": func(d *datadriven.TestData) string {
				nodeName := testworld.Arg[string](t, d, "node")
				opts := DefaultOptions()
				d.MaybeScanArgs(t, "grace", &opts.GracePeriodSeconds)
				d.MaybeScanArgs(t, "timeout", &opts.Timeout)
				d.MaybeScanArgs(t, "ignore-daemonsets", &opts.IgnoreAllDaemonSets)
				d.MaybeScanArgs(t, "force", &opts.Force)
				d.MaybeScanArgs(t, "disable-eviction", &opts.DisableEviction)
				d.MaybeScanArgs(t, "skip-wait", &opts.SkipWaitForDeleteTimeoutSeconds)
				d.MaybeScanArgs(t, "pod-selector", &opts.PodSelector)
				w.startDrain(nodeName, opts)
				return ""
			},
			"drain-status": func(d *datadriven.TestData) string {
				nodeName := testworld.Arg[string](t, d, "node")
				for _, dr := range slices.Backward(w.drainers) {
					if dr.node == nodeName {
						return w.statusText(dr.Status())
					}
				}
				t.Fatalf("no drain of %s", nodeName)
				return ""
			},
		}
	})
}

// show keeps drain's lines, the test's, the budget's status writes and events, the ReplicaSet
// controller's events, and bindings; with show=all, also the kubelets' pod lifecycle lines.
func (w *world) show(d *datadriven.TestData, f []string) bool {
	if len(f) < 4 {
		return false
	}
	var which string
	d.MaybeScanArgs(w.T, "show", &which)
	all := which == "all"
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
	return keep
}
