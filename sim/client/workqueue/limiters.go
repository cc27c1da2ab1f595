package workqueue

import (
	"math"
	"time"

	"github.com/reconsim/reconsim/sim"
	"github.com/reconsim/reconsim/sim/client/rate"
)

// RateLimiter decides how long an item waits before it is retried (upstream
// TypedRateLimiter).
type RateLimiter[T comparable] interface {
	// When returns how long item should wait now, and records the attempt.
	When(item T) time.Duration
	// Forget stops tracking item: its next When starts from scratch.
	Forget(item T)
	// NumRequeues returns how many failures the limiter has recorded for item.
	NumRequeues(item T) int
}

// KernelBinder is implemented by rate limiters that read virtual time. A rate-limiting queue
// binds its limiter to its kernel when it is built; limiters that wrap others pass the binding
// on. Code that calls When on a time-reading limiter outside a queue must bind it first.
type KernelBinder interface {
	BindKernel(k *sim.Kernel)
}

func bind(limiter any, k *sim.Kernel) {
	if b, ok := limiter.(KernelBinder); ok {
		b.BindKernel(k)
	}
}

// Upstream defaults, default_rate_limiters.go (client-go util/workqueue).
const (
	// DefaultControllerBaseDelay and DefaultControllerMaxDelay are the per-item exponential
	// backoff of DefaultTypedControllerRateLimiter: 5ms doubling up to 1000s.
	DefaultControllerBaseDelay = 5 * time.Millisecond
	DefaultControllerMaxDelay  = 1000 * time.Second
	// DefaultControllerQPS and DefaultControllerBurst are the overall token bucket of
	// DefaultTypedControllerRateLimiter: rate.NewLimiter(rate.Limit(10), 100).
	DefaultControllerQPS   = 10
	DefaultControllerBurst = 100
	// DefaultItemBasedBaseDelay is DefaultTypedItemBasedRateLimiter's base: 1ms up to 1000s.
	DefaultItemBasedBaseDelay = time.Millisecond
)

// DefaultControllerRateLimiter is upstream DefaultTypedControllerRateLimiter: the larger of a
// per-item exponential backoff (5ms, doubling, capped at 1000s) and an overall 10 qps token
// bucket with burst 100. The bucket reads virtual time from the kernel of the queue it is given
// to.
func DefaultControllerRateLimiter[T comparable]() RateLimiter[T] {
	return NewMaxOfRateLimiter[T](
		NewItemExponentialFailureRateLimiter[T](DefaultControllerBaseDelay, DefaultControllerMaxDelay),
		NewBucketRateLimiter[T](DefaultControllerQPS, DefaultControllerBurst),
	)
}

// DefaultItemBasedRateLimiter is upstream DefaultTypedItemBasedRateLimiter: exponential
// per-item backoff from 1ms, capped at 1000s.
func DefaultItemBasedRateLimiter[T comparable]() RateLimiter[T] {
	return NewItemExponentialFailureRateLimiter[T](DefaultItemBasedBaseDelay, DefaultControllerMaxDelay)
}

// ItemExponentialFailureRateLimiter waits baseDelay*2^failures for an item, capped at
// maxDelay (upstream TypedItemExponentialFailureRateLimiter).
type ItemExponentialFailureRateLimiter[T comparable] struct {
	failures  map[T]int
	baseDelay time.Duration
	maxDelay  time.Duration
}

// NewItemExponentialFailureRateLimiter returns the limiter with the given base and cap.
func NewItemExponentialFailureRateLimiter[T comparable](baseDelay, maxDelay time.Duration) *ItemExponentialFailureRateLimiter[T] {
	return &ItemExponentialFailureRateLimiter[T]{failures: make(map[T]int), baseDelay: baseDelay, maxDelay: maxDelay}
}

// When returns baseDelay*2^n, where n is the number of earlier calls for item since it was last
// forgotten, capped at maxDelay; a delay too large for a time.Duration is also maxDelay
// (upstream's overflow guard).
func (r *ItemExponentialFailureRateLimiter[T]) When(item T) time.Duration {
	exp := r.failures[item]
	r.failures[item] = exp + 1
	backoff := float64(r.baseDelay.Nanoseconds()) * math.Pow(2, float64(exp))
	if backoff >= math.MaxInt64 { // also catches 2^63, which does not fit
		return r.maxDelay
	}
	if d := time.Duration(backoff); d < r.maxDelay {
		return d
	}
	return r.maxDelay
}

// Forget resets item's failure count.
func (r *ItemExponentialFailureRateLimiter[T]) Forget(item T) { delete(r.failures, item) }

// NumRequeues returns item's failure count.
func (r *ItemExponentialFailureRateLimiter[T]) NumRequeues(item T) int { return r.failures[item] }

// ItemFastSlowRateLimiter waits fastDelay for the first maxFastAttempts failures of an item
// and slowDelay after that (upstream TypedItemFastSlowRateLimiter).
type ItemFastSlowRateLimiter[T comparable] struct {
	failures        map[T]int
	fastDelay       time.Duration
	slowDelay       time.Duration
	maxFastAttempts int
}

// NewItemFastSlowRateLimiter returns the limiter.
func NewItemFastSlowRateLimiter[T comparable](fastDelay, slowDelay time.Duration, maxFastAttempts int) *ItemFastSlowRateLimiter[T] {
	return &ItemFastSlowRateLimiter[T]{failures: make(map[T]int), fastDelay: fastDelay, slowDelay: slowDelay, maxFastAttempts: maxFastAttempts}
}

// When counts a failure and returns fastDelay while the count is at most maxFastAttempts.
func (r *ItemFastSlowRateLimiter[T]) When(item T) time.Duration {
	r.failures[item]++
	if r.failures[item] <= r.maxFastAttempts {
		return r.fastDelay
	}
	return r.slowDelay
}

// Forget resets item's failure count.
func (r *ItemFastSlowRateLimiter[T]) Forget(item T) { delete(r.failures, item) }

// NumRequeues returns item's failure count.
func (r *ItemFastSlowRateLimiter[T]) NumRequeues(item T) int { return r.failures[item] }

// BucketRateLimiter is an overall token bucket shared by all items (upstream
// TypedBucketRateLimiter over x/time/rate): every When takes a token and returns the
// reservation's delay. It has no per-item state.
type BucketRateLimiter[T comparable] struct {
	qps     rate.Limit
	burst   int
	limiter *rate.Limiter
}

// NewBucketRateLimiter returns a bucket of burst tokens refilled at qps. It must be bound to a
// kernel (BindKernel; a rate-limiting queue does it) before When is called.
func NewBucketRateLimiter[T comparable](qps float64, burst int) *BucketRateLimiter[T] {
	return &BucketRateLimiter[T]{qps: rate.Limit(qps), burst: burst}
}

// BindKernel starts the bucket, full, at the kernel's current time. Binding again to the same
// kernel keeps the bucket's state.
func (r *BucketRateLimiter[T]) BindKernel(k *sim.Kernel) {
	if r.limiter != nil {
		return
	}
	r.limiter = rate.NewLimiter(k, r.qps, r.burst)
}

// When takes one token and returns how long to wait for it. It panics if the limiter was never
// bound to a kernel (a programming error).
func (r *BucketRateLimiter[T]) When(T) time.Duration {
	if r.limiter == nil {
		panic("workqueue: BucketRateLimiter used before BindKernel (give it to NewRateLimiting)")
	}
	return r.limiter.Reserve()
}

// Forget does nothing: the bucket tracks no items.
func (r *BucketRateLimiter[T]) Forget(T) {}

// NumRequeues is always 0: the bucket tracks no items.
func (r *BucketRateLimiter[T]) NumRequeues(T) int { return 0 }

// MaxOfRateLimiter asks every limiter and returns the longest delay (upstream
// TypedMaxOfRateLimiter). Every limiter's When is called on every call, so a token bucket
// inside is drained by every attempt.
type MaxOfRateLimiter[T comparable] struct {
	limiters []RateLimiter[T]
}

// NewMaxOfRateLimiter combines limiters.
func NewMaxOfRateLimiter[T comparable](limiters ...RateLimiter[T]) *MaxOfRateLimiter[T] {
	return &MaxOfRateLimiter[T]{limiters: limiters}
}

// BindKernel binds every limiter that reads time.
func (r *MaxOfRateLimiter[T]) BindKernel(k *sim.Kernel) {
	for _, l := range r.limiters {
		bind(l, k)
	}
}

// When returns the largest of the limiters' delays, calling every one of them.
func (r *MaxOfRateLimiter[T]) When(item T) time.Duration {
	var longest time.Duration
	for _, l := range r.limiters {
		if d := l.When(item); d > longest {
			longest = d
		}
	}
	return longest
}

// Forget forgets item in every limiter.
func (r *MaxOfRateLimiter[T]) Forget(item T) {
	for _, l := range r.limiters {
		l.Forget(item)
	}
}

// NumRequeues returns the largest count any limiter reports.
func (r *MaxOfRateLimiter[T]) NumRequeues(item T) int {
	most := 0
	for _, l := range r.limiters {
		if n := l.NumRequeues(item); n > most {
			most = n
		}
	}
	return most
}

// WithMaxWaitRateLimiter caps another limiter's delay at maxDelay (upstream
// TypedWithMaxWaitRateLimiter).
type WithMaxWaitRateLimiter[T comparable] struct {
	limiter  RateLimiter[T]
	maxDelay time.Duration
}

// NewWithMaxWaitRateLimiter wraps limiter.
func NewWithMaxWaitRateLimiter[T comparable](limiter RateLimiter[T], maxDelay time.Duration) *WithMaxWaitRateLimiter[T] {
	return &WithMaxWaitRateLimiter[T]{limiter: limiter, maxDelay: maxDelay}
}

// BindKernel binds the wrapped limiter if it reads time.
func (r *WithMaxWaitRateLimiter[T]) BindKernel(k *sim.Kernel) { bind(r.limiter, k) }

// When returns the wrapped limiter's delay, at most maxDelay.
func (r *WithMaxWaitRateLimiter[T]) When(item T) time.Duration {
	return min(r.limiter.When(item), r.maxDelay)
}

// Forget forgets item in the wrapped limiter.
func (r *WithMaxWaitRateLimiter[T]) Forget(item T) { r.limiter.Forget(item) }

// NumRequeues returns the wrapped limiter's count.
func (r *WithMaxWaitRateLimiter[T]) NumRequeues(item T) int { return r.limiter.NumRequeues(item) }

// FixedItemIntervalRateLimiter always waits the same interval: the HPA controller's limiter,
// given the HPA sync period (k8s pkg/controller/podautoscaler/rate_limiters.go).
type FixedItemIntervalRateLimiter[T comparable] struct {
	interval time.Duration
}

// NewFixedItemIntervalRateLimiter returns the limiter.
func NewFixedItemIntervalRateLimiter[T comparable](interval time.Duration) *FixedItemIntervalRateLimiter[T] {
	return &FixedItemIntervalRateLimiter[T]{interval: interval}
}

// When returns the interval.
func (r *FixedItemIntervalRateLimiter[T]) When(T) time.Duration { return r.interval }

// Forget does nothing.
func (r *FixedItemIntervalRateLimiter[T]) Forget(T) {}

// NumRequeues is always 1, as upstream.
func (r *FixedItemIntervalRateLimiter[T]) NumRequeues(T) int { return 1 }
