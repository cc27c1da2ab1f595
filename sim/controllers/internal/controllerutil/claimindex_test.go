package controllerutil

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/reconsim/reconsim/model"
)

// TestSameClaimCandidatesImpliesEqualValues holds the claim-candidates index's same test to
// its index function over seeded pairs of pods (namespaces, no owner, a controller or only a
// non-controller owner, with UIDs that collide often): whenever the test says the values are
// the same, the function gives equal values, and it says so for every pair that keeps its
// controller and namespace, so that the skip is taken where it can be.
func TestSameClaimCandidatesImpliesEqualValues(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 0))
	pod := func() *model.Pod {
		p := &model.Pod{}
		p.Namespace = fmt.Sprintf("ns%d", r.IntN(2))
		p.Name = "p"
		switch r.IntN(3) {
		case 0:
			p.OwnerReferences = []model.OwnerReference{{Kind: "ReplicaSet", Name: "rs", UID: fmt.Sprintf("u%d", r.IntN(2)), Controller: model.Ptr(true)}}
		case 1:
			p.OwnerReferences = []model.OwnerReference{{Kind: "ReplicaSet", Name: "rs", UID: fmt.Sprintf("u%d", r.IntN(2))}}
		}
		return p
	}
	skipped := 0
	for i := 0; i < 2000; i++ {
		old, cur := pod(), pod()
		same := sameClaimCandidates(old, cur)
		equal := slices.Equal(claimCandidatesIndexFunc(old), claimCandidatesIndexFunc(cur))
		if same {
			skipped++
			require.True(t, equal, "pair %d: %+v -> %+v", i, old.ObjectMeta, cur.ObjectMeta)
		}
		o, c := model.ControllerOf(old), model.ControllerOf(cur)
		if old.Namespace == cur.Namespace && (o == nil) == (c == nil) && (o == nil || o.UID == c.UID) {
			require.True(t, same, "pair %d: a pod that keeps its controller and namespace is the same", i)
		}
	}
	require.Greater(t, skipped, 100)
}
