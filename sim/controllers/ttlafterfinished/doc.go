// Package ttlafterfinished is the TTL-after-finished controller (upstream kubernetes
// pkg/controller/ttlafterfinished/ttlafterfinished_controller.go), run as blocking Go on the
// simulated client.
//
// What it promises: a Job with spec.ttlSecondsAfterFinished that finished (Complete or Failed
// True) and is not being deleted is queued (queue "ttl_jobs_to_delete", default controller
// rate limiter, --concurrent-ttl-after-finished-syncs workers, 5). It expires TTL seconds after
// the finishing condition's lastTransitionTime; until then it is requeued for the time left.
// At expiry the Job is read again from the API server (the TTL may have changed) and deleted
// with propagationPolicy Foreground and a UID precondition, so its pods are deleted first. A
// Job without a TTL is never touched; TTL 0 deletes at once.
package ttlafterfinished
