package client

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/reconsim/reconsim/model"
)

// TestStoreIndexesMatchBruteForce puts, replaces and removes random pods in a store (and adds
// an index and clears it on the way) and checks after every step that all, and byIndex of a
// random few indexes, give what a scan of the expected contents gives: the same entries,
// sorted by key. As the built-in indexes are built on their first query, each is first
// queried after a random number of steps. Half the seeds start with more indexes than an
// entry holds inline (maxInlineIndexes), and a cleared store is sometimes reserved for a few
// puts, so that entries are made in each of newEntry's ways. A third of the seeds give the
// custom index a same test (AddIndexer's unchanged), so that updates it passes keep their
// values without calling the index function.
func TestStoreIndexesMatchBruteForce(t *testing.T) {
	for seed := uint64(1); seed <= 20; seed++ {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			r := rand.New(rand.NewPCG(seed, 0))
			s := newStore()
			want := map[string]model.Object{}
			zoneIndex := func(obj model.Object) []string {
				if z, ok := obj.Meta().Labels["zone"]; ok {
					return []string{z, "any"}
				}
				return nil
			}
			var sameZone func(old, cur model.Object) bool
			if seed%3 == 0 {
				sameZone = func(old, cur model.Object) bool {
					o, okOld := old.Meta().Labels["zone"]
					c, okCur := cur.Meta().Labels["zone"]
					return okOld == okCur && o == c
				}
			}
			if seed%2 == 0 {
				for i := range maxInlineIndexes - len(builtinIndexers()) + 1 {
					s.addIndex(fmt.Sprintf("pad%d", i), NamespaceIndexFunc, nil)
				}
			}
			for step := 0; step < 400; step++ {
				switch op := r.IntN(100); {
				case op == 0:
					s.clear()
					clear(want)
					if r.IntN(2) == 0 {
						s.reserve(1 + r.IntN(10))
					}
				case op == 1 && !s.hasIndex("zone"):
					s.addIndex("zone", zoneIndex, sameZone)
				case op < 30:
					key := fmt.Sprintf("ns%d/p%d", r.IntN(2), r.IntN(40))
					s.remove(key)
					delete(want, key)
				default:
					pod := randomPod(r)
					key := model.Key(pod)
					s.put(key, pod)
					want[key] = pod
				}
				var names []string
				for _, name := range []string{IndexLabel, IndexNamespace, IndexNodeName, IndexOwnerUID, "zone"} {
					if r.IntN(20) == 0 {
						names = append(names, name)
					}
				}
				checkStore(t, s, want, zoneIndex, step, names)
			}
			checkStore(t, s, want, zoneIndex, -1, []string{IndexLabel, IndexNamespace, IndexNodeName, IndexOwnerUID, "zone"})
		})
	}
}

func randomPod(r *rand.Rand) *model.Pod {
	pod := &model.Pod{}
	pod.Namespace = fmt.Sprintf("ns%d", r.IntN(2))
	pod.Name = fmt.Sprintf("p%d", r.IntN(40))
	pod.Labels = map[string]string{}
	for i := r.IntN(3); i > 0; i-- {
		pod.Labels[fmt.Sprintf("k%d", r.IntN(3))] = fmt.Sprintf("v%d", r.IntN(3))
	}
	if r.IntN(2) == 0 {
		pod.Labels["zone"] = fmt.Sprintf("z%d", r.IntN(3))
	}
	if r.IntN(2) == 0 {
		pod.Spec.NodeName = fmt.Sprintf("n%d", r.IntN(4))
	}
	if r.IntN(2) == 0 {
		pod.OwnerReferences = []model.OwnerReference{{Kind: "ReplicaSet", Name: "rs", UID: fmt.Sprintf("u%d", r.IntN(3)), Controller: model.Ptr(true)}}
	}
	return pod
}

func checkStore(t *testing.T, s *store, want map[string]model.Object, zoneIndex IndexFunc, step int, names []string) {
	t.Helper()
	keys := make([]string, 0, len(want))
	for k := range want {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	require.Equal(t, keys, entryKeys(s.all()), "step %d: all", step)
	fns := map[string]IndexFunc{IndexLabel: LabelIndexFunc, IndexNamespace: NamespaceIndexFunc, IndexNodeName: NodeNameIndexFunc, IndexOwnerUID: OwnerUIDIndexFunc}
	if s.hasIndex("zone") {
		fns["zone"] = zoneIndex
	}
	for _, name := range names {
		fn, ok := fns[name]
		if !ok {
			continue
		}
		byValue := map[string][]string{}
		for _, k := range keys {
			for _, v := range fn(want[k]) {
				byValue[v] = append(byValue[v], k)
			}
		}
		s.byIndex(name, "none") // builds the index if it is not built yet
		require.Len(t, s.indices[name], len(byValue), "step %d: index %s has a bucket per value", step, name)
		for v, ks := range byValue {
			got := s.byIndex(name, v)
			require.Equal(t, ks, entryKeys(got), "step %d: index %s value %s", step, name, v)
			for _, e := range got {
				require.Same(t, want[e.key], e.obj, "step %d: the entry holds the latest object", step)
			}
		}
	}
}

func entryKeys(es []*entry) []string {
	out := make([]string, 0, len(es))
	for _, e := range es {
		out = append(out, e.key)
	}
	return out
}

// TestStoreLookupIsKey checks that lookup gives model.Key and the key's entry, whether or not
// the store holds the object, and that a held key is found without a new string.
func TestStoreLookupIsKey(t *testing.T) {
	s := newStore()
	held := &model.Pod{ObjectMeta: model.ObjectMeta{Namespace: "default", Name: "web-1"}}
	node := &model.Node{ObjectMeta: model.ObjectMeta{Name: "n1"}}
	s.put(model.Key(held), held)
	s.put(model.Key(node), node)
	for _, c := range []struct {
		obj  model.Object
		held bool
	}{
		{held, true},
		{&model.Pod{ObjectMeta: model.ObjectMeta{Namespace: "default", Name: "web-2"}}, false},
		{node, true},
		{&model.Node{ObjectMeta: model.ObjectMeta{Name: "n2"}}, false},
		{&model.Lease{ObjectMeta: model.ObjectMeta{Namespace: "kube-node-lease", Name: "n1"}}, false},
	} {
		key, e := s.lookup(c.obj)
		require.Equal(t, model.Key(c.obj), key)
		if c.held {
			require.Same(t, s.items[key], e)
		} else {
			require.Nil(t, e)
		}
	}
	require.Zero(t, testing.AllocsPerRun(10, func() { s.lookup(held) }))
}

// TestGetByKeyRefIsGetByKey holds GetByKeyRef, which answers from the entry it remembers
// while the cache has removed no key, to GetByKey over seeded scripts of adds, updates,
// removes of the key asked about and of others, re-adds and clears (Stop), with a ref kept
// per key as a caller keeps it.
func TestGetByKeyRefIsGetByKey(t *testing.T) {
	keys := []string{"a", "b", "c", "d"}
	for seed := uint64(0); seed < 50; seed++ {
		r := rand.New(rand.NewPCG(seed, 3))
		inf := &Informer{store: newStore()}
		refs := make([]EntryRef, len(keys))
		remembered := 0
		for step := 0; step < 300; step++ {
			i := r.IntN(len(keys))
			switch op := r.IntN(10); {
			case op < 4:
				inf.store.put(keys[i], &model.Node{ObjectMeta: model.ObjectMeta{Name: keys[i], ResourceVersion: uint64(step)}})
			case op < 6:
				inf.store.remove(keys[i])
			case op == 6:
				inf.store.clear()
			default:
				if refs[i].e != nil {
					remembered++
				}
				got, gotOK := inf.GetByKeyRef(keys[i], &refs[i])
				want, wantOK := inf.GetByKey(keys[i])
				require.Equal(t, wantOK, gotOK, "seed %d step %d key %s", seed, step, keys[i])
				if wantOK {
					require.Same(t, want, got, "seed %d step %d key %s", seed, step, keys[i])
				} else {
					require.Nil(t, got, "seed %d step %d key %s", seed, step, keys[i])
				}
			}
		}
		require.Positive(t, remembered, "seed %d asked with a filled ref", seed)
	}
}
