package workqueue

import (
	"github.com/reconsim/reconsim/sim"
)

// TypedRateLimitingInterface is a delaying queue whose retries are spaced by a RateLimiter
// (upstream TypedRateLimitingInterface).
type TypedRateLimitingInterface[T comparable] interface {
	TypedDelayingInterface[T]
	// AddRateLimited adds item after the delay the limiter gives it now.
	AddRateLimited(item T)
	// Forget tells the limiter item succeeded: its backoff starts over. It does not remove
	// item from the queue.
	Forget(item T)
	// NumRequeues returns the limiter's failure count for item.
	NumRequeues(item T) int
}

// RateLimiting is a Delaying queue with a rate limiter (upstream rate_limiting_queue.go).
type RateLimiting[T comparable] struct {
	*Delaying[T]
	limiter RateLimiter[T]
}

var _ TypedRateLimitingInterface[string] = (*RateLimiting[string])(nil)

// NewRateLimiting returns an empty rate-limiting queue on kernel k, binding limiter to k if it
// reads time.
func NewRateLimiting[T comparable](k *sim.Kernel, name string, limiter RateLimiter[T]) *RateLimiting[T] {
	if limiter == nil {
		panic("workqueue: NewRateLimiting needs a rate limiter")
	}
	bind(limiter, k)
	return &RateLimiting[T]{Delaying: NewDelaying[T](k, name), limiter: limiter}
}

// AddRateLimited is AddAfter(item, limiter.When(item)). The limiter records the attempt even
// when the queue is shutting down and drops the item, as upstream.
func (q *RateLimiting[T]) AddRateLimited(item T) {
	q.AddAfter(item, q.limiter.When(item))
}

// Forget resets item's backoff in the limiter.
func (q *RateLimiting[T]) Forget(item T) { q.limiter.Forget(item) }

// NumRequeues returns the limiter's failure count for item.
func (q *RateLimiting[T]) NumRequeues(item T) int { return q.limiter.NumRequeues(item) }

// RateLimiter returns the queue's limiter.
func (q *RateLimiting[T]) RateLimiter() RateLimiter[T] { return q.limiter }
