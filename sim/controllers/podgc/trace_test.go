package podgc

import (
	"fmt"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim/internal/testworld"
)

const testNS = testworld.Namespace

// world is the shared test world with PodGC; the test plays every other actor through the
// store.
type world struct {
	*testworld.World
	gcc *Controller
}

func newWorld(t testing.TB, cfg Config) *world {
	w := &world{World: testworld.New(t, testworld.Options{})}
	c, f := w.Client(Component)
	gcc, err := New(w.K, c, f, cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	w.gcc = gcc
	w.Show = func(_ *datadriven.TestData, f []string) bool {
		return len(f) > 3 && (f[1] == Component || f[1] == "test" || (f[1] == "kube-apiserver" && (f[3] == "Pod" || f[3] == "Node")))
	}
	w.PodLine = func(_ int, p *model.Pod) string { return podLine(p) }
	f.Start(w.K)
	gcc.Start()
	w.HideTrace()
	return w
}

func podLine(p *model.Pod) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s node=%s phase=%s", p.Name, p.Spec.NodeName, p.Status.Phase)
	for _, c := range p.Status.Conditions {
		if c.Type == model.PodDisruptionTarget {
			fmt.Fprintf(&b, " %s=%s(%s)", c.Type, c.Status, c.Reason)
		}
	}
	if len(p.Finalizers) > 0 {
		fmt.Fprintf(&b, " finalizers=%s", strings.Join(p.Finalizers, ","))
	}
	if p.DeletionTimestamp != nil {
		fmt.Fprintf(&b, " deleting-since=%s", *p.DeletionTimestamp)
	}
	return b.String()
}

// TestTraces runs the datadriven scripts in testdata/. Commands:
//
//	init [threshold=N]                         new world with PodGC started
//	create-node name=X [ready=B] [out-of-service=B]  a node, Ready unless told
//	delete-node name=X
//	create-pod name=X [node=N] [phase=P] [reason=R] [finalizer=F]
//	delete-pod name=X                          a graceful delete by a user
//	run for=D
//	pods                                       the namespace's pods
//	stats
func TestTraces(t *testing.T) {
	testworld.Walk(t, "testdata", func(t *testing.T, d *datadriven.TestData) (*world, string) {
		cfg := DefaultConfig()
		d.MaybeScanArgs(t, "threshold", &cfg.TerminatedPodGCThreshold)
		return newWorld(t, cfg), ""
	}, func(t *testing.T, w *world) testworld.Commands {
		return testworld.Commands{
			"create-node": func(d *datadriven.TestData) string {
				var name string
				ready, outOfService := true, false
				d.ScanArgs(t, "name", &name)
				d.MaybeScanArgs(t, "ready", &ready)
				d.MaybeScanArgs(t, "out-of-service", &outOfService)
				n := &model.Node{}
				n.Name = name
				st := model.ConditionTrue
				if !ready {
					st = model.ConditionFalse
				}
				n.Status.Conditions = []model.NodeCondition{{Type: model.NodeReady, Status: st}}
				if outOfService {
					n.Spec.Taints = []model.Taint{{Key: model.TaintNodeOutOfService, Value: "nodeshutdown", Effect: model.TaintEffectNoExecute}}
				}
				if _, err := w.Store.Create(n); err != nil {
					t.Fatalf("create node: %v", err)
				}
				return ""
			},
			"delete-node": func(d *datadriven.TestData) string {
				name := testworld.Arg[string](t, d, "name")
				if _, err := w.Store.Delete(model.KindNode, "", name, model.DeleteOptions{}); err != nil {
					t.Fatalf("delete node: %v", err)
				}
				return ""
			},
			"create-pod": func(d *datadriven.TestData) string {
				var node, phase, reason, finalizer string
				name := testworld.Arg[string](t, d, "name")
				d.MaybeScanArgs(t, "finalizer", &finalizer)
				d.MaybeScanArgs(t, "node", &node)
				d.MaybeScanArgs(t, "phase", &phase)
				d.MaybeScanArgs(t, "reason", &reason)
				p := &model.Pod{}
				p.Name, p.Namespace = name, testNS
				p.Spec.Containers = []model.Container{{Name: "app", Image: "registry.example/app:1"}}
				if finalizer != "" {
					p.Finalizers = []string{finalizer}
				}
				obj, err := w.Store.Create(p)
				if err != nil {
					t.Fatalf("create pod: %v", err)
				}
				p = obj.(*model.Pod).DeepCopy()
				if node != "" {
					p.Spec.NodeName = node
					obj, err = w.Store.Update(p)
					if err != nil {
						t.Fatalf("bind: %v", err)
					}
					p = obj.(*model.Pod).DeepCopy()
				}
				if phase != "" {
					p.Status.Phase = phase
					p.Status.Reason = reason
					if _, err := w.Store.UpdateStatus(p); err != nil {
						t.Fatalf("status: %v", err)
					}
				}
				return ""
			},
			"delete-pod": func(d *datadriven.TestData) string {
				name := testworld.Arg[string](t, d, "name")
				if _, err := w.Store.Delete(model.KindPod, testNS, name, model.DeleteOptions{}); err != nil {
					t.Fatalf("delete pod: %v", err)
				}
				return ""
			},
			"stats": func(d *datadriven.TestData) string {
				s := w.gcc.Stats()
				return fmt.Sprintf("runs=%d terminated=%d terminating=%d orphaned=%d unscheduled=%d errors=%d\n",
					s.Runs, s.TerminatedDeleted, s.TerminatingDeleted, s.OrphanedDeleted, s.UnscheduledDeleted, s.Errors)
			},
		}
	})
}
