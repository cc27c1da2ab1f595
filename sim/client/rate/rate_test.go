package rate

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/reconsim/reconsim/vtime"
)

func TestReserveBurstThenSpacing(t *testing.T) {
	clock := &vtime.ManualClock{}
	l := NewLimiter(clock, 5, 10)
	for i := range 10 {
		assert.Equal(t, time.Duration(0), l.Reserve(), "token %d of the burst", i+1)
	}
	for i := 1; i <= 5; i++ {
		assert.Equal(t, time.Duration(i)*200*time.Millisecond, l.Reserve(), "reservation %d past the burst", i)
	}
	assert.InDelta(t, -5.0, l.Tokens(), 1e-9, "reservations drive the bucket negative")
	clock.T = vtime.FromDuration(time.Second)
	assert.InDelta(t, 0.0, l.Tokens(), 1e-9, "refilled at 5/s")
	clock.T = vtime.FromDuration(time.Hour)
	assert.InDelta(t, 10.0, l.Tokens(), 1e-9, "capped at the burst")
}

func TestAllowDoesNotGoNegative(t *testing.T) {
	clock := &vtime.ManualClock{}
	l := NewLimiter(clock, 1, 2)
	assert.True(t, l.Allow())
	assert.True(t, l.Allow())
	assert.False(t, l.Allow())
	assert.InDelta(t, 0.0, l.Tokens(), 1e-9, "a refused Allow takes nothing")
	clock.T = vtime.FromDuration(999 * time.Millisecond)
	assert.False(t, l.Allow())
	clock.T = vtime.FromDuration(time.Second)
	assert.True(t, l.Allow())
}

func TestEdgeLimits(t *testing.T) {
	clock := &vtime.ManualClock{}
	inf := NewLimiter(clock, Inf, 0)
	for range 1000 {
		assert.Equal(t, time.Duration(0), inf.Reserve())
	}
	zero := NewLimiter(clock, 0, 1)
	assert.Equal(t, time.Duration(0), zero.Reserve(), "the one burst token")
	assert.Equal(t, InfDuration, zero.Reserve(), "a zero rate never refills")
	noBurst := NewLimiter(clock, 10, -3)
	assert.Equal(t, 0, noBurst.Burst())
	assert.Equal(t, InfDuration, noBurst.Reserve())
	assert.False(t, noBurst.Allow())
	assert.Equal(t, Limit(10), noBurst.Limit())
}
