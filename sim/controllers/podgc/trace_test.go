package podgc

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim"
	"github.com/reconsim/reconsim/sim/apiserver"
	"github.com/reconsim/reconsim/sim/client"
)

const testNS = "default"

// world is a small cluster for trace tests: a kernel, an API server and PodGC; the test plays
// every other actor through the store.
type world struct {
	t       testing.TB
	k       *sim.Kernel
	store   *apiserver.Store
	gcc     *Controller
	trace   bytes.Buffer
	printed int
}

func newWorld(t testing.TB, cfg Config) *world {
	w := &world{t: t, k: sim.New(1)}
	w.k.Trace().SetWriter(&w.trace)
	srv := apiserver.NewServer(w.k, apiserver.DefaultConfig())
	w.store = srv.Store()
	c := client.New(srv, Component, client.Config{QPS: 20, Burst: 30})
	f := client.NewSharedInformerFactory(c, 0)
	gcc, err := New(w.k, c, f, cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	w.gcc = gcc
	f.Start(w.k)
	gcc.Start()
	w.printed = w.trace.Len()
	return w
}

func (w *world) run(d time.Duration) {
	if out := w.k.Run(sim.Limits{MaxTime: w.k.Now().Add(d)}); out.Reason == sim.StopError {
		w.t.Fatalf("run failed: %v", out.Err)
	}
}

func (w *world) newTrace() string {
	all := w.trace.String()[w.printed:]
	w.printed = w.trace.Len()
	var b strings.Builder
	for _, line := range strings.Split(all, "\n") {
		f := strings.Fields(line)
		if len(f) < 4 {
			continue
		}
		if f[1] == Component || f[1] == "test" || (f[1] == "kube-apiserver" && (f[3] == "Pod" || f[3] == "Node")) {
			b.WriteString(line)
			b.WriteByte('\n')
		}
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
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		var w *world
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			if d.Cmd != "init" && w == nil {
				t.Fatalf("%s: the first command must be init", d.Pos)
			}
			switch d.Cmd {
			case "init":
				cfg := DefaultConfig()
				d.MaybeScanArgs(t, "threshold", &cfg.TerminatedPodGCThreshold)
				w = newWorld(t, cfg)
				return ""
			case "create-node":
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
					n.Spec.Taints = []model.Taint{{Key: TaintNodeOutOfService, Value: "nodeshutdown", Effect: model.TaintEffectNoExecute}}
				}
				if _, err := w.store.Create(n); err != nil {
					t.Fatalf("create node: %v", err)
				}
				return ""
			case "delete-node":
				var name string
				d.ScanArgs(t, "name", &name)
				if _, err := w.store.Delete(model.KindNode, "", name, model.DeleteOptions{}); err != nil {
					t.Fatalf("delete node: %v", err)
				}
				return ""
			case "create-pod":
				var name, node, phase, reason, finalizer string
				d.ScanArgs(t, "name", &name)
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
				obj, err := w.store.Create(p)
				if err != nil {
					t.Fatalf("create pod: %v", err)
				}
				p = obj.(*model.Pod).DeepCopy()
				if node != "" {
					p.Spec.NodeName = node
					obj, err = w.store.Update(p)
					if err != nil {
						t.Fatalf("bind: %v", err)
					}
					p = obj.(*model.Pod).DeepCopy()
				}
				if phase != "" {
					p.Status.Phase = phase
					p.Status.Reason = reason
					if _, err := w.store.UpdateStatus(p); err != nil {
						t.Fatalf("status: %v", err)
					}
				}
				return ""
			case "delete-pod":
				var name string
				d.ScanArgs(t, "name", &name)
				if _, err := w.store.Delete(model.KindPod, testNS, name, model.DeleteOptions{}); err != nil {
					t.Fatalf("delete pod: %v", err)
				}
				return ""
			case "run":
				var dur string
				d.ScanArgs(t, "for", &dur)
				du, err := time.ParseDuration(dur)
				if err != nil {
					t.Fatalf("run: %v", err)
				}
				w.run(du)
				return w.newTrace()
			case "pods":
				objs, _, err := w.store.List(model.KindPod, model.ListOptions{Namespace: testNS})
				if err != nil {
					t.Fatalf("list: %v", err)
				}
				var b strings.Builder
				for _, p := range podsOf(objs) {
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
					b.WriteByte('\n')
				}
				return b.String()
			case "stats":
				s := w.gcc.Stats()
				return fmt.Sprintf("runs=%d terminated=%d terminating=%d orphaned=%d unscheduled=%d errors=%d\n",
					s.Runs, s.TerminatedDeleted, s.TerminatingDeleted, s.OrphanedDeleted, s.UnscheduledDeleted, s.Errors)
			}
			t.Fatalf("%s: unknown command %q", d.Pos, d.Cmd)
			return ""
		})
	})
}
