package workqueue

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reconsim/reconsim/sim"
)

// TestExponentialLimiterSequence: 5ms doubling per failure, 655.36s on the 18th call, 1000s
// from the 19th on; Forget starts over.
func TestExponentialLimiterSequence(t *testing.T) {
	r := NewItemExponentialFailureRateLimiter[string](DefaultControllerBaseDelay, DefaultControllerMaxDelay)
	for call := 1; call <= 18; call++ {
		want := DefaultControllerBaseDelay << (call - 1)
		require.Equal(t, want, r.When("a"), "call %d", call)
	}
	assert.Equal(t, 655360*time.Millisecond, DefaultControllerBaseDelay<<17)
	for call := 19; call <= 80; call++ {
		require.Equal(t, 1000*time.Second, r.When("a"), "call %d", call)
	}
	assert.Equal(t, 80, r.NumRequeues("a"))
	assert.Equal(t, 5*time.Millisecond, r.When("b"), "items back off independently")
	r.Forget("a")
	assert.Equal(t, 0, r.NumRequeues("a"))
	assert.Equal(t, 5*time.Millisecond, r.When("a"))
}

// TestExponentialLimiterOverflowGuard: an exponent past the range of time.Duration gives the
// cap, not a wrapped-around negative delay.
func TestExponentialLimiterOverflowGuard(t *testing.T) {
	r := NewItemExponentialFailureRateLimiter[string](time.Second, time.Duration(1<<62))
	for range 200 {
		d := r.When("a")
		require.Positive(t, d)
		require.LessOrEqual(t, d, time.Duration(1<<62))
	}
	assert.Equal(t, time.Duration(1<<62), r.When("a"))
}

// TestBucketLimiter: the first 100 calls are free, then each waits 100ms more than the last.
func TestBucketLimiter(t *testing.T) {
	k := sim.New(1)
	r := NewBucketRateLimiter[string](DefaultControllerQPS, DefaultControllerBurst)
	r.BindKernel(k)
	for i := range 100 {
		require.Equal(t, time.Duration(0), r.When("x"), "call %d", i+1)
	}
	for i := 1; i <= 20; i++ {
		require.Equal(t, time.Duration(i)*100*time.Millisecond, r.When("x"), "call %d", 100+i)
	}
	assert.Equal(t, 0, r.NumRequeues("x"))
	assert.Panics(t, func() { NewBucketRateLimiter[string](1, 1).When("x") }, "unbound bucket")
}

// TestBucketLimiterRefills: after waiting, tokens come back at the bucket's rate.
func TestBucketLimiterRefills(t *testing.T) {
	k := sim.New(1)
	r := NewBucketRateLimiter[string](10, 2)
	r.BindKernel(k)
	var delays []time.Duration
	k.After(0, func() { delays = append(delays, r.When("x"), r.When("x"), r.When("x")) })
	k.After(time.Second, func() { delays = append(delays, r.When("x"), r.When("x"), r.When("x")) })
	k.Run(sim.Limits{})
	ms := time.Millisecond
	assert.Equal(t, []time.Duration{0, 0, 100 * ms, 0, 0, 100 * ms}, delays)
}

// TestMaxOfTakesMaxAndConsumesBucket: MaxOf returns the largest delay and calls every limiter
// each time, so the bucket is drained by items that are in exponential backoff too.
func TestMaxOfTakesMaxAndConsumesBucket(t *testing.T) {
	k := sim.New(1)
	bucket := NewBucketRateLimiter[string](10, 3)
	exp := NewItemExponentialFailureRateLimiter[string](time.Second, time.Minute)
	r := NewMaxOfRateLimiter[string](exp, bucket)
	r.BindKernel(k)
	assert.Equal(t, time.Second, r.When("a"))
	assert.Equal(t, 2*time.Second, r.When("a"))
	assert.Equal(t, time.Second, r.When("b"))
	// The three calls above took all three tokens: the bucket now wins for a fresh item.
	fresh := NewItemExponentialFailureRateLimiter[string](time.Millisecond, time.Minute)
	r2 := NewMaxOfRateLimiter[string](fresh, bucket)
	assert.Equal(t, 100*time.Millisecond, r2.When("c"))
	assert.Equal(t, 2, r.NumRequeues("a"))
	r.Forget("a")
	assert.Equal(t, 0, r.NumRequeues("a"))
}

// TestDefaultControllerRateLimiter: exponential from 5ms while the bucket has tokens; bound
// through the queue constructor.
func TestDefaultControllerRateLimiter(t *testing.T) {
	k := sim.New(1)
	q := NewRateLimiting[string](k, "default", DefaultControllerRateLimiter[string]())
	l := q.RateLimiter()
	assert.Equal(t, 5*time.Millisecond, l.When("a"))
	assert.Equal(t, 10*time.Millisecond, l.When("a"))
	assert.Equal(t, time.Millisecond, DefaultItemBasedRateLimiter[string]().When("a"))
}

// TestOtherLimiters covers the fast/slow, max-wait and fixed-interval limiters.
func TestOtherLimiters(t *testing.T) {
	ms := time.Millisecond
	tests := []struct {
		name    string
		limiter RateLimiter[string]
		want    []time.Duration
		requeue int
	}{
		{"fast-slow", NewItemFastSlowRateLimiter[string](5*ms, 10*time.Second, 3), []time.Duration{5 * ms, 5 * ms, 5 * ms, 10 * time.Second, 10 * time.Second}, 5},
		{"max-wait", NewWithMaxWaitRateLimiter[string](NewItemExponentialFailureRateLimiter[string](time.Second, time.Hour), 3*time.Second), []time.Duration{time.Second, 2 * time.Second, 3 * time.Second, 3 * time.Second}, 4},
		{"fixed-interval", NewFixedItemIntervalRateLimiter[string](15 * time.Second), []time.Duration{15 * time.Second, 15 * time.Second}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []time.Duration
			for range tt.want {
				got = append(got, tt.limiter.When("a"))
			}
			assert.Equal(t, tt.want, got)
			assert.Equal(t, tt.requeue, tt.limiter.NumRequeues("a"))
			tt.limiter.Forget("a")
			assert.Equal(t, tt.want[0], tt.limiter.When("a"), "after Forget")
		})
	}
}
