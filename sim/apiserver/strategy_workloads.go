package apiserver

import (
	"github.com/reconsim/reconsim/model"
)

// Strategies of the workload, policy, autoscaling and discovery kinds. The generic strategy
// (genericStrategy) is upstream's behaviour for:
//
//   - StatefulSet ([k8s] pkg/registry/apps/statefulset/strategy.go), DaemonSet
//     (pkg/registry/apps/daemonset/strategy.go) and PodDisruptionBudget
//     (pkg/registry/policy/poddisruptionbudget/strategy.go): status reset and generation 1 on
//     create, status kept on update, generation bumped when the spec changes, spec kept on a
//     status update, unconditional update allowed.
//   - ControllerRevision (pkg/registry/apps/controllerrevision/strategy.go): no status, no
//     generation, unconditional update allowed.
//
// The kinds below differ from it.

// deploymentStrategy follows [k8s] pkg/registry/apps/deployment/strategy.go: like the generic
// strategy, except that a change of metadata.annotations also bumps generation
// (deploymentStrategy.PrepareForUpdate: "annotation updates bump the generation because
// annotations are copied from deployments to their replica sets").
func deploymentStrategy() *strategy {
	return &strategy{
		allowUnconditionalUpdate: true,
		gc:                       gcDeleteDependents, // apps/v1: DeleteDependents
		prepareForCreate: func(obj model.Object) {
			d := obj.(*model.Deployment)
			d.Status = model.DeploymentStatus{}
			d.Generation = 1
		},
		prepareForUpdate: func(obj, old model.Object) {
			obj.(*model.Deployment).Status = old.(*model.Deployment).Status
		},
		prepareForStatusUpdate: func(obj, old model.Object) {
			obj.(*model.Deployment).Spec = old.(*model.Deployment).Spec
		},
		specEqual: func(a, b model.Object) bool {
			da, db := a.(*model.Deployment), b.(*model.Deployment)
			return semanticEqual(&da.Spec, &db.Spec) && semanticEqual(da.Annotations, db.Annotations)
		},
	}
}

// hpaStrategy follows [k8s] pkg/registry/autoscaling/horizontalpodautoscaler/strategy.go:
// status reset on create and kept on update, and no generation tracking (neither
// PrepareForCreate nor PrepareForUpdate touches metadata.generation, so it stays 0).
func hpaStrategy() *strategy {
	return &strategy{
		allowUnconditionalUpdate: true,
		gc:                       gcDeleteDependents,
		prepareForCreate: func(obj model.Object) {
			obj.(*model.HorizontalPodAutoscaler).Status = model.HorizontalPodAutoscalerStatus{}
		},
		prepareForUpdate: func(obj, old model.Object) {
			obj.(*model.HorizontalPodAutoscaler).Status = old.(*model.HorizontalPodAutoscaler).Status
		},
		prepareForStatusUpdate: func(obj, old model.Object) {
			obj.(*model.HorizontalPodAutoscaler).Spec = old.(*model.HorizontalPodAutoscaler).Spec
		},
	}
}

// serviceStrategy follows [k8s] pkg/registry/core/service/strategy.go: status reset on create
// and kept on update, no generation tracking.
func serviceStrategy() *strategy {
	return &strategy{
		allowUnconditionalUpdate: true,
		gc:                       gcDeleteDependents,
		prepareForCreate: func(obj model.Object) {
			obj.(*model.Service).Status = model.ServiceStatus{}
		},
		prepareForUpdate: func(obj, old model.Object) {
			obj.(*model.Service).Status = old.(*model.Service).Status
		},
		prepareForStatusUpdate: func(obj, old model.Object) {
			obj.(*model.Service).Spec = old.(*model.Service).Spec
		},
	}
}

// endpointSliceStrategy follows [k8s] pkg/registry/discovery/endpointslice/strategy.go:
// generation 1 on create, and bumped by an update that changes anything outside metadata
// (addressType, endpoints, ports) or the labels.
func endpointSliceStrategy() *strategy {
	return &strategy{
		allowUnconditionalUpdate: true,
		gc:                       gcDeleteDependents,
		prepareForCreate: func(obj model.Object) {
			obj.Meta().Generation = 1
		},
		specEqual: func(a, b model.Object) bool {
			ea, eb := a.(*model.EndpointSlice), b.(*model.EndpointSlice)
			return ea.AddressType == eb.AddressType &&
				semanticEqual(ea.Endpoints, eb.Endpoints) &&
				semanticEqual(ea.Ports, eb.Ports) &&
				semanticEqual(ea.Labels, eb.Labels)
		},
	}
}

// jobStrategy follows [k8s] pkg/registry/batch/job/strategy.go: the generic strategy (status
// reset and generation 1 on create, generation bumped on spec change), the selector and
// template labels generated from the UID before validation (generateSelector), and
// OrphanDependents as the default garbage-collection policy of batch/v1 ("for backward
// compatibility": deleting a Job without a propagation policy leaves its pods).
func jobStrategy(info model.KindInfo) *strategy {
	st := genericStrategy(info)
	st.gc = gcOrphanDependents
	st.beforeValidate = func(obj model.Object, uid string) {
		model.GenerateJobSelector(obj.(*model.Job), uid)
	}
	return st
}

// cronJobStrategy follows [k8s] pkg/registry/batch/cronjob/strategy.go: the generic strategy;
// batch/v1 CronJobs delete their Jobs in the background (DeleteDependents).
func cronJobStrategy(info model.KindInfo) *strategy {
	return genericStrategy(info)
}
