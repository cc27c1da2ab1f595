package node

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/vtime"
)

// TestTerminatedStateIsFreshlyBuilt: through random starts and exits of a container record,
// terminatedState (kept between calls) equals the termination built afresh from the
// record's fields, and a termination once handed out never changes, as the statuses and
// stored pods sharing it need.
func TestTerminatedStateIsFreshlyBuilt(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	fresh := func(cr *containerRecord) *model.ContainerStateTerminated {
		if cr.id == 0 || cr.running {
			return nil
		}
		return &model.ContainerStateTerminated{ExitCode: cr.exitCode, Reason: cr.reason, StartedAt: cr.startedAt, FinishedAt: cr.finishedAt}
	}
	type handedOut struct {
		p    *model.ContainerStateTerminated
		want model.ContainerStateTerminated
	}
	var seen []handedOut
	cr := &containerRecord{name: "a"}
	now := vtime.Time(0)
	id := uint64(0)
	exits := 0
	for i := 0; i < 2000; i++ {
		now += vtime.Time(r.IntN(3))
		switch r.IntN(3) {
		case 0:
			id++
			cr.begin(id, now)
		case 1:
			if cr.running {
				code := int32(r.IntN(3))
				cr.exit(now, code, exitReason(code))
				exits++
			}
		}
		got := cr.terminatedState()
		require.Equal(t, fresh(cr), got)
		if got != nil {
			seen = append(seen, handedOut{got, *got})
		}
		if cr.last != nil {
			seen = append(seen, handedOut{cr.last, *cr.last})
		}
	}
	for _, h := range seen {
		require.Equal(t, h.want, *h.p, "a termination handed out changed")
	}
	require.Greater(t, exits, 100)
}
