package nodelifecycle

import (
	"testing"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/vtime"
)

// renewedBeforeByTimes is upstream's comparison of the two renew times, with no shortcut.
func renewedBeforeByTimes(saved, observed *model.Lease) bool {
	if saved.Spec.RenewTime == nil || observed.Spec.RenewTime == nil {
		return false
	}
	return *saved.Spec.RenewTime < *observed.Spec.RenewTime
}

// TestRenewedBeforeIsTheTimeComparison holds renewedBefore, whose shortcut answers for a Lease
// compared with itself without reading it, to the comparison of the renew times, for every
// pair of Leases with unset, earlier, equal and later times, the same Lease included.
func TestRenewedBeforeIsTheTimeComparison(t *testing.T) {
	at := func(s int) *vtime.Time { v := vtime.Time(s); return &v }
	var leases []*model.Lease
	for _, rt := range []*vtime.Time{nil, at(10), at(10), at(20)} {
		leases = append(leases, &model.Lease{Spec: model.LeaseSpec{RenewTime: rt}})
	}
	for i, saved := range leases {
		for j, observed := range leases {
			if got, want := renewedBefore(saved, observed), renewedBeforeByTimes(saved, observed); got != want {
				t.Errorf("lease %d before lease %d: %v, the times say %v", i, j, got, want)
			}
		}
	}
	if !renewedBefore(leases[1], leases[3]) || renewedBefore(leases[3], leases[1]) {
		t.Error("a later renew time is not seen as a renewal")
	}
}
