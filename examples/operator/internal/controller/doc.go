// Package controller is the WebApp operator's reconciler, written as a controller-runtime
// user writes one: it imports sigs.k8s.io/controller-runtime, k8s.io/api and
// k8s.io/apimachinery, never reconsim, and the same code runs against a real cluster.
//
// Contract: WebAppReconciler.Reconcile makes a WebApp's Deployment, Service and
// PodDisruptionBudget (each controlled by the WebApp through a controller owner reference)
// match its spec, and reports the Deployment's ready replicas in the WebApp's status with
// the generation it observed and an Available condition. It is level based and idempotent:
// run again on an unchanged world, it writes nothing. A status update that meets a 409
// Conflict is retried on the newest WebApp, and then returned to the work queue, never
// dropped.
//
// NaiveStatusReconciler is the deliberately buggy variant of docs/operators.md: it logs a
// failed status update and drops it, so a 409 at the wrong moment leaves the status stale.
//
// Wiring the reconciler to a manager (SetupWithManager) is the only part that differs between
// a real cluster and reconsim; it lives in ../../cmd/sim/main.go.
package controller
