package replicaset

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/reconsim/reconsim/model"
)

// TestRSKeyIsModelKey holds rsKey to model.Key: after a run whose pod handlers resolved the
// ReplicaSet many times, the one resolved last keys as model.Key does, and so do a copy of it
// (another object) and every ReplicaSet resolved again from each pod's controller reference.
func TestRSKeyIsModelKey(t *testing.T) {
	w := scaleScenario(t, 20)
	rsc := w.rsc
	require.NotNil(t, rsc.resolved, "the pod handlers resolved an owner")
	require.Equal(t, model.Key(rsc.resolved), rsc.rsKey(rsc.resolved))
	other := rsc.resolved.DeepCopy()
	other.Name = "other"
	require.Equal(t, model.Key(other), rsc.rsKey(other))
	pods := 0
	for _, obj := range rsc.podInformer.List(nil) {
		rs, ok := rsc.resolveControllerRef(obj.Meta().Namespace, model.ControllerOf(obj))
		require.True(t, ok)
		require.Same(t, rs, rsc.resolved)
		require.Equal(t, model.Key(rs), rsc.rsKey(rs))
		pods++
	}
	require.Equal(t, 10, pods)
}
