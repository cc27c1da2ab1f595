package apiserver

import (
	"reflect"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reconsim/reconsim/model"
)

func TestWithResourceVersionCopiesOnlyTheRevision(t *testing.T) {
	for _, info := range model.Kinds() {
		obj := info.New()
		obj.Meta().Name, obj.Meta().ResourceVersion = "x", 4
		obj.Meta().Labels = map[string]string{"a": "b"}
		got := withResourceVersion(obj, 9)
		require.IsType(t, obj, got, "%s", info.Kind)
		assert.NotSame(t, obj.Meta(), got.Meta(), "%s: a new object", info.Kind)
		assert.Equal(t, uint64(9), got.Meta().ResourceVersion)
		assert.Equal(t, uint64(4), obj.Meta().ResourceVersion, "%s: the original keeps its revision", info.Kind)
		got.Meta().ResourceVersion = 4
		assert.True(t, reflect.DeepEqual(obj, got), "%s: everything else is the same", info.Kind)
	}
}

// TestDeletedEventCarriesLastStateAtDeletionRevision: the DELETED event's object is the last
// stored state with the deletion's revision; the object the delete returned is untouched.
func TestDeletedEventCarriesLastStateAtDeletionRevision(t *testing.T) {
	k, s := newTestStore(t, nil)
	rec := &recorder{k: k}
	_, err := s.Watch(model.KindReplicaSet, model.ListOptions{}, 0, rec)
	require.NoError(t, err)
	rs := mustCreate(t, s, newReplicaSet("web", 2))
	last, err := s.Delete(model.KindReplicaSet, "default", "web", model.DeleteOptions{})
	require.NoError(t, err)
	run(k, time.Second)
	evs := rec.nonBookmarks()
	require.Len(t, evs, 2)
	del := evs[1]
	assert.Equal(t, Deleted, del.Type)
	assert.Equal(t, s.Revision(), del.ResourceVersion)
	assert.Equal(t, s.Revision(), del.Object.Meta().ResourceVersion)
	assert.Equal(t, rs.ResourceVersion, last.Meta().ResourceVersion, "the returned object keeps its stored revision")
	assert.Equal(t, last.(*model.ReplicaSet).Spec, del.Object.(*model.ReplicaSet).Spec)
}
