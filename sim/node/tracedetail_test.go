package node

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/reconsim/reconsim/model"
)

// TestTraceDetailsAreSprintf holds the trace details and messages built without fmt to the
// fmt.Sprintf of the format each names, for random names (empty ones too), counts, exit
// codes and durations (zero, negative, sub-microsecond to hours), and readyConditions'
// message for random lists of containers.
func TestTraceDetailsAreSprintf(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	name := func() string {
		const letters = "ab-1 "
		var b strings.Builder
		for n := r.IntN(6); n > 0; n-- {
			b.WriteByte(letters[r.IntN(len(letters))])
		}
		return b.String()
	}
	count := func() int32 {
		switch r.IntN(4) {
		case 0:
			return int32(r.IntN(3))
		case 1:
			return []int32{math.MinInt32, math.MaxInt32, -1, 255, 137}[r.IntN(5)]
		}
		return int32(r.Uint32())
	}
	duration := func() time.Duration {
		switch r.IntN(4) {
		case 0:
			return 0
		case 1:
			return -time.Duration(r.Int64N(int64(time.Hour)))
		}
		return time.Duration(r.Int64N(int64(10 * time.Hour)))
	}
	unready := 0
	for i := 0; i < 5000; i++ {
		n, c, d := name(), count(), duration()
		require.Equal(t, fmt.Sprintf("ip=%s took=%s", n, d), sandboxDetail(n, d))
		require.Equal(t, fmt.Sprintf("container=%s restarts=%d took=%s", n, c, d), containerStartDetail(n, c, d))
		require.Equal(t, fmt.Sprintf("container=%s code=%d", n, c), containerExitDetail(n, c))
		require.Equal(t, fmt.Sprintf("Stopping container %s", n), stoppingMessage(n))

		statuses := make([]model.ContainerStatus, r.IntN(4))
		var names []string
		for j := range statuses {
			statuses[j] = model.ContainerStatus{Name: name(), Ready: r.IntN(2) == 0}
			if !statuses[j].Ready {
				names = append(names, statuses[j].Name)
			}
		}
		want := ""
		if len(names) > 0 {
			want = fmt.Sprintf("containers with unready status: [%s]", strings.Join(names, " "))
			unready++
		}
		require.Equal(t, want, unreadyMessage(statuses), "%+v", statuses)
	}
	require.Greater(t, unready, 1000, "lists with unready containers")
	require.Less(t, unready, 4000, "lists without")
}
