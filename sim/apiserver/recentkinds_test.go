package apiserver

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/reconsim/reconsim/model"
)

// TestKindLookupsAlternating checks Store.kind's recent-kinds front against the map behind
// it: whatever the order of the lookups, each kind gets its own store.
func TestKindLookupsAlternating(t *testing.T) {
	_, srv := newTestServer(t, nil)
	st := srv.Store()
	kinds := []model.Kind{model.KindLease, model.KindNode, model.KindLease, model.KindPod, model.KindNode,
		model.KindNode, model.KindPod, model.KindLease, model.KindNamespace, model.KindLease}
	for i, kind := range kinds {
		ks, err := st.kind(kind)
		require.NoError(t, err)
		require.Same(t, st.kinds[kind], ks, "lookup %d of %s", i, kind)
		require.Equal(t, kind, ks.info.Kind)
	}
	_, err := st.kind("NoSuchKind")
	require.Error(t, err)
	ks, err := st.kind(model.KindNamespace)
	require.NoError(t, err)
	require.Same(t, st.kinds[model.KindNamespace], ks, "an unknown kind leaves the recent ones alone")
}
