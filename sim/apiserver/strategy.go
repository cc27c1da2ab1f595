package apiserver

import (
	"reflect"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/reconsim/reconsim/model"
)

// gcPolicy is a strategy's DefaultGarbageCollectionPolicy
// ([apiserver@HEAD] pkg/registry/rest/delete.go GarbageCollectionPolicy).
type gcPolicy int

const (
	// gcDeleteDependents is the default for strategies that do not say otherwise: no GC
	// finalizer unless asked (Background propagation).
	gcDeleteDependents gcPolicy = iota
	// gcOrphanDependents adds the orphan finalizer by default (old extensions/apps versions).
	gcOrphanDependents
	// gcUnsupported never adds GC finalizers (events: eventStrategy returns rest.Unsupported).
	gcUnsupported
)

// strategy is the per-kind behaviour of the generic registry: what upstream's REST strategies
// (pkg/registry/<group>/<resource>/strategy.go) decide for their kind.
type strategy struct {
	// allowUnconditionalUpdate: an update without resourceVersion overwrites (else 422).
	allowUnconditionalUpdate bool
	// allowCreateOnUpdate: an update of a missing object creates it (PUT creates).
	allowCreateOnUpdate bool
	gc                  gcPolicy
	// prepareForCreate resets what a client may not set on create (status, generation); nil
	// when the kind has nothing to reset.
	prepareForCreate func(obj model.Object)
	// beforeValidate, when set, completes a new object with the UID it is about to get, before
	// validation (upstream fills the UID in rest.BeforeCreate before the strategy's Validate,
	// where the Job strategy generates its selector).
	beforeValidate func(obj model.Object, uid string)
	// prepareForUpdate carries over what a main-resource update may not change (status); nil
	// when nothing.
	prepareForUpdate func(obj, old model.Object)
	// prepareForStatusUpdate carries over what a status update may not change (spec, ...);
	// nil when nothing.
	prepareForStatusUpdate func(obj, old model.Object)
	// specEqual compares specs; nil when the kind does not track metadata.generation.
	specEqual func(a, b model.Object) bool
	// changed, when set, tells at a glance that an update changes the object: true only when
	// obj surely differs from old (the field the kind's writers move on every write differs),
	// false when the full comparison must decide. It spares that comparison, by reflection,
	// on the kind's most frequent write.
	changed func(obj, old model.Object) bool
	// checkGracefulDelete returns the grace period for a delete with the given option (nil =
	// not given); nil for kinds deleted without grace.
	checkGracefulDelete func(obj model.Object, optionGraceSeconds *int64) int64
	// triggerField is the field watchers are indexed by (upstream cacher's indexed trigger),
	// "" when the kind has none.
	triggerField string

	// The hooks below are set for custom resources (customresource.go) and nil for the
	// built-in kinds, whose behaviour the model's SetDefaults, Validate and ValidateUpdate
	// give.
	//
	// normalize runs after defaulting on every write: the version check, pruning and the
	// schema's defaults of a custom resource.
	normalize func(obj model.Object) error
	// validateCreate and validateUpdate replace model.Validate and model.ValidateUpdate.
	validateCreate func(obj model.Object) field.ErrorList
	validateUpdate func(old, obj model.Object) field.ErrorList
	// scale is the kind's scale subresource when it is not one of scaleTargets'.
	scale *scaleTarget
}

// strategyFor returns the strategy of a kind the model knows, or the generic one built by
// reflection for kinds registered later.
func strategyFor(info model.KindInfo) *strategy {
	switch info.Kind {
	case model.KindPod:
		return podStrategy()
	case model.KindReplicaSet:
		return replicaSetStrategy()
	case model.KindNode:
		return nodeStrategy()
	case model.KindNamespace:
		return namespaceStrategy()
	case model.KindLease:
		return leaseStrategy()
	case model.KindEvent:
		return eventStrategy()
	case model.KindDeployment:
		return deploymentStrategy()
	case model.KindHorizontalPodAutoscaler:
		return hpaStrategy()
	case model.KindService:
		return serviceStrategy()
	case model.KindEndpointSlice:
		return endpointSliceStrategy()
	case model.KindJob:
		return jobStrategy(info)
	case model.KindCronJob:
		return cronJobStrategy(info)
	case model.KindCustomResourceDefinition:
		return crdStrategy(info)
	}
	// StatefulSet, DaemonSet, PodDisruptionBudget and ControllerRevision behave as the
	// generic strategy below says; see strategy_workloads.go for the citations.
	return genericStrategy(info)
}

// podStrategy follows [k8s] pkg/registry/core/pod/strategy.go.
func podStrategy() *strategy {
	return &strategy{
		allowUnconditionalUpdate: true,  // podStrategy.AllowUnconditionalUpdate
		allowCreateOnUpdate:      false, // podStrategy.AllowCreateOnUpdate
		gc:                       gcDeleteDependents,
		prepareForCreate: func(obj model.Object) {
			// PrepareForCreate: Generation = 1 and Status = {Phase: Pending} (QOSClass is not
			// modelled).
			pod := obj.(*model.Pod)
			pod.Generation = 1
			pod.Status = model.PodStatus{Phase: model.PodPending}
		},
		prepareForUpdate: func(obj, old model.Object) {
			obj.(*model.Pod).Status = old.(*model.Pod).Status
		},
		prepareForStatusUpdate: func(obj, old model.Object) {
			// podStatusStrategy.PrepareForUpdate: spec and ownerReferences come from the stored
			// pod and deletionTimestamp is cleared here (BeforeUpdate restores the stored one).
			pod, oldPod := obj.(*model.Pod), old.(*model.Pod)
			pod.Spec = oldPod.Spec
			pod.DeletionTimestamp = nil
			pod.OwnerReferences = oldPod.OwnerReferences
		},
		specEqual: func(a, b model.Object) bool {
			// updatePodGeneration: generation moves when the spec changes
			// (PodObservedGenerationTracking).
			return semanticEqual(&a.(*model.Pod).Spec, &b.(*model.Pod).Spec)
		},
		checkGracefulDelete: podGracePeriod,
		// pod registry: TriggerFunc on spec.nodeName (pkg/registry/core/pod/storage/storage.go).
		triggerField: fieldSpecNodeName,
	}
}

// podGracePeriod is podStrategy.CheckGracefulDelete: the option if given, else
// spec.terminationGracePeriodSeconds (else 0); 0 for a pod that is not scheduled or already
// Succeeded/Failed; a negative period becomes 1.
func podGracePeriod(obj model.Object, optionGraceSeconds *int64) int64 {
	pod := obj.(*model.Pod)
	var period int64
	if optionGraceSeconds != nil {
		period = *optionGraceSeconds
	} else if pod.Spec.TerminationGracePeriodSeconds != nil {
		period = *pod.Spec.TerminationGracePeriodSeconds
	}
	if pod.Spec.NodeName == "" {
		period = 0
	}
	if pod.Status.Phase == model.PodFailed || pod.Status.Phase == model.PodSucceeded {
		period = 0
	}
	if period < 0 {
		period = 1
	}
	return period
}

// replicaSetStrategy follows [k8s] pkg/registry/apps/replicaset/strategy.go.
func replicaSetStrategy() *strategy {
	return &strategy{
		allowUnconditionalUpdate: true,
		allowCreateOnUpdate:      false,
		gc:                       gcDeleteDependents, // DefaultGarbageCollectionPolicy: DeleteDependents
		prepareForCreate: func(obj model.Object) {
			rs := obj.(*model.ReplicaSet)
			rs.Status = model.ReplicaSetStatus{}
			rs.Generation = 1
		},
		prepareForUpdate: func(obj, old model.Object) {
			obj.(*model.ReplicaSet).Status = old.(*model.ReplicaSet).Status
		},
		prepareForStatusUpdate: func(obj, old model.Object) {
			obj.(*model.ReplicaSet).Spec = old.(*model.ReplicaSet).Spec
		},
		specEqual: func(a, b model.Object) bool {
			return semanticEqual(&a.(*model.ReplicaSet).Spec, &b.(*model.ReplicaSet).Spec)
		},
	}
}

// nodeStrategy follows [k8s] pkg/registry/core/node/strategy.go: nodes may set status on
// create, and do not track generation.
func nodeStrategy() *strategy {
	return &strategy{
		allowUnconditionalUpdate: true,
		allowCreateOnUpdate:      false,
		gc:                       gcDeleteDependents,
		prepareForUpdate: func(obj, old model.Object) {
			obj.(*model.Node).Status = old.(*model.Node).Status
		},
		prepareForStatusUpdate: func(obj, old model.Object) {
			obj.(*model.Node).Spec = old.(*model.Node).Spec
		},
		// node registry: TriggerFunc on metadata.name.
		triggerField: fieldMetadataName,
	}
}

// namespaceStrategy follows [k8s] pkg/registry/core/namespace/strategy.go: status.phase is
// Active on create and kept on update. Deletion is the namespace REST's own (see
// deleteNamespace).
func namespaceStrategy() *strategy {
	return &strategy{
		allowUnconditionalUpdate: true,
		allowCreateOnUpdate:      false,
		gc:                       gcDeleteDependents,
		prepareForCreate: func(obj model.Object) {
			obj.(*model.Namespace).Status = model.NamespaceStatus{Phase: model.NamespaceActive}
		},
		prepareForUpdate: func(obj, old model.Object) {
			obj.(*model.Namespace).Status = old.(*model.Namespace).Status
		},
	}
}

// leaseStrategy follows [k8s] pkg/registry/coordination/lease/strategy.go: no unconditional
// update, PUT may create.
func leaseStrategy() *strategy {
	return &strategy{
		allowUnconditionalUpdate: false,
		allowCreateOnUpdate:      true,
		gc:                       gcDeleteDependents,
		changed:                  leaseRenewed,
	}
}

// leaseRenewed is the Lease strategy's changed: a renewal (every write of a kubelet's Lease
// and of a leader elector's) moves spec.renewTime.
func leaseRenewed(obj, old model.Object) bool {
	a, ok := obj.(*model.Lease)
	b, okOld := old.(*model.Lease)
	if !ok || !okOld {
		return false
	}
	ra, rb := a.Spec.RenewTime, b.Spec.RenewTime
	return ra != nil && rb != nil && *ra != *rb
}

// eventStrategy follows [k8s] pkg/registry/core/event/strategy.go: unconditional update, PUT
// may create, and no garbage collection (DefaultGarbageCollectionPolicy: Unsupported).
func eventStrategy() *strategy {
	return &strategy{
		allowUnconditionalUpdate: true,
		allowCreateOnUpdate:      true,
		gc:                       gcUnsupported,
	}
}

// genericStrategy is the behaviour of upstream's workload strategies (deployments,
// statefulsets, daemonsets, HPAs: generation 1 on create and bumped on spec change, status
// reset on create and kept on update, unconditional update allowed), applied by reflection to
// the Spec and Status fields of a kind registered after this package was written.
func genericStrategy(info model.KindInfo) *strategy {
	st := &strategy{allowUnconditionalUpdate: true, gc: gcDeleteDependents}
	sample := reflect.TypeOf(info.New()).Elem()
	_, hasSpec := sample.FieldByName("Spec")
	_, hasStatusField := sample.FieldByName("Status")
	hasStatus := info.HasStatus && hasStatusField
	field := func(obj model.Object, name string) reflect.Value {
		return reflect.ValueOf(obj).Elem().FieldByName(name)
	}
	st.prepareForCreate = func(obj model.Object) {
		if hasStatus {
			s := field(obj, "Status")
			s.Set(reflect.Zero(s.Type()))
		}
		if hasSpec {
			obj.Meta().Generation = 1
		}
	}
	st.prepareForUpdate = func(obj, old model.Object) {
		if hasStatus {
			field(obj, "Status").Set(field(old, "Status"))
		}
	}
	st.prepareForStatusUpdate = func(obj, old model.Object) {
		if hasSpec {
			field(obj, "Spec").Set(field(old, "Spec"))
		}
	}
	if hasSpec {
		st.specEqual = func(a, b model.Object) bool {
			return semanticEqual(field(a, "Spec").Interface(), field(b, "Spec").Interface())
		}
	}
	return st
}
