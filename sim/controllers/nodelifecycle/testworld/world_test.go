package testworld

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/vtime"
)

func TestParseTolerations(t *testing.T) {
	got, err := ParseTolerations([]string{"unreachable:30", "not-ready:forever", "any:forever", "dedicated=gpu:60"})
	require.NoError(t, err)
	require.Len(t, got, 4)
	assert.Equal(t, model.Toleration{Key: "node.kubernetes.io/unreachable", Operator: "Exists", Effect: model.TaintEffectNoExecute, TolerationSeconds: model.Ptr(int64(30))}, got[0])
	assert.Nil(t, got[1].TolerationSeconds)
	assert.Equal(t, model.Toleration{Operator: "Exists"}, got[2])
	assert.Equal(t, model.Toleration{Key: "dedicated", Value: "gpu", Operator: "Equal", Effect: model.TaintEffectNoExecute, TolerationSeconds: model.Ptr(int64(60))}, got[3])

	none, err := ParseTolerations([]string{"none"})
	require.NoError(t, err)
	assert.Nil(t, none)
	for _, bad := range []string{"unreachable", "unreachable:soon"} {
		_, err := ParseTolerations([]string{bad})
		assert.Error(t, err, bad)
	}

	taints, err := ParseTaints([]string{"unreachable:NoExecute", "dedicated=gpu:NoSchedule"})
	require.NoError(t, err)
	assert.Equal(t, []model.Taint{
		{Key: "node.kubernetes.io/unreachable", Effect: model.TaintEffectNoExecute},
		{Key: "dedicated", Value: "gpu", Effect: model.TaintEffectNoSchedule},
	}, taints)
	_, err = ParseTaints([]string{"no-effect"})
	assert.Error(t, err)
}

func TestKubeletRenewsUntilStopped(t *testing.T) {
	w, err := New(t, Options{Seed: 1})
	require.NoError(t, err)
	require.NoError(t, w.AddNode("n1", "a", "", model.ConditionTrue, nil, true))
	renewTime := func() vtime.Time {
		obj, err := w.Store.Get(model.KindLease, "kube-node-lease", "n1")
		require.NoError(t, err)
		return *obj.(*model.Lease).Spec.RenewTime
	}
	require.NoError(t, w.RunUntil(vtime.FromDuration(35*time.Second)))
	assert.Equal(t, vtime.FromDuration(30*time.Second), renewTime())
	require.NoError(t, w.StopKubelet("n1"))
	require.NoError(t, w.RunUntil(vtime.FromDuration(100*time.Second)))
	assert.Equal(t, vtime.FromDuration(30*time.Second), renewTime(), "no renewal after the stop")
	require.NoError(t, w.StartKubelet("n1"))
	assert.Equal(t, vtime.FromDuration(100*time.Second), renewTime())
	assert.Error(t, w.StopKubelet("nope"))
	assert.Contains(t, w.Output(), "test kubelet-stop Node n1 last-renew=t=30.000s")
}

func TestRunUntilRejectsThePast(t *testing.T) {
	w, err := New(t, Options{Seed: 1})
	require.NoError(t, err)
	require.NoError(t, w.RunUntil(vtime.FromDuration(time.Second)))
	assert.Error(t, w.RunUntil(0))
}
