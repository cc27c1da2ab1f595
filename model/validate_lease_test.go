package model

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/reconsim/reconsim/vtime"
)

// TestLeaseRenewalFastPathIsValidateUpdate holds ValidateUpdateOfValid's shortcut for Lease
// updates (leaseRenewalValid) to the general validation: over seeded random pairs of a valid
// stored Lease and an update of it, each field either the stored one's (shared or copied) or
// changed, validly or not, ValidateUpdateOfValid gives exactly what validateUpdate and
// ValidateUpdate give, errors and messages included.
func TestLeaseRenewalFastPathIsValidateUpdate(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 3))
	pick := func(n int) int { return r.IntN(n) }
	labels := []map[string]string{nil, {"a": "b"}, {"node": "n-1", "zone": "z"}}
	badLabels := map[string]string{"bad key!": "x"}
	owners := [][]OwnerReference{nil, {{APIVersion: "v1", Kind: KindNode, Name: "n-1", UID: "u-1"}}}
	shortcuts, invalid := 0, 0
	for i := 0; i < 20000; i++ {
		old := &Lease{
			ObjectMeta: ObjectMeta{Name: "n-1", Namespace: "kube-node-lease", UID: "u-lease",
				Generation: int64(pick(3)), Labels: labels[pick(len(labels))], Annotations: labels[pick(len(labels))],
				OwnerReferences: owners[pick(len(owners))], CreationTimestamp: vtime.Time(pick(3))},
			Spec: LeaseSpec{HolderIdentity: "n-1", LeaseDurationSeconds: []*int32{nil, Ptr(int32(40))}[pick(2)]},
		}
		if pick(4) == 0 {
			old.DeletionTimestamp = Ptr(vtime.Time(7))
			old.DeletionGracePeriodSeconds = []*int64{nil, Ptr(int64(0)), Ptr(int64(30))}[pick(3)]
		}
		if pick(6) == 0 {
			old.Finalizers = []string{"example.com/hold"}
		}
		require.Nil(t, Validate(old), "the stored Lease is valid")

		n := *old // the renewal's shallow copy
		n.Spec.RenewTime = Ptr(vtime.Time(100 + i))
		// Each field is left as the copy has it, most of the time, or changed.
		switch pick(14) {
		case 0:
			n.Generation = int64(pick(5)) - 1
		case 1:
			n.Labels = []map[string]string{nil, {"a": "b"}, badLabels, copyMap(old.Labels)}[pick(4)]
		case 2:
			n.Annotations = []map[string]string{nil, {"a": "b"}, badLabels, copyMap(old.Annotations)}[pick(4)]
		case 3:
			n.OwnerReferences = [][]OwnerReference{nil, append([]OwnerReference(nil), old.OwnerReferences...),
				{{APIVersion: "v1", Kind: KindNode, Name: "", UID: ""}}, {{APIVersion: "v1", Kind: KindNode, Name: "n-2", UID: "u-2"}}}[pick(4)]
		case 4:
			n.Finalizers = [][]string{nil, {"example.com/hold"}, {"example.com/other"}, {"bad finalizer"}}[pick(4)]
		case 5:
			n.DeletionTimestamp = []*vtime.Time{nil, Ptr(vtime.Time(7)), Ptr(vtime.Time(8))}[pick(3)]
		case 6:
			n.DeletionGracePeriodSeconds = []*int64{nil, Ptr(int64(0)), Ptr(int64(30))}[pick(3)]
		case 7:
			n.Name = []string{"n-1", "n-2"}[pick(2)]
		case 8:
			n.Namespace = []string{"kube-node-lease", "default"}[pick(2)]
		case 9:
			n.UID = []string{"u-lease", "u-other", ""}[pick(3)]
		case 10:
			n.CreationTimestamp = vtime.Time(pick(3))
		case 11:
			n.Spec.LeaseDurationSeconds = []*int32{nil, Ptr(int32(-1)), Ptr(int32(0)), Ptr(int32(40))}[pick(4)]
		}
		want := validateUpdate(old, &n, true)
		require.Equal(t, want, ValidateUpdateOfValid(old, &n), "case %d: %+v over %+v", i, n, *old)
		require.Equal(t, ValidateUpdate(old, &n), want, "case %d: of a valid Lease", i)
		if leaseRenewalValid(old, &n) {
			shortcuts++
		}
		if len(want) > 0 {
			invalid++
		}
	}
	require.Greater(t, shortcuts, 5000, "updates the shortcut took")
	require.Greater(t, invalid, 1000, "invalid updates")
}
