package controllerutil

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim/client"
	"github.com/reconsim/reconsim/vtime"
)

// ownedHandlersFor returns handlers over owners that log each hook as "hook:owner", in order.
func ownedHandlersFor(log *[]string, owners map[string]*model.ReplicaSet) OwnedHandlers[*model.Pod, *model.ReplicaSet] {
	return OwnedHandlers[*model.Pod, *model.ReplicaSet]{
		Resolve: func(_ string, ref *model.OwnerReference) (*model.ReplicaSet, bool) {
			rs, ok := owners[ref.Name]
			return rs, ok && rs.UID == ref.UID
		},
		Selecting: func(pod *model.Pod) []*model.ReplicaSet {
			if pod.Labels["app"] == "" {
				return nil
			}
			return []*model.ReplicaSet{owners["a"], owners["b"]}
		},
		Enqueue: func(rs *model.ReplicaSet) { *log = append(*log, "enqueue:"+rs.Name) },
		Created: func(rs *model.ReplicaSet) { *log = append(*log, "created:"+rs.Name) },
		Deleted: func(rs *model.ReplicaSet, pod *model.Pod) { *log = append(*log, "deleted:"+rs.Name+"/"+pod.Name) },
		Updated: func(rs *model.ReplicaSet, _, _ *model.Pod) { *log = append(*log, "updated:"+rs.Name) },
	}
}

func TestOwnedHandlers(t *testing.T) {
	owners := map[string]*model.ReplicaSet{}
	for _, n := range []string{"a", "b"} {
		owners[n] = &model.ReplicaSet{ObjectMeta: model.ObjectMeta{Namespace: "ns", Name: n, UID: "uid-" + n}}

	}
	pod := func(owner string, rv uint64, lbls map[string]string, deleting bool) *model.Pod {
		p := &model.Pod{ObjectMeta: model.ObjectMeta{Namespace: "ns", Name: "p", Labels: lbls, ResourceVersion: rv}}
		if owner != "" {
			p.OwnerReferences = []model.OwnerReference{{Kind: model.KindReplicaSet, Name: owner, UID: "uid-" + owner, Controller: model.Ptr(true)}}
		}
		if deleting {
			p.DeletionTimestamp = model.Ptr(vtime.Time(1))
		}
		return p
	}
	app := map[string]string{"app": "x"}
	tests := []struct {
		name                      string
		deletingIsDeleted, delOld bool
		event                     func(h OwnedHandlers[*model.Pod, *model.ReplicaSet])
		want                      []string
	}{
		{"add owned", false, false, func(h OwnedHandlers[*model.Pod, *model.ReplicaSet]) { h.OnAdd(pod("a", 1, nil, false)) }, []string{"created:a"}},
		{"add orphan wakes selecting owners", false, false, func(h OwnedHandlers[*model.Pod, *model.ReplicaSet]) { h.OnAdd(pod("", 1, app, false)) }, []string{"enqueue:a", "enqueue:b"}},
		{"add deleting is a delete", false, false, func(h OwnedHandlers[*model.Pod, *model.ReplicaSet]) { h.OnAdd(pod("a", 1, nil, true)) }, []string{"deleted:a/p"}},
		{"resync ignored", false, false, func(h OwnedHandlers[*model.Pod, *model.ReplicaSet]) {
			h.OnUpdate(pod("a", 1, nil, false), pod("a", 1, app, false))
		}, nil},
		{"reference moved wakes old then new", false, false, func(h OwnedHandlers[*model.Pod, *model.ReplicaSet]) {
			h.OnUpdate(pod("a", 1, nil, false), pod("b", 2, nil, false))
		}, []string{"enqueue:a", "enqueue:b", "updated:b"}},
		{"released orphan wakes selecting owners", false, false, func(h OwnedHandlers[*model.Pod, *model.ReplicaSet]) {
			h.OnUpdate(pod("a", 1, app, false), pod("", 2, app, false))
		}, []string{"enqueue:a", "enqueue:a", "enqueue:b"}},
		{"deleting update without DeletingIsDeleted", false, false, func(h OwnedHandlers[*model.Pod, *model.ReplicaSet]) {
			h.OnUpdate(pod("a", 1, nil, false), pod("a", 2, nil, true))
		}, []string{"enqueue:a", "updated:a"}},
		{"deleting update with DeletingIsDeleted and label change", true, true, func(h OwnedHandlers[*model.Pod, *model.ReplicaSet]) {
			h.OnUpdate(pod("a", 1, nil, false), pod("a", 2, app, true))
		}, []string{"deleted:a/p", "deleted:a/p"}},
		{"delete tombstone of owned", false, false, func(h OwnedHandlers[*model.Pod, *model.ReplicaSet]) {
			h.OnDelete(client.DeletedFinalStateUnknown{Key: "ns/p", Obj: pod("a", 1, nil, false)})
		}, []string{"deleted:a/p"}},
		{"delete orphan concerns no one", false, false, func(h OwnedHandlers[*model.Pod, *model.ReplicaSet]) { h.OnDelete(pod("", 1, app, false)) }, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var log []string
			h := ownedHandlersFor(&log, owners)
			h.DeletingIsDeleted, h.DeleteOldOnLabelChange = tt.deletingIsDeleted, tt.delOld
			tt.event(h)
			assert.Equal(t, tt.want, log)
		})
	}
}

func TestOwnerHandlersUIDChange(t *testing.T) {
	var log []string
	h := OwnerHandlers[*model.ReplicaSet]{
		Enqueue: func(rs *model.ReplicaSet) { log = append(log, "enqueue:"+string(rs.UID)) },
		Forget:  func(rs *model.ReplicaSet) { log = append(log, "forget:"+string(rs.UID)) },
	}
	old := &model.ReplicaSet{ObjectMeta: model.ObjectMeta{Namespace: "ns", Name: "a", UID: "1"}}
	cur := &model.ReplicaSet{ObjectMeta: model.ObjectMeta{Namespace: "ns", Name: "a", UID: "2"}}
	h.OnUpdate(old, cur)
	h.OnUpdate(cur, cur)
	assert.Equal(t, []string{"forget:1", "enqueue:1", "enqueue:2", "enqueue:2"}, log)
}

func TestChangeHandlers(t *testing.T) {
	a := &model.Node{ObjectMeta: model.ObjectMeta{Name: "a"}}
	b := &model.Node{ObjectMeta: model.ObjectMeta{Name: "b"}}
	name := func(n *model.Node) string {
		if n == nil {
			return "nil"
		}
		return n.Name
	}
	for _, ignoreDeletes := range []bool{false, true} {
		var log []string
		f := ChangeHandlers[*model.Node]{
			Changed:       func(o, c *model.Node) { log = append(log, name(o)+">"+name(c)) },
			IgnoreDeletes: ignoreDeletes,
		}.Funcs()
		f.OnAdd(a, false)
		f.OnUpdate(a, b)
		f.OnAdd(&model.Pod{}, false) // not a Node: ignored
		f.OnDelete(client.DeletedFinalStateUnknown{Key: "b", Obj: b})
		want := []string{"nil>a", "a>b", "b>nil"}
		if ignoreDeletes {
			want = want[:2]
		}
		assert.Equal(t, want, log, "IgnoreDeletes=%v", ignoreDeletes)
	}
}
