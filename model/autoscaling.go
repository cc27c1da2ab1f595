package model

import (
	"github.com/reconsim/reconsim/vtime"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// autoscaling/v2 HorizontalPodAutoscaler and autoscaling/v1 Scale: field names and JSON
// names as in k8s.io/api autoscaling/v2/types.go and autoscaling/v1/types.go.

// HorizontalPodAutoscaler is autoscaling/v2 HorizontalPodAutoscaler.
type HorizontalPodAutoscaler struct {
	ObjectMeta `json:"metadata"`
	Spec       HorizontalPodAutoscalerSpec   `json:"spec,omitempty"`
	Status     HorizontalPodAutoscalerStatus `json:"status,omitempty"`
}

// HorizontalPodAutoscalerSpec is autoscaling/v2 HorizontalPodAutoscalerSpec.
type HorizontalPodAutoscalerSpec struct {
	ScaleTargetRef CrossVersionObjectReference      `json:"scaleTargetRef"`
	MinReplicas    *int32                           `json:"minReplicas,omitempty"`
	MaxReplicas    int32                            `json:"maxReplicas"`
	Metrics        []MetricSpec                     `json:"metrics,omitempty"`
	Behavior       *HorizontalPodAutoscalerBehavior `json:"behavior,omitempty"`
}

// CrossVersionObjectReference is autoscaling/v2 CrossVersionObjectReference.
type CrossVersionObjectReference struct {
	Kind       string `json:"kind"`
	Name       string `json:"name"`
	APIVersion string `json:"apiVersion,omitempty"`
}

// Metric source types ([api@HEAD] autoscaling/v2/types.go MetricSourceType).
const (
	ObjectMetricSourceType            = "Object"
	PodsMetricSourceType              = "Pods"
	ResourceMetricSourceType          = "Resource"
	ContainerResourceMetricSourceType = "ContainerResource"
	ExternalMetricSourceType          = "External"
)

// MetricSpec is autoscaling/v2 MetricSpec: the member named by Type is set.
type MetricSpec struct {
	Type              string                         `json:"type"`
	Object            *ObjectMetricSource            `json:"object,omitempty"`
	Pods              *PodsMetricSource              `json:"pods,omitempty"`
	Resource          *ResourceMetricSource          `json:"resource,omitempty"`
	ContainerResource *ContainerResourceMetricSource `json:"containerResource,omitempty"`
	External          *ExternalMetricSource          `json:"external,omitempty"`
}

// ObjectMetricSource is autoscaling/v2 ObjectMetricSource: a metric of one object.
type ObjectMetricSource struct {
	DescribedObject CrossVersionObjectReference `json:"describedObject"`
	Target          MetricTarget                `json:"target"`
	Metric          MetricIdentifier            `json:"metric"`
}

// PodsMetricSource is autoscaling/v2 PodsMetricSource: a per-pod metric, averaged.
type PodsMetricSource struct {
	Metric MetricIdentifier `json:"metric"`
	Target MetricTarget     `json:"target"`
}

// ResourceMetricSource is autoscaling/v2 ResourceMetricSource (Name "cpu" or "memory").
type ResourceMetricSource struct {
	Name   string       `json:"name"`
	Target MetricTarget `json:"target"`
}

// ContainerResourceMetricSource is autoscaling/v2 ContainerResourceMetricSource: a resource
// metric of one named container of each pod.
type ContainerResourceMetricSource struct {
	Name      string       `json:"name"`
	Target    MetricTarget `json:"target"`
	Container string       `json:"container"`
}

// ExternalMetricSource is autoscaling/v2 ExternalMetricSource: a metric not tied to any
// object of the cluster.
type ExternalMetricSource struct {
	Metric MetricIdentifier `json:"metric"`
	Target MetricTarget     `json:"target"`
}

// MetricIdentifier is autoscaling/v2 MetricIdentifier.
type MetricIdentifier struct {
	Name     string                `json:"name"`
	Selector *metav1.LabelSelector `json:"selector,omitempty"`
}

// Metric target types ([api@HEAD] autoscaling/v2/types.go MetricTargetType).
const (
	UtilizationMetricType  = "Utilization"
	ValueMetricType        = "Value"
	AverageValueMetricType = "AverageValue"
)

// MetricTarget is autoscaling/v2 MetricTarget: the member named by Type is set.
// AverageUtilization is a percentage of the pods' requests.
type MetricTarget struct {
	Type               string             `json:"type"`
	Value              *resource.Quantity `json:"value,omitempty"`
	AverageValue       *resource.Quantity `json:"averageValue,omitempty"`
	AverageUtilization *int32             `json:"averageUtilization,omitempty"`
}

// HorizontalPodAutoscalerBehavior is autoscaling/v2 HorizontalPodAutoscalerBehavior.
type HorizontalPodAutoscalerBehavior struct {
	ScaleUp   *HPAScalingRules `json:"scaleUp,omitempty"`
	ScaleDown *HPAScalingRules `json:"scaleDown,omitempty"`
}

// Scaling policy selection ([api@HEAD] autoscaling/v2/types.go ScalingPolicySelect).
const (
	MaxChangePolicySelect = "Max"
	MinChangePolicySelect = "Min"
	DisabledPolicySelect  = "Disabled"
)

// Scaling policy types ([api@HEAD] autoscaling/v2/types.go HPAScalingPolicyType).
const (
	PodsScalingPolicy    = "Pods"
	PercentScalingPolicy = "Percent"
)

// HPAScalingRules is autoscaling/v2 HPAScalingRules. Tolerance is the per-direction
// tolerance (HPAConfigurableTolerance); nil means the controller's flag.
type HPAScalingRules struct {
	StabilizationWindowSeconds *int32             `json:"stabilizationWindowSeconds,omitempty"`
	SelectPolicy               *string            `json:"selectPolicy,omitempty"`
	Policies                   []HPAScalingPolicy `json:"policies,omitempty"`
	Tolerance                  *resource.Quantity `json:"tolerance,omitempty"`
}

// HPAScalingPolicy is autoscaling/v2 HPAScalingPolicy: at most Value pods (or percent) of
// change within PeriodSeconds.
type HPAScalingPolicy struct {
	Type          string `json:"type"`
	Value         int32  `json:"value"`
	PeriodSeconds int32  `json:"periodSeconds"`
}

// HorizontalPodAutoscalerStatus is autoscaling/v2 HorizontalPodAutoscalerStatus.
type HorizontalPodAutoscalerStatus struct {
	ObservedGeneration *int64                             `json:"observedGeneration,omitempty"`
	LastScaleTime      *vtime.Time                        `json:"lastScaleTime,omitempty"`
	CurrentReplicas    int32                              `json:"currentReplicas,omitempty"`
	DesiredReplicas    int32                              `json:"desiredReplicas"`
	CurrentMetrics     []MetricStatus                     `json:"currentMetrics,omitempty"`
	Conditions         []HorizontalPodAutoscalerCondition `json:"conditions,omitempty"`
}

// MetricStatus is autoscaling/v2 MetricStatus: the member named by Type is set.
type MetricStatus struct {
	Type              string                         `json:"type"`
	Object            *ObjectMetricStatus            `json:"object,omitempty"`
	Pods              *PodsMetricStatus              `json:"pods,omitempty"`
	Resource          *ResourceMetricStatus          `json:"resource,omitempty"`
	ContainerResource *ContainerResourceMetricStatus `json:"containerResource,omitempty"`
	External          *ExternalMetricStatus          `json:"external,omitempty"`
}

// ObjectMetricStatus is autoscaling/v2 ObjectMetricStatus.
type ObjectMetricStatus struct {
	Metric          MetricIdentifier            `json:"metric"`
	Current         MetricValueStatus           `json:"current"`
	DescribedObject CrossVersionObjectReference `json:"describedObject"`
}

// PodsMetricStatus is autoscaling/v2 PodsMetricStatus.
type PodsMetricStatus struct {
	Metric  MetricIdentifier  `json:"metric"`
	Current MetricValueStatus `json:"current"`
}

// ResourceMetricStatus is autoscaling/v2 ResourceMetricStatus.
type ResourceMetricStatus struct {
	Name    string            `json:"name"`
	Current MetricValueStatus `json:"current"`
}

// ContainerResourceMetricStatus is autoscaling/v2 ContainerResourceMetricStatus.
type ContainerResourceMetricStatus struct {
	Name      string            `json:"name"`
	Current   MetricValueStatus `json:"current"`
	Container string            `json:"container"`
}

// ExternalMetricStatus is autoscaling/v2 ExternalMetricStatus.
type ExternalMetricStatus struct {
	Metric  MetricIdentifier  `json:"metric"`
	Current MetricValueStatus `json:"current"`
}

// MetricValueStatus is autoscaling/v2 MetricValueStatus.
type MetricValueStatus struct {
	Value              *resource.Quantity `json:"value,omitempty"`
	AverageValue       *resource.Quantity `json:"averageValue,omitempty"`
	AverageUtilization *int32             `json:"averageUtilization,omitempty"`
}

// HPA condition types ([api@HEAD] autoscaling/v2/types.go HorizontalPodAutoscalerConditionType).
const (
	ScalingActive  = "ScalingActive"
	AbleToScale    = "AbleToScale"
	ScalingLimited = "ScalingLimited"
)

// HorizontalPodAutoscalerCondition is autoscaling/v2 HorizontalPodAutoscalerCondition.
type HorizontalPodAutoscalerCondition struct {
	Type               string          `json:"type"`
	Status             ConditionStatus `json:"status"`
	LastTransitionTime vtime.Time      `json:"lastTransitionTime,omitempty"`
	Reason             string          `json:"reason,omitempty"`
	Message            string          `json:"message,omitempty"`
}

// ---- Scale ----

// Scale is autoscaling/v1 Scale, the body of the scale subresource of Deployments,
// ReplicaSets and StatefulSets. It is never stored, so it is not a registered kind.
type Scale struct {
	ObjectMeta `json:"metadata"`
	Spec       ScaleSpec   `json:"spec,omitempty"`
	Status     ScaleStatus `json:"status,omitempty"`
}

// ScaleSpec is autoscaling/v1 ScaleSpec.
type ScaleSpec struct {
	Replicas int32 `json:"replicas,omitempty"`
}

// ScaleStatus is autoscaling/v1 ScaleStatus: Selector is the target's label selector in
// string form (labels.Selector.String()), as the HPA parses it.
type ScaleStatus struct {
	Replicas int32  `json:"replicas"`
	Selector string `json:"selector,omitempty"`
}

// ---- Object methods and deep copies ----

func (o *HorizontalPodAutoscaler) GetKind() Kind { return KindHorizontalPodAutoscaler }
func (o *Scale) GetKind() Kind                   { return KindScale }

func (o *HorizontalPodAutoscaler) DeepCopyObject() Object { return o.DeepCopy() }
func (o *Scale) DeepCopyObject() Object                   { return o.DeepCopy() }

// DeepCopy returns a deep copy.
func (o *HorizontalPodAutoscaler) DeepCopy() *HorizontalPodAutoscaler {
	out := copyWithMeta(o)
	out.Spec.MinReplicas = CopyPtr(o.Spec.MinReplicas)
	out.Spec.Metrics = copyEach(o.Spec.Metrics, func(m MetricSpec) MetricSpec { return m.DeepCopy() })
	if b := o.Spec.Behavior; b != nil {
		out.Spec.Behavior = &HorizontalPodAutoscalerBehavior{ScaleUp: b.ScaleUp.DeepCopy(), ScaleDown: b.ScaleDown.DeepCopy()}
	}
	out.Status.ObservedGeneration = CopyPtr(o.Status.ObservedGeneration)
	out.Status.LastScaleTime = CopyPtr(o.Status.LastScaleTime)
	out.Status.CurrentMetrics = copyEach(o.Status.CurrentMetrics, func(m MetricStatus) MetricStatus { return m.DeepCopy() })
	out.Status.Conditions = copySlice(o.Status.Conditions)
	return out
}

// DeepCopy returns a deep copy of m.
func (m *MetricSpec) DeepCopy() MetricSpec {
	out := MetricSpec{Type: m.Type}
	if s := m.Object; s != nil {
		out.Object = &ObjectMetricSource{DescribedObject: s.DescribedObject, Target: s.Target.deepCopy(), Metric: s.Metric.deepCopy()}
	}
	if s := m.Pods; s != nil {
		out.Pods = &PodsMetricSource{Metric: s.Metric.deepCopy(), Target: s.Target.deepCopy()}
	}
	if s := m.Resource; s != nil {
		out.Resource = &ResourceMetricSource{Name: s.Name, Target: s.Target.deepCopy()}
	}
	if s := m.ContainerResource; s != nil {
		out.ContainerResource = &ContainerResourceMetricSource{Name: s.Name, Target: s.Target.deepCopy(), Container: s.Container}
	}
	if s := m.External; s != nil {
		out.External = &ExternalMetricSource{Metric: s.Metric.deepCopy(), Target: s.Target.deepCopy()}
	}
	return out
}

// DeepCopy returns a deep copy of m.
func (m *MetricStatus) DeepCopy() MetricStatus {
	out := MetricStatus{Type: m.Type}
	if s := m.Object; s != nil {
		out.Object = &ObjectMetricStatus{Metric: s.Metric.deepCopy(), Current: s.Current.deepCopy(), DescribedObject: s.DescribedObject}
	}
	if s := m.Pods; s != nil {
		out.Pods = &PodsMetricStatus{Metric: s.Metric.deepCopy(), Current: s.Current.deepCopy()}
	}
	if s := m.Resource; s != nil {
		out.Resource = &ResourceMetricStatus{Name: s.Name, Current: s.Current.deepCopy()}
	}
	if s := m.ContainerResource; s != nil {
		out.ContainerResource = &ContainerResourceMetricStatus{Name: s.Name, Current: s.Current.deepCopy(), Container: s.Container}
	}
	if s := m.External; s != nil {
		out.External = &ExternalMetricStatus{Metric: s.Metric.deepCopy(), Current: s.Current.deepCopy()}
	}
	return out
}

// DeepCopy returns a deep copy of r; nil for nil.
func (r *HPAScalingRules) DeepCopy() *HPAScalingRules {
	if r == nil {
		return nil
	}
	return &HPAScalingRules{
		StabilizationWindowSeconds: CopyPtr(r.StabilizationWindowSeconds),
		SelectPolicy:               CopyPtr(r.SelectPolicy),
		Policies:                   copySlice(r.Policies),
		Tolerance:                  copyQuantity(r.Tolerance),
	}
}

func (m MetricIdentifier) deepCopy() MetricIdentifier {
	return MetricIdentifier{Name: m.Name, Selector: copyLabelSelector(m.Selector)}
}

func (t MetricTarget) deepCopy() MetricTarget {
	return MetricTarget{Type: t.Type, Value: copyQuantity(t.Value), AverageValue: copyQuantity(t.AverageValue), AverageUtilization: CopyPtr(t.AverageUtilization)}
}

func (v MetricValueStatus) deepCopy() MetricValueStatus {
	return MetricValueStatus{Value: copyQuantity(v.Value), AverageValue: copyQuantity(v.AverageValue), AverageUtilization: CopyPtr(v.AverageUtilization)}
}

// copyQuantity copies a quantity pointer with Quantity.DeepCopy: a plain copy would share the
// inf.Dec of a decimal quantity.
func copyQuantity(q *resource.Quantity) *resource.Quantity {
	if q == nil {
		return nil
	}
	c := q.DeepCopy()
	return &c
}

// DeepCopy returns a deep copy.
func (o *Scale) DeepCopy() *Scale {
	out := copyWithMeta(o)
	return out
}
