// Package operator runs controller-runtime Reconcilers inside the simulated cluster.
//
// A kubebuilder-style controller runs unchanged apart from its wiring: SetupWithManager calls
// operator.NewControllerManagedBy(mgr) instead of ctrl.NewControllerManagedBy(mgr), and the
// program registers it with reconsim.WithController. The Reconcile method, the client calls
// it makes, the k8s.io/api types it uses and the errors it checks are controller-runtime's
// (v0.25.2) and client-go's.
//
// Contract:
//
//   - Manager gives a client.Client whose Get and List read the simulated informer cache
//     (kube-controller-manager's shared informers) and whose writes go to the simulated API
//     server through the controller's own client (its own token bucket, with
//     kube-controller-manager's --kube-api-qps/--kube-api-burst). GetAPIReader reads the API
//     server. Errors are apimachinery's apierrors, as a real server's.
//   - Objects are converted at this boundary between k8s.io/api types and the simulator's
//     model (convert.go), losslessly for every field the model holds. Fields the model does
//     not hold (env, ports, volumes, ...) are remembered per object UID from the controller's
//     own writes and read back, so comparing a desired spec with the one read back finds no
//     difference the simulator made up. Custom resources (kinds registered in the model at
//     run time) are converted through JSON.
//   - Reconcile runs in a simulated process on sim/client/reconcile's worker loop, the loop
//     the built-in controllers share: an error is a rate-limited requeue (controller-runtime's
//     default limiter, exponential 5ms..1000s), RequeueAfter forgets the backoff and requeues
//     after that delay, Requeue requeues rate-limited, a reconcile.TerminalError is not
//     requeued. Every client call blocks in virtual time; a call from a goroutine the
//     Reconciler started fails with an error saying why.
//   - Now(ctx) and Clock(mgr) give virtual time. Determinism is the caller's to keep: no
//     wall clock (time.Now, metav1.Now), no goroutines, no map-order dependence in what is
//     written.
//   - A panic in Reconcile is not recovered (controller-runtime's RecoverPanic is not
//     honoured): it ends the run as an internal error naming the worker process
//     "<controller>-worker-<i>", the virtual time and the seed.
//
// Not supported: server-side apply (a clear BadRequest), dry-run, webhooks, field indexes
// other than metadata.name and metadata.namespace in cached Lists, the priority queue's
// priorities (the queue is FIFO), and versions of a kind other than the one the simulator
// serves (NoKindMatchError).
package operator
