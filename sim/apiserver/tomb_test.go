package apiserver

import (
	"reflect"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/vtime"
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

// TestGracefulDeletionMarksEachVersion: a graceful delete marks a new version of the pod with
// its deletion timestamp and grace; a second delete with a shorter grace marks another, and
// the first version keeps its own marks.
func TestGracefulDeletionMarksEachVersion(t *testing.T) {
	k, s := newTestStore(t, nil)
	pod := newPod("web")
	pod.Spec.NodeName = "n1" // a scheduled pod is deleted with grace
	mustCreate(t, s, pod)
	var first, second model.Object
	k.After(10*time.Second, func() {
		var err error
		first, err = s.Delete(model.KindPod, "default", "web", model.DeleteOptions{})
		require.NoError(t, err)
	})
	k.After(20*time.Second, func() {
		var err error
		second, err = s.Delete(model.KindPod, "default", "web", model.DeleteOptions{GracePeriodSeconds: model.Ptr(int64(5))})
		require.NoError(t, err)
	})
	run(k, time.Minute)
	require.NotNil(t, first)
	require.NotNil(t, second)
	fm, sm := first.Meta(), second.Meta()
	require.NotNil(t, fm.DeletionTimestamp)
	require.NotNil(t, sm.DeletionTimestamp)
	assert.Equal(t, vtime.FromDuration(40*time.Second), *fm.DeletionTimestamp, "now + terminationGracePeriodSeconds 30")
	assert.Equal(t, int64(30), *fm.DeletionGracePeriodSeconds)
	assert.Equal(t, vtime.FromDuration(15*time.Second), *sm.DeletionTimestamp, "the first deadline moved 25s earlier")
	assert.Equal(t, int64(5), *sm.DeletionGracePeriodSeconds)
	assert.Equal(t, "web", second.(*model.Pod).Name)
}
