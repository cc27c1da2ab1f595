package apiserver

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim"
	"github.com/reconsim/reconsim/vtime"
)

// newTestStore returns a kernel and a store with the default configuration, changed by edit.
func newTestStore(t testing.TB, edit func(*StoreConfig)) (*sim.Kernel, *Store) {
	t.Helper()
	k := sim.New(1)
	cfg := DefaultStoreConfig()
	if edit != nil {
		edit(&cfg)
	}
	return k, NewStore(k, cfg)
}

// run advances the kernel by d of virtual time.
func run(k *sim.Kernel, d time.Duration) sim.Outcome {
	return k.Run(sim.Limits{MaxTime: k.Now().Add(d)})
}

// delivered is one event as a sink saw it, with the delivery time.
type delivered struct {
	at vtime.Time
	ev WatchEvent
}

// recorder is a WatchSink that keeps everything it is given.
type recorder struct {
	k        *sim.Kernel
	events   []delivered
	closed   int
	closeErr error
	onEvent  func(WatchEvent)
}

func (r *recorder) OnWatchEvent(ev WatchEvent) {
	r.events = append(r.events, delivered{at: r.k.Now(), ev: ev})
	if r.onEvent != nil {
		r.onEvent(ev)
	}
}

func (r *recorder) OnWatchClosed(err error) {
	r.closed++
	r.closeErr = err
}

// nonBookmarks returns the recorded events other than bookmarks.
func (r *recorder) nonBookmarks() []WatchEvent {
	var out []WatchEvent
	for _, d := range r.events {
		if d.ev.Type != Bookmark {
			out = append(out, d.ev)
		}
	}
	return out
}

// summary renders events as "TYPE ns/name@rv" for compact comparisons.
func summary(evs []WatchEvent) []string {
	out := make([]string, len(evs))
	for i, e := range evs {
		out[i] = string(e.Type) + " " + model.Key(e.Object) + "@" + model.RV(e.ResourceVersion)
	}
	return out
}

// newPod returns a pod in namespace default with one container.
func newPod(name string) *model.Pod {
	return &model.Pod{
		ObjectMeta: model.ObjectMeta{Name: name, Namespace: "default"},
		Spec: model.PodSpec{Containers: []model.Container{{
			Name:  "app",
			Image: "nginx:1.27",
			Resources: model.ResourceRequirements{Requests: model.ResourceList{
				model.ResourceCPU: resource.MustParse("100m"),
			}},
		}}},
	}
}

// newReplicaSet returns a replica set in namespace default selecting app=name.
func newReplicaSet(name string, replicas int32) *model.ReplicaSet {
	labels := map[string]string{"app": name}
	return &model.ReplicaSet{
		ObjectMeta: model.ObjectMeta{Name: name, Namespace: "default"},
		Spec: model.ReplicaSetSpec{
			Replicas: model.Ptr(replicas),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: model.PodTemplateSpec{
				ObjectMeta: model.ObjectMeta{Labels: labels},
				Spec:       model.PodSpec{Containers: []model.Container{{Name: "app", Image: "nginx:1.27"}}},
			},
		},
	}
}

func newLease(name string) *model.Lease {
	return &model.Lease{
		ObjectMeta: model.ObjectMeta{Name: name, Namespace: "kube-node-lease"},
		Spec:       model.LeaseSpec{HolderIdentity: name, LeaseDurationSeconds: model.Ptr(int32(40))},
	}
}

func newNode(name string) *model.Node {
	return &model.Node{ObjectMeta: model.ObjectMeta{Name: name}}
}

// mustCreate creates obj and fails the test on error.
func mustCreate[T model.Object](t testing.TB, s *Store, obj T) T {
	t.Helper()
	out, err := s.Create(obj)
	require.NoError(t, err)
	return out.(T)
}

// copyOf returns a deep copy of a stored object, typed.
func copyOf[T model.Object](obj T) T { return obj.DeepCopyObject().(T) }
