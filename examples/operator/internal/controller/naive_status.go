package controller

import (
	"context"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	webappv1alpha1 "github.com/reconsim/reconsim/examples/operator/api/v1alpha1"
)

// NaiveStatusReconciler is WebAppReconciler with one deliberate bug, a common one: its
// status update is fire-and-forget. A failed update (a 409 Conflict, a 429, a 500) is
// logged and dropped: it is neither retried nor returned, so the work queue does not requeue
// the WebApp either. When the failed write was the last event about the WebApp (its pods are
// all ready, nothing changes any more), the status stays stale for good.
//
// It exists to be caught: docs/operators.md tells how the webapp-conflict-storm scenario
// fails it, and the example's tests assert that it does.
type NaiveStatusReconciler struct {
	WebAppReconciler
}

// Reconcile is WebAppReconciler.Reconcile with a naive status update.
func (r *NaiveStatusReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	return r.reconcile(ctx, req, r.naiveUpdateStatus)
}

// naiveUpdateStatus writes the status the WebApp should report, when it differs from the one
// it has, once.
func (r *NaiveStatusReconciler) naiveUpdateStatus(ctx context.Context, app *webappv1alpha1.WebApp, dep *appsv1.Deployment) error {
	st := Status(app.Status, app, dep.Status.ReadyReplicas, metav1.NewTime(r.now()))
	if equality.Semantic.DeepEqual(st, app.Status) {
		return nil
	}
	app.Status = st
	if err := r.Status().Update(ctx, app); err != nil {
		// BUG: logged and dropped. Return err (the work queue retries with back-off), or
		// retry on conflict as WebAppReconciler.updateStatus does.
		logf.FromContext(ctx).Error(err, "unable to update WebApp status")
	}
	return nil
}
