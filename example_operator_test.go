package reconsim_test

import (
	"context"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/reconsim/reconsim"
	"github.com/reconsim/reconsim/operator"
)

// LabelReconciler is a controller-runtime Reconciler as kubebuilder writes one: it labels
// every Deployment it sees.
type LabelReconciler struct {
	client.Client
	Updates int
}

func (r *LabelReconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	var d appsv1.Deployment
	if err := r.Get(ctx, req.NamespacedName, &d); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	if d.Labels["team"] == "web" {
		return reconcile.Result{}, nil
	}
	if d.Labels == nil {
		d.Labels = map[string]string{}
	}
	d.Labels["team"] = "web"
	if err := r.Update(ctx, &d); err != nil {
		return reconcile.Result{}, err // a Conflict is retried with backoff
	}
	r.Updates++
	return reconcile.Result{}, nil
}

// SetupWithManager is the only line that changes from a kubebuilder project:
// operator.NewControllerManagedBy instead of ctrl.NewControllerManagedBy.
func (r *LabelReconciler) SetupWithManager(mgr operator.Manager) error {
	return operator.NewControllerManagedBy(mgr).For(&appsv1.Deployment{}).Complete(r)
}

// Run your own controller-runtime Reconciler inside a simulated cluster.
func ExampleWithController() {
	r := &LabelReconciler{}
	res, err := reconsim.Run(context.Background(), reconsim.Builtin("rolling-update"),
		reconsim.WithController("label-controller", func(mgr operator.Manager) error {
			r.Client = mgr.GetClient()
			return r.SetupWithManager(mgr)
		}))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("passed:", res.Passed)
	fmt.Println("deployments labelled:", r.Updates)
	// Output:
	// passed: true
	// deployments labelled: 2
}
