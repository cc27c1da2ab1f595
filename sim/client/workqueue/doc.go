// Package workqueue is client-go's util/workqueue on the simulator's virtual clock: the work
// queue every controller drains, its delaying and rate-limiting layers, and the rate limiters
// that decide retry delays.
//
// The queue (Typed) has the upstream properties, each checked by a test of the same name:
//
//   - Fair: items are processed in the order in which they are added.
//   - Stingy: an item added many times before it is processed is processed once.
//   - Exclusive: an item is never processed by two workers at the same time. An item added
//     while it is being processed is parked and queued again when Done is called, so it runs
//     exactly once more.
//   - Wakeful: Get parks the calling process while the queue is empty; waiting workers are
//     woken in the order in which they started to wait; ShutDown wakes them all and Get then
//     reports shutdown.
//
// The delaying layer (Delaying) adds AddAfter: an item becomes ready after a virtual delay; a
// delay of zero or less is a plain Add; an item already waiting only ever moves earlier. The
// rate-limiting layer (RateLimiting) adds AddRateLimited = AddAfter(item, limiter.When(item)),
// Forget and NumRequeues.
//
// Simulation choices, each a deliberate difference from running upstream code on a wall clock:
//
//   - Blocking is on sim.Proc: Get takes the ctx of the calling simulated process and parks it.
//     A parked worker is not pending work, so idle controllers let the world become quiescent.
//   - Delayed items are not holds. The delaying layer arms one idle sim.Timer at the earliest
//     readyAt. A far-future requeue (a 1000 s backoff, a 15 s HPA resync) must not keep the run
//     from being declared quiescent, while a short retry fires well inside the kernel's
//     quiescence window and then wakes a worker (which is a hold). Upstream's 10 s heartbeat
//     ticker (delaying_queue.go maxWait) only guards against missed wake-ups of a real clock and
//     is not modelled.
//   - Rate limiters that need time (BucketRateLimiter) read it from the kernel they are bound
//     to; a rate-limiting queue binds its limiter when it is built (see KernelBinder).
//
// Not safe for use from goroutines; everything runs on the kernel.
package workqueue
