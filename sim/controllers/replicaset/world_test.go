package replicaset

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim"
	"github.com/reconsim/reconsim/sim/apiserver"
	"github.com/reconsim/reconsim/sim/client"
	"github.com/reconsim/reconsim/sim/client/record"
	"github.com/reconsim/reconsim/vtime"
)

const testNS = "default"

// world is a small cluster for trace tests: a kernel, an API server, and the ReplicaSet
// controller with its own client and informers. The test plays every other actor (user,
// scheduler, kubelet) by writing to the store directly.
type world struct {
	t     testing.TB
	k     *sim.Kernel
	srv   *apiserver.Server
	store *apiserver.Store
	rsc   *Controller
	sink  *record.FakeSink

	trace   bytes.Buffer
	printed int // bytes of trace already shown

	// invariant state
	lastRV       uint64
	invariantsAt int               // bytes of trace already checked
	boundTo      map[string]string // pod uid -> node it was first seen bound to
}

func newWorld(t testing.TB, cfg Config) *world {
	w := &world{t: t, k: sim.New(1), sink: &record.FakeSink{}, boundTo: map[string]string{}}
	w.k.Trace().SetWriter(&w.trace)
	w.srv = apiserver.NewServer(w.k, apiserver.DefaultConfig())
	w.store = w.srv.Store()
	// kube-controller-manager's client: --kube-api-qps 20, --kube-api-burst 30.
	c := client.New(w.srv, Component, client.Config{QPS: 20, Burst: 30})
	f := client.NewSharedInformerFactory(c, 0)
	rec := record.New(w.k, w.sink, Component, "")
	rsc, err := New(w.k, c, f, rec, cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	w.rsc = rsc
	f.Start(w.k)
	rsc.Start()
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

// checkInvariants runs after every step: resourceVersions only grow, no pod has two
// controllers, and a pod once bound stays on its node.
func (w *world) checkInvariants() {
	for _, line := range strings.Split(w.trace.String()[w.invariantsAt:], "\n") {
		f := strings.Fields(line)
		if len(f) < 6 || f[1] != "kube-apiserver" || !strings.HasPrefix(f[5], "rv=") {
			continue
		}
		rv, err := strconv.ParseUint(strings.TrimPrefix(f[5], "rv="), 10, 64)
		if err != nil {
			continue
		}
		if rv <= w.lastRV {
			w.t.Fatalf("invariant: resourceVersion went from %d to %d: %s", w.lastRV, rv, line)
		}
		w.lastRV = rv
	}
	w.invariantsAt = w.trace.Len()
	for _, p := range w.pods() {
		n := 0
		for _, r := range p.OwnerReferences {
			if r.Controller != nil && *r.Controller {
				n++
			}
		}
		if n > 1 {
			w.t.Fatalf("invariant: pod %s has %d controllers", p.Name, n)
		}
		if p.Spec.NodeName == "" {
			continue
		}
		if prev, ok := w.boundTo[p.UID]; ok && prev != p.Spec.NodeName {
			w.t.Fatalf("invariant: pod %s moved from node %s to %s", p.Name, prev, p.Spec.NodeName)
		}
		w.boundTo[p.UID] = p.Spec.NodeName
	}
}

// pods returns the pods of the test namespace, sorted by name.
func (w *world) pods() []*model.Pod {
	objs, _, err := w.store.List(model.KindPod, model.ListOptions{Namespace: testNS})
	if err != nil {
		w.t.Fatalf("list pods: %v", err)
	}
	out := podsOf(objs)
	slices.SortFunc(out, func(a, b *model.Pod) int { return strings.Compare(a.Name, b.Name) })
	return out
}

func (w *world) rs(name string) *model.ReplicaSet {
	obj, err := w.store.Get(model.KindReplicaSet, testNS, name)
	if err != nil {
		w.t.Fatalf("get rs %s: %v", name, err)
	}
	return obj.(*model.ReplicaSet)
}

// podArg resolves "pod=<n>", an index into pods(), or a pod name.
func (w *world) podArg(d *datadriven.TestData) *model.Pod {
	var v string
	d.ScanArgs(w.t, "pod", &v)
	pods := w.pods()
	if i, err := strconv.Atoi(v); err == nil {
		if i < 0 || i >= len(pods) {
			w.t.Fatalf("pod index %d out of range (%d pods)", i, len(pods))
		}
		return pods[i]
	}
	for _, p := range pods {
		if p.Name == v {
			return p
		}
	}
	w.t.Fatalf("no pod %q", v)
	return nil
}

func (w *world) emit(action, object, detail string) { w.k.Emit("test", action, object, 0, detail) }

// newTrace returns the trace lines since the last call that the filter keeps.
func (w *world) newTrace(keep func(component, action, kind string) bool) string {
	all := w.trace.String()[w.printed:]
	w.printed = w.trace.Len()
	var b strings.Builder
	for _, line := range strings.Split(all, "\n") {
		f := strings.Fields(line)
		if len(f) < 3 {
			continue
		}
		kind := ""
		if len(f) > 3 {
			kind = f[3]
		}
		if keep(f[1], f[2], kind) {
			b.WriteString(line)
			b.WriteByte('\n')
		}
	}
	return b.String()
}

func template(name string) model.PodTemplateSpec {
	var t model.PodTemplateSpec
	t.Labels = map[string]string{"app": name}
	t.Spec.Containers = []model.Container{{Name: "app", Image: "registry.example/app:1"}}
	return t
}

func (w *world) podLine(p *model.Pod) string {
	owner := "-"
	if ref := model.ControllerOf(p); ref != nil {
		owner = string(ref.Kind) + "/" + ref.Name
	}
	node := p.Spec.NodeName
	if node == "" {
		node = "<none>"
	}
	state := p.Status.Phase
	if IsPodReady(p) {
		state += ",Ready"
	}
	if p.DeletionTimestamp != nil {
		state += ",Terminating"
	}
	return fmt.Sprintf("%s node=%s %s owner=%s labels=%s", p.Name, node, state, owner, labelString(p.Labels))
}

func labelString(l map[string]string) string {
	keys := make([]string, 0, len(l))
	for k := range l { //detlint:ordered sorted below
		keys = append(keys, k)
	}
	slices.Sort(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + l[k]
	}
	return strings.Join(parts, ",")
}

// createFault fails pod creations: the (after+1)-th to (after+count)-th create attempts are
// refused as a ResourceQuota admission would refuse them.
type createFault struct {
	after, count, seen int
}

func (f *createFault) Intercept(_ vtime.Time, req *apiserver.Request) (time.Duration, error) {
	if req.Verb != model.VerbCreate || req.Kind != model.KindPod {
		return 0, nil
	}
	f.seen++
	if f.seen > f.after && f.seen <= f.after+f.count {
		return 0, apierrors.NewForbidden(schema.GroupResource{Resource: "pods"}, req.Name,
			fmt.Errorf("exceeded quota: compute-resources, requested: pods=1"))
	}
	return 0, nil
}
