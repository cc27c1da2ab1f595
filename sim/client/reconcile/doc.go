// Package reconcile is a controller-runtime style contract for simulated controllers, and the
// worker machinery that drives it: a rate-limited work queue of Requests drained by a fixed
// number of worker processes, each running upstream's processNextWorkItem loop. User
// controllers (package operator, controller-runtime Reconcilers) and the pod garbage
// collector (one Request requeued after each pass) run on it; the other built-in controllers
// use client.SyncLoop or loops of their own.
//
// Promises:
//
//   - A Request is never reconciled by two workers at once (the work queue is exclusive).
//   - The outcome of every reconcile decides the next one exactly as documented on Reconciler
//     (controller-runtime v0.25.2 reconcileHandler: error, TerminalError, RequeueAfter,
//     Requeue).
//   - Every reconcile leaves one trace line (unless the controller is Quiet), "<controller> reconcile <ns/name> <outcome>", so a
//     trace shows each reconcile, when it ended and what it decided.
//   - A panic inside Reconcile is not recovered: it ends the run, and the kernel reports the
//     worker process, the virtual time and the seed.
package reconcile
