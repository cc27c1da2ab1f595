package nodelifecycle

import (
	"sort"
	"time"

	"github.com/reconsim/reconsim/sim"
	"github.com/reconsim/reconsim/sim/client/rate"
	"github.com/reconsim/reconsim/vtime"
)

// TimedValue is a node waiting in a zone's tainting queue (upstream scheduler.TimedValue).
type TimedValue struct {
	// Value is the node name.
	Value string
	// UID is the node UID when it was queued.
	UID string
	// AddedAt is when the node was queued; ProcessAt is when it may next be processed.
	AddedAt   vtime.Time
	ProcessAt vtime.Time
	// seq orders values with equal ProcessAt by insertion. Upstream orders by wall-clock
	// ProcessAt, which differs by nanoseconds between two Adds; on virtual time many Adds share
	// an instant and insertion order is what the wall clock would have given.
	seq uint64
}

// ActionFunc processes the head of the queue; it returns false with a minimum wait to keep the
// value queued for a retry (upstream scheduler.ActionFunc).
type ActionFunc func(TimedValue) (bool, time.Duration)

// probeClock is the virtual clock a zone's token bucket reads. It can be pointed at a future
// instant to ask how many tokens the bucket would hold then without changing it, which is how
// the tainting pass skips the 100ms ticks at which it would certainly be refused.
type probeClock struct {
	k       *sim.Kernel
	probing bool
	at      vtime.Time
}

func (c *probeClock) Now() vtime.Time {
	if c.probing {
		return c.at
	}
	return c.k.Now()
}

// RateLimitedTimedQueue is upstream scheduler.RateLimitedTimedQueue: a set of unique values
// ordered by ProcessAt and drained under a token bucket. A value stays in the uniqueness set
// after it has been processed, so it is not queued again until Remove is called (when the node
// becomes Ready again). Not safe for goroutines; everything runs on the kernel.
type RateLimitedTimedQueue struct {
	clock *probeClock
	items []*TimedValue // sorted by (ProcessAt, seq)
	// queued maps the values in items to their entries; set also holds processed values
	// that have not been removed (upstream's UniqueQueue set).
	queued map[string]*TimedValue
	set    map[string]struct{}
	seq    uint64

	qps float32
	// limiter is nil for a rate of zero after SwapLimiter (upstream NewFakeNeverRateLimiter,
	// which never accepts).
	limiter *rate.Limiter

	processed    uint64
	limiterSwaps uint64
}

// NewRateLimitedTimedQueue returns an empty queue whose token bucket starts full, with qps and
// EvictionRateLimiterBurst (upstream NewRateLimitedTimedQueue(NewTokenBucketRateLimiter(qps,
// EvictionRateLimiterBurst))). As upstream, the first limiter is a real bucket even at qps 0,
// so it accepts its one initial token.
func NewRateLimitedTimedQueue(k *sim.Kernel, qps float32) *RateLimitedTimedQueue {
	c := &probeClock{k: k}
	return &RateLimitedTimedQueue{
		clock:   c,
		queued:  make(map[string]*TimedValue),
		set:     make(map[string]struct{}),
		qps:     qps,
		limiter: rate.NewLimiter(c, rate.Limit(qps), EvictionRateLimiterBurst),
	}
}

// QPS returns the current rate (0 for the never-accepting limiter).
func (q *RateLimitedTimedQueue) QPS() float32 {
	if q.limiter == nil {
		return 0
	}
	return q.qps
}

// Len returns the number of values waiting to be processed.
func (q *RateLimitedTimedQueue) Len() int { return len(q.items) }

// Add queues value unless it is already in the uniqueness set, and reports whether it did.
func (q *RateLimitedTimedQueue) Add(value, uid string) bool {
	if _, ok := q.set[value]; ok {
		return false
	}
	now := q.clock.k.Now()
	q.seq++
	q.insert(&TimedValue{Value: value, UID: uid, AddedAt: now, ProcessAt: now, seq: q.seq})
	q.set[value] = struct{}{}
	return true
}

// Remove drops value from the queue and the uniqueness set, so it can be added again. It
// reports whether value was in the set.
func (q *RateLimitedTimedQueue) Remove(value string) bool {
	if _, ok := q.set[value]; !ok {
		return false
	}
	delete(q.set, value)
	if i := q.index(value); i >= 0 {
		q.removeAt(i)
	}
	return true
}

// Clear empties the queue and the uniqueness set.
func (q *RateLimitedTimedQueue) Clear() {
	q.items = nil
	q.queued = make(map[string]*TimedValue)
	q.set = make(map[string]struct{})
}

// Try is upstream RateLimitedTimedQueue.Try: while a head exists and the token bucket gives a
// token, it stops if the head is not due yet (the token is spent all the same, as upstream),
// else runs fn on it. A value fn accepts leaves the queue but stays in the uniqueness set; a
// value fn refuses is kept with ProcessAt = now + wait + 1ns. fn may block (it makes API calls);
// the queue may change meanwhile, exactly as it may upstream.
func (q *RateLimitedTimedQueue) Try(fn ActionFunc) {
	for len(q.items) > 0 {
		if !q.tryAccept() {
			return
		}
		val := *q.items[0]
		now := q.clock.k.Now()
		if now < val.ProcessAt {
			return
		}
		ok, wait := fn(val)
		if !ok {
			if i := q.index(val.Value); i >= 0 {
				q.removeAt(i)
				val.ProcessAt = now.Add(wait + 1)
				q.insert(&val)
			}
			continue
		}
		if i := q.index(val.Value); i >= 0 {
			q.removeAt(i)
			q.processed++
		}
	}
}

// SwapLimiter is upstream SwapLimiter: nothing happens when the rate is unchanged; a rate of
// zero or less installs a limiter that never accepts; otherwise a fresh full bucket replaces
// the old one, drained at once if the old one had no token (so that a swap does not hand out
// an extra token, upstream's rule for burst 1).
func (q *RateLimitedTimedQueue) SwapLimiter(newQPS float32) {
	if q.QPS() == newQPS {
		return
	}
	q.limiterSwaps++
	if newQPS <= 0 {
		q.limiter = nil
		q.qps = 0
		return
	}
	l := rate.NewLimiter(q.clock, rate.Limit(newQPS), EvictionRateLimiterBurst)
	if !q.tryAccept() {
		l.Allow()
	}
	q.limiter = l
	q.qps = newQPS
}

func (q *RateLimitedTimedQueue) tryAccept() bool {
	if q.limiter == nil {
		return false
	}
	return q.limiter.Allow()
}

// wouldAcceptAt reports whether the bucket, left alone until t, would give a token at t.
func (q *RateLimitedTimedQueue) wouldAcceptAt(t vtime.Time) bool {
	if q.limiter == nil {
		return false
	}
	q.clock.probing, q.clock.at = true, t
	tokens := q.limiter.Tokens()
	q.clock.probing = false
	return tokens >= 1
}

// acceptEstimate returns roughly when the bucket will next hold a token, and false when it
// never will (a zero rate) or not within maxPeriod×1000 (about 2.7 years of virtual time, far
// beyond any run).
func (q *RateLimitedTimedQueue) acceptEstimate() (vtime.Time, bool) {
	if q.limiter == nil {
		return 0, false
	}
	now := q.clock.k.Now()
	tokens := q.limiter.Tokens()
	if tokens >= 1 {
		return now, true
	}
	if q.limiter.Limit() <= 0 {
		return 0, false
	}
	need := (1 - tokens) / float64(q.limiter.Limit())
	if need > maxPeriod.Seconds()*1000 {
		return 0, false
	}
	return now.Add(time.Duration(need * float64(time.Second))), true
}

// index returns the position of value in items, or -1.
func (q *RateLimitedTimedQueue) index(value string) int {
	v, ok := q.queued[value]
	if !ok {
		return -1
	}
	i := sort.Search(len(q.items), func(i int) bool { return !q.items[i].before(v) })
	if i < len(q.items) && q.items[i] == v {
		return i
	}
	panic("nodelifecycle: rate-limited queue index out of step with its items")
}

func (v *TimedValue) before(o *TimedValue) bool {
	if v.ProcessAt != o.ProcessAt {
		return v.ProcessAt < o.ProcessAt
	}
	return v.seq < o.seq
}

func (q *RateLimitedTimedQueue) removeAt(i int) {
	delete(q.queued, q.items[i].Value)
	copy(q.items[i:], q.items[i+1:])
	q.items[len(q.items)-1] = nil
	q.items = q.items[:len(q.items)-1]
}

func (q *RateLimitedTimedQueue) insert(v *TimedValue) {
	q.queued[v.Value] = v
	i := sort.Search(len(q.items), func(i int) bool { return v.before(q.items[i]) })
	q.items = append(q.items, nil)
	copy(q.items[i+1:], q.items[i:])
	q.items[i] = v
}
