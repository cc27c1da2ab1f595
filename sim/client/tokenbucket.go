package client

import (
	"context"
	"time"

	"github.com/reconsim/reconsim/sim"
	"github.com/reconsim/reconsim/sim/client/rate"
)

// Throttle thresholds from client-go rest/request.go: a request throttled longer than
// longThrottleLatency is logged, and longer than extraLongThrottleLatency logged at level 2.
const (
	LongThrottleLatency      = 50 * time.Millisecond
	ExtraLongThrottleLatency = time.Second
)

// ThrottleStats describe the time requests spent waiting on a client's token bucket.
type ThrottleStats struct {
	// Waits counts every Wait; Throttled those that had to sleep.
	Waits, Throttled uint64
	// ThrottledTotal is the summed sleep: the "client-side throttling" share of latency.
	ThrottledTotal time.Duration
	// LongThrottles and ExtraLongThrottles count waits over LongThrottleLatency and
	// ExtraLongThrottleLatency.
	LongThrottles, ExtraLongThrottles uint64
}

// TokenBucket is client-go's flowcontrol.NewTokenBucketRateLimiter(qps, burst) on virtual time:
// a bucket that starts full with burst tokens and refills at qps per second.
type TokenBucket struct {
	// limiter is the bucket when limited (qps > 0). It is held by value, as the bucket is in
	// its Client: a request of a client that has slept for 10 s (a kubelet's Lease renewal)
	// finds its client's state cold in the processor's caches, and every object on the way is
	// another miss. What Wait reads and writes comes first: the limiter, limited and the
	// wait count (stats.Waits).
	limiter rate.Limiter
	limited bool
	stats   ThrottleStats
	qps     float64
}

// NewTokenBucket returns a full bucket. qps <= 0 means no throttling at all (client-go
// rest.Config: a negative QPS disables client-side rate limiting; Client maps 0 to the default
// before it gets here). A burst below 1 is raised to 1, since x/time/rate can grant nothing
// from an empty bucket.
func NewTokenBucket(k *sim.Kernel, qps float64, burst int) *TokenBucket {
	b := &TokenBucket{}
	b.init(k, qps, burst)
	return b
}

// init makes b the full bucket NewTokenBucket returns.
func (b *TokenBucket) init(k *sim.Kernel, qps float64, burst int) {
	*b = TokenBucket{qps: qps}
	if qps > 0 {
		b.limiter, b.limited = *rate.NewLimiter(k, rate.Limit(qps), max(burst, 1)), true
	}
}

// QPS returns the refill rate (0 or negative when unlimited).
func (b *TokenBucket) QPS() float64 { return b.qps }

// Wait takes a token, sleeping the calling process (a hold) until the reservation is due, and
// returns how long it slept. Tokens may go negative: callers queue behind earlier reservations
// (x/time/rate Reserve semantics, which rate.Limiter.Wait uses).
func (b *TokenBucket) Wait(ctx context.Context) time.Duration {
	b.stats.Waits++
	if !b.limited {
		return 0
	}
	d := b.limiter.Reserve()
	if d <= 0 {
		return 0
	}
	b.stats.Throttled++
	b.stats.ThrottledTotal += d
	if d > LongThrottleLatency {
		b.stats.LongThrottles++
	}
	if d > ExtraLongThrottleLatency {
		b.stats.ExtraLongThrottles++
	}
	sim.ProcFromContext(ctx).Sleep(d)
	return d
}

// TryAccept takes a token if one is available now and reports whether it did; it never waits.
func (b *TokenBucket) TryAccept() bool {
	if !b.limited {
		return true
	}
	return b.limiter.Allow()
}

// Stats returns the throttling counters.
func (b *TokenBucket) Stats() ThrottleStats { return b.stats }
