package deployment

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim/controllers/internal/controllerutil"
)

// getReplicaSetsForDeployment returns the ReplicaSets the Deployment owns after reconciling
// controller references (upstream getReplicaSetsForDeployment with
// ReplicaSetControllerRefManager.ClaimReplicaSets): every cached ReplicaSet of the namespace is
// considered, so that owned ones that stopped matching are released. It returns an error for an
// invalid selector, or the aggregated claim errors (the claimed sets are dropped then, as
// upstream does).
func (dc *Controller) getReplicaSetsForDeployment(ctx context.Context, d *model.Deployment) ([]*model.ReplicaSet, error) {
	selector, err := metav1.LabelSelectorAsSelector(d.Spec.Selector)
	if err != nil {
		return nil, fmt.Errorf("deployment %s/%s has invalid label selector: %v", d.Namespace, d.Name, err)
	}
	m := controllerutil.NewControllerRefManager(dc.Client, d, deploymentControllerRef(d), selector)
	m.TraceClaims(dc.Kernel, Component, dRef(d), &dc.stats.Adoptions, &dc.stats.Releases)
	sets := controllerutil.ListNamespaceAs[*model.ReplicaSet](dc.rsInformer, d.Namespace, nil)
	claimed, err := m.ClaimReplicaSets(ctx, sets)
	if err != nil {
		return nil, err
	}
	return claimed, nil
}

// deploymentControllerRef is metav1.NewControllerRef(d, apps/v1 Deployment): controller and
// blockOwnerDeletion both true.
func deploymentControllerRef(d *model.Deployment) model.OwnerReference {
	return controllerutil.NewControllerRef(d, model.KindDeployment, "apps/v1")
}
