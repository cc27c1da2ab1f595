package model

import (
	"github.com/reconsim/reconsim/vtime"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// policy/v1 kinds: field names and JSON names as in k8s.io/api policy/v1/types.go.

// PodDisruptionBudget is policy/v1 PodDisruptionBudget.
type PodDisruptionBudget struct {
	ObjectMeta `json:"metadata"`
	Spec       PodDisruptionBudgetSpec   `json:"spec,omitempty"`
	Status     PodDisruptionBudgetStatus `json:"status,omitempty"`
}

// Unhealthy pod eviction policies ([api@HEAD] policy/v1/types.go
// UnhealthyPodEvictionPolicyType). nil means IfHealthyBudget.
const (
	IfHealthyBudget = "IfHealthyBudget"
	AlwaysAllow     = "AlwaysAllow"
)

// PodDisruptionBudgetSpec is policy/v1 PodDisruptionBudgetSpec: at most one of MinAvailable
// and MaxUnavailable is set. A nil selector selects no pods; an empty one selects every pod
// of the namespace (policy/v1 semantics).
type PodDisruptionBudgetSpec struct {
	MinAvailable               *intstr.IntOrString   `json:"minAvailable,omitempty"`
	Selector                   *metav1.LabelSelector `json:"selector,omitempty"`
	MaxUnavailable             *intstr.IntOrString   `json:"maxUnavailable,omitempty"`
	UnhealthyPodEvictionPolicy *string               `json:"unhealthyPodEvictionPolicy,omitempty"`
}

// PodDisruptionBudgetStatus is policy/v1 PodDisruptionBudgetStatus. DisruptedPods maps the
// name of a pod the eviction subresource has approved to the time of approval; the
// disruption controller removes entries once the pod is gone or after a timeout.
type PodDisruptionBudgetStatus struct {
	ObservedGeneration int64                 `json:"observedGeneration,omitempty"`
	DisruptedPods      map[string]vtime.Time `json:"disruptedPods,omitempty"`
	DisruptionsAllowed int32                 `json:"disruptionsAllowed"`
	CurrentHealthy     int32                 `json:"currentHealthy"`
	DesiredHealthy     int32                 `json:"desiredHealthy"`
	ExpectedPods       int32                 `json:"expectedPods"`
	Conditions         []Condition           `json:"conditions,omitempty"`
}

// PDB condition type and reasons ([api@HEAD] policy/v1/types.go).
const (
	DisruptionAllowedCondition = "DisruptionAllowed"
	SyncFailedReason           = "SyncFailed"
	SufficientPodsReason       = "SufficientPods"
	InsufficientPodsReason     = "InsufficientPods"
)

// Condition is metav1.Condition with a virtual transition time (used by PodDisruptionBudget
// status).
type Condition struct {
	Type               string          `json:"type"`
	Status             ConditionStatus `json:"status"`
	ObservedGeneration int64           `json:"observedGeneration,omitempty"`
	LastTransitionTime vtime.Time      `json:"lastTransitionTime"`
	Reason             string          `json:"reason"`
	Message            string          `json:"message"`
}

// SetStatusCondition is apimachinery's meta.SetStatusCondition: c replaces the condition of its
// type in *conds (appended when there is none), and the transition time moves to now only when
// the status changes. It reports whether anything changed.
func SetStatusCondition(conds *[]Condition, c Condition, now vtime.Time) bool {
	for i := range *conds {
		existing := &(*conds)[i]
		if existing.Type != c.Type {
			continue
		}
		changed := false
		if existing.Status != c.Status {
			existing.Status = c.Status
			existing.LastTransitionTime = now
			changed = true
		}
		if existing.Reason != c.Reason {
			existing.Reason = c.Reason
			changed = true
		}
		if existing.Message != c.Message {
			existing.Message = c.Message
			changed = true
		}
		if existing.ObservedGeneration != c.ObservedGeneration {
			existing.ObservedGeneration = c.ObservedGeneration
			changed = true
		}
		return changed
	}
	c.LastTransitionTime = now
	*conds = append(*conds, c)
	return true
}

// UpdateDisruptionAllowedCondition sets pdb's DisruptionAllowed condition from
// status.disruptionsAllowed: True/SufficientPods when positive, False/InsufficientPods
// otherwise, with an empty message ([component-helpers@HEAD]
// apps/poddisruptionbudget/helpers.go UpdateDisruptionAllowedCondition, which the eviction
// subresource and the disruption controller both call).
func UpdateDisruptionAllowedCondition(pdb *PodDisruptionBudget, now vtime.Time) {
	c := Condition{
		Type:               DisruptionAllowedCondition,
		Status:             ConditionFalse,
		Reason:             InsufficientPodsReason,
		ObservedGeneration: pdb.Status.ObservedGeneration,
	}
	if pdb.Status.DisruptionsAllowed > 0 {
		c.Status, c.Reason = ConditionTrue, SufficientPodsReason
	}
	SetStatusCondition(&pdb.Status.Conditions, c, now)
}

// Eviction is policy/v1 Eviction, the body of a create on the pods/eviction subresource:
// metadata names the pod (namespace and name), DeleteOptions are used for the pod's deletion.
// It is never stored, so it is not a registered kind.
type Eviction struct {
	ObjectMeta    `json:"metadata"`
	DeleteOptions *DeleteOptions `json:"deleteOptions,omitempty"`
}

// ---- Object methods and deep copies ----

func (o *PodDisruptionBudget) GetKind() Kind { return KindPodDisruptionBudget }
func (o *Eviction) GetKind() Kind            { return KindEviction }

func (o *PodDisruptionBudget) DeepCopyObject() Object { return o.DeepCopy() }
func (o *Eviction) DeepCopyObject() Object            { return o.DeepCopy() }

// DeepCopy returns a deep copy.
func (o *PodDisruptionBudget) DeepCopy() *PodDisruptionBudget {
	out := copyWithMeta(o)
	out.Spec.MinAvailable = CopyPtr(o.Spec.MinAvailable)
	out.Spec.Selector = copyLabelSelector(o.Spec.Selector)
	out.Spec.MaxUnavailable = CopyPtr(o.Spec.MaxUnavailable)
	out.Spec.UnhealthyPodEvictionPolicy = CopyPtr(o.Spec.UnhealthyPodEvictionPolicy)
	out.Status.DisruptedPods = copyMap(o.Status.DisruptedPods)
	out.Status.Conditions = copySlice(o.Status.Conditions)
	return out
}

// DeepCopy returns a deep copy.
func (o *Eviction) DeepCopy() *Eviction {
	out := copyWithMeta(o)
	out.DeleteOptions = o.DeleteOptions.DeepCopy()
	return out
}
