package client

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reconsim/reconsim/sim"
	"github.com/reconsim/reconsim/vtime"
)

// TestTokenBucketBurstThenQPS: a full bucket lets burst requests through at once, then spaces
// them 1/qps apart; each Wait sleeps exactly its reservation's delay.
func TestTokenBucketBurstThenQPS(t *testing.T) {
	k := sim.New(1)
	b := NewTokenBucket(k, 5, 10)
	var at []time.Duration
	var waited []time.Duration
	k.Spawn("caller", func(p *sim.Proc) {
		for range 14 {
			waited = append(waited, b.Wait(p))
			at = append(at, k.Now().Duration())
		}
	})
	out := k.Run(sim.Limits{})
	require.Equal(t, sim.StopDrained, out.Reason)
	ms := time.Millisecond
	assert.Equal(t, []time.Duration{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 200 * ms, 400 * ms, 600 * ms, 800 * ms}, at)
	assert.Equal(t, []time.Duration{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 200 * ms, 200 * ms, 200 * ms, 200 * ms}, waited)
	s := b.Stats()
	assert.Equal(t, ThrottleStats{Waits: 14, Throttled: 4, ThrottledTotal: 800 * ms, LongThrottles: 4}, s)
	assert.Equal(t, 5.0, b.QPS())
}

// TestTokenBucketNegativeTokens: concurrent callers reserve ahead, so the bucket goes negative
// and each waits behind the reservations before it.
func TestTokenBucketNegativeTokens(t *testing.T) {
	k := sim.New(1)
	b := NewTokenBucket(k, 2, 1)
	done := map[string]time.Duration{}
	for _, name := range []string{"a", "b", "c", "d"} {
		k.Spawn(name, func(p *sim.Proc) {
			b.Wait(p)
			done[name] = k.Now().Duration()
		})
	}
	k.Run(sim.Limits{})
	assert.Equal(t, map[string]time.Duration{"a": 0, "b": 500 * time.Millisecond, "c": time.Second, "d": 1500 * time.Millisecond}, done)
	s := b.Stats()
	assert.Equal(t, uint64(3), s.LongThrottles)
	assert.Equal(t, uint64(1), s.ExtraLongThrottles, "only the 1.5s wait is over a second")
	assert.Equal(t, 3*time.Second, s.ThrottledTotal)
}

// TestTokenBucketTryAccept: TryAccept takes a token only when one is there and never waits.
func TestTokenBucketTryAccept(t *testing.T) {
	k := sim.New(1)
	b := NewTokenBucket(k, 1, 2)
	assert.True(t, b.TryAccept())
	assert.True(t, b.TryAccept())
	assert.False(t, b.TryAccept())
	k.After(time.Second, func() { assert.True(t, b.TryAccept()) })
	k.Run(sim.Limits{})
	assert.Equal(t, uint64(0), b.Stats().Waits)
}

// TestTokenBucketUnlimited: a non-positive qps never throttles.
func TestTokenBucketUnlimited(t *testing.T) {
	k := sim.New(1)
	b := NewTokenBucket(k, -1, 0)
	k.Spawn("caller", func(p *sim.Proc) {
		for range 1000 {
			require.Equal(t, time.Duration(0), b.Wait(p))
		}
		require.True(t, b.TryAccept())
	})
	k.Run(sim.Limits{})
	assert.Equal(t, vtime.Time(0), k.Now())
	assert.Equal(t, uint64(1000), b.Stats().Waits)
}
