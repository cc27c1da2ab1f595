package client

import (
	"context"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim"
)

func runningReadyPod(t *testing.T, c *Client, ctx context.Context, name string) {
	t.Helper()
	p := newPod(name, map[string]string{"app": "db"})
	p.Spec.NodeName = "n1"
	created, err := c.Create(ctx, p)
	require.NoError(t, err)
	st := created.(*model.Pod)
	st.Status.Phase = model.PodRunning
	st.Status.Conditions = []model.PodCondition{{Type: model.PodReady, Status: model.ConditionTrue}}
	_, err = c.UpdateStatus(ctx, st)
	require.NoError(t, err)
}

func TestEvictRespectsDisruptionBudget(t *testing.T) {
	k := sim.New(1)
	srv := newServer(k, nil)
	c := New(srv, "drain", Config{QPS: -1})
	run(t, k, func(ctx context.Context) {
		runningReadyPod(t, c, ctx, "free")
		require.NoError(t, c.Evict(ctx, "default", "free", nil), "a pod no budget covers is evicted")
		got, err := c.Get(ctx, model.KindPod, "default", "free")
		require.NoError(t, err)
		assert.NotNil(t, got.Meta().DeletionTimestamp, "evicted gracefully")

		runningReadyPod(t, c, ctx, "guarded")
		minAvailable := intstr.FromInt32(1)
		_, err = c.Create(ctx, &model.PodDisruptionBudget{
			ObjectMeta: model.ObjectMeta{Name: "db", Namespace: "default", Generation: 1},
			Spec:       model.PodDisruptionBudgetSpec{MinAvailable: &minAvailable, Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "db"}}},
		})
		require.NoError(t, err)
		err = c.Evict(ctx, "default", "guarded", nil)
		require.Error(t, err)
		assert.True(t, apierrors.IsTooManyRequests(err), "a budget that allows no disruption refuses with 429: %v", err)
		assert.Zero(t, c.Stats().Retries, "the refusal has no Retry-After, so the client does not retry it")
	})
}

func TestScaleSubresource(t *testing.T) {
	k := sim.New(1)
	srv := newServer(k, nil)
	c := New(srv, "hpa", Config{QPS: -1})
	run(t, k, func(ctx context.Context) {
		rs := &model.ReplicaSet{
			ObjectMeta: model.ObjectMeta{Name: "web", Namespace: "default"},
			Spec: model.ReplicaSetSpec{
				Replicas: model.Ptr(int32(2)),
				Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
				Template: model.PodTemplateSpec{ObjectMeta: model.ObjectMeta{Labels: map[string]string{"app": "web"}},
					Spec: model.PodSpec{Containers: []model.Container{{Name: "app", Image: "app:1"}}}},
			},
		}
		_, err := c.Create(ctx, rs)
		require.NoError(t, err)
		scale, err := c.GetScale(ctx, model.KindReplicaSet, "default", "web")
		require.NoError(t, err)
		assert.Equal(t, int32(2), scale.Spec.Replicas)
		stale := scale.DeepCopy()
		scale.Spec.Replicas = 5
		_, err = c.UpdateScale(ctx, model.KindReplicaSet, "default", "web", scale)
		require.NoError(t, err)
		got, err := c.Get(ctx, model.KindReplicaSet, "default", "web")
		require.NoError(t, err)
		assert.Equal(t, int32(5), *got.(*model.ReplicaSet).Spec.Replicas)
		stale.Spec.Replicas = 1
		_, err = c.UpdateScale(ctx, model.KindReplicaSet, "default", "web", stale)
		assert.True(t, apierrors.IsConflict(err), "a stale resourceVersion conflicts: %v", err)
	})
}
