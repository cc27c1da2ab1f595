// Package rate is the token bucket of golang.org/x/time/rate on the simulator's virtual clock.
//
// client-go builds both of its request throttles on x/time/rate: the REST client's
// flowcontrol.NewTokenBucketRateLimiter and the workqueue's BucketRateLimiter. Neither can run
// here as is, because x/time/rate reads the wall clock. This package keeps the same arithmetic
// (float64 tokens, refilled at Limit per second, capped at Burst; a reservation may drive the
// bucket negative and the caller waits until it would be back at zero) and reads the time from
// a sim.Kernel instead.
//
// Promises: a Limiter is deterministic (same calls at the same virtual times give the same
// delays), allocates nothing per call, and never blocks: it only computes delays. Blocking on a
// delay is the caller's business (a sim.Proc sleep, or a workqueue AddAfter).
package rate
