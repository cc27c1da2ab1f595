package model

import (
	"cmp"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/api/validate/content"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"
)

// The rules and messages below follow upstream's hand-written validation
// (kubernetes pkg/apis/core/validation/validation.go, pkg/apis/apps/validation/validation.go,
// pkg/apis/coordination/validation/validation.go) for the fields this package models, so a
// rejected object reads like `kubectl apply` output: `spec.replicas: Invalid value: -1: must be
// greater than or equal to 0`. Upstream iterates maps in random order; here every map is
// walked in sorted key order so the error list is deterministic.

// Validator is implemented by object types registered from outside this package (see
// RegisterKind) that validate their own fields; Validate appends what it returns to the
// metadata checks.
type Validator interface {
	Validate() field.ErrorList
}

// Validate checks an object as the API server does on create, after defaulting (call
// SetDefaults first: an empty restartPolicy, for example, is an error, as upstream sees it
// only after defaults). It returns nil when the object is valid. metadata.name may be empty
// when metadata.generateName is set (the name is generated after validation here).
func Validate(obj Object) field.ErrorList { return validate(obj, false, nil) }

// ValidateLike returns what Validate(obj) returns, given valid, an object of obj's kind that
// Validate accepts (an API server's stored objects are such: each passed validation when it
// was written). It does not repeat the checks whose input obj has unchanged from valid, as
// ValidateUpdateOfValid does for an update: labels, annotations and owner references equal to
// valid's, a pod spec equal to valid's apart from spec.nodeName (whose own check is made), a
// node's taints, and a workload's spec that is valid's own memory. The name, generateName and
// namespace are always checked. So a pod created like the one before it (a ReplicaSet's
// replicas, from one template) is validated for what differs. Given an invalid valid, or
// one of another kind, it may miss errors that Validate reports.
func ValidateLike(obj, valid Object) field.ErrorList {
	if valid == nil || obj == nil || valid.GetKind() != obj.GetKind() {
		return validate(obj, false, nil)
	}
	return validate(obj, false, valid)
}

// The roots of the paths of most errors. A field.Path is never changed once made (Child and
// Index make new ones), so the roots are shared rather than allocated on every validation.
var (
	metadataPath = field.NewPath("metadata")
	specPath     = field.NewPath("spec")
)

// validate is Validate; on an update (update true) the name, generateName and namespace are not
// checked again: they are immutable, were checked at create, and upstream's
// ValidateObjectMetaUpdate only checks that they did not change. valid, when not nil, is a
// valid object of obj's kind (see ValidateUpdateOfValid): checks whose input obj has unchanged
// from it are skipped, since they would pass.
func validate(obj Object, update bool, valid Object) field.ErrorList {
	var ki *KindInfo
	if obj != nil {
		ki = kindInfo(obj.GetKind())
	}
	if ki == nil {
		return errUnvalidated(obj)
	}
	nameFn := nameIsDNSSubdomain
	switch ki.Kind {
	case KindNamespace:
		nameFn = nameIsDNSLabel // ValidateNamespaceName
	case KindService:
		nameFn = nameIsDNS1035Label // ValidateServiceName
	}
	if update {
		nameFn = nil
	}
	var validMeta *ObjectMeta
	if valid != nil {
		validMeta = valid.Meta()
	}
	var errs field.ErrorList
	if nameFn != nil {
		errs = validateObjectMeta(obj.Meta(), ki.Namespaced, nameFn, metadataPath, validMeta)
	} else {
		// validateObjectMeta's checks without a nameFn, without its frame.
		errs = validateMetaRest(obj.Meta(), metadataPath, validMeta)
	}
	return nilIfEmpty(validateKind(obj, valid, errs))
}

// errUnvalidated is validate's answer for no object or one of a kind that is not registered.
//
//go:noinline
func errUnvalidated(obj Object) field.ErrorList {
	if obj == nil {
		return field.ErrorList{field.Required(field.NewPath("object"), "")}
	}
	return field.ErrorList{field.Invalid(field.NewPath("kind"), string(obj.GetKind()), "kind is not registered")}
}

// The functions of validation run on the stack of the process whose request the API server
// serves, which grows by copying when a call finds it too short: each is kept to a small
// frame, the checks of one kind in a function of their own, so that a request's path down to
// the deepest check is short (see apiserver.Server.Do).

// validateKind appends to errs the checks of obj's kind (validate; valid as there).
func validateKind(obj, valid Object, errs field.ErrorList) field.ErrorList {
	switch o := obj.(type) {
	case *Pod:
		if vp, ok := valid.(*Pod); !ok || !equalPodSpecButNodeName(&o.Spec, &vp.Spec) {
			errs = append(errs, validatePodSpec(&o.Spec, specPath)...)
		} else if o.Spec.NodeName != vp.Spec.NodeName {
			// spec.nodeName is the one field in which a pod bound by the scheduler, or a
			// replica placed on another node, differs: no other check of the spec reads it.
			errs = append(errs, validateNodeName(o.Spec.NodeName, specPath)...)
		}
	case *ReplicaSet:
		if v, ok := valid.(*ReplicaSet); !ok || !sameValue(&o.Spec, &v.Spec) {
			errs = append(errs, validateReplicaSetSpec(&o.Spec, specPath)...)
		}
	case *Node:
		vn, _ := valid.(*Node)
		errs = append(errs, validateNode(o, vn)...)
	case *Lease:
		if d := o.Spec.LeaseDurationSeconds; d != nil && *d <= 0 {
			errs = append(errs, field.Invalid(field.NewPath("spec", "leaseDurationSeconds"), *d, "must be greater than 0"))
		}
	case *Event:
		errs = append(errs, validateEvent(o)...)
	case *Deployment:
		if v, ok := valid.(*Deployment); !ok || !sameValue(&o.Spec, &v.Spec) {
			errs = append(errs, validateDeploymentSpec(&o.Spec, specPath)...)
		}
	case *StatefulSet:
		if v, ok := valid.(*StatefulSet); !ok || !sameValue(&o.Spec, &v.Spec) {
			errs = append(errs, validateStatefulSetSpec(&o.Spec, specPath)...)
		}
	case *DaemonSet:
		if v, ok := valid.(*DaemonSet); !ok || !sameValue(&o.Spec, &v.Spec) {
			errs = append(errs, validateDaemonSetSpec(&o.Spec, specPath)...)
		}
	case *ControllerRevision:
		errs = append(errs, apivalidation.ValidateNonnegativeField(o.Revision, field.NewPath("revision"))...)
	case *PodDisruptionBudget:
		if v, ok := valid.(*PodDisruptionBudget); !ok || !sameValue(&o.Spec, &v.Spec) {
			errs = append(errs, validatePodDisruptionBudgetSpec(&o.Spec, specPath)...)
		}
	case *HorizontalPodAutoscaler:
		if v, ok := valid.(*HorizontalPodAutoscaler); !ok || !sameValue(&o.Spec, &v.Spec) {
			errs = append(errs, validateHPASpec(&o.Spec, specPath)...)
		}
	case *Service:
		errs = append(errs, validateServiceSpec(&o.Spec)...)
	case *EndpointSlice:
		errs = append(errs, validateEndpointSlice(o)...)
	case *Namespace:
	default:
		if v, ok := obj.(Validator); ok {
			errs = append(errs, v.Validate()...)
		}
	}
	return errs
}

// ValidateUpdate checks newObj as an update of oldObj: everything Validate checks on newObj,
// plus the rules on what an update may change. Metadata: name, namespace, uid,
// creationTimestamp, deletionTimestamp and deletionGracePeriodSeconds are immutable (the API
// server copies uid and creationTimestamp from the stored object before validating, as
// upstream rest.BeforeUpdate does), generation may not decrease, and no finalizer may be added
// once deletionTimestamp is set. Pod: the spec may change only in container and init container
// images and by added tolerations (node binding goes through the binding subresource, not an
// update). ReplicaSet, Deployment, DaemonSet: spec.selector is immutable (apps/v1).
// StatefulSet: only replicas, template, updateStrategy, revisionHistoryLimit and
// minReadySeconds may change. ControllerRevision: data is immutable. EndpointSlice:
// addressType is immutable. Node: spec.providerID may only go from "" to a value. It returns
// nil when the update is allowed.
func ValidateUpdate(oldObj, newObj Object) field.ErrorList {
	return validateUpdate(oldObj, newObj, false)
}

// ValidateUpdateOfValid returns what ValidateUpdate(oldObj, newObj) returns, for an oldObj that
// is valid: every check ValidateUpdate makes of newObj's own fields passes on oldObj's (an
// API server's stored objects are valid: each passed validation when it was written). It does
// not repeat the checks whose input newObj has unchanged from oldObj, because a check's result
// depends only on its input: labels, annotations and owner references equal to oldObj's, a pod
// spec equal to oldObj's apart from spec.nodeName (checked on its own), a node's taints equal to oldObj's, and the spec of a ReplicaSet,
// Deployment, StatefulSet, DaemonSet, PodDisruptionBudget or HorizontalPodAutoscaler that is
// oldObj's own memory (as a status update leaves it). A Lease renewal that shares all of
// that with oldObj and changes no metadata is answered by comparisons alone
// (leaseRenewalValid). Given an invalid oldObj it may miss errors that ValidateUpdate reports.
func ValidateUpdateOfValid(oldObj, newObj Object) field.ErrorList {
	if n, ok := newObj.(*Lease); ok {
		if o, ok := oldObj.(*Lease); ok && leaseRenewalValid(o, n) {
			return nil
		}
	}
	return validateUpdate(oldObj, newObj, true)
}

// leaseRenewalValid reports that validateUpdate(o, n, true) would find nothing wrong, for the
// update every renewal is (the kubelet's of its node Lease, every 10 s per node, and a leader
// elector's): n is a copy of the valid o, sharing its labels, annotations and owner references,
// with no finalizers or deletion marks, with a new renew time. Each condition is one that
// makes one of validateUpdate's checks pass: the labels, annotations and owner references are
// o's own (validateMetaRest skips them), the generation is not negative and not below o's,
// the immutable metadata is o's, and the lease duration is o's, positive or unset. Anything else
// (false) leaves the update to validateUpdate, which builds the errors.
func leaseRenewalValid(o, n *Lease) bool {
	nm, om := &n.ObjectMeta, &o.ObjectMeta
	return nm.Generation >= max(om.Generation, 0) &&
		(len(nm.Labels) == 0 || equalStringMaps(nm.Labels, om.Labels)) &&
		(len(nm.Annotations) == 0 || equalStringMaps(nm.Annotations, om.Annotations)) &&
		SameSlice(nm.OwnerReferences, om.OwnerReferences) &&
		len(nm.Finalizers) == 0 && om.DeletionTimestamp == nil && nm.DeletionTimestamp == nil &&
		om.DeletionGracePeriodSeconds == nil && nm.DeletionGracePeriodSeconds == nil &&
		nm.Name == om.Name && nm.Namespace == om.Namespace && nm.UID == om.UID &&
		nm.CreationTimestamp == om.CreationTimestamp &&
		validLeaseDuration(n.Spec.LeaseDurationSeconds, o.Spec.LeaseDurationSeconds)
}

// validLeaseDuration reports whether a Lease's leaseDurationSeconds d passes validation, given
// valid, that of a valid Lease. A renewal shares its stored Lease's (a shallow copy): that one
// passed, and is not read again (the int32 is cold, read once per renewal, 10 s apart).
func validLeaseDuration(d, valid *int32) bool {
	return d == nil || d == valid || *d > 0
}

// validateUpdate is ValidateUpdate; oldValid says oldObj is valid (ValidateUpdateOfValid).
func validateUpdate(oldObj, newObj Object, oldValid bool) field.ErrorList {
	var valid Object
	if oldValid && oldObj != nil && newObj != nil && oldObj.GetKind() == newObj.GetKind() {
		valid = oldObj
	}
	errs := validate(newObj, true, valid)
	if oldObj == nil || newObj == nil {
		return append(errs, field.Required(field.NewPath("object"), "old and new objects are required"))
	}
	if oldObj.GetKind() != newObj.GetKind() {
		return append(errs, field.Invalid(field.NewPath("kind"), string(newObj.GetKind()), apivalidation.FieldImmutableErrorMsg))
	}
	errs = append(errs, validateObjectMetaUpdate(newObj.Meta(), oldObj.Meta(), metadataPath)...)
	return nilIfEmpty(validateKindUpdate(oldObj, newObj, errs))
}

// validateKindUpdate appends to errs the update rules of newObj's kind (validateUpdate).
func validateKindUpdate(oldObj, newObj Object, errs field.ErrorList) field.ErrorList {
	switch n := newObj.(type) {
	case *Pod:
		if o, ok := oldObj.(*Pod); ok {
			errs = append(errs, validatePodSpecUpdate(&n.Spec, &o.Spec, specPath)...)
		}
	case *ReplicaSet:
		if o, ok := oldObj.(*ReplicaSet); ok {
			errs = append(errs, validateImmutableSelector(n.Spec.Selector, o.Spec.Selector)...)
		}
	case *Deployment:
		// apps/v1 ValidateDeploymentUpdate: the selector is immutable.
		if o, ok := oldObj.(*Deployment); ok {
			errs = append(errs, validateImmutableSelector(n.Spec.Selector, o.Spec.Selector)...)
		}
	case *DaemonSet:
		// apps/v1 ValidateDaemonSetUpdate: the selector is immutable.
		if o, ok := oldObj.(*DaemonSet); ok {
			errs = append(errs, validateImmutableSelector(n.Spec.Selector, o.Spec.Selector)...)
		}
	case *StatefulSet:
		if o, ok := oldObj.(*StatefulSet); ok {
			errs = append(errs, validateStatefulSetSpecUpdate(&n.Spec, &o.Spec)...)
		}
	case *ControllerRevision:
		// ValidateControllerRevisionUpdate: data is immutable.
		if o, ok := oldObj.(*ControllerRevision); ok {
			errs = append(errs, apivalidation.ValidateImmutableField(n.Data, o.Data, field.NewPath("data"))...)
		}
	case *EndpointSlice:
		// ValidateEndpointSliceUpdate: addressType is immutable.
		if o, ok := oldObj.(*EndpointSlice); ok {
			errs = append(errs, apivalidation.ValidateImmutableField(n.AddressType, o.AddressType, field.NewPath("addressType"))...)
		}
	case *Job:
		if o, ok := oldObj.(*Job); ok {
			errs = append(errs, validateJobUpdate(n, o)...)
		}
	case *CustomResourceDefinition:
		if o, ok := oldObj.(*CustomResourceDefinition); ok {
			errs = append(errs, validateCRDUpdate(n, o)...)
		}
	case *PriorityClass:
		if o, ok := oldObj.(*PriorityClass); ok {
			errs = append(errs, validatePriorityClassUpdate(n, o)...)
		}
	case *Node:
		if o, ok := oldObj.(*Node); ok && o.Spec.ProviderID != "" && o.Spec.ProviderID != n.Spec.ProviderID {
			errs = append(errs, field.Forbidden(field.NewPath("spec", "providerID"), `node updates may not change providerID except from "" to valid`))
		}
	}
	return errs
}

// validateImmutableSelector is apivalidation.ValidateImmutableField for a workload's
// spec.selector. An update that keeps the stored object's selector (every status update, and
// a controller's copy of the stored object) has the very same one, which is equal without the
// reflective comparison, and whose path is then not built.
func validateImmutableSelector(n, o *metav1.LabelSelector) field.ErrorList {
	if n == o {
		return nil
	}
	return apivalidation.ValidateImmutableField(n, o, field.NewPath("spec", "selector"))
}

func nilIfEmpty(errs field.ErrorList) field.ErrorList {
	if len(errs) == 0 {
		return nil
	}
	return errs
}

// sortedErrs orders errors that upstream produced by walking a map, so output is stable.
func sortedErrs(errs field.ErrorList) field.ErrorList {
	slices.SortStableFunc(errs, func(a, b *field.Error) int { return cmp.Compare(a.Error(), b.Error()) })
	return errs
}

// validateObjectMeta follows upstream ValidateObjectMetaAccessor.
// validateObjectMeta checks metadata; a nil nameFn skips the name, generateName and namespace
// format checks (an update, where they are immutable).
// valid, when not nil, is the metadata of a valid object (see validate).
func validateObjectMeta(m *ObjectMeta, namespaced bool, nameFn apivalidation.ValidateNameFunc, path *field.Path, valid *ObjectMeta) field.ErrorList {
	var errs field.ErrorList
	if nameFn == nil {
		return append(errs, validateMetaRest(m, path, valid)...)
	}
	if m.GenerateName != "" {
		for _, msg := range nameFn(m.GenerateName, true) {
			errs = append(errs, field.Invalid(path.Child("generateName"), m.GenerateName, msg))
		}
	}
	if m.Name == "" {
		if m.GenerateName == "" {
			errs = append(errs, field.Required(path.Child("name"), "name or generateName is required"))
		}
	} else {
		for _, msg := range nameFn(m.Name, false) {
			errs = append(errs, field.Invalid(path.Child("name"), m.Name, msg))
		}
	}
	if namespaced {
		if m.Namespace == "" {
			errs = append(errs, field.Required(path.Child("namespace"), ""))
		} else {
			for _, msg := range nameIsDNSLabel(m.Namespace, false) { // ValidateNamespaceName
				errs = append(errs, field.Invalid(path.Child("namespace"), m.Namespace, msg))
			}
		}
	} else if m.Namespace != "" {
		errs = append(errs, field.Forbidden(path.Child("namespace"), "not allowed on this type"))
	}
	return append(errs, validateMetaRest(m, path, valid)...)
}

// validateMetaRest checks the metadata that may change on an update: generation, labels,
// annotations, owner references, finalizers. Labels, annotations and owner references equal
// to those of valid (the metadata of a valid object, or nil) are not checked again.
// Finalizers always are: the API server itself adds the garbage collector's.
func validateMetaRest(m *ObjectMeta, path *field.Path, valid *ObjectMeta) field.ErrorList {
	var errs field.ErrorList
	if m.Generation < 0 {
		errs = append(errs, apivalidation.ValidateNonnegativeField(m.Generation, path.Child("generation"))...)
	}
	// Empty labels, annotations and owner references have nothing to check: their field
	// paths are not even built (a loader validates 100,000 objects, most without them).
	if len(m.Labels) > 0 && (valid == nil || !equalStringMaps(m.Labels, valid.Labels)) {
		errs = append(errs, validateLabels(m.Labels, path.Child("labels"))...)
	}
	if len(m.Annotations) > 0 && (valid == nil || !equalStringMaps(m.Annotations, valid.Annotations)) {
		errs = append(errs, validateAnnotations(m.Annotations, path.Child("annotations"))...)
	}
	if len(m.OwnerReferences) > 0 && (valid == nil || !sameOwnerReferences(m.OwnerReferences, valid.OwnerReferences)) {
		errs = append(errs, validateOwnerReferences(m.OwnerReferences, path.Child("ownerReferences"))...)
	}
	if len(m.Finalizers) > 0 {
		errs = append(errs, apivalidation.ValidateFinalizers(m.Finalizers, path.Child("finalizers"))...)
	}
	return errs
}

// equalStringMaps is maps.Equal for labels and annotations. A write that copies the stored
// object shallowly (a status update, the kubelet's Lease renewal) hands over the stored
// object's very maps, which are equal without reading an entry.
func equalStringMaps(a, b map[string]string) bool {
	return reflect.ValueOf(a).Pointer() == reflect.ValueOf(b).Pointer() || maps.Equal(a, b)
}

// validateOwnerReferences is apivalidation.ValidateOwnerReferences of an object's owner
// references (path is their field path).
//
//go:noinline
func validateOwnerReferences(owners []OwnerReference, path *field.Path) field.ErrorList {
	refs := make([]metav1.OwnerReference, len(owners))
	for i, r := range owners {
		refs[i] = metav1.OwnerReference{APIVersion: r.APIVersion, Kind: string(r.Kind), Name: r.Name, UID: types.UID(r.UID), Controller: r.Controller, BlockOwnerDeletion: r.BlockOwnerDeletion}
	}
	return apivalidation.ValidateOwnerReferences(refs, path)
}

// sameOwnerReferences reports whether a and b are equal (EqualOwnerReference, element by
// element). A renewal copies an object shallowly (the kubelet's Lease), so its references are
// usually the very array of the stored object's: then no element needs reading, which would
// be a read of the stored object's cold memory on every renewal.
func sameOwnerReferences(a, b []OwnerReference) bool {
	if SameSlice(a, b) {
		return true
	}
	return len(a) == len(b) && slices.EqualFunc(a, b, EqualOwnerReference)
}

// validateObjectMetaUpdate follows upstream ValidateObjectMetaAccessorUpdate (less the
// resourceVersion rule, which the API server applies with the strategy's
// AllowUnconditionalUpdate).
func validateObjectMetaUpdate(n, o *ObjectMeta, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	if o.DeletionTimestamp != nil {
		errs = append(errs, apivalidation.ValidateNoNewFinalizers(n.Finalizers, o.Finalizers, path.Child("finalizers"))...)
	}
	if n.Generation < o.Generation {
		errs = append(errs, field.Invalid(path.Child("generation"), n.Generation, "must not be decremented"))
	}
	// The fields are compared directly first: apivalidation.ValidateImmutableField compares
	// reflectively on every call, which cost more than the rest of an update on the API round
	// trip. It is still what builds the error, so the messages are upstream's.
	if n.Name != o.Name {
		errs = append(errs, apivalidation.ValidateImmutableField(n.Name, o.Name, path.Child("name"))...)
	}
	if n.Namespace != o.Namespace {
		errs = append(errs, apivalidation.ValidateImmutableField(n.Namespace, o.Namespace, path.Child("namespace"))...)
	}
	if n.UID != o.UID {
		errs = append(errs, apivalidation.ValidateImmutableField(n.UID, o.UID, path.Child("uid"))...)
	}
	if n.CreationTimestamp != o.CreationTimestamp {
		errs = append(errs, apivalidation.ValidateImmutableField(n.CreationTimestamp, o.CreationTimestamp, path.Child("creationTimestamp"))...)
	}
	if !ptr.Equal(n.DeletionTimestamp, o.DeletionTimestamp) {
		errs = append(errs, apivalidation.ValidateImmutableField(n.DeletionTimestamp, o.DeletionTimestamp, path.Child("deletionTimestamp"))...)
	}
	if !ptr.Equal(n.DeletionGracePeriodSeconds, o.DeletionGracePeriodSeconds) {
		errs = append(errs, apivalidation.ValidateImmutableField(n.DeletionGracePeriodSeconds, o.DeletionGracePeriodSeconds, path.Child("deletionGracePeriodSeconds"))...)
	}
	return errs
}

// ---- Pod ----

var (
	restartPolicies = []string{RestartPolicyAlways, RestartPolicyOnFailure, RestartPolicyNever}
	taintEffects    = []TaintEffect{TaintEffectNoSchedule, TaintEffectPreferNoSchedule, TaintEffectNoExecute}
	nodeSelectorOps = []string{NodeSelectorOpDoesNotExist, NodeSelectorOpExists, NodeSelectorOpGt, NodeSelectorOpIn, NodeSelectorOpLt, NodeSelectorOpNotIn}
)

// validateNodeName checks a pod's spec.nodeName (spec is the path of the pod spec); an empty
// one is an unbound pod.
func validateNodeName(nodeName string, spec *field.Path) field.ErrorList {
	if nodeName == "" {
		return nil
	}
	var errs field.ErrorList
	for _, msg := range nameIsDNSSubdomain(nodeName, false) { // ValidateNodeName
		errs = append(errs, field.Invalid(spec.Child("nodeName"), nodeName, msg))
	}
	return errs
}

// validatePodSpec follows upstream ValidatePodSpec for the modelled fields.
func validatePodSpec(spec *PodSpec, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	names := map[string]bool{}
	if len(spec.Containers) == 0 {
		errs = append(errs, field.Required(path.Child("containers"), ""))
	}
	for i := range spec.Containers {
		at := func() *field.Path { return path.Child("containers").Index(i) }
		errs = append(errs, validateContainer(&spec.Containers[i], at, names, false)...)
	}
	for i := range spec.InitContainers {
		at := func() *field.Path { return path.Child("initContainers").Index(i) }
		errs = append(errs, validateContainer(&spec.InitContainers[i], at, names, true)...)
	}
	switch spec.RestartPolicy {
	case "":
		errs = append(errs, field.Required(path.Child("restartPolicy"), ""))
	case RestartPolicyAlways, RestartPolicyOnFailure, RestartPolicyNever:
	default:
		errs = append(errs, field.NotSupported(path.Child("restartPolicy"), spec.RestartPolicy, restartPolicies))
	}
	// A list or map that is empty has nothing to check: its path is not built.
	if len(spec.NodeSelector) > 0 {
		errs = append(errs, validateLabels(spec.NodeSelector, path.Child("nodeSelector"))...)
	}
	errs = append(errs, validateNodeName(spec.NodeName, path)...)
	if spec.PreemptionPolicy != nil {
		errs = append(errs, validatePreemptionPolicy(spec.PreemptionPolicy, path.Child("preemptionPolicy"))...)
	}
	if spec.SchedulerName != "" {
		for _, msg := range dns1123Subdomain(spec.SchedulerName) {
			errs = append(errs, field.Invalid(path.Child("schedulerName"), spec.SchedulerName, msg))
		}
	}
	if spec.Affinity != nil && spec.Affinity.NodeAffinity != nil {
		errs = append(errs, validateNodeAffinity(spec.Affinity.NodeAffinity, path.Child("affinity", "nodeAffinity"))...)
	}
	if spec.Affinity != nil {
		errs = append(errs, validatePodAffinities(spec.Affinity, path.Child("affinity"))...)
	}
	if len(spec.TopologySpreadConstraints) > 0 {
		errs = append(errs, validateTopologySpreadConstraints(spec.TopologySpreadConstraints, path.Child("topologySpreadConstraints"))...)
	}
	if len(spec.Tolerations) > 0 {
		errs = append(errs, validateTolerations(spec.Tolerations, path.Child("tolerations"))...)
	}
	return errs
}

// validateContainer checks a container; at builds its path, which is built only for an
// error: most pods are valid, and a path costs an allocation per element.
func validateContainer(c *Container, at func() *field.Path, names map[string]bool, init bool) field.ErrorList {
	var errs field.ErrorList
	if c.Name == "" {
		errs = append(errs, field.Required(at().Child("name"), ""))
	} else {
		for _, msg := range dns1123Label(c.Name) {
			errs = append(errs, field.Invalid(at().Child("name"), c.Name, msg))
		}
	}
	if names[c.Name] {
		errs = append(errs, field.Duplicate(at().Child("name"), c.Name))
	}
	names[c.Name] = true
	if c.Image == "" {
		errs = append(errs, field.Required(at().Child("image"), ""))
	}
	errs = append(errs, validateResources(&c.Resources, at)...)
	// validateInitContainers / validateContainers (pkg/apis/core/validation/validation.go,
	// k/k v1.33): only an init container may set restartPolicy, and only to Always; such a
	// sidecar may have probes (readiness included).
	restartable := false
	if c.RestartPolicy != nil {
		switch {
		case !init:
			errs = append(errs, field.Forbidden(at().Child("restartPolicy"), "may not be set for non-init containers"))
		case *c.RestartPolicy != ContainerRestartPolicyAlways:
			errs = append(errs, field.NotSupported(at().Child("restartPolicy"), *c.RestartPolicy, []string{ContainerRestartPolicyAlways}))
		default:
			restartable = true
		}
	}
	probes := []struct {
		name         string
		probe        *Probe
		successIsOne bool
	}{
		{"livenessProbe", c.LivenessProbe, true},
		{"readinessProbe", c.ReadinessProbe, false},
		{"startupProbe", c.StartupProbe, true},
	}
	for _, p := range probes {
		if p.probe == nil {
			continue
		}
		pp := at().Child(p.name)
		if init && !restartable {
			errs = append(errs, field.Forbidden(pp, "may not be set for init containers without restartPolicy=Always"))
			continue
		}
		errs = append(errs, validateProbe(p.probe, pp)...)
		if p.successIsOne && p.probe.SuccessThreshold != 1 {
			errs = append(errs, field.Invalid(pp.Child("successThreshold"), p.probe.SuccessThreshold, "must be 1"))
		}
	}
	return errs
}

func validateProbe(p *Probe, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	errs = append(errs, apivalidation.ValidateNonnegativeField(int64(p.InitialDelaySeconds), path.Child("initialDelaySeconds"))...)
	errs = append(errs, apivalidation.ValidateNonnegativeField(int64(p.TimeoutSeconds), path.Child("timeoutSeconds"))...)
	errs = append(errs, apivalidation.ValidateNonnegativeField(int64(p.PeriodSeconds), path.Child("periodSeconds"))...)
	errs = append(errs, apivalidation.ValidateNonnegativeField(int64(p.SuccessThreshold), path.Child("successThreshold"))...)
	errs = append(errs, apivalidation.ValidateNonnegativeField(int64(p.FailureThreshold), path.Child("failureThreshold"))...)
	return errs
}

// standardContainerResources are the unprefixed resource names a container may request
// (upstream IsStandardContainerResourceName, plus the hugepages-<size> family).
var standardContainerResources = []string{ResourceCPU, ResourceMemory, "ephemeral-storage"}

// isContainerResource reports whether name is a resource a container may request: prefixed
// (an extended resource), standard, or hugepages-<size>. The format of name is checked apart.
func isContainerResource(name string) bool {
	return strings.Contains(name, "/") || slices.Contains(standardContainerResources, name) || strings.HasPrefix(name, "hugepages-")
}

func validateContainerResourceName(name string, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, msg := range labelKey(name) { // validateResourceName: a qualified name
		errs = append(errs, field.Invalid(path, name, msg))
	}
	if !isContainerResource(name) {
		errs = append(errs, field.Invalid(path, name, "must be a standard resource for containers"))
	}
	return errs
}

func validateQuantity(q resource.Quantity, path *field.Path) field.ErrorList {
	if q.Sign() < 0 {
		return field.ErrorList{field.Invalid(path, q.String(), apivalidation.IsNegativeErrorMsg)}
	}
	return nil
}

// resourcesValid reports whether resourceErrors finds nothing in r, without building its
// sorted names and paths: most containers' resources are valid.
func resourcesValid(r *ResourceRequirements) bool {
	for name, limit := range r.Limits { //detlint:ordered an all-entries check; order cannot matter
		if !isLabelKey(name) || !isContainerResource(name) || limit.Sign() < 0 {
			return false
		}
	}
	for name, req := range r.Requests { //detlint:ordered an all-entries check; order cannot matter
		if !isLabelKey(name) || !isContainerResource(name) || req.Sign() < 0 {
			return false
		}
		if limit, ok := r.Limits[name]; ok && req.Cmp(limit) > 0 {
			return false
		}
	}
	return true
}

// validateResources checks the resources of the container at (built only for an error).
func validateResources(r *ResourceRequirements, at func() *field.Path) field.ErrorList {
	if resourcesValid(r) {
		return nil
	}
	return resourceErrors(r, at().Child("resources"))
}

// resourceErrors follows upstream ValidateContainerResourceRequirements: names valid,
// quantities non-negative, each request at most its limit.
func resourceErrors(r *ResourceRequirements, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, name := range slices.Sorted(maps.Keys(r.Limits)) {
		p := path.Child("limits").Key(name)
		errs = append(errs, validateContainerResourceName(name, p)...)
		errs = append(errs, validateQuantity(r.Limits[name], p)...)
	}
	for _, name := range slices.Sorted(maps.Keys(r.Requests)) {
		p := path.Child("requests").Key(name)
		req := r.Requests[name]
		errs = append(errs, validateContainerResourceName(name, p)...)
		errs = append(errs, validateQuantity(req, p)...)
		if limit, ok := r.Limits[name]; ok && req.Cmp(limit) > 0 {
			errs = append(errs, field.Invalid(p, req.String(), fmt.Sprintf("must be less than or equal to %s limit of %s", name, limit.String())))
		}
	}
	return errs
}

// validateTolerations follows upstream ValidateTolerations. The path of a toleration is
// built only for an error: every pod has the API server's default tolerations.
func validateTolerations(ts []Toleration, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, t := range ts {
		at := func() *field.Path { return path.Index(i) }
		if t.Key != "" && !isLabelKey(t.Key) {
			errs = append(errs, validateLabelName(t.Key, at().Child("key"))...)
		}
		if t.Key == "" && t.Operator != "Exists" {
			errs = append(errs, field.Invalid(at().Child("operator"), t.Operator, "operator must be Exists when `key` is empty, which means \"match all values and all keys\""))
		}
		if t.TolerationSeconds != nil && t.Effect != TaintEffectNoExecute {
			errs = append(errs, field.Invalid(at().Child("effect"), string(t.Effect), "effect must be 'NoExecute' when `tolerationSeconds` is set"))
		}
		switch t.Operator {
		case "Equal", "": // empty means Equal
			if msgs := labelValue(t.Value); len(msgs) > 0 {
				errs = append(errs, field.Invalid(at().Child("operator"), t.Value, strings.Join(msgs, ";")))
			}
		case "Exists":
			if t.Value != "" {
				errs = append(errs, field.Invalid(at().Child("operator"), t, "value must be empty when `operator` is 'Exists'"))
			}
		default:
			errs = append(errs, field.NotSupported(at().Child("operator"), t.Operator, []string{"Equal", "Exists"}))
		}
		if t.Effect != "" && !isTaintEffect(t.Effect) {
			errs = append(errs, validateTaintEffect(t.Effect, false, at().Child("effect"))...)
		}
	}
	return errs
}

// isTaintEffect reports whether e is one of the taint effects.
func isTaintEffect(e TaintEffect) bool { return slices.Contains(taintEffects, e) }

// validateTaintEffect follows upstream validateTaintEffect.
func validateTaintEffect(e TaintEffect, required bool, path *field.Path) field.ErrorList {
	switch {
	case e == "" && required:
		return field.ErrorList{field.Required(path, "")}
	case e == "", isTaintEffect(e):
		return nil
	}
	return field.ErrorList{field.NotSupported(path, e, taintEffects)}
}

// validateNodeAffinity follows upstream validateNodeAffinity.
func validateNodeAffinity(na *NodeAffinity, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	if req := na.RequiredDuringSchedulingIgnoredDuringExecution; req != nil {
		rp := path.Child("requiredDuringSchedulingIgnoredDuringExecution")
		if len(req.NodeSelectorTerms) == 0 {
			errs = append(errs, field.Required(rp.Child("nodeSelectorTerms"), "must have at least one node selector term"))
		}
		for i := range req.NodeSelectorTerms {
			errs = append(errs, validateNodeSelectorTerm(&req.NodeSelectorTerms[i], rp.Child("nodeSelectorTerms").Index(i))...)
		}
	}
	pp := path.Child("preferredDuringSchedulingIgnoredDuringExecution")
	for i, t := range na.PreferredDuringSchedulingIgnoredDuringExecution {
		if t.Weight <= 0 || t.Weight > 100 {
			errs = append(errs, field.Invalid(pp.Index(i).Child("weight"), t.Weight, "must be in the range 1-100"))
		}
		errs = append(errs, validateNodeSelectorTerm(&t.Preference, pp.Index(i).Child("preference"))...)
	}
	return errs
}

func validateNodeSelectorTerm(t *NodeSelectorTerm, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, r := range t.MatchExpressions {
		p := path.Child("matchExpressions").Index(i)
		switch r.Operator {
		case NodeSelectorOpIn, NodeSelectorOpNotIn:
			if len(r.Values) == 0 {
				errs = append(errs, field.Required(p.Child("values"), "must be specified when `operator` is 'In' or 'NotIn'"))
			}
		case NodeSelectorOpExists, NodeSelectorOpDoesNotExist:
			if len(r.Values) > 0 {
				errs = append(errs, field.Forbidden(p.Child("values"), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"))
			}
		case NodeSelectorOpGt, NodeSelectorOpLt:
			if len(r.Values) != 1 {
				errs = append(errs, field.Required(p.Child("values"), "must be specified single value when `operator` is 'Lt' or 'Gt'"))
			}
		default:
			errs = append(errs, field.NotSupported(p.Child("operator"), r.Operator, nodeSelectorOps))
		}
		errs = append(errs, validateLabelName(r.Key, p.Child("key"))...)
	}
	for i, r := range t.MatchFields {
		p := path.Child("matchFields").Index(i)
		switch r.Operator {
		case NodeSelectorOpIn, NodeSelectorOpNotIn:
			if len(r.Values) != 1 {
				errs = append(errs, field.Required(p.Child("values"), "must be only one value when `operator` is 'In' or 'NotIn' for node field selector"))
			}
		default:
			errs = append(errs, field.Invalid(p.Child("operator"), r.Operator, "not a valid selector operator"))
		}
		if r.Key != ObjectNameField {
			errs = append(errs, field.NotSupported(p.Child("key"), r.Key, []string{ObjectNameField}))
		}
	}
	return errs
}

// validatePodSpecUpdate follows upstream ValidatePodUpdate: apart from container images and
// added tolerations, the spec of a pod is immutable.
//
// A spec equal to the old one (equalPodSpec: a status update, or an update of the metadata)
// passes at once: it keeps every old toleration, and no field differs.
func validatePodSpecUpdate(n, o *PodSpec, path *field.Path) field.ErrorList {
	if len(n.Containers) != len(o.Containers) {
		return field.ErrorList{field.Forbidden(path.Child("containers"), "pod updates may not add or remove containers")}
	}
	if equalPodSpec(n, o) {
		return nil
	}
	errs := validateOnlyAddedTolerations(n.Tolerations, o.Tolerations, path.Child("tolerations"))
	// Compared, not kept: a shallow copy compares as a deep one would (PodSpec is reflexive,
	// see TestPodSpecIsReflexive), and only the containers whose image is replaced need copies
	// of their own.
	munged := *n
	munged.Containers = withImagesOf(n.Containers, o.Containers)
	if len(munged.InitContainers) == len(o.InitContainers) {
		munged.InitContainers = withImagesOf(n.InitContainers, o.InitContainers)
	}
	munged.Tolerations = o.Tolerations
	if changed := changedFields(&munged, o, path); len(changed) > 0 {
		errs = append(errs, field.Forbidden(path, "pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.tolerations` (only additions to existing tolerations)\nchanged: "+strings.Join(changed, ", ")))
	}
	return errs
}

// withImagesOf returns cs with the images of images (a slice of the same length), sharing cs
// when every image is already the same and copying the slice (not the containers' contents)
// otherwise.
func withImagesOf(cs, images []Container) []Container {
	for i := range cs {
		if cs[i].Image != images[i].Image {
			out := slices.Clone(cs)
			for j := range out {
				out[j].Image = images[j].Image
			}
			return out
		}
	}
	return cs
}

// validateOnlyAddedTolerations follows upstream: every old toleration must still be there,
// except that its tolerationSeconds may change.
func validateOnlyAddedTolerations(n, o []Toleration, path *field.Path) field.ErrorList {
	for _, old := range o {
		found := false
		for _, t := range n {
			if t.Key == old.Key && t.Operator == old.Operator && t.Value == old.Value && t.Effect == old.Effect {
				found = true
				break
			}
		}
		if !found {
			return field.ErrorList{field.Forbidden(path, "existing toleration can not be modified except its tolerationSeconds")}
		}
	}
	return nil
}

// changedFields lists the top-level PodSpec fields (as paths) that differ semantically. A
// field that is the same data in a and b is equal without a DeepEqual (TestPodSpecIsReflexive).
func changedFields(a, b *PodSpec, path *field.Path) []string {
	va, vb := reflect.ValueOf(a).Elem(), reflect.ValueOf(b).Elem()
	t := va.Type()
	var out []string
	for i := 0; i < t.NumField(); i++ {
		fa, fb := va.Field(i), vb.Field(i)
		if sameMemory(fa, fb) {
			continue
		}
		if !equality.Semantic.DeepEqual(fa.Interface(), fb.Interface()) {
			name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
			out = append(out, path.Child(name).String())
		}
	}
	return out
}

// ---- ReplicaSet ----

// validateReplicaSetSpec follows upstream apps ValidateReplicaSetSpec and
// ValidatePodTemplateSpecForReplicaSet.
func validateReplicaSetSpec(spec *ReplicaSetSpec, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	if spec.Replicas != nil {
		errs = append(errs, apivalidation.ValidateNonnegativeField(int64(*spec.Replicas), path.Child("replicas"))...)
	}
	errs = append(errs, apivalidation.ValidateNonnegativeField(int64(spec.MinReadySeconds), path.Child("minReadySeconds"))...)
	// Upstream's ReplicaSet message names deployments too (it was copied from there).
	errs = append(errs, validateSelectorAndTemplate(spec.Selector, &spec.Template, "deployment", path)...)
	return errs
}

// validateSelectorAndTemplate is what the apps/v1 workload validations share: the selector
// is required, valid and not empty ("empty selector is invalid for <kindName>"), the
// template's labels match it, and the template is a valid pod template with restartPolicy
// Always (ValidatePodTemplateSpecForReplicaSet / ...ForStatefulSet, and the DaemonSet
// checks of ValidateDaemonSetSpec).
func validateSelectorAndTemplate(sel *metav1.LabelSelector, tmpl *PodTemplateSpec, kindName string, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	selPath := path.Child("selector")
	if sel == nil {
		errs = append(errs, field.Required(selPath, ""))
	} else {
		selErrs := metav1validation.ValidateLabelSelector(sel, metav1validation.LabelSelectorValidationOptions{}, selPath)
		errs = append(errs, sortedErrs(selErrs)...)
		if len(sel.MatchLabels)+len(sel.MatchExpressions) == 0 {
			errs = append(errs, field.Invalid(selPath, sel, "empty selector is invalid for "+kindName))
		}
	}
	tp := path.Child("template")
	selector, err := metav1.LabelSelectorAsSelector(sel)
	if err != nil {
		errs = append(errs, field.Invalid(selPath, sel, "invalid label selector"))
	} else if !selector.Empty() && !selector.Matches(labels.Set(tmpl.Labels)) {
		errs = append(errs, field.Invalid(tp.Child("metadata", "labels"), tmpl.Labels, "`selector` does not match template `labels`"))
	}
	errs = append(errs, validateLabels(tmpl.Labels, tp.Child("metadata", "labels"))...)
	errs = append(errs, validateAnnotations(tmpl.Annotations, tp.Child("metadata", "annotations"))...)
	errs = append(errs, validatePodSpec(&tmpl.Spec, tp.Child("spec"))...)
	if tmpl.Spec.RestartPolicy != RestartPolicyAlways {
		errs = append(errs, field.NotSupported(tp.Child("spec", "restartPolicy"), tmpl.Spec.RestartPolicy, []string{RestartPolicyAlways}))
	}
	return errs
}

// ---- Node ----

// validateNode follows upstream ValidateNode for the modelled fields. Taints equal to those of
// valid (a valid node, or nil) are not checked again.
func validateNode(node, valid *Node) field.ErrorList {
	var errs field.ErrorList
	if valid == nil || !equalSlice(node.Spec.Taints, valid.Spec.Taints, EqualTaint) {
		errs = validateTaints(node.Spec.Taints)
	}
	errs = append(errs, validateNonNegativeQuantities(node.Status.Capacity, "capacity")...)
	return append(errs, validateNonNegativeQuantities(node.Status.Allocatable, "allocatable")...)
}

// validateNonNegativeQuantities checks that every quantity of a node's status.<field> is
// non-negative, reporting them in name order; nothing is allocated when all are.
func validateNonNegativeQuantities(l ResourceList, fieldName string) field.ErrorList {
	negative := false
	for _, q := range l { //detlint:ordered only whether any is negative counts here
		if q.Sign() < 0 {
			negative = true
			break
		}
	}
	if !negative {
		return nil
	}
	var errs field.ErrorList
	for _, name := range slices.Sorted(maps.Keys(l)) {
		errs = append(errs, validateQuantity(l[name], field.NewPath("status", fieldName, name))...)
	}
	return errs
}

// validateTaints checks a node's taints: key, value and effect of each, and that no two share
// a key and an effect.
func validateTaints(taints []Taint) field.ErrorList {
	var errs field.ErrorList
	tp := field.NewPath("spec", "taints")
	type taintKey struct {
		key    string
		effect TaintEffect
	}
	seen := map[taintKey]bool{}
	for i, t := range taints {
		p := tp.Index(i)
		errs = append(errs, validateLabelName(t.Key, p.Child("key"))...)
		if msgs := labelValue(t.Value); len(msgs) > 0 {
			errs = append(errs, field.Invalid(p.Child("value"), t.Value, strings.Join(msgs, ";")))
		}
		errs = append(errs, validateTaintEffect(t.Effect, true, p.Child("effect"))...)
		k := taintKey{t.Key, t.Effect}
		if seen[k] {
			dup := field.Duplicate(p, t)
			dup.Detail = "taints must be unique by key and effect pair"
			errs = append(errs, dup)
			continue
		}
		seen[k] = true
	}
	return errs
}

// ---- Event ----

// validateEvent follows upstream legacyValidateEvent: the event lives in the namespace of the
// object it is about ("default" or none for cluster-scoped objects).
func validateEvent(e *Event) field.ErrorList {
	ns := e.InvolvedObject.Namespace
	if (ns == "" && e.Namespace != "" && e.Namespace != metav1.NamespaceDefault) || (ns != "" && e.Namespace != ns) {
		// The path is built only for the error: every Event through the API is validated.
		return field.ErrorList{field.Invalid(field.NewPath("involvedObject", "namespace"), ns, "does not match event.namespace")}
	}
	return nil
}

// ---- apps/v1 workloads ----
//
// Upstream pkg/apis/apps/validation/validation.go: ValidateDeploymentSpec,
// ValidateStatefulSetSpec, ValidateDaemonSetSpec and their helpers, for the modelled fields.
// The int-or-percent fields are pointers here (as in apps/v1); defaulting fills them, and a
// nil one validates as upstream's zero value would after conversion.

// intOrPercentOrZero returns *v, or the integer 0 for nil (what conversion to the internal
// type gives).
func intOrPercentOrZero(v *intstr.IntOrString) intstr.IntOrString {
	if v == nil {
		return intstr.FromInt32(0)
	}
	return *v
}

// validatePositiveIntOrPercent is upstream ValidatePositiveIntOrPercent: a non-negative
// integer or a percent string such as "25%".
func validatePositiveIntOrPercent(v intstr.IntOrString, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	switch v.Type {
	case intstr.String:
		for _, msg := range validation.IsValidPercent(v.StrVal) {
			errs = append(errs, field.Invalid(path, v, msg))
		}
	case intstr.Int:
		errs = append(errs, apivalidation.ValidateNonnegativeField(int64(v.IntValue()), path)...)
	default:
		errs = append(errs, field.Invalid(path, v, "must be an integer or percentage (e.g '5%')"))
	}
	return errs
}

// percentValue is upstream getPercentValue: the number of a valid percent string.
func percentValue(v intstr.IntOrString) (int, bool) {
	if v.Type != intstr.String || len(validation.IsValidPercent(v.StrVal)) != 0 {
		return 0, false
	}
	n, err := strconv.Atoi(v.StrVal[:len(v.StrVal)-1])
	if err != nil {
		return 0, false
	}
	return n, true
}

// intOrPercentValue is upstream getIntOrPercentValue: the percent number or the integer (an
// invalid string counts as 0, and is reported by validatePositiveIntOrPercent).
func intOrPercentValue(v intstr.IntOrString) int {
	if n, ok := percentValue(v); ok {
		return n
	}
	if v.Type == intstr.Int {
		return v.IntValue()
	}
	return 0
}

// isNotMoreThan100Percent is upstream IsNotMoreThan100Percent.
func isNotMoreThan100Percent(v intstr.IntOrString, path *field.Path) field.ErrorList {
	n, ok := percentValue(v)
	if !ok || n <= 100 {
		return nil
	}
	return field.ErrorList{field.Invalid(path, v, "must not be greater than 100%")}
}

func validateOptionalNonnegative(v *int32, path *field.Path) field.ErrorList {
	if v == nil {
		return nil
	}
	return apivalidation.ValidateNonnegativeField(int64(*v), path)
}

// validateDeploymentSpec follows upstream ValidateDeploymentSpec.
func validateDeploymentSpec(spec *DeploymentSpec, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	errs = append(errs, validateOptionalNonnegative(spec.Replicas, path.Child("replicas"))...)
	errs = append(errs, validateSelectorAndTemplate(spec.Selector, &spec.Template, "deployment", path)...)
	errs = append(errs, validateDeploymentStrategy(&spec.Strategy, path.Child("strategy"))...)
	errs = append(errs, apivalidation.ValidateNonnegativeField(int64(spec.MinReadySeconds), path.Child("minReadySeconds"))...)
	errs = append(errs, validateOptionalNonnegative(spec.RevisionHistoryLimit, path.Child("revisionHistoryLimit"))...)
	if pds := spec.ProgressDeadlineSeconds; pds != nil {
		p := path.Child("progressDeadlineSeconds")
		errs = append(errs, apivalidation.ValidateNonnegativeField(int64(*pds), p)...)
		if *pds <= spec.MinReadySeconds {
			errs = append(errs, field.Invalid(p, *pds, "must be greater than minReadySeconds"))
		}
	}
	return errs
}

// validateDeploymentStrategy follows upstream ValidateDeploymentStrategy and
// ValidateRollingUpdateDeployment.
func validateDeploymentStrategy(s *DeploymentStrategy, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	switch s.Type {
	case RecreateDeploymentStrategyType:
		if s.RollingUpdate != nil {
			errs = append(errs, field.Forbidden(path.Child("rollingUpdate"), "may not be specified when strategy `type` is '"+RecreateDeploymentStrategyType+"'"))
		}
	case RollingUpdateDeploymentStrategyType:
		ru := s.RollingUpdate
		if ru == nil {
			return append(errs, field.Required(path.Child("rollingUpdate"), "this should be defaulted and never be nil"))
		}
		rp := path.Child("rollingUpdate")
		maxUnavailable, maxSurge := intOrPercentOrZero(ru.MaxUnavailable), intOrPercentOrZero(ru.MaxSurge)
		errs = append(errs, validatePositiveIntOrPercent(maxUnavailable, rp.Child("maxUnavailable"))...)
		errs = append(errs, validatePositiveIntOrPercent(maxSurge, rp.Child("maxSurge"))...)
		if intOrPercentValue(maxUnavailable) == 0 && intOrPercentValue(maxSurge) == 0 {
			errs = append(errs, field.Invalid(rp.Child("maxUnavailable"), maxUnavailable, "may not be 0 when `maxSurge` is 0"))
		}
		errs = append(errs, isNotMoreThan100Percent(maxUnavailable, rp.Child("maxUnavailable"))...)
	default:
		errs = append(errs, field.NotSupported(path.Child("type"), s.Type, []string{RecreateDeploymentStrategyType, RollingUpdateDeploymentStrategyType}))
	}
	return errs
}

// validateStatefulSetSpec follows upstream ValidateStatefulSetSpec.
func validateStatefulSetSpec(spec *StatefulSetSpec, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	switch spec.PodManagementPolicy {
	case "":
		errs = append(errs, field.Required(path.Child("podManagementPolicy"), ""))
	case OrderedReadyPodManagement, ParallelPodManagement:
	default:
		errs = append(errs, field.Invalid(path.Child("podManagementPolicy"), spec.PodManagementPolicy,
			fmt.Sprintf("must be '%s' or '%s'", OrderedReadyPodManagement, ParallelPodManagement)))
	}
	us := &spec.UpdateStrategy
	usPath := path.Child("updateStrategy")
	switch us.Type {
	case "":
		errs = append(errs, field.Required(usPath, ""))
	case OnDeleteStatefulSetStrategyType:
		if us.RollingUpdate != nil {
			errs = append(errs, field.Invalid(usPath.Child("rollingUpdate"), us.RollingUpdate,
				fmt.Sprintf("only allowed for updateStrategy '%s'", RollingUpdateStatefulSetStrategyType)))
		}
	case RollingUpdateStatefulSetStrategyType:
		if ru := us.RollingUpdate; ru != nil {
			rp := usPath.Child("rollingUpdate")
			errs = append(errs, validateOptionalNonnegative(ru.Partition, rp.Child("partition"))...)
			if ru.MaxUnavailable != nil {
				mp := rp.Child("maxUnavailable")
				errs = append(errs, validatePositiveIntOrPercent(*ru.MaxUnavailable, mp)...)
				if intOrPercentValue(*ru.MaxUnavailable) == 0 {
					errs = append(errs, field.Invalid(mp, *ru.MaxUnavailable, "cannot be 0"))
				}
				errs = append(errs, isNotMoreThan100Percent(*ru.MaxUnavailable, mp)...)
			}
		}
	default:
		errs = append(errs, field.Invalid(usPath, us.Type,
			fmt.Sprintf("must be '%s' or '%s'", RollingUpdateStatefulSetStrategyType, OnDeleteStatefulSetStrategyType)))
	}
	errs = append(errs, validateOptionalNonnegative(spec.RevisionHistoryLimit, path.Child("revisionHistoryLimit"))...)
	errs = append(errs, validateOptionalNonnegative(spec.Replicas, path.Child("replicas"))...)
	errs = append(errs, apivalidation.ValidateNonnegativeField(int64(spec.MinReadySeconds), path.Child("minReadySeconds"))...)
	errs = append(errs, validateSelectorAndTemplate(spec.Selector, &spec.Template, "statefulset", path)...)
	return errs
}

// validateDaemonSetSpec follows upstream ValidateDaemonSetSpec, ValidateDaemonSetUpdateStrategy
// and ValidateRollingUpdateDaemonSet. Upstream reports a nil selector only as a template
// mismatch; here it is also Required, like the other workloads.
func validateDaemonSetSpec(spec *DaemonSetSpec, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	errs = append(errs, validateSelectorAndTemplate(spec.Selector, &spec.Template, "daemonset", path)...)
	errs = append(errs, apivalidation.ValidateNonnegativeField(int64(spec.MinReadySeconds), path.Child("minReadySeconds"))...)
	us := &spec.UpdateStrategy
	usPath := path.Child("updateStrategy")
	switch us.Type {
	case OnDeleteDaemonSetStrategyType:
	case RollingUpdateDaemonSetStrategyType:
		ru := us.RollingUpdate
		if ru == nil {
			errs = append(errs, field.Required(usPath.Child("rollingUpdate"), ""))
			break
		}
		rp := usPath.Child("rollingUpdate")
		maxUnavailable, maxSurge := intOrPercentOrZero(ru.MaxUnavailable), intOrPercentOrZero(ru.MaxSurge)
		errs = append(errs, validatePositiveIntOrPercent(maxUnavailable, rp.Child("maxUnavailable"))...)
		errs = append(errs, validatePositiveIntOrPercent(maxSurge, rp.Child("maxSurge"))...)
		errs = append(errs, isNotMoreThan100Percent(maxUnavailable, rp.Child("maxUnavailable"))...)
		errs = append(errs, isNotMoreThan100Percent(maxSurge, rp.Child("maxSurge"))...)
		hasUnavailable, hasSurge := intOrPercentValue(maxUnavailable) != 0, intOrPercentValue(maxSurge) != 0
		switch {
		case hasUnavailable && hasSurge:
			errs = append(errs, field.Invalid(rp.Child("maxSurge"), maxSurge, "may not be set when maxUnavailable is non-zero"))
		case !hasUnavailable && !hasSurge:
			errs = append(errs, field.Required(rp.Child("maxUnavailable"), "cannot be 0 when maxSurge is 0"))
		}
	default:
		errs = append(errs, field.NotSupported(usPath.Child("type"), us.Type, []string{RollingUpdateDaemonSetStrategyType, OnDeleteDaemonSetStrategyType}))
	}
	errs = append(errs, validateOptionalNonnegative(spec.RevisionHistoryLimit, path.Child("revisionHistoryLimit"))...)
	return errs
}

// statefulSetSpecUpdateForbidden is upstream's message for a StatefulSet update that changes
// a field other than the mutable ones (ValidateStatefulSetUpdate).
const statefulSetSpecUpdateForbidden = "updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden"

// validateStatefulSetSpecUpdate is upstream ValidateStatefulSetUpdate's rule: with the
// mutable fields taken from the old spec, nothing else may differ.
func validateStatefulSetSpecUpdate(n, o *StatefulSetSpec) field.ErrorList {
	restricted := *n
	restricted.Replicas = o.Replicas
	restricted.Template = o.Template
	restricted.UpdateStrategy = o.UpdateStrategy
	restricted.RevisionHistoryLimit = o.RevisionHistoryLimit
	restricted.MinReadySeconds = o.MinReadySeconds
	if !equality.Semantic.DeepEqual(&restricted, o) {
		return field.ErrorList{field.Forbidden(specPath, statefulSetSpecUpdateForbidden)}
	}
	return nil
}

// ---- policy/v1 ----

var unhealthyPodEvictionPolicies = []string{AlwaysAllow, IfHealthyBudget}

// validatePodDisruptionBudgetSpec follows upstream policy ValidatePodDisruptionBudgetSpec.
func validatePodDisruptionBudgetSpec(spec *PodDisruptionBudgetSpec, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	if spec.MinAvailable != nil && spec.MaxUnavailable != nil {
		errs = append(errs, field.Invalid(path, "minAvailable and maxUnavailable", "minAvailable and maxUnavailable cannot be both set"))
	}
	if spec.MinAvailable != nil {
		errs = append(errs, validatePositiveIntOrPercent(*spec.MinAvailable, path.Child("minAvailable"))...)
		errs = append(errs, isNotMoreThan100Percent(*spec.MinAvailable, path.Child("minAvailable"))...)
	}
	if spec.MaxUnavailable != nil {
		errs = append(errs, validatePositiveIntOrPercent(*spec.MaxUnavailable, path.Child("maxUnavailable"))...)
		errs = append(errs, isNotMoreThan100Percent(*spec.MaxUnavailable, path.Child("maxUnavailable"))...)
	}
	errs = append(errs, sortedErrs(metav1validation.ValidateLabelSelector(spec.Selector, metav1validation.LabelSelectorValidationOptions{}, path.Child("selector")))...)
	if p := spec.UnhealthyPodEvictionPolicy; p != nil && !slices.Contains(unhealthyPodEvictionPolicies, *p) {
		errs = append(errs, field.NotSupported(path.Child("unhealthyPodEvictionPolicy"), *p, unhealthyPodEvictionPolicies))
	}
	return errs
}

// ---- autoscaling ----

// Limits of upstream autoscaling validation (pkg/apis/autoscaling/validation/validation.go):
// MaxPeriodSeconds and MaxStabilizationWindowSeconds.
const (
	maxHPAPolicyPeriodSeconds        = 1800
	maxHPAStabilizationWindowSeconds = 3600
)

var (
	metricSourceTypes = []string{ContainerResourceMetricSourceType, ExternalMetricSourceType, ObjectMetricSourceType, PodsMetricSourceType, ResourceMetricSourceType}
	selectPolicies    = []string{DisabledPolicySelect, MaxChangePolicySelect, MinChangePolicySelect}
	scalingPolicies   = []string{PercentScalingPolicy, PodsScalingPolicy}
)

// validateHPASpec follows upstream ValidateHorizontalPodAutoscalerSpec (scale to zero, the
// HPAScaleToZero alpha gate, is not modelled: minReplicas must be at least 1).
func validateHPASpec(spec *HorizontalPodAutoscalerSpec, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	if spec.MinReplicas != nil && *spec.MinReplicas < 1 {
		errs = append(errs, field.Invalid(path.Child("minReplicas"), *spec.MinReplicas, "must be greater than or equal to 1"))
	}
	if spec.MaxReplicas < 1 {
		errs = append(errs, field.Invalid(path.Child("maxReplicas"), spec.MaxReplicas, "must be greater than 0"))
	}
	if spec.MinReplicas != nil && spec.MaxReplicas < *spec.MinReplicas {
		errs = append(errs, field.Invalid(path.Child("maxReplicas"), spec.MaxReplicas, "must be greater than or equal to `minReplicas`"))
	}
	errs = append(errs, validateCrossVersionObjectReference(spec.ScaleTargetRef, path.Child("scaleTargetRef"))...)
	for i := range spec.Metrics {
		errs = append(errs, validateMetricSpec(&spec.Metrics[i], path.Child("metrics").Index(i))...)
	}
	if b := spec.Behavior; b != nil {
		errs = append(errs, validateScalingRules(b.ScaleUp, path.Child("behavior", "scaleUp"))...)
		errs = append(errs, validateScalingRules(b.ScaleDown, path.Child("behavior", "scaleDown"))...)
	}
	return errs
}

// validateCrossVersionObjectReference is upstream ValidateCrossVersionObjectReference.
func validateCrossVersionObjectReference(ref CrossVersionObjectReference, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, f := range []struct{ name, value string }{{"kind", ref.Kind}, {"name", ref.Name}} {
		if f.value == "" {
			errs = append(errs, field.Required(path.Child(f.name), ""))
			continue
		}
		for _, msg := range content.IsPathSegmentName(f.value) {
			errs = append(errs, field.Invalid(path.Child(f.name), f.value, msg))
		}
	}
	return errs
}

// validateMetricSpec follows upstream validateMetricSpec and the per-source validations.
func validateMetricSpec(m *MetricSpec, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	if m.Type == "" {
		errs = append(errs, field.Required(path.Child("type"), "must specify a metric source type"))
	} else if !slices.Contains(metricSourceTypes, m.Type) {
		errs = append(errs, field.NotSupported(path.Child("type"), m.Type, metricSourceTypes))
	}
	present := map[string]bool{}
	if s := m.Object; s != nil {
		present["object"] = true
		p := path.Child("object")
		errs = append(errs, validateCrossVersionObjectReference(s.DescribedObject, p.Child("describedObject"))...)
		errs = append(errs, validateMetricIdentifier(s.Metric, p.Child("metric"))...)
		errs = append(errs, validateMetricTarget(s.Target, p.Child("target"))...)
		if s.Target.Value == nil && s.Target.AverageValue == nil {
			errs = append(errs, field.Required(p.Child("target", "averageValue"), "must set either a target value or averageValue"))
		}
	}
	if s := m.Pods; s != nil {
		present["pods"] = true
		p := path.Child("pods")
		errs = append(errs, validateMetricIdentifier(s.Metric, p.Child("metric"))...)
		errs = append(errs, validateMetricTarget(s.Target, p.Child("target"))...)
		if s.Target.AverageValue == nil {
			errs = append(errs, field.Required(p.Child("target", "averageValue"), "must specify a positive target averageValue"))
		}
	}
	if s := m.Resource; s != nil {
		present["resource"] = true
		errs = append(errs, validateResourceTarget(s.Name, s.Target, path.Child("resource"))...)
	}
	if s := m.ContainerResource; s != nil {
		present["containerResource"] = true
		p := path.Child("containerResource")
		errs = append(errs, validateResourceTarget(s.Name, s.Target, p)...)
		if s.Container == "" {
			errs = append(errs, field.Required(p.Child("container"), "must specify a container"))
		}
	}
	if s := m.External; s != nil {
		present["external"] = true
		p := path.Child("external")
		errs = append(errs, validateMetricIdentifier(s.Metric, p.Child("metric"))...)
		errs = append(errs, validateMetricTarget(s.Target, p.Child("target"))...)
		if s.Target.Value == nil && s.Target.AverageValue == nil {
			errs = append(errs, field.Required(p.Child("target", "averageValue"), "must set either a target value for metric or a per-pod target"))
		}
		if s.Target.Value != nil && s.Target.AverageValue != nil {
			errs = append(errs, field.Forbidden(p.Child("target", "value"), "may not set both a target value for metric and a per-pod target"))
		}
	}
	expected := ""
	switch m.Type {
	case ObjectMetricSourceType:
		expected = "object"
	case PodsMetricSourceType:
		expected = "pods"
	case ResourceMetricSourceType:
		expected = "resource"
	case ContainerResourceMetricSourceType:
		expected = "containerResource"
	case ExternalMetricSourceType:
		expected = "external"
	}
	if expected != "" && !present[expected] {
		errs = append(errs, field.Required(path.Child(expected), "must populate information for the given metric source"))
	}
	for _, name := range slices.Sorted(maps.Keys(present)) {
		if name != expected {
			errs = append(errs, field.Forbidden(path.Child(name), "must populate the given metric source only"))
		}
	}
	return errs
}

// validateResourceTarget is the common part of upstream validateResourceSource and
// validateContainerResourceSource.
func validateResourceTarget(name string, t MetricTarget, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	if name == "" {
		errs = append(errs, field.Required(path.Child("name"), "must specify a resource name"))
	}
	errs = append(errs, validateMetricTarget(t, path.Child("target"))...)
	if t.AverageUtilization == nil && t.AverageValue == nil {
		errs = append(errs, field.Required(path.Child("target", "averageUtilization"), "must set either a target raw value or a target utilization"))
	}
	if t.AverageUtilization != nil && t.AverageValue != nil {
		errs = append(errs, field.Forbidden(path.Child("target", "averageValue"), "may not set both a target raw value and a target utilization"))
	}
	return errs
}

// validateMetricIdentifier is upstream validateMetricIdentifier.
func validateMetricIdentifier(id MetricIdentifier, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	if id.Name == "" {
		errs = append(errs, field.Required(path.Child("name"), "must specify a metric name"))
	} else {
		for _, msg := range content.IsPathSegmentName(id.Name) {
			errs = append(errs, field.Invalid(path.Child("name"), id.Name, msg))
		}
	}
	return append(errs, sortedErrs(metav1validation.ValidateLabelSelector(id.Selector, metav1validation.LabelSelectorValidationOptions{}, path.Child("selector")))...)
}

// validateMetricTarget is upstream validateMetricTarget.
func validateMetricTarget(t MetricTarget, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	if t.Type == "" {
		errs = append(errs, field.Required(path.Child("type"), "must specify a metric target type"))
	} else if t.Type != UtilizationMetricType && t.Type != ValueMetricType && t.Type != AverageValueMetricType {
		errs = append(errs, field.Invalid(path.Child("type"), t.Type, "must be either Utilization, Value, or AverageValue"))
	}
	if t.Value != nil && t.Value.Sign() != 1 {
		errs = append(errs, field.Invalid(path.Child("value"), t.Value.String(), "must be positive"))
	}
	if t.AverageValue != nil && t.AverageValue.Sign() != 1 {
		errs = append(errs, field.Invalid(path.Child("averageValue"), t.AverageValue.String(), "must be positive"))
	}
	if t.AverageUtilization != nil && *t.AverageUtilization < 1 {
		errs = append(errs, field.Invalid(path.Child("averageUtilization"), *t.AverageUtilization, "must be greater than 0"))
	}
	return errs
}

// validateScalingRules is upstream validateScalingRules and validateScalingPolicy.
func validateScalingRules(r *HPAScalingRules, path *field.Path) field.ErrorList {
	if r == nil {
		return nil
	}
	var errs field.ErrorList
	if w := r.StabilizationWindowSeconds; w != nil {
		p := path.Child("stabilizationWindowSeconds")
		if *w < 0 {
			errs = append(errs, field.Invalid(p, *w, "must be greater than or equal to zero"))
		}
		if *w > maxHPAStabilizationWindowSeconds {
			errs = append(errs, field.Invalid(p, *w, fmt.Sprintf("must be less than or equal to %d", maxHPAStabilizationWindowSeconds)))
		}
	}
	if sp := r.SelectPolicy; sp != nil && !slices.Contains(selectPolicies, *sp) {
		errs = append(errs, field.NotSupported(path.Child("selectPolicy"), *sp, selectPolicies))
	}
	pp := path.Child("policies")
	if len(r.Policies) == 0 {
		errs = append(errs, field.Required(pp, "must specify at least one Policy"))
	}
	for i, pol := range r.Policies {
		ip := pp.Index(i)
		if pol.Type != PodsScalingPolicy && pol.Type != PercentScalingPolicy {
			errs = append(errs, field.NotSupported(ip.Child("type"), pol.Type, scalingPolicies))
		}
		if pol.Value <= 0 {
			errs = append(errs, field.Invalid(ip.Child("value"), pol.Value, "must be greater than zero"))
		}
		if pol.PeriodSeconds <= 0 {
			errs = append(errs, field.Invalid(ip.Child("periodSeconds"), pol.PeriodSeconds, "must be greater than zero"))
		}
		if pol.PeriodSeconds > maxHPAPolicyPeriodSeconds {
			errs = append(errs, field.Invalid(ip.Child("periodSeconds"), pol.PeriodSeconds, fmt.Sprintf("must be less than or equal to %d", maxHPAPolicyPeriodSeconds)))
		}
	}
	if t := r.Tolerance; t != nil && t.Sign() < 0 {
		errs = append(errs, field.Invalid(path.Child("tolerance"), t.String(), "must be greater than or equal to 0"))
	}
	return errs
}

// ValidateScale checks the body of a scale subresource update as upstream autoscaling
// ValidateScale does for the spec: spec.replicas must not be negative. It returns nil when
// the scale is valid.
func ValidateScale(s *Scale) field.ErrorList {
	if s == nil {
		return field.ErrorList{field.Required(field.NewPath("object"), "")}
	}
	return nilIfEmpty(apivalidation.ValidateNonnegativeField(int64(s.Spec.Replicas), field.NewPath("spec", "replicas")))
}

// ---- Service and EndpointSlice ----

var (
	serviceTypes = []string{ServiceTypeClusterIP, ServiceTypeExternalName, ServiceTypeLoadBalancer, ServiceTypeNodePort}
	protocols    = []string{ProtocolSCTP, ProtocolTCP, ProtocolUDP}
	addressTypes = []string{AddressTypeFQDN, AddressTypeIPv4, AddressTypeIPv6}
)

// validateServiceSpec follows upstream ValidateService for the modelled fields: a type from
// the list, ports required unless headless (clusterIP None) or ExternalName, port names
// required when there are several and unique, port numbers 1-65535, protocols supported,
// target ports a valid number or name, selector labels valid.
func validateServiceSpec(spec *ServiceSpec) field.ErrorList {
	var errs field.ErrorList
	if !slices.Contains(serviceTypes, spec.Type) {
		errs = append(errs, field.NotSupported(specPath.Child("type"), spec.Type, serviceTypes))
	}
	if len(spec.Ports) == 0 && spec.ClusterIP != "None" && spec.Type != ServiceTypeExternalName {
		errs = append(errs, field.Required(servicePortsPath, ""))
	}
	names := map[string]bool{}
	for i := range spec.Ports {
		p := &spec.Ports[i]
		// A port's paths are made only for its errors: a valid Service allocates none, where
		// making them up front was 11 MB of the 94 MB that loading 50,000 Services allocated.
		at := func(name string) *field.Path { return servicePortsPath.Index(i).Child(name) }
		if len(spec.Ports) > 1 && p.Name == "" {
			errs = append(errs, field.Required(at("name"), ""))
		} else if p.Name != "" {
			for _, msg := range validation.IsValidPortName(p.Name) {
				errs = append(errs, field.Invalid(at("name"), p.Name, msg))
			}
			if names[p.Name] {
				errs = append(errs, field.Duplicate(at("name"), p.Name))
			}
			names[p.Name] = true
		}
		for _, msg := range validation.IsValidPortNum(int(p.Port)) {
			errs = append(errs, field.Invalid(at("port"), p.Port, msg))
		}
		if p.Protocol == "" {
			errs = append(errs, field.Required(at("protocol"), ""))
		} else if !slices.Contains(protocols, p.Protocol) {
			errs = append(errs, field.NotSupported(at("protocol"), p.Protocol, protocols))
		}
		errs = append(errs, validatePortNumOrName(p.TargetPort, func() *field.Path { return at("targetPort") })...)
	}
	if len(spec.Selector) > 0 {
		errs = append(errs, validateLabels(spec.Selector, serviceSelectorPath)...)
	}
	return errs
}

// The paths of a Service's spec fields that have errors of their own (see metadataPath).
var (
	servicePortsPath    = specPath.Child("ports")
	serviceSelectorPath = specPath.Child("selector")
)

// validatePortNumOrName is upstream ValidatePortNumOrName; path is called only for an error,
// so that a valid port makes no path.
func validatePortNumOrName(port intstr.IntOrString, path func() *field.Path) field.ErrorList {
	var errs field.ErrorList
	switch port.Type {
	case intstr.Int:
		for _, msg := range validation.IsValidPortNum(port.IntValue()) {
			errs = append(errs, field.Invalid(path(), port.IntValue(), msg))
		}
	case intstr.String:
		for _, msg := range validation.IsValidPortName(port.StrVal) {
			errs = append(errs, field.Invalid(path(), port.StrVal, msg))
		}
	default:
		errs = append(errs, field.InternalError(path(), fmt.Errorf("unknown type: %v", port.Type)))
	}
	return errs
}

// EndpointSlice limits of upstream discovery validation
// (pkg/apis/discovery/validation/validation.go maxEndpoints, maxAddresses, maxPorts).
const (
	maxEndpointSliceEndpoints = 1000
	maxEndpointAddresses      = 100
	maxEndpointSlicePorts     = 20000
)

// validateEndpointSlice follows upstream ValidateEndpointSlice for the modelled fields.
func validateEndpointSlice(s *EndpointSlice) field.ErrorList {
	var errs field.ErrorList
	if !slices.Contains(addressTypes, s.AddressType) {
		errs = append(errs, field.NotSupported(field.NewPath("addressType"), s.AddressType, addressTypes))
	}
	ep := field.NewPath("endpoints")
	if len(s.Endpoints) > maxEndpointSliceEndpoints {
		errs = append(errs, field.TooMany(ep, len(s.Endpoints), maxEndpointSliceEndpoints))
	}
	for i, e := range s.Endpoints {
		ap := ep.Index(i).Child("addresses")
		switch {
		case len(e.Addresses) == 0:
			errs = append(errs, field.Required(ap, "must contain at least 1 address"))
		case len(e.Addresses) > maxEndpointAddresses:
			errs = append(errs, field.TooMany(ap, len(e.Addresses), maxEndpointAddresses))
		}
		if e.NodeName != nil {
			for _, msg := range nameIsDNSSubdomain(*e.NodeName, false) {
				errs = append(errs, field.Invalid(ep.Index(i).Child("nodeName"), *e.NodeName, msg))
			}
		}
	}
	pp := field.NewPath("ports")
	if len(s.Ports) > maxEndpointSlicePorts {
		errs = append(errs, field.TooMany(pp, len(s.Ports), maxEndpointSlicePorts))
	}
	for i, p := range s.Ports {
		ip := pp.Index(i)
		if p.Name != nil && *p.Name != "" {
			for _, msg := range dns1123Label(*p.Name) {
				errs = append(errs, field.Invalid(ip.Child("name"), *p.Name, msg))
			}
		}
		if p.Protocol == nil {
			errs = append(errs, field.Required(ip.Child("protocol"), ""))
		} else if !slices.Contains(protocols, *p.Protocol) {
			errs = append(errs, field.NotSupported(ip.Child("protocol"), *p.Protocol, protocols))
		}
		if p.Port != nil {
			for _, msg := range validation.IsValidPortNum(int(*p.Port)) {
				errs = append(errs, field.Invalid(ip.Child("port"), *p.Port, msg))
			}
		}
	}
	return errs
}
