package endpointslice

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim"
	"github.com/reconsim/reconsim/sim/apiserver"
	"github.com/reconsim/reconsim/sim/client"
	"github.com/reconsim/reconsim/sim/client/record"
)

const testNS = "default"

// world is a small cluster for trace tests: a kernel, an API server and the EndpointSlice
// controller with its own client and informers. The test plays the kubelets and users by
// writing to the store directly.
type world struct {
	t     testing.TB
	k     *sim.Kernel
	srv   *apiserver.Server
	store *apiserver.Store
	ec    *Controller
	sink  *record.FakeSink

	trace   bytes.Buffer
	printed int

	lastRV       uint64
	invariantsAt int
}

func newWorld(t testing.TB, cfg Config) *world {
	w := &world{t: t, k: sim.New(1), sink: &record.FakeSink{}}
	w.k.Trace().SetWriter(&w.trace)
	w.srv = apiserver.NewServer(w.k, apiserver.DefaultConfig())
	w.store = w.srv.Store()
	c := client.New(w.srv, Component, client.Config{QPS: 20, Burst: 30})
	f := client.NewSharedInformerFactory(c, 0)
	ec, err := New(w.k, c, f, record.New(w.k, w.sink, EventSourceComponent, ""), cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	w.ec = ec
	f.Start(w.k)
	ec.Start()
	w.run(100 * time.Millisecond)
	w.printed = w.trace.Len()
	return w
}

func (w *world) run(d time.Duration) {
	out := w.k.Run(sim.Limits{MaxTime: w.k.Now().Add(d)})
	if out.Reason == sim.StopError {
		w.t.Fatalf("run failed: %v", out.Err)
	}
	w.checkInvariants()
}

// checkInvariants runs after every step: resourceVersions only grow; no pod is an endpoint of
// two slices of one Service; no slice holds more endpoints than the limit; every ready endpoint
// belongs to a pod that exists.
func (w *world) checkInvariants() {
	for _, line := range strings.Split(w.trace.String()[w.invariantsAt:], "\n") {
		f := strings.Fields(line)
		if len(f) < 5 || f[1] != "kube-apiserver" || !strings.HasPrefix(f[4], "rv=") {
			continue
		}
		rv, err := strconv.ParseUint(strings.TrimPrefix(f[4], "rv="), 10, 64)
		if err != nil {
			continue
		}
		if rv <= w.lastRV {
			w.t.Fatalf("invariant: resourceVersion went from %d to %d: %s", w.lastRV, rv, line)
		}
		w.lastRV = rv
	}
	w.invariantsAt = w.trace.Len()
	seen := map[string]string{}
	for _, s := range w.slices("") {
		if len(s.Endpoints) > int(w.ec.cfg.MaxEndpointsPerSlice) {
			w.t.Fatalf("invariant: slice %s has %d endpoints, limit %d", s.Name, len(s.Endpoints), w.ec.cfg.MaxEndpointsPerSlice)
		}
		for _, ep := range s.Endpoints {
			key := s.Labels[model.LabelServiceName] + "/" + ep.TargetRef.Name
			if other, dup := seen[key]; dup {
				w.t.Fatalf("invariant: pod %s is in slices %s and %s", ep.TargetRef.Name, other, s.Name)
			}
			seen[key] = s.Name
			if _, err := w.store.Get(model.KindPod, testNS, ep.TargetRef.Name); err != nil && (ep.Conditions.Ready == nil || *ep.Conditions.Ready) {
				w.t.Fatalf("invariant: ready endpoint for missing pod %s in %s", ep.TargetRef.Name, s.Name)
			}
		}
	}
}

// slices returns the stored slices of a Service ("" for all), in key order.
func (w *world) slices(service string) []*model.EndpointSlice {
	objs, _, err := w.store.List(model.KindEndpointSlice, model.ListOptions{Namespace: testNS})
	if err != nil {
		w.t.Fatalf("list slices: %v", err)
	}
	var out []*model.EndpointSlice
	for _, o := range objs {
		s := o.(*model.EndpointSlice)
		if service == "" || s.Labels[model.LabelServiceName] == service {
			out = append(out, s)
		}
	}
	return out
}

func (w *world) pod(name string) *model.Pod {
	obj, err := w.store.Get(model.KindPod, testNS, name)
	if err != nil {
		w.t.Fatalf("get pod %s: %v", name, err)
	}
	return obj.(*model.Pod)
}

func (w *world) emit(action, object, detail string) { w.k.Emit("test", action, object, 0, detail) }

func (w *world) newTrace(showAPI bool) string {
	all := w.trace.String()[w.printed:]
	w.printed = w.trace.Len()
	var b strings.Builder
	for _, line := range strings.Split(all, "\n") {
		f := strings.Fields(line)
		if len(f) < 4 {
			continue
		}
		keep := f[1] == Component || f[1] == "test" || f[1] == EventSourceComponent ||
			(showAPI && f[1] == "kube-apiserver" && f[3] == string(model.KindEndpointSlice))
		if keep {
			b.WriteString(line)
			b.WriteByte('\n')
		}
	}
	return b.String()
}

func (w *world) setReady(name string, ready bool) {
	p := w.pod(name).DeepCopy()
	st := model.ConditionFalse
	if ready {
		st = model.ConditionTrue
	}
	p.Status.Phase = model.PodRunning
	found := false
	for i := range p.Status.Conditions {
		if p.Status.Conditions[i].Type == model.PodReady {
			p.Status.Conditions[i].Status, found = st, true
		}
	}
	if !found {
		p.Status.Conditions = append(p.Status.Conditions, model.PodCondition{Type: model.PodReady, Status: st, LastTransitionTime: w.k.Now()})
	}
	if _, err := w.store.UpdateStatus(p); err != nil {
		w.t.Fatalf("pod status: %v", err)
	}
}

func (w *world) slicesText(service string) string {
	var b strings.Builder
	for _, s := range w.slices(service) {
		fmt.Fprintf(&b, "%s ports=%s endpoints=%d ready=%d labels=%s\n", s.Name, portsText(s.Ports), len(s.Endpoints),
			CountReady([]*model.EndpointSlice{s}), labelsText(s.Labels))
		for _, ep := range s.Endpoints {
			node := "-"
			if ep.NodeName != nil {
				node = *ep.NodeName
			}
			fmt.Fprintf(&b, "  %s %s node=%s ready=%s serving=%s terminating=%s\n", ep.TargetRef.Name, strings.Join(ep.Addresses, ","), node,
				boolText(ep.Conditions.Ready), boolText(ep.Conditions.Serving), boolText(ep.Conditions.Terminating))
		}
	}
	return b.String()
}

func portsText(ports []model.EndpointPort) string {
	parts := make([]string, len(ports))
	for i, p := range ports {
		parts[i] = portString(p)
	}
	return "[" + strings.Join(parts, " ") + "]"
}

func labelsText(l map[string]string) string {
	set := map[string]bool{}
	for k := range l { //detlint:ordered collected into a set, sorted by sortedKeys
		set[k] = true
	}
	var parts []string
	for _, k := range sortedKeys(set) {
		parts = append(parts, k+"="+l[k])
	}
	return strings.Join(parts, ",")
}

func boolText(b *bool) string {
	if b == nil {
		return "nil"
	}
	return strconv.FormatBool(*b)
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

// TestTraces runs the datadriven scripts in testdata/. Commands:
//
//	init [max-endpoints=N] [batch=D] [fallback=true]
//	node name=X                         register a node
//	service name=X selector=k=v [ports=name:port/proto,...] [labels=k=v] [publish-not-ready=true]
//	pod name=X labels=k=v [node=N] [ip=A] [ready=true]   create a pod (bound if node is given)
//	ready pod=X [ready=false]           the kubelet reports readiness
//	set-ip pod=X ip=A                   the kubelet reports the pod's IP
//	delete-pod pod=X                    a graceful delete (the pod is terminating)
//	remove-pod pod=X                    the pod object goes away
//	relabel pod=X labels=k=v            replace the pod's labels
//	delete-service name=X
//	run for=D [show=api]                advance virtual time; print what happened
//	slices service=X                    the stored slices of the Service
//	ready-endpoints service=X           ReadyEndpoints from the controller's cache, and
//	                                    CountReady over the stored slices
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
				var maxEP int
				if d.HasArg("max-endpoints") {
					d.ScanArgs(t, "max-endpoints", &maxEP)
					cfg.MaxEndpointsPerSlice = int32(maxEP)
				}
				if d.HasArg("batch") {
					var s string
					d.ScanArgs(t, "batch", &s)
					dur, err := time.ParseDuration(s)
					if err != nil {
						t.Fatal(err)
					}
					cfg.EndpointUpdatesBatchPeriod = dur
				}
				d.MaybeScanArgs(t, "fallback", &cfg.PodNameAddressFallback)
				w = newWorld(t, cfg)
				return ""
			case "node":
				var name string
				d.ScanArgs(t, "name", &name)
				n := &model.Node{}
				n.Name = name
				if _, err := w.store.Create(n); err != nil {
					t.Fatalf("create node: %v", err)
				}
				return ""
			case "service":
				var name, sel string
				d.ScanArgs(t, "name", &name)
				d.ScanArgs(t, "selector", &sel)
				svc := &model.Service{}
				svc.Name, svc.Namespace = name, testNS
				svc.Spec.Selector = parseLabels(t, sel)
				if d.HasArg("labels") {
					var l string
					d.ScanArgs(t, "labels", &l)
					svc.Labels = parseLabels(t, l)
				}
				ports := "http:80/TCP"
				d.MaybeScanArgs(t, "ports", &ports)
				for _, p := range strings.Split(ports, ",") {
					pname, rest, _ := strings.Cut(p, ":")
					num, proto, _ := strings.Cut(rest, "/")
					n, err := strconv.Atoi(num)
					if err != nil {
						t.Fatalf("bad port %q", p)
					}
					svc.Spec.Ports = append(svc.Spec.Ports, model.ServicePort{Name: pname, Port: int32(n), Protocol: proto})
				}
				d.MaybeScanArgs(t, "publish-not-ready", &svc.Spec.PublishNotReadyAddresses)
				if _, err := w.store.Create(svc); err != nil {
					t.Fatalf("create service: %v", err)
				}
				return ""
			case "pod":
				var name, lbl, node, ip string
				var ready bool
				d.ScanArgs(t, "name", &name)
				d.ScanArgs(t, "labels", &lbl)
				d.MaybeScanArgs(t, "node", &node)
				d.MaybeScanArgs(t, "ip", &ip)
				d.MaybeScanArgs(t, "ready", &ready)
				p := &model.Pod{}
				p.Name, p.Namespace, p.Labels = name, testNS, parseLabels(t, lbl)
				p.Spec.Containers = []model.Container{{Name: "app", Image: "registry.example/app:1"}}
				p.Spec.NodeName = node
				created, err := w.store.Create(p)
				if err != nil {
					t.Fatalf("create pod: %v", err)
				}
				if ip != "" || ready {
					p = created.(*model.Pod).DeepCopy()
					p.Status.PodIP = ip
					p.Status.Phase = model.PodRunning
					if ready {
						p.Status.Conditions = []model.PodCondition{{Type: model.PodReady, Status: model.ConditionTrue, LastTransitionTime: w.k.Now()}}
					}
					if _, err := w.store.UpdateStatus(p); err != nil {
						t.Fatalf("pod status: %v", err)
					}
				}
				w.emit("create-pod", "Pod "+model.KeyOf(testNS, name), fmt.Sprintf("ip=%s ready=%t", ip, ready))
				return ""
			case "ready":
				var name string
				ready := true
				d.ScanArgs(t, "pod", &name)
				d.MaybeScanArgs(t, "ready", &ready)
				w.setReady(name, ready)
				w.emit("kubelet", "Pod "+model.KeyOf(testNS, name), fmt.Sprintf("ready=%t", ready))
				return ""
			case "set-ip":
				var name, ip string
				d.ScanArgs(t, "pod", &name)
				d.ScanArgs(t, "ip", &ip)
				p := w.pod(name).DeepCopy()
				p.Status.PodIP = ip
				if _, err := w.store.UpdateStatus(p); err != nil {
					t.Fatalf("pod status: %v", err)
				}
				w.emit("kubelet", "Pod "+model.KeyOf(testNS, name), "ip="+ip)
				return ""
			case "delete-pod", "remove-pod":
				var name string
				d.ScanArgs(t, "pod", &name)
				opts := model.DeleteOptions{}
				if d.Cmd == "remove-pod" {
					opts.GracePeriodSeconds = model.Ptr(int64(0))
				}
				if _, err := w.store.Delete(model.KindPod, testNS, name, opts); err != nil {
					t.Fatalf("delete: %v", err)
				}
				w.emit(d.Cmd, "Pod "+model.KeyOf(testNS, name), "")
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
				w.emit("relabel", "Pod "+model.KeyOf(testNS, name), lbl)
				return ""
			case "delete-service":
				var name string
				d.ScanArgs(t, "name", &name)
				if _, err := w.store.Delete(model.KindService, testNS, name, model.DeleteOptions{}); err != nil {
					t.Fatalf("delete service: %v", err)
				}
				w.emit("delete-service", "Service "+model.KeyOf(testNS, name), "")
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
				return w.newTrace(show == "api")
			case "slices":
				var name string
				d.ScanArgs(t, "service", &name)
				return w.slicesText(name)
			case "ready-endpoints":
				var name string
				d.ScanArgs(t, "service", &name)
				return fmt.Sprintf("cache=%d store=%d\n", w.ec.ReadyEndpoints(model.KeyOf(testNS, name)), CountReady(w.slices(name)))
			}
			t.Fatalf("%s: unknown command %q", d.Pos, d.Cmd)
			return ""
		})
	})
}
