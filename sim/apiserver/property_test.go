package apiserver

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim"
	"github.com/reconsim/reconsim/vtime"
)

// expectedEvent is what a watcher must see for one revision.
type expectedEvent struct {
	typ EventType
	key string
	rv  uint64
	obj model.Object // the stored object for ADDED and MODIFIED; nil for DELETED
}

// TestPropertyWritesAreTotallyOrderedAndWatched drives random sequences of creates, updates,
// status updates, patches and deletes (stale and unconditional ones, finalizers, graceful pod
// deletion) over a few keys, and checks that every write takes exactly the next revision and
// that a watcher from revision 0 sees exactly the writes, in order, with the stored objects.
func TestPropertyWritesAreTotallyOrderedAndWatched(t *testing.T) {
	for seed := uint64(1); seed <= 20; seed++ {
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
			checkRandomWrites(t, seed, 400)
		})
	}
}

func checkRandomWrites(t *testing.T, seed uint64, steps int) {
	k, s := newTestStore(t, func(c *StoreConfig) {
		c.WatchDelay.Kind, c.WatchDelay.Min, c.WatchDelay.Max = "uniform", 0, 30*time.Millisecond
	})
	r := rand.New(rand.NewPCG(seed, 99))
	kinds := []model.Kind{model.KindPod, model.KindReplicaSet}
	recs := map[model.Kind]*recorder{}
	want := map[model.Kind][]expectedEvent{}
	for _, kind := range kinds {
		recs[kind] = &recorder{k: k}
		_, err := s.Watch(kind, model.ListOptions{}, 0, recs[kind])
		require.NoError(t, err)
	}
	names := []string{"a", "b", "c"}
	// Old snapshots give stale resourceVersions.
	var snapshots []model.Object

	newObject := func(kind model.Kind, name string) model.Object {
		var obj model.Object
		if kind == model.KindPod {
			p := newPod(name)
			if r.IntN(2) == 0 {
				p.Spec.NodeName = "n1"
			}
			obj = p
		} else {
			obj = newReplicaSet(name, int32(r.IntN(5)))
		}
		if r.IntN(3) == 0 {
			obj.Meta().Finalizers = []string{"example.com/hold"}
		}
		return obj
	}
	current := func(kind model.Kind, name string) model.Object {
		obj, err := s.Get(kind, "default", name)
		if err != nil {
			return nil
		}
		return obj
	}
	mutate := func(obj model.Object) {
		switch r.IntN(4) {
		case 0:
			obj.Meta().Labels = map[string]string{"v": fmt.Sprint(r.IntN(3))}
		case 1:
			obj.Meta().Finalizers = nil
		case 2:
			if rs, ok := obj.(*model.ReplicaSet); ok {
				rs.Spec.Replicas = model.Ptr(int32(r.IntN(5)))
			} else if p, ok := obj.(*model.Pod); ok && p.Spec.NodeName == "" {
				p.Spec.NodeName = "n2"
			}
		case 3:
			if rs, ok := obj.(*model.ReplicaSet); ok {
				rs.Status.Replicas = int32(r.IntN(5))
			} else {
				obj.(*model.Pod).Status.Phase = []string{model.PodRunning, model.PodSucceeded}[r.IntN(2)]
			}
		}
	}

	for step := 0; step < steps; step++ {
		kind := kinds[r.IntN(len(kinds))]
		name := names[r.IntN(len(names))]
		key := "default/" + name
		before := s.Revision()
		cur := current(kind, name)
		var (
			out model.Object
			err error
			op  string
		)
		switch n := r.IntN(10); {
		case n < 3:
			op = "create"
			out, err = s.Create(newObject(kind, name))
		case n < 6 && cur != nil:
			op = "update"
			base := cur
			if len(snapshots) > 0 && r.IntN(4) == 0 {
				base = snapshots[r.IntN(len(snapshots))]
				if base.GetKind() != kind || base.Meta().Name != name {
					base = cur
				}
			}
			upd := base.DeepCopyObject()
			if r.IntN(5) == 0 {
				upd.Meta().ResourceVersion = 0
			}
			mutate(upd)
			if r.IntN(3) == 0 {
				out, err = s.UpdateStatus(upd)
			} else {
				out, err = s.Update(upd)
			}
		case n < 7 && cur != nil:
			op = "patch"
			out, err = s.Patch(kind, "default", name, fmt.Appendf(nil, `{"metadata":{"annotations":{"step":"%d"}}}`, step))
		default:
			op = "delete"
			opts := model.DeleteOptions{}
			if r.IntN(2) == 0 {
				opts.GracePeriodSeconds = model.Ptr(int64(r.IntN(3) * 10))
			}
			if r.IntN(4) == 0 {
				p := []model.DeletionPropagation{model.DeletePropagationForeground, model.DeletePropagationOrphan, model.DeletePropagationBackground}[r.IntN(3)]
				opts.PropagationPolicy = &p
			}
			out, err = s.Delete(kind, "default", name, opts)
		}
		after := s.Revision()
		require.GreaterOrEqual(t, after, before)
		if err != nil {
			require.Equal(t, before, after, "a failed %s writes nothing: %v", op, err)
			continue
		}
		snapshots = append(snapshots, out)
		written := after - before
		require.LessOrEqual(t, written, uint64(2), "%s wrote %d revisions", op, written)
		if written == 0 {
			continue
		}
		require.Greater(t, out.Meta().ResourceVersion, uint64(0))
		if written == 2 {
			// Graceful pod deletion with grace 0: the marking, then the removal.
			require.Equal(t, "delete", op)
			require.Equal(t, before+1, out.Meta().ResourceVersion)
			want[kind] = append(want[kind], expectedEvent{Modified, key, before + 1, out})
		}
		if now := current(kind, name); now != nil {
			require.Equal(t, after, now.Meta().ResourceVersion, "the stored object carries the latest revision")
			typ := Modified
			if op == "create" {
				typ = Added
			}
			want[kind] = append(want[kind], expectedEvent{typ, key, after, now})
		} else {
			want[kind] = append(want[kind], expectedEvent{Deleted, key, after, nil})
		}
	}
	run(k, time.Second)

	// Every revision was one event of one kind: together they are 1..Revision.
	seen := map[uint64]bool{}
	for _, kind := range kinds {
		got := recs[kind].nonBookmarks()
		exp := want[kind]
		require.Len(t, got, len(exp), "kind %s", kind)
		for i, e := range exp {
			g := got[i]
			require.Equal(t, e.typ, g.Type, "event %d of %s", i, kind)
			require.Equal(t, e.rv, g.ResourceVersion, "event %d of %s", i, kind)
			require.Equal(t, e.key, model.Key(g.Object))
			require.Equal(t, e.rv, g.Object.Meta().ResourceVersion)
			if e.obj != nil {
				require.Same(t, e.obj, g.Object, "watchers get the stored object itself")
			}
			seen[e.rv] = true
		}
	}
	for rv := uint64(len(SystemNamespaces)) + 1; rv <= s.Revision(); rv++ {
		require.True(t, seen[rv], "revision %d was not delivered", rv)
	}
}

// TestSameSeedSameTrace runs the same random workload twice, through processes and the
// server (random service times and watch delays, generated names, creates, read-modify-write
// updates that conflict, 429s from a small in-flight limit, a watch), and compares the traces;
// another seed must give another trace.
func TestSameSeedSameTrace(t *testing.T) {
	runOnce := func(seed uint64) (uint64, uint64, []string) {
		k := sim.New(seed)
		cfg := DefaultConfig()
		cfg.ServiceTime[model.VerbCreate] = sim.Dist{Kind: sim.DistLogNormal, Median: 5 * time.Millisecond, P99: 50 * time.Millisecond}
		cfg.Store.WatchDelay = sim.Dist{Kind: sim.DistExponential, Min: time.Millisecond, Mean: 10 * time.Millisecond}
		cfg.MaxMutatingRequestsInflight = 3
		srv := NewServer(k, cfg)
		rec := &recorder{k: k}
		_, err := srv.Store().Watch(model.KindPod, model.ListOptions{}, 0, rec)
		require.NoError(t, err)
		// Shared objects every writer read-modify-writes after a random pause, so updates carry
		// stale resourceVersions and conflict.
		for i := range 3 {
			_, err := srv.Store().Create(newPod(fmt.Sprintf("shared-%d", i)))
			require.NoError(t, err)
		}
		conflicts := 0
		for w := range 5 {
			r := k.Rand(fmt.Sprintf("writer-%d", w))
			k.Spawn(fmt.Sprintf("writer-%d", w), func(p *sim.Proc) {
				for range 20 {
					pod := newPod("")
					pod.GenerateName = "w-"
					resp := srv.Do(p, &Request{Verb: model.VerbCreate, Kind: model.KindPod, Object: pod})
					if resp.Err != nil {
						p.Sleep(time.Second)
					}
					name := fmt.Sprintf("shared-%d", r.IntN(3))
					got := srv.Do(p, &Request{Verb: model.VerbGet, Kind: model.KindPod, Namespace: "default", Name: name})
					if got.Err != nil {
						continue
					}
					p.Sleep(time.Duration(r.IntN(20)) * time.Millisecond)
					upd := got.Object.DeepCopyObject()
					upd.Meta().Labels = map[string]string{"writer": fmt.Sprint(p.Name()), "n": fmt.Sprint(r.IntN(1000))}
					if resp := srv.Do(p, &Request{Verb: model.VerbUpdate, Kind: model.KindPod, Object: upd}); apierrors.IsConflict(resp.Err) {
						conflicts++
					}
				}
			})
		}
		k.Run(sim.Limits{MaxTime: vtime.FromDuration(time.Hour)})
		require.Positive(t, conflicts, "the workload has conflicting updates")
		var seen []string
		for _, d := range rec.events {
			seen = append(seen, fmt.Sprintf("%d %s", d.at, model.Key(d.ev.Object)))
		}
		return k.Trace().Hash(), k.Trace().Lines(), seen
	}
	h1, n1, s1 := runOnce(42)
	h2, n2, s2 := runOnce(42)
	require.Equal(t, n1, n2)
	require.Equal(t, h1, h2)
	require.Equal(t, s1, s2)
	require.Greater(t, n1, uint64(50))
	h3, _, _ := runOnce(43)
	require.NotEqual(t, h1, h3, "another seed gives another run")
}
