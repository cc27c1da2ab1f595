package gc

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/cockroachdb/datadriven"
	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim/client"
	"github.com/reconsim/reconsim/sim/internal/testworld"
)

const testNS = testworld.Namespace

// world is the shared test world with the garbage collector. The test plays the user, the
// ReplicaSet controller and the kubelet by writing to the store directly.
type world struct {
	*testworld.World
	gc *Controller
}

func newWorld(t testing.TB, cfg Config) *world {
	w := &world{World: testworld.New(t, testworld.Options{})}
	// kube-controller-manager: --kube-api-qps 20 (doubled for the collector), --kube-api-burst 30.
	c, f := w.ClientWith(Component, client.Config{QPS: 20 * ClientQPSMultiplier, Burst: 30})
	gc, err := New(w.K, c, f, w.Recorder(EventSource), cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	w.gc = gc
	w.Show = func(_ *datadriven.TestData, f []string) bool {
		switch f[1] {
		case Component, "test":
			return true
		case "kube-apiserver":
			return len(f) > 3 && (f[3] == "Pod" || f[3] == "ReplicaSet")
		}
		return false
	}
	f.Start(w.K)
	gc.Start()
	w.Settle(100 * time.Millisecond)
	return w
}

func (w *world) get(kind model.Kind, name string) model.Object {
	return testworld.Get[model.Object](w.World, kind, testNS, name)
}

func (w *world) createRS(name string) *model.ReplicaSet {
	rs := &model.ReplicaSet{}
	rs.Name, rs.Namespace = name, testNS
	rs.Spec.Replicas = model.Ptr(int32(0))
	rs.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": name}}
	rs.Spec.Template.Labels = map[string]string{"app": name}
	rs.Spec.Template.Spec.Containers = []model.Container{{Name: "app", Image: "registry.example/app:1"}}
	obj, err := w.Store.Create(rs)
	if err != nil {
		w.T.Fatalf("create rs: %v", err)
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
	if _, err := w.Store.Create(p); err != nil {
		w.T.Fatalf("create pod: %v", err)
	}
}

// objects lists the ReplicaSets and pods of the namespace with their owners and deletion state.
func (w *world) objects() string {
	var b strings.Builder
	for _, kind := range []model.Kind{model.KindReplicaSet, model.KindPod} {
		objs, _, err := w.Store.List(kind, model.ListOptions{Namespace: testNS})
		if err != nil {
			w.T.Fatalf("list: %v", err)
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
