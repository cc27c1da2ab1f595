package endpointslice

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim/internal/testworld"
)

const testNS = testworld.Namespace

// world is the shared test world with the EndpointSlice controller on its own client and
// informers. The test plays the kubelets and users by writing to the store directly.
type world struct {
	*testworld.World
	ec *Controller
}

func newWorld(t testing.TB, cfg Config) *world {
	w := &world{}
	w.World = testworld.New(t, testworld.Options{AfterRun: w.checkInvariants})
	ec, f := testworld.NewController(w.World, Component, EventSourceComponent, New, cfg)
	w.ec = ec
	w.Show = func(d *datadriven.TestData, f []string) bool {
		if len(f) < 4 {
			return false
		}
		var show string
		d.MaybeScanArgs(t, "show", &show)
		return f[1] == Component || f[1] == "test" || f[1] == EventSourceComponent ||
			(show == "api" && f[1] == "kube-apiserver" && f[3] == string(model.KindEndpointSlice))
	}
	f.Start(w.K)
	ec.Start()
	w.Settle(100 * time.Millisecond)
	return w
}

// checkInvariants runs after every step (on top of the shared world's): no pod is an
// endpoint of two slices of one Service; no slice holds more endpoints than the limit; every
// ready endpoint belongs to a pod that exists.
func (w *world) checkInvariants() string {
	seen := map[string]string{}
	for _, s := range w.slices("") {
		if len(s.Endpoints) > int(w.ec.cfg.MaxEndpointsPerSlice) {
			return fmt.Sprintf("slice %s has %d endpoints, limit %d", s.Name, len(s.Endpoints), w.ec.cfg.MaxEndpointsPerSlice)
		}
		for _, ep := range s.Endpoints {
			key := s.Labels[model.LabelServiceName] + "/" + ep.TargetRef.Name
			if other, dup := seen[key]; dup {
				return fmt.Sprintf("pod %s is in slices %s and %s", ep.TargetRef.Name, other, s.Name)
			}
			seen[key] = s.Name
			if _, err := w.Store.Get(model.KindPod, testNS, ep.TargetRef.Name); err != nil && (ep.Conditions.Ready == nil || *ep.Conditions.Ready) {
				return fmt.Sprintf("ready endpoint for missing pod %s in %s", ep.TargetRef.Name, s.Name)
			}
		}
	}
	return ""
}

// slices returns the stored slices of a Service ("" for all), in key order.
func (w *world) slices(service string) []*model.EndpointSlice {
	var out []*model.EndpointSlice
	for _, s := range testworld.List[*model.EndpointSlice](w.World, model.KindEndpointSlice, testNS) {
		if service == "" || s.Labels[model.LabelServiceName] == service {
			out = append(out, s)
		}
	}
	return out
}

func (w *world) slicesText(service string) string {
	var b strings.Builder
	for _, s := range w.slices(service) {
		fmt.Fprintf(&b, "%s ports=%s endpoints=%d ready=%d labels=%s\n", s.Name, portsText(s.Ports), len(s.Endpoints),
			CountReady([]*model.EndpointSlice{s}), testworld.LabelString(s.Labels))
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

func boolText(b *bool) string {
	if b == nil {
		return "nil"
	}
	return strconv.FormatBool(*b)
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
	testworld.Walk(t, "testdata", func(t *testing.T, d *datadriven.TestData) (*world, string) {
		cfg := DefaultConfig()
		var maxEP int
		if d.HasArg("max-endpoints") {
			d.ScanArgs(t, "max-endpoints", &maxEP)
			cfg.MaxEndpointsPerSlice = int32(maxEP)
		}
		d.MaybeScanArgs(t, "batch", &cfg.EndpointUpdatesBatchPeriod)
		d.MaybeScanArgs(t, "fallback", &cfg.PodNameAddressFallback)
		return newWorld(t, cfg), ""
	}, func(t *testing.T, w *world) testworld.Commands {
		return testworld.Commands{
			"node": func(d *datadriven.TestData) string {
				name := testworld.Arg[string](t, d, "name")
				n := &model.Node{}
				n.Name = name
				if _, err := w.Store.Create(n); err != nil {
					t.Fatalf("create node: %v", err)
				}
				return ""
			},
			"service": func(d *datadriven.TestData) string {
				name := testworld.Arg[string](t, d, "name")
				sel := testworld.Arg[string](t, d, "selector")
				svc := &model.Service{}
				svc.Name, svc.Namespace = name, testNS
				svc.Spec.Selector = testworld.ParseLabels(t, sel)
				svc.Labels = testworld.LabelsArg(t, d, "labels")
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
				if _, err := w.Store.Create(svc); err != nil {
					t.Fatalf("create service: %v", err)
				}
				return ""
			},
			"pod": func(d *datadriven.TestData) string {
				var node, ip string
				var ready bool
				name := testworld.Arg[string](t, d, "name")
				lbl := testworld.Arg[string](t, d, "labels")
				d.MaybeScanArgs(t, "node", &node)
				d.MaybeScanArgs(t, "ip", &ip)
				d.MaybeScanArgs(t, "ready", &ready)
				p := &model.Pod{}
				p.Name, p.Namespace, p.Labels = name, testNS, testworld.ParseLabels(t, lbl)
				p.Spec.Containers = []model.Container{{Name: "app", Image: "registry.example/app:1"}}
				p.Spec.NodeName = node
				created, err := w.Store.Create(p)
				if err != nil {
					t.Fatalf("create pod: %v", err)
				}
				if ip != "" || ready {
					p = created.(*model.Pod).DeepCopy()
					p.Status.PodIP = ip
					p.Status.Phase = model.PodRunning
					if ready {
						p.Status.Conditions = []model.PodCondition{{Type: model.PodReady, Status: model.ConditionTrue, LastTransitionTime: w.K.Now()}}
					}
					if _, err := w.Store.UpdateStatus(p); err != nil {
						t.Fatalf("pod status: %v", err)
					}
				}
				w.Emit("create-pod", "Pod "+model.KeyOf(testNS, name), fmt.Sprintf("ip=%s ready=%t", ip, ready))
				return ""
			},
			"ready": func(d *datadriven.TestData) string { return w.Ready(d) },
			"set-ip": func(d *datadriven.TestData) string {
				name := testworld.Arg[string](t, d, "pod")
				ip := testworld.Arg[string](t, d, "ip")
				p := w.Pod(name).DeepCopy()
				p.Status.PodIP = ip
				if _, err := w.Store.UpdateStatus(p); err != nil {
					t.Fatalf("pod status: %v", err)
				}
				w.Emit("kubelet", "Pod "+model.KeyOf(testNS, name), "ip="+ip)
				return ""
			},
			"relabel": func(d *datadriven.TestData) string {
				p, lbl := w.Relabel(d)
				w.Emit("relabel", "Pod "+model.KeyOf(testNS, p.Name), lbl)
				return ""
			},
			"delete-service": func(d *datadriven.TestData) string {
				name := testworld.Arg[string](t, d, "name")
				if _, err := w.Store.Delete(model.KindService, testNS, name, model.DeleteOptions{}); err != nil {
					t.Fatalf("delete service: %v", err)
				}
				w.Emit("delete-service", "Service "+model.KeyOf(testNS, name), "")
				return ""
			},
			"slices": func(d *datadriven.TestData) string {
				name := testworld.Arg[string](t, d, "service")
				return w.slicesText(name)
			},
			"ready-endpoints": func(d *datadriven.TestData) string {
				name := testworld.Arg[string](t, d, "service")
				return fmt.Sprintf("cache=%d store=%d\n", w.ec.ReadyEndpoints(model.KeyOf(testNS, name)), CountReady(w.slices(name)))
			},
		}
	})
}
