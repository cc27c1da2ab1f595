package model

import (
	"cmp"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/api/validate/content"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
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
func Validate(obj Object) field.ErrorList {
	if obj == nil {
		return field.ErrorList{field.Required(field.NewPath("object"), "")}
	}
	ki, ok := LookupKind(obj.GetKind())
	if !ok {
		return field.ErrorList{field.Invalid(field.NewPath("kind"), string(obj.GetKind()), "kind is not registered")}
	}
	nameFn := apivalidation.NameIsDNSSubdomain
	if ki.Kind == KindNamespace {
		nameFn = apivalidation.NameIsDNSLabel // ValidateNamespaceName
	}
	errs := validateObjectMeta(obj.Meta(), ki.Namespaced, nameFn, field.NewPath("metadata"))
	switch o := obj.(type) {
	case *Pod:
		errs = append(errs, validatePodSpec(&o.Spec, field.NewPath("spec"))...)
	case *ReplicaSet:
		errs = append(errs, validateReplicaSetSpec(&o.Spec, field.NewPath("spec"))...)
	case *Node:
		errs = append(errs, validateNode(o)...)
	case *Lease:
		if d := o.Spec.LeaseDurationSeconds; d != nil && *d <= 0 {
			errs = append(errs, field.Invalid(field.NewPath("spec", "leaseDurationSeconds"), *d, "must be greater than 0"))
		}
	case *Event:
		errs = append(errs, validateEvent(o)...)
	case *Namespace:
	default:
		if v, ok := obj.(Validator); ok {
			errs = append(errs, v.Validate()...)
		}
	}
	return nilIfEmpty(errs)
}

// ValidateUpdate checks newObj as an update of oldObj: everything Validate checks on newObj,
// plus the rules on what an update may change. Metadata: name, namespace, uid,
// creationTimestamp, deletionTimestamp and deletionGracePeriodSeconds are immutable (the API
// server copies uid and creationTimestamp from the stored object before validating, as
// upstream rest.BeforeUpdate does), generation may not decrease, and no finalizer may be added
// once deletionTimestamp is set. Pod: the spec may change only in container and init container
// images and by added tolerations (node binding goes through the binding subresource, not an
// update). ReplicaSet: spec.selector is immutable (apps/v1). Node: spec.providerID may only go
// from "" to a value. It returns nil when the update is allowed.
func ValidateUpdate(oldObj, newObj Object) field.ErrorList {
	errs := Validate(newObj)
	if oldObj == nil || newObj == nil {
		return append(errs, field.Required(field.NewPath("object"), "old and new objects are required"))
	}
	if oldObj.GetKind() != newObj.GetKind() {
		return append(errs, field.Invalid(field.NewPath("kind"), string(newObj.GetKind()), apivalidation.FieldImmutableErrorMsg))
	}
	errs = append(errs, validateObjectMetaUpdate(newObj.Meta(), oldObj.Meta(), field.NewPath("metadata"))...)
	switch n := newObj.(type) {
	case *Pod:
		if o, ok := oldObj.(*Pod); ok {
			errs = append(errs, validatePodSpecUpdate(&n.Spec, &o.Spec, field.NewPath("spec"))...)
		}
	case *ReplicaSet:
		if o, ok := oldObj.(*ReplicaSet); ok {
			errs = append(errs, apivalidation.ValidateImmutableField(n.Spec.Selector, o.Spec.Selector, field.NewPath("spec", "selector"))...)
		}
	case *Node:
		if o, ok := oldObj.(*Node); ok && o.Spec.ProviderID != "" && o.Spec.ProviderID != n.Spec.ProviderID {
			errs = append(errs, field.Forbidden(field.NewPath("spec", "providerID"), `node updates may not change providerID except from "" to valid`))
		}
	}
	return nilIfEmpty(errs)
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

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	//detlint:ordered the keys are sorted below
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func validateLabels(l map[string]string, path *field.Path) field.ErrorList {
	return sortedErrs(metav1validation.ValidateLabels(l, path))
}

// validateObjectMeta follows upstream ValidateObjectMetaAccessor.
func validateObjectMeta(m *ObjectMeta, namespaced bool, nameFn apivalidation.ValidateNameFunc, path *field.Path) field.ErrorList {
	var errs field.ErrorList
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
			for _, msg := range apivalidation.NameIsDNSLabel(m.Namespace, false) { // ValidateNamespaceName
				errs = append(errs, field.Invalid(path.Child("namespace"), m.Namespace, msg))
			}
		}
	} else if m.Namespace != "" {
		errs = append(errs, field.Forbidden(path.Child("namespace"), "not allowed on this type"))
	}
	errs = append(errs, apivalidation.ValidateNonnegativeField(m.Generation, path.Child("generation"))...)
	errs = append(errs, validateLabels(m.Labels, path.Child("labels"))...)
	errs = append(errs, sortedErrs(apivalidation.ValidateAnnotations(m.Annotations, path.Child("annotations")))...)
	refs := make([]metav1.OwnerReference, len(m.OwnerReferences))
	for i, r := range m.OwnerReferences {
		refs[i] = metav1.OwnerReference{APIVersion: r.APIVersion, Kind: string(r.Kind), Name: r.Name, UID: types.UID(r.UID), Controller: r.Controller, BlockOwnerDeletion: r.BlockOwnerDeletion}
	}
	errs = append(errs, apivalidation.ValidateOwnerReferences(refs, path.Child("ownerReferences"))...)
	errs = append(errs, apivalidation.ValidateFinalizers(m.Finalizers, path.Child("finalizers"))...)
	return errs
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
	errs = append(errs, apivalidation.ValidateImmutableField(n.Name, o.Name, path.Child("name"))...)
	errs = append(errs, apivalidation.ValidateImmutableField(n.Namespace, o.Namespace, path.Child("namespace"))...)
	errs = append(errs, apivalidation.ValidateImmutableField(n.UID, o.UID, path.Child("uid"))...)
	errs = append(errs, apivalidation.ValidateImmutableField(n.CreationTimestamp, o.CreationTimestamp, path.Child("creationTimestamp"))...)
	errs = append(errs, apivalidation.ValidateImmutableField(n.DeletionTimestamp, o.DeletionTimestamp, path.Child("deletionTimestamp"))...)
	errs = append(errs, apivalidation.ValidateImmutableField(n.DeletionGracePeriodSeconds, o.DeletionGracePeriodSeconds, path.Child("deletionGracePeriodSeconds"))...)
	return errs
}

// ---- Pod ----

var (
	restartPolicies = []string{RestartPolicyAlways, RestartPolicyOnFailure, RestartPolicyNever}
	taintEffects    = []TaintEffect{TaintEffectNoSchedule, TaintEffectPreferNoSchedule, TaintEffectNoExecute}
	nodeSelectorOps = []string{"DoesNotExist", "Exists", "Gt", "In", "Lt", "NotIn"}
)

// validatePodSpec follows upstream ValidatePodSpec for the modelled fields.
func validatePodSpec(spec *PodSpec, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	names := map[string]bool{}
	if len(spec.Containers) == 0 {
		errs = append(errs, field.Required(path.Child("containers"), ""))
	}
	for i := range spec.Containers {
		errs = append(errs, validateContainer(&spec.Containers[i], path.Child("containers").Index(i), names, false)...)
	}
	for i := range spec.InitContainers {
		errs = append(errs, validateContainer(&spec.InitContainers[i], path.Child("initContainers").Index(i), names, true)...)
	}
	switch spec.RestartPolicy {
	case "":
		errs = append(errs, field.Required(path.Child("restartPolicy"), ""))
	case RestartPolicyAlways, RestartPolicyOnFailure, RestartPolicyNever:
	default:
		errs = append(errs, field.NotSupported(path.Child("restartPolicy"), spec.RestartPolicy, restartPolicies))
	}
	errs = append(errs, validateLabels(spec.NodeSelector, path.Child("nodeSelector"))...)
	if spec.NodeName != "" {
		for _, msg := range apivalidation.NameIsDNSSubdomain(spec.NodeName, false) { // ValidateNodeName
			errs = append(errs, field.Invalid(path.Child("nodeName"), spec.NodeName, msg))
		}
	}
	if spec.SchedulerName != "" {
		for _, msg := range validation.IsDNS1123Subdomain(spec.SchedulerName) {
			errs = append(errs, field.Invalid(path.Child("schedulerName"), spec.SchedulerName, msg))
		}
	}
	if spec.Affinity != nil && spec.Affinity.NodeAffinity != nil {
		errs = append(errs, validateNodeAffinity(spec.Affinity.NodeAffinity, path.Child("affinity", "nodeAffinity"))...)
	}
	errs = append(errs, validateTolerations(spec.Tolerations, path.Child("tolerations"))...)
	return errs
}

func validateContainer(c *Container, path *field.Path, names map[string]bool, init bool) field.ErrorList {
	var errs field.ErrorList
	namePath := path.Child("name")
	if c.Name == "" {
		errs = append(errs, field.Required(namePath, ""))
	} else {
		for _, msg := range validation.IsDNS1123Label(c.Name) {
			errs = append(errs, field.Invalid(namePath, c.Name, msg))
		}
	}
	if names[c.Name] {
		errs = append(errs, field.Duplicate(namePath, c.Name))
	}
	names[c.Name] = true
	if c.Image == "" {
		errs = append(errs, field.Required(path.Child("image"), ""))
	}
	errs = append(errs, validateResources(&c.Resources, path.Child("resources"))...)
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
		pp := path.Child(p.name)
		if init {
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

func validateContainerResourceName(name string, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, msg := range content.IsLabelKey(name) { // validateResourceName: a qualified name
		errs = append(errs, field.Invalid(path, name, msg))
	}
	if !strings.Contains(name, "/") && !slices.Contains(standardContainerResources, name) && !strings.HasPrefix(name, "hugepages-") {
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

// validateResources follows upstream ValidateContainerResourceRequirements: names valid,
// quantities non-negative, each request at most its limit.
func validateResources(r *ResourceRequirements, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, name := range sortedKeys(r.Limits) {
		p := path.Child("limits").Key(name)
		errs = append(errs, validateContainerResourceName(name, p)...)
		errs = append(errs, validateQuantity(r.Limits[name], p)...)
	}
	for _, name := range sortedKeys(r.Requests) {
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

// validateTolerations follows upstream ValidateTolerations.
func validateTolerations(ts []Toleration, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, t := range ts {
		p := path.Index(i)
		if t.Key != "" {
			errs = append(errs, metav1validation.ValidateLabelName(t.Key, p.Child("key"))...)
		}
		if t.Key == "" && t.Operator != "Exists" {
			errs = append(errs, field.Invalid(p.Child("operator"), t.Operator, "operator must be Exists when `key` is empty, which means \"match all values and all keys\""))
		}
		if t.TolerationSeconds != nil && t.Effect != TaintEffectNoExecute {
			errs = append(errs, field.Invalid(p.Child("effect"), string(t.Effect), "effect must be 'NoExecute' when `tolerationSeconds` is set"))
		}
		switch t.Operator {
		case "Equal", "": // empty means Equal
			if msgs := content.IsLabelValue(t.Value); len(msgs) > 0 {
				errs = append(errs, field.Invalid(p.Child("operator"), t.Value, strings.Join(msgs, ";")))
			}
		case "Exists":
			if t.Value != "" {
				errs = append(errs, field.Invalid(p.Child("operator"), t, "value must be empty when `operator` is 'Exists'"))
			}
		default:
			errs = append(errs, field.NotSupported(p.Child("operator"), t.Operator, []string{"Equal", "Exists"}))
		}
		if t.Effect != "" {
			errs = append(errs, validateTaintEffect(t.Effect, false, p.Child("effect"))...)
		}
	}
	return errs
}

// validateTaintEffect follows upstream validateTaintEffect.
func validateTaintEffect(e TaintEffect, required bool, path *field.Path) field.ErrorList {
	switch {
	case e == "" && required:
		return field.ErrorList{field.Required(path, "")}
	case e == "", slices.Contains(taintEffects, e):
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
		case "In", "NotIn":
			if len(r.Values) == 0 {
				errs = append(errs, field.Required(p.Child("values"), "must be specified when `operator` is 'In' or 'NotIn'"))
			}
		case "Exists", "DoesNotExist":
			if len(r.Values) > 0 {
				errs = append(errs, field.Forbidden(p.Child("values"), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"))
			}
		case "Gt", "Lt":
			if len(r.Values) != 1 {
				errs = append(errs, field.Required(p.Child("values"), "must be specified single value when `operator` is 'Lt' or 'Gt'"))
			}
		default:
			errs = append(errs, field.NotSupported(p.Child("operator"), r.Operator, nodeSelectorOps))
		}
		errs = append(errs, metav1validation.ValidateLabelName(r.Key, p.Child("key"))...)
	}
	for i, r := range t.MatchFields {
		p := path.Child("matchFields").Index(i)
		switch r.Operator {
		case "In", "NotIn":
			if len(r.Values) != 1 {
				errs = append(errs, field.Required(p.Child("values"), "must be only one value when `operator` is 'In' or 'NotIn' for node field selector"))
			}
		default:
			errs = append(errs, field.Invalid(p.Child("operator"), r.Operator, "not a valid selector operator"))
		}
		if r.Key != "metadata.name" {
			errs = append(errs, field.NotSupported(p.Child("key"), r.Key, []string{"metadata.name"}))
		}
	}
	return errs
}

// validatePodSpecUpdate follows upstream ValidatePodUpdate: apart from container images and
// added tolerations, the spec of a pod is immutable.
func validatePodSpecUpdate(n, o *PodSpec, path *field.Path) field.ErrorList {
	if len(n.Containers) != len(o.Containers) {
		return field.ErrorList{field.Forbidden(path.Child("containers"), "pod updates may not add or remove containers")}
	}
	errs := validateOnlyAddedTolerations(n.Tolerations, o.Tolerations, path.Child("tolerations"))
	var munged PodSpec
	n.DeepCopyInto(&munged)
	for i := range munged.Containers {
		munged.Containers[i].Image = o.Containers[i].Image
	}
	if len(munged.InitContainers) == len(o.InitContainers) {
		for i := range munged.InitContainers {
			munged.InitContainers[i].Image = o.InitContainers[i].Image
		}
	}
	munged.Tolerations = o.Tolerations
	if changed := changedFields(&munged, o, path); len(changed) > 0 {
		errs = append(errs, field.Forbidden(path, "pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.tolerations` (only additions to existing tolerations)\nchanged: "+strings.Join(changed, ", ")))
	}
	return errs
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

// changedFields lists the top-level PodSpec fields (as paths) that differ semantically.
func changedFields(a, b *PodSpec, path *field.Path) []string {
	va, vb := reflect.ValueOf(a).Elem(), reflect.ValueOf(b).Elem()
	t := va.Type()
	var out []string
	for i := 0; i < t.NumField(); i++ {
		if !equality.Semantic.DeepEqual(va.Field(i).Interface(), vb.Field(i).Interface()) {
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
	selPath := path.Child("selector")
	if spec.Selector == nil {
		errs = append(errs, field.Required(selPath, ""))
	} else {
		selErrs := metav1validation.ValidateLabelSelector(spec.Selector, metav1validation.LabelSelectorValidationOptions{}, selPath)
		errs = append(errs, sortedErrs(selErrs)...)
		if len(spec.Selector.MatchLabels)+len(spec.Selector.MatchExpressions) == 0 {
			errs = append(errs, field.Invalid(selPath, spec.Selector, "empty selector is invalid for deployment"))
		}
	}
	tp := path.Child("template")
	selector, err := metav1.LabelSelectorAsSelector(spec.Selector)
	if err != nil {
		errs = append(errs, field.Invalid(selPath, spec.Selector, "invalid label selector"))
	} else if !selector.Empty() && !selector.Matches(labels.Set(spec.Template.Labels)) {
		errs = append(errs, field.Invalid(tp.Child("metadata", "labels"), spec.Template.Labels, "`selector` does not match template `labels`"))
	}
	errs = append(errs, validateLabels(spec.Template.Labels, tp.Child("metadata", "labels"))...)
	errs = append(errs, sortedErrs(apivalidation.ValidateAnnotations(spec.Template.Annotations, tp.Child("metadata", "annotations")))...)
	errs = append(errs, validatePodSpec(&spec.Template.Spec, tp.Child("spec"))...)
	if spec.Template.Spec.RestartPolicy != RestartPolicyAlways {
		errs = append(errs, field.NotSupported(tp.Child("spec", "restartPolicy"), spec.Template.Spec.RestartPolicy, []string{RestartPolicyAlways}))
	}
	return errs
}

// ---- Node ----

// validateNode follows upstream ValidateNode for the modelled fields.
func validateNode(node *Node) field.ErrorList {
	var errs field.ErrorList
	tp := field.NewPath("spec", "taints")
	type taintKey struct {
		key    string
		effect TaintEffect
	}
	seen := map[taintKey]bool{}
	for i, t := range node.Spec.Taints {
		p := tp.Index(i)
		errs = append(errs, metav1validation.ValidateLabelName(t.Key, p.Child("key"))...)
		if msgs := content.IsLabelValue(t.Value); len(msgs) > 0 {
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
	for _, name := range sortedKeys(node.Status.Capacity) {
		errs = append(errs, validateQuantity(node.Status.Capacity[name], field.NewPath("status", "capacity", name))...)
	}
	for _, name := range sortedKeys(node.Status.Allocatable) {
		errs = append(errs, validateQuantity(node.Status.Allocatable[name], field.NewPath("status", "allocatable", name))...)
	}
	return errs
}

// ---- Event ----

// validateEvent follows upstream legacyValidateEvent: the event lives in the namespace of the
// object it is about ("default" or none for cluster-scoped objects).
func validateEvent(e *Event) field.ErrorList {
	p := field.NewPath("involvedObject", "namespace")
	ns := e.InvolvedObject.Namespace
	if ns == "" {
		if e.Namespace != "" && e.Namespace != metav1.NamespaceDefault {
			return field.ErrorList{field.Invalid(p, ns, "does not match event.namespace")}
		}
		return nil
	}
	if e.Namespace != ns {
		return field.ErrorList{field.Invalid(p, ns, "does not match event.namespace")}
	}
	return nil
}
