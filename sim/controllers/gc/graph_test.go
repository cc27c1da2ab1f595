package gc

import (
	"slices"
	"testing"

	"github.com/reconsim/reconsim/sim/internal/testworld"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim"
	"github.com/reconsim/reconsim/vtime"
)

func ref(uid, name string, block bool) model.OwnerReference {
	return model.OwnerReference{APIVersion: "apps/v1", Kind: model.KindReplicaSet, Name: name, UID: uid, Controller: model.Ptr(true), BlockOwnerDeletion: model.Ptr(block)}
}

func TestReferencesDiffs(t *testing.T) {
	old := []model.OwnerReference{ref("a", "x", true), ref("b", "y", true), ref("c", "z", false)}
	cur := []model.OwnerReference{ref("d", "w", true), ref("b", "y", false), ref("c", "z", false)}
	added, removed, changed := referencesDiffs(old, cur)
	require.Len(t, added, 1)
	assert.Equal(t, "d", added[0].UID)
	require.Len(t, removed, 1)
	assert.Equal(t, "a", removed[0].UID)
	require.Len(t, changed, 1)
	assert.Equal(t, "b", changed[0].newRef.UID)
	assert.True(t, blocks(changed[0].oldRef))
	assert.False(t, blocks(changed[0].newRef))

	a, r, c := referencesDiffs(old, old)
	assert.Empty(t, a)
	assert.Empty(t, r)
	assert.Empty(t, c)
}

func TestReferenceCacheEvictsLeastRecentlyUsed(t *testing.T) {
	c := newReferenceCache(2)
	a, b, d := objectReference{UID: "a"}, objectReference{UID: "b"}, objectReference{UID: "d"}
	c.Add(a)
	c.Add(b)
	assert.True(t, c.Has(a)) // a is now the most recent
	c.Add(d)                 // evicts b
	assert.False(t, c.Has(b))
	assert.True(t, c.Has(a))
	assert.True(t, c.Has(d))
	assert.Equal(t, 2, c.Len())
	c.Add(d) // re-adding does not grow
	assert.Equal(t, 2, c.Len())
}

func depNode(uid, ns string, owners ...model.OwnerReference) *node {
	return &node{identity: objectReference{APIVersion: "v1", Kind: model.KindPod, Name: uid, UID: uid, Namespace: ns}, owners: owners, dependents: map[string]*node{}}
}

func TestPartitionDependents(t *testing.T) {
	owner := objectReference{APIVersion: "apps/v1", Kind: model.KindReplicaSet, Name: "web", UID: "o1", Namespace: "ns"}
	good := depNode("p1", "ns", ref("o1", "web", true))
	wrongName := depNode("p2", "ns", ref("o1", "other", true))
	otherNS := depNode("p3", "elsewhere", ref("o1", "web", true))
	both := depNode("p4", "ns", ref("o1", "web", true), ref("o1", "other", true))
	matching, nonmatching := partitionDependents([]*node{good, wrongName, otherNS, both}, owner)
	names := func(ns []*node) []string {
		var out []string
		for _, n := range ns {
			out = append(out, n.identity.Name)
		}
		return out
	}
	assert.Equal(t, []string{"p1", "p4"}, names(matching))
	assert.Equal(t, []string{"p2", "p3", "p4"}, names(nonmatching))
}

func TestGetAlternateOwnerIdentity(t *testing.T) {
	absent := objectReference{APIVersion: "apps/v1", Kind: model.KindReplicaSet, Name: "b", UID: "o1", Namespace: "ns"}
	deps := []*node{
		depNode("p1", "ns", ref("o1", "a", true)),
		depNode("p2", "ns", ref("o1", "c", true)),
		depNode("p3", "ns", ref("o1", "b", true)), // the absent identity itself: skipped
	}
	alt := getAlternateOwnerIdentity(deps, absent)
	require.NotNil(t, alt)
	assert.Equal(t, "c", alt.Name, "the first identity after the absent one")

	absent.Name = "z"
	alt = getAlternateOwnerIdentity(deps, absent)
	require.NotNil(t, alt)
	assert.Equal(t, "a", alt.Name, "none follows: the first of all")

	assert.Nil(t, getAlternateOwnerIdentity([]*node{depNode("p", "ns", ref("o2", "x", true))}, absent))
}

func TestBlockingDependents(t *testing.T) {
	owner := &node{identity: objectReference{UID: "o1"}, dependents: map[string]*node{}}
	blocking := depNode("b", "ns", ref("o1", "web", true))
	loose := depNode("a", "ns", ref("o1", "web", false))
	other := depNode("c", "ns", ref("o2", "web", true), ref("o1", "web", true))
	for _, d := range []*node{blocking, loose, other} {
		owner.addDependent(d)
	}
	var got []string
	for _, d := range owner.blockingDependents() {
		got = append(got, d.identity.UID)
	}
	assert.Equal(t, []string{"b", "c"}, got)
	assert.Equal(t, 3, owner.dependentsLength())
}

func TestConfigValidate(t *testing.T) {
	assert.Equal(t, 20, DefaultConfig().ConcurrentGCSyncs)
	assert.True(t, DefaultConfig().EnableGarbageCollector)
	testworld.CheckConfig(t, DefaultConfig, []testworld.ConfigCase[Config]{
		{Name: "no workers", Edit: func(c *Config) { c.ConcurrentGCSyncs = 0 }, Want: "concurrent-gc-syncs"},
		{Name: "no absent owner cache", Edit: func(c *Config) { c.AbsentOwnerCacheSize = 0 }, Want: "absent owner cache"},
	})
}

func TestApiResource(t *testing.T) {
	gc := newWorld(t, DefaultConfig()).gc
	ki, err := gc.apiResource("apps/v1", model.KindReplicaSet)
	require.NoError(t, err)
	assert.True(t, ki.Namespaced)
	_, err = gc.apiResource("apps/v1beta1", model.KindReplicaSet)
	var rme *restMappingError
	assert.ErrorAs(t, err, &rme)
	_, err = gc.apiResource("example.com/v1", "Widget")
	assert.ErrorAs(t, err, &rme)
}

// TestReferencesDiffsShortcut checks that referencesDiffs, which skips the maps for lists that
// are equal with distinct UIDs, gives what the map-based comparison gives for random lists:
// equal or not, short or long, with repeated UIDs (where a reference can pair with another
// one of its UID) and without.
func TestReferencesDiffsShortcut(t *testing.T) {
	r := sim.NewRand(1, "references-diffs")
	randomList := func(n int) []model.OwnerReference {
		var out []model.OwnerReference
		for range n {
			out = append(out, ref(string(rune('a'+r.IntN(4))), string(rune('x'+r.IntN(2))), r.IntN(2) == 0))
		}
		return out
	}
	shortcuts := 0
	for i := range 2000 {
		old := randomList(r.IntN(11))
		cur := slices.Clone(old)
		if r.IntN(3) == 0 {
			cur = randomList(r.IntN(11))
		}
		if sameDistinctReferences(old, cur) {
			shortcuts++
		}
		a, rm, c := referencesDiffs(old, cur)
		wa, wrm, wc := referencesDiffsByUID(old, cur)
		require.Equal(t, wa, a, "case %d added", i)
		require.Equal(t, wrm, rm, "case %d removed", i)
		require.Equal(t, wc, c, "case %d changed", i)
	}
	assert.Greater(t, shortcuts, 100, "the shortcut was taken")
}

// TestGraphMetaUnchanged: an update is queued for the graph builder only when it changes what
// processGraphChanges reads (owner references, finalizers, whether a deletion is under way);
// a Lease renewal or a status write is not.
func TestGraphMetaUnchanged(t *testing.T) {
	now := vtime.Time(100)
	base := model.ObjectMeta{Name: "x", UID: "u1", Finalizers: []string{"f"},
		OwnerReferences: []model.OwnerReference{ref("o1", "owner", true)}}
	tests := []struct {
		name string
		edit func(m *model.ObjectMeta)
		want bool
	}{
		{"labels, annotations and resourceVersion only", func(m *model.ObjectMeta) {
			m.Labels = map[string]string{"a": "b"}
			m.Annotations = map[string]string{"c": "d"}
			m.ResourceVersion++
		}, true},
		{"owner reference added", func(m *model.ObjectMeta) {
			m.OwnerReferences = append(m.OwnerReferences, ref("o2", "other", false))
		}, false},
		{"blockOwnerDeletion changed", func(m *model.ObjectMeta) { m.OwnerReferences[0].BlockOwnerDeletion = model.Ptr(false) }, false},
		{"controller cleared", func(m *model.ObjectMeta) { m.OwnerReferences[0].Controller = nil }, false},
		{"finalizer added", func(m *model.ObjectMeta) { m.Finalizers = append(m.Finalizers, model.FinalizerOrphanDependents) }, false},
		{"finalizers emptied", func(m *model.ObjectMeta) { m.Finalizers = nil }, false},
		{"deletion started", func(m *model.ObjectMeta) { m.DeletionTimestamp = &now }, false},
		{"recreated under the same name", func(m *model.ObjectMeta) { m.UID = "u2" }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			old := base
			old.Finalizers = slices.Clone(base.Finalizers)
			old.OwnerReferences = slices.Clone(base.OwnerReferences)
			cur := old
			cur.Finalizers = slices.Clone(old.Finalizers)
			cur.OwnerReferences = slices.Clone(old.OwnerReferences)
			tt.edit(&cur)
			assert.Equal(t, tt.want, graphMetaUnchanged(&old, &cur))
		})
	}
}

// TestGraphMetaUnchangedOnSharedReferences holds the shared-array answer to the element
// comparison: an update that keeps old's owner reference array (a shallow copy) is unchanged
// exactly when one with an equal copy of the array is, and one whose references were edited
// in a copy is changed whether or not the arrays started shared.
func TestGraphMetaUnchangedOnSharedReferences(t *testing.T) {
	now := vtime.Time(100)
	refs := []model.OwnerReference{ref("o1", "owner", true), ref("o2", "other", false)}
	edits := []struct {
		name string
		edit func(m *model.ObjectMeta)
	}{
		{"nothing", func(*model.ObjectMeta) {}},
		{"resourceVersion", func(m *model.ObjectMeta) { m.ResourceVersion++ }},
		{"uid", func(m *model.ObjectMeta) { m.UID = "u2" }},
		{"deletion started", func(m *model.ObjectMeta) { m.DeletionTimestamp = &now }},
		{"finalizer added", func(m *model.ObjectMeta) { m.Finalizers = append(m.Finalizers, "g") }},
		{"reference dropped", func(m *model.ObjectMeta) { m.OwnerReferences = m.OwnerReferences[:1] }},
		{"reference edited", func(m *model.ObjectMeta) {
			m.OwnerReferences = slices.Clone(m.OwnerReferences)
			m.OwnerReferences[1].Name = "renamed"
		}},
	}
	for _, e := range edits {
		edit := e.edit
		t.Run(e.name, func(t *testing.T) {
			old := model.ObjectMeta{Name: "x", UID: "u1", Finalizers: []string{"f"}, OwnerReferences: refs}
			shared := old // the array itself, as a shallow copy keeps it
			edit(&shared)
			copied := old
			copied.OwnerReferences = slices.Clone(refs)
			edit(&copied)
			assert.Equal(t, graphMetaUnchanged(&old, &copied), graphMetaUnchanged(&old, &shared))
		})
	}
	old := model.ObjectMeta{UID: "u1", OwnerReferences: refs}
	assert.True(t, graphMetaUnchanged(&old, &old), "the same version")
}
