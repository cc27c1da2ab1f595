package model

import (
	"fmt"
	"strings"

	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// ---- PriorityClass ----

// PriorityClass is scheduling.k8s.io/v1 PriorityClass: the priority value a pod naming it in
// spec.priorityClassName gets from the Priority admission plugin.
type PriorityClass struct {
	ObjectMeta `json:"metadata,omitempty"`
	// Value is the priority of the pods of this class (required).
	Value int32 `json:"value"`
	// GlobalDefault makes this class the one of pods that name none; only one class may be
	// the global default.
	GlobalDefault bool `json:"globalDefault,omitempty"`
	// Description is free text.
	Description string `json:"description,omitempty"`
	// PreemptionPolicy is PreemptLowerPriority (the default) or Never.
	PreemptionPolicy *string `json:"preemptionPolicy,omitempty"`
}

// Preemption policies (core/v1 PreemptionPolicy).
const (
	PreemptLowerPriority = "PreemptLowerPriority"
	PreemptNever         = "Never"
)

var preemptionPolicies = []string{PreemptLowerPriority, PreemptNever}

// Priority constants ([k8s] pkg/apis/scheduling/types.go).
const (
	// HighestUserDefinablePriority is the largest value of a class whose name does not start
	// with SystemPriorityClassPrefix.
	HighestUserDefinablePriority int32 = 1_000_000_000
	// SystemCriticalPriority is the priority of system-cluster-critical.
	SystemCriticalPriority int32 = 2 * HighestUserDefinablePriority
	// SystemPriorityClassPrefix is reserved for the system classes.
	SystemPriorityClassPrefix = "system-"
	// SystemClusterCritical and SystemNodeCritical are the system classes' names.
	SystemClusterCritical = SystemPriorityClassPrefix + "cluster-critical"
	SystemNodeCritical    = SystemPriorityClassPrefix + "node-critical"
	// DefaultPriorityWhenNoDefaultClassExists is the priority of a pod that names no class when
	// no class is the global default.
	DefaultPriorityWhenNoDefaultClassExists int32 = 0
)

// SystemPriorityClasses returns the classes the API server creates at bootstrap
// ([k8s] pkg/apis/scheduling/v1/helpers.go SystemPriorityClasses): system-node-critical
// (SystemCriticalPriority + 1000) and system-cluster-critical (SystemCriticalPriority), with
// the preemption policy defaulting gives them.
func SystemPriorityClasses() []*PriorityClass {
	return []*PriorityClass{
		{ObjectMeta: ObjectMeta{Name: SystemNodeCritical}, Value: SystemCriticalPriority + 1000, PreemptionPolicy: Ptr(PreemptLowerPriority),
			Description: "Used for system critical pods that must not be moved from their current node."},
		{ObjectMeta: ObjectMeta{Name: SystemClusterCritical}, Value: SystemCriticalPriority, PreemptionPolicy: Ptr(PreemptLowerPriority),
			Description: "Used for system critical pods that must run in the cluster, but can be moved to another node if necessary."},
	}
}

// isKnownSystemPriorityClass is [k8s] pkg/apis/scheduling/v1/helpers.go
// IsKnownSystemPriorityClass.
func isKnownSystemPriorityClass(name string, value int32, globalDefault bool) error {
	for _, spc := range SystemPriorityClasses() {
		if spc.Name != name {
			continue
		}
		if spc.Value != value {
			return fmt.Errorf("value of %v PriorityClass must be %v", spc.Name, spc.Value)
		}
		if spc.GlobalDefault != globalDefault {
			return fmt.Errorf("globalDefault of %v PriorityClass must be %v", spc.Name, spc.GlobalDefault)
		}
		return nil
	}
	return fmt.Errorf("%v is not a known system priority class", name)
}

// GetKind returns KindPriorityClass.
func (o *PriorityClass) GetKind() Kind { return KindPriorityClass }

// DeepCopyObject returns a deep copy.
func (o *PriorityClass) DeepCopyObject() Object { return o.DeepCopy() }

// DeepCopy returns a deep copy.
func (o *PriorityClass) DeepCopy() *PriorityClass {
	if o == nil {
		return nil
	}
	out := *o
	o.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	out.PreemptionPolicy = CopyPtr(o.PreemptionPolicy)
	return &out
}

// SetDefaults is SetDefaults_PriorityClass ([k8s] pkg/apis/scheduling/v1/defaults.go):
// preemptionPolicy defaults to PreemptLowerPriority.
func (o *PriorityClass) SetDefaults() {
	if o.PreemptionPolicy == nil {
		o.PreemptionPolicy = Ptr(PreemptLowerPriority)
	}
}

// Validate is [k8s] pkg/apis/scheduling/validation/validation.go ValidatePriorityClass (the
// metadata is checked by the caller): a name with the system- prefix must be a known system
// class with its value; any other class's value is at most HighestUserDefinablePriority; the
// preemption policy is one of the two.
func (o *PriorityClass) Validate() field.ErrorList {
	var errs field.ErrorList
	if strings.HasPrefix(o.Name, SystemPriorityClassPrefix) {
		if err := isKnownSystemPriorityClass(o.Name, o.Value, o.GlobalDefault); err != nil {
			errs = append(errs, field.Forbidden(field.NewPath("metadata", "name"),
				"priority class names with '"+SystemPriorityClassPrefix+"' prefix are reserved for system use only. error: "+err.Error()))
		}
	} else if o.Value > HighestUserDefinablePriority {
		errs = append(errs, field.Forbidden(field.NewPath("value"), fmt.Sprintf("maximum allowed value of a user defined priority is %v", HighestUserDefinablePriority)))
	}
	if o.PreemptionPolicy != nil {
		errs = append(errs, validatePreemptionPolicy(o.PreemptionPolicy, field.NewPath("preemptionPolicy"))...)
	}
	return errs
}

// validatePriorityClassUpdate is ValidatePriorityClassUpdate: value and preemptionPolicy are
// immutable.
func validatePriorityClassUpdate(n, o *PriorityClass) field.ErrorList {
	var errs field.ErrorList
	if n.Value != o.Value {
		errs = append(errs, field.Forbidden(field.NewPath("value"), "may not be changed in an update."))
	}
	return append(errs, apivalidation.ValidateImmutableField(n.PreemptionPolicy, o.PreemptionPolicy, field.NewPath("preemptionPolicy"))...)
}

// validatePreemptionPolicy is [k8s] pkg/apis/core/validation ValidatePreemptionPolicy.
func validatePreemptionPolicy(p *string, path *field.Path) field.ErrorList {
	switch *p {
	case PreemptLowerPriority, PreemptNever:
		return nil
	case "":
		return field.ErrorList{field.Required(path, "")}
	}
	return field.ErrorList{field.NotSupported(path, *p, preemptionPolicies)}
}
