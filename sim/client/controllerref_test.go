package client

import (
	"context"
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim"
)

func TestResolveControllerRef(t *testing.T) {
	k := sim.New(1)
	srv := newServer(k, nil)
	c := New(srv, "test", Config{QPS: -1})
	inf := NewInformer(c, model.KindReplicaSet, model.ListOptions{}, 0)
	inf.Run(k)
	var uid string
	run(t, k, func(ctx context.Context) {
		rs := &model.ReplicaSet{
			ObjectMeta: model.ObjectMeta{Name: "web", Namespace: "default"},
			Spec: model.ReplicaSetSpec{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
				Template: model.PodTemplateSpec{ObjectMeta: model.ObjectMeta{Labels: map[string]string{"app": "web"}},
					Spec: model.PodSpec{Containers: []model.Container{{Name: "a", Image: "a"}}}}},
		}
		created, err := c.Create(ctx, rs)
		require.NoError(t, err)
		uid = created.Meta().UID
		inf.WaitForSync(ctx)
		sim.ProcFromContext(ctx).Sleep(time.Second) // let the watch deliver
	})
	ref := func(kind model.Kind, name, uid string) *model.OwnerReference {
		return &model.OwnerReference{Kind: kind, Name: name, UID: uid}
	}
	got, ok := ResolveControllerRef[*model.ReplicaSet](inf, model.KindReplicaSet, "default", ref(model.KindReplicaSet, "web", uid))
	require.True(t, ok)
	assert.Equal(t, "web", got.Name)
	keyed, key, ok := ResolveControllerRefKeyed[*model.ReplicaSet](inf, model.KindReplicaSet, "default", ref(model.KindReplicaSet, "web", uid))
	require.True(t, ok)
	assert.Same(t, got, keyed)
	assert.Equal(t, "default/web", key)
	assert.Equal(t, unsafe.StringData(inf.store.items[key].key), unsafe.StringData(key), "the cache's own key")
	for name, r := range map[string]*model.OwnerReference{
		"other kind":   ref(model.KindDeployment, "web", uid),
		"other UID":    ref(model.KindReplicaSet, "web", "recreated"),
		"not in cache": ref(model.KindReplicaSet, "api", uid),
		"nil":          nil,
	} {
		got, ok := ResolveControllerRef[*model.ReplicaSet](inf, model.KindReplicaSet, "default", r)
		assert.False(t, ok, name)
		assert.Nil(t, got, name)
		_, key, ok := ResolveControllerRefKeyed[*model.ReplicaSet](inf, model.KindReplicaSet, "default", r)
		assert.False(t, ok, name)
		assert.Empty(t, key, name)
	}
}
