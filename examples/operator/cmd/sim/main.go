// Command sim is the WebApp example's own sim: reconsim's whole command line (run, validate,
// sweep, explore, report, ...) with the WebApp operator built in as the controller "webapp".
//
//	go build ./examples/operator/cmd/sim
//	./sim run examples/operator/scenarios/webapp-node-failure.yaml
//
// This is the only file of the example that imports reconsim: the API types and the
// Reconciler compile against controller-runtime alone and would run on a real cluster
// unchanged. What differs is setupWithManager, kubebuilder's SetupWithManager with
// operator.NewControllerManagedBy in place of ctrl.NewControllerManagedBy.
package main

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/reconsim/reconsim"
	webappv1alpha1 "github.com/reconsim/reconsim/examples/operator/api/v1alpha1"
	"github.com/reconsim/reconsim/examples/operator/internal/controller"
	"github.com/reconsim/reconsim/operator"
)

func main() { reconsim.Main(reconsim.WithController("webapp", setup)) }

// setup builds the WebApp operator on a manager: reconsim calls it when the simulated
// controllers start, and again after each restart of the controller.
func setup(mgr operator.Manager) error {
	return setupWithManager(mgr, newReconciler(mgr))
}

// newReconciler fills the Reconciler's fields from the manager, as kubebuilder's main.go does.
func newReconciler(mgr operator.Manager) *controller.WebAppReconciler {
	return &controller.WebAppReconciler{
		Client:    mgr.GetClient(),
		APIReader: mgr.GetAPIReader(),
		Scheme:    mgr.GetScheme(),
		Recorder:  mgr.GetEventRecorderFor("webapp-controller"),
		Clock:     operator.Clock(mgr),
	}
}

// setupWithManager is the example's SetupWithManager, the only code that differs from a
// kubebuilder project: ctrl.NewControllerManagedBy(mgr) becomes
// operator.NewControllerManagedBy(mgr).
func setupWithManager(mgr operator.Manager, r reconcile.Reconciler) error {
	if err := webappv1alpha1.AddToScheme(mgr.GetScheme()); err != nil {
		return err
	}
	return operator.NewControllerManagedBy(mgr).
		For(&webappv1alpha1.WebApp{}).
		Owns(&appsv1.Deployment{}).
		Owns(&corev1.Service{}).
		Owns(&policyv1.PodDisruptionBudget{}).
		Named("webapp").
		Complete(r)
}
