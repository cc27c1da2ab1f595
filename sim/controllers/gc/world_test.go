package gc

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim"
	"github.com/reconsim/reconsim/sim/apiserver"
	"github.com/reconsim/reconsim/sim/client"
	"github.com/reconsim/reconsim/sim/client/record"
)

const testNS = "default"

// world is a small cluster for trace tests: a kernel, an API server and the garbage
// collector. The test plays the user, the ReplicaSet controller and the kubelet by writing to
// the store directly.
type world struct {
	t     testing.TB
	k     *sim.Kernel
	srv   *apiserver.Server
	store *apiserver.Store
	gc    *Controller
	sink  *record.FakeSink

	trace        bytes.Buffer
	printed      int
	invariantsAt int
	lastRV       uint64
}

func newWorld(t testing.TB, cfg Config) *world {
	w := &world{t: t, k: sim.New(1), sink: &record.FakeSink{}}
	w.k.Trace().SetWriter(&w.trace)
	w.srv = apiserver.NewServer(w.k, apiserver.DefaultConfig())
	w.store = w.srv.Store()
	// kube-controller-manager: --kube-api-qps 20 (doubled for the collector), --kube-api-burst 30.
	c := client.New(w.srv, Component, client.Config{QPS: 20 * ClientQPSMultiplier, Burst: 30})
	f := client.NewSharedInformerFactory(c, 0)
	gc, err := New(w.k, c, f, record.New(w.k, w.sink, EventSource, ""), cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	w.gc = gc
	f.Start(w.k)
	gc.Start()
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

// checkInvariants: resourceVersions only grow; the graph's real nodes all exist in the store
// or are being removed by an event still in flight is not checked (the graph lags by design).
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
}

func (w *world) get(kind model.Kind, name string) model.Object {
	obj, err := w.store.Get(kind, testNS, name)
	if err != nil {
		w.t.Fatalf("get %s %s: %v", kind, name, err)
	}
	return obj
}

func (w *world) createRS(name string) *model.ReplicaSet {
	rs := &model.ReplicaSet{}
	rs.Name, rs.Namespace = name, testNS
	rs.Spec.Replicas = model.Ptr(int32(0))
	rs.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": name}}
	rs.Spec.Template.Labels = map[string]string{"app": name}
	rs.Spec.Template.Spec.Containers = []model.Container{{Name: "app", Image: "registry.example/app:1"}}
	obj, err := w.store.Create(rs)
	if err != nil {
		w.t.Fatalf("create rs: %v", err)
	}
	return obj.(*model.ReplicaSet)
}

func (w *world) createPod(name string, labels map[string]string, refs []model.OwnerReference, node string) {
	p := &model.Pod{}
	p.Name, p.Namespace = name, testNS
	p.Labels = labels
	p.OwnerReferences = refs
	p.Spec.NodeName = node
	p.Spec.Containers = []model.Container{{Name: "app", Image: "registry.example/app:1"}}
	if _, err := w.store.Create(p); err != nil {
		w.t.Fatalf("create pod: %v", err)
	}
}

// objects lists the ReplicaSets and pods of the namespace with their owners and deletion state.
func (w *world) objects() string {
	var b strings.Builder
	for _, kind := range []model.Kind{model.KindReplicaSet, model.KindPod} {
		objs, _, err := w.store.List(kind, model.ListOptions{Namespace: testNS})
		if err != nil {
			w.t.Fatalf("list: %v", err)
		}
		slices.SortFunc(objs, func(a, b model.Object) int { return strings.Compare(a.Meta().Name, b.Meta().Name) })
		for _, o := range objs {
			m := o.Meta()
			fmt.Fprintf(&b, "%s %s uid=%s", kind, m.Name, shortUID(m.UID))
			var owners []string
			for _, r := range m.OwnerReferences {
				s := string(r.Kind) + "/" + r.Name + "(" + shortUID(r.UID) + ")"
				if r.BlockOwnerDeletion != nil && *r.BlockOwnerDeletion {
					s += ",block"
				}
				owners = append(owners, s)
			}
			if len(owners) > 0 {
				fmt.Fprintf(&b, " owners=%s", strings.Join(owners, ";"))
			}
			if m.DeletionTimestamp != nil {
				fmt.Fprintf(&b, " deleting-since=%s", *m.DeletionTimestamp)
			}
			if len(m.Finalizers) > 0 {
				fmt.Fprintf(&b, " finalizers=%s", strings.Join(m.Finalizers, ","))
			}
			b.WriteByte('\n')
		}
	}
	return b.String()
}

func shortUID(uid string) string {
	if len(uid) > 8 {
		return uid[:8]
	}
	return uid
}

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
