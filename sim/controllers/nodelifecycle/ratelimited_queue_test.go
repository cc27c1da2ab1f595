package nodelifecycle

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reconsim/reconsim/sim"
	"github.com/reconsim/reconsim/vtime"
)

// advance moves the kernel's clock to t by running an empty event there.
func advance(k *sim.Kernel, t vtime.Time) {
	k.Schedule(t, sim.HandlerFunc(func(uint64) {}), 0, false)
	k.Run(sim.Limits{MaxTime: t})
}

func drain(q *RateLimitedTimedQueue) []string {
	var got []string
	q.Try(func(v TimedValue) (bool, time.Duration) {
		got = append(got, v.Value)
		return true, 0
	})
	return got
}

func TestRateLimitedTimedQueueOneTokenPerPeriod(t *testing.T) {
	k := sim.New(1)
	q := NewRateLimitedTimedQueue(k, 0.1)
	for _, n := range []string{"n1", "n2", "n3"} {
		require.True(t, q.Add(n, "uid-"+n))
	}
	assert.False(t, q.Add("n1", "again"), "a queued value is not added twice")

	assert.Equal(t, []string{"n1"}, drain(q), "the full bucket gives one token at once")
	assert.Empty(t, drain(q), "no token until 10s have passed")
	advance(k, vtime.FromDuration(9900*time.Millisecond))
	assert.Empty(t, drain(q))
	advance(k, vtime.FromDuration(10*time.Second))
	assert.Equal(t, []string{"n2"}, drain(q))
	advance(k, vtime.FromDuration(20*time.Second))
	assert.Equal(t, []string{"n3"}, drain(q))

	// Processed values stay in the uniqueness set until removed.
	assert.False(t, q.Add("n1", "uid-n1"))
	assert.True(t, q.Remove("n1"))
	assert.True(t, q.Add("n1", "uid-n1"))
	assert.Equal(t, uint64(3), q.processed)
}

func TestRateLimitedTimedQueueRetryKeepsValueAndSpendsToken(t *testing.T) {
	k := sim.New(1)
	q := NewRateLimitedTimedQueue(k, 10) // a token every 100ms
	q.Add("n1", "")
	calls := 0
	q.Try(func(v TimedValue) (bool, time.Duration) {
		calls++
		return false, 50 * time.Millisecond
	})
	require.Equal(t, 1, calls)
	require.Equal(t, 1, q.Len())
	assert.Equal(t, vtime.Time(50*time.Millisecond+1), q.items[0].ProcessAt)

	// At 100ms a token is there but the head is due only at 50ms+1ns... it is due: processed.
	advance(k, vtime.FromDuration(100*time.Millisecond))
	assert.Equal(t, []string{"n1"}, drain(q))

	// A head that is not due yet still spends the token (upstream Try checks the limiter first).
	q.Add("n2", "")
	q.items[0].ProcessAt = vtime.FromDuration(time.Hour)
	advance(k, vtime.FromDuration(200*time.Millisecond))
	assert.True(t, q.wouldAcceptAt(k.Now()))
	assert.Empty(t, drain(q))
	assert.False(t, q.wouldAcceptAt(k.Now()), "the token was spent")
}

func TestRateLimitedTimedQueueSwapLimiter(t *testing.T) {
	k := sim.New(1)
	q := NewRateLimitedTimedQueue(k, 0.1)
	q.Add("n1", "")
	q.Add("n2", "")
	assert.Equal(t, []string{"n1"}, drain(q))

	q.SwapLimiter(0)
	assert.Equal(t, float32(0), q.QPS())
	advance(k, vtime.FromDuration(time.Minute))
	assert.Empty(t, drain(q), "rate zero never accepts")
	_, ok := q.acceptEstimate()
	assert.False(t, ok)

	// From the never limiter (no token) to 0.1: the new bucket is drained, first token in 10s.
	q.SwapLimiter(0.1)
	assert.Empty(t, drain(q))
	at, ok := q.acceptEstimate()
	require.True(t, ok)
	// float32(0.1) is a little above 0.1, so the estimate is a little under 10s.
	assert.InDelta(t, float64(10*time.Second), float64(at.Sub(k.Now())), float64(time.Microsecond))
	advance(k, k.Now().Add(10*time.Second))
	assert.Equal(t, []string{"n2"}, drain(q))

	swaps := q.limiterSwaps
	q.SwapLimiter(0.1)
	assert.Equal(t, swaps, q.limiterSwaps, "same rate: nothing happens")

	// From a bucket with a token to a new rate: the old token is spent, the new bucket stays full.
	advance(k, k.Now().Add(time.Minute))
	q.Add("n3", "")
	q.SwapLimiter(1)
	assert.Equal(t, []string{"n3"}, drain(q))
}

func TestRateLimitedTimedQueueInitialZeroRateGivesOneToken(t *testing.T) {
	k := sim.New(1)
	q := NewRateLimitedTimedQueue(k, 0)
	q.Add("n1", "")
	q.Add("n2", "")
	assert.Equal(t, []string{"n1"}, drain(q), "upstream's first bucket at qps 0 still starts full")
	advance(k, vtime.FromDuration(time.Hour))
	assert.Empty(t, drain(q))
}

func TestRateLimitedTimedQueueOrderIsInsertionForEqualTimes(t *testing.T) {
	k := sim.New(1)
	q := NewRateLimitedTimedQueue(k, 1000)
	for _, n := range []string{"c", "a", "b"} {
		q.Add(n, "")
	}
	var got []string
	for i := 0; i < 3; i++ {
		advance(k, k.Now().Add(time.Second))
		got = append(got, drain(q)...)
	}
	assert.Equal(t, []string{"c", "a", "b"}, got)
}
