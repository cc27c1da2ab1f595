package deployment

import (
	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim/controllers/internal/controllerutil"
)

// ComputeHash returns the pod-template-hash of a template: the value of the
// pod-template-hash label and the suffix of the new ReplicaSet's name (upstream
// controller.ComputeHash, which is controllerutil.ComputeHash; see there for how the
// simulator's values relate to a real cluster's). It is exported for the settled objects of
// sim/cluster, which cannot import the controllers' internal packages.
func ComputeHash(template *model.PodTemplateSpec, collisionCount *int32) string {
	return controllerutil.ComputeHash(template, collisionCount)
}
