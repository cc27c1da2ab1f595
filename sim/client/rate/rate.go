package rate

import (
	"math"
	"time"

	"github.com/reconsim/reconsim/vtime"
)

// Limit is a rate of events per second. Inf means no limit at all.
type Limit float64

// Inf is the infinite rate: every reservation is granted at once (x/time/rate Inf).
const Inf = Limit(math.MaxFloat64)

// InfDuration is the delay reported when a reservation can never be satisfied (a zero limit
// with an empty bucket), as x/time/rate InfDuration.
const InfDuration = time.Duration(math.MaxInt64)

// Clock supplies virtual time; *sim.Kernel satisfies it.
type Clock interface {
	Now() vtime.Time
}

// Limiter is a token bucket: it holds up to Burst tokens, starts full, and gains Limit tokens
// per virtual second. Not safe for use from goroutines; the simulator is single-threaded.
type Limiter struct {
	clock  Clock
	limit  Limit
	burst  int
	tokens float64
	last   vtime.Time // the time tokens was last brought up to date
}

// NewLimiter returns a full bucket of burst tokens refilled at limit per second, reading time
// from clock. A negative burst is treated as 0 (no reservation can then succeed at a finite
// limit, as upstream).
func NewLimiter(clock Clock, limit Limit, burst int) *Limiter {
	if burst < 0 {
		burst = 0
	}
	return &Limiter{clock: clock, limit: limit, burst: burst, tokens: float64(burst), last: clock.Now()}
}

// Limit returns the refill rate.
func (l *Limiter) Limit() Limit { return l.limit }

// Burst returns the bucket size.
func (l *Limiter) Burst() int { return l.burst }

// Tokens returns the number of tokens available now; it is negative while reservations are
// outstanding.
func (l *Limiter) Tokens() float64 {
	if l.limit == Inf {
		return float64(l.burst)
	}
	return l.advance(l.clock.Now())
}

// Reserve takes one token now and returns how long the caller must wait before acting on it
// (0 when a token was available). The token is taken even when the delay is positive, so the
// bucket goes negative and later callers queue behind this one (x/time/rate Reserve). With a
// zero limit and no token left it returns InfDuration and takes nothing.
func (l *Limiter) Reserve() time.Duration {
	d, ok := l.reserve(InfDuration)
	if !ok {
		return InfDuration
	}
	return d
}

// Allow takes one token if one is available now and reports whether it did (x/time/rate
// Allow: a reservation whose delay would be positive is not made).
func (l *Limiter) Allow() bool {
	_, ok := l.reserve(0)
	return ok
}

// reserve implements x/time/rate reserveN for n=1: the reservation is made only if its delay
// does not exceed maxWait.
func (l *Limiter) reserve(maxWait time.Duration) (time.Duration, bool) {
	if l.limit == Inf {
		return 0, true
	}
	now := l.clock.Now()
	tokens := l.advance(now)
	if l.limit == 0 {
		if tokens >= 1 {
			l.tokens = tokens - 1
			l.last = now
			return 0, true
		}
		return InfDuration, false
	}
	tokens--
	var wait time.Duration
	if tokens < 0 {
		wait = durationFromTokens(l.limit, -tokens)
	}
	if l.burst < 1 || wait > maxWait {
		return wait, false
	}
	l.tokens = tokens
	l.last = now
	return wait, true
}

// advance returns the tokens the bucket holds at now, without storing them.
func (l *Limiter) advance(now vtime.Time) float64 {
	last := l.last
	if now < last {
		last = now
	}
	tokens := l.tokens + tokensFromDuration(l.limit, now.Sub(last))
	if b := float64(l.burst); tokens > b {
		tokens = b
	}
	return tokens
}

func durationFromTokens(limit Limit, tokens float64) time.Duration {
	if limit <= 0 {
		return InfDuration
	}
	d := (tokens / float64(limit)) * float64(time.Second)
	if d > float64(math.MaxInt64) {
		return InfDuration
	}
	return time.Duration(d)
}

func tokensFromDuration(limit Limit, d time.Duration) float64 {
	if limit <= 0 {
		return 0
	}
	return d.Seconds() * float64(limit)
}
