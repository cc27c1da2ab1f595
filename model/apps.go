package model

import (
	"github.com/reconsim/reconsim/vtime"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// apps/v1 workload kinds: field names and JSON names as in k8s.io/api apps/v1/types.go,
// reduced to what the simulator models.

// ---- Deployment ----

// Deployment is apps/v1 Deployment.
type Deployment struct {
	ObjectMeta `json:"metadata"`
	Spec       DeploymentSpec   `json:"spec,omitempty"`
	Status     DeploymentStatus `json:"status,omitempty"`
}

// DeploymentSpec is apps/v1 DeploymentSpec.
type DeploymentSpec struct {
	Replicas                *int32                `json:"replicas,omitempty"`
	Selector                *metav1.LabelSelector `json:"selector"`
	Template                PodTemplateSpec       `json:"template"`
	Strategy                DeploymentStrategy    `json:"strategy,omitempty"`
	MinReadySeconds         int32                 `json:"minReadySeconds,omitempty"`
	RevisionHistoryLimit    *int32                `json:"revisionHistoryLimit,omitempty"`
	Paused                  bool                  `json:"paused,omitempty"`
	ProgressDeadlineSeconds *int32                `json:"progressDeadlineSeconds,omitempty"`
}

// Deployment strategy types ([api@HEAD] apps/v1/types.go DeploymentStrategyType).
const (
	RecreateDeploymentStrategyType      = "Recreate"
	RollingUpdateDeploymentStrategyType = "RollingUpdate"
)

// DeploymentStrategy is apps/v1 DeploymentStrategy. RollingUpdate is set only when Type is
// RollingUpdate.
type DeploymentStrategy struct {
	Type          string                   `json:"type,omitempty"`
	RollingUpdate *RollingUpdateDeployment `json:"rollingUpdate,omitempty"`
}

// RollingUpdateDeployment is apps/v1 RollingUpdateDeployment: an absolute number or a
// percentage of spec.replicas each (maxSurge rounds up, maxUnavailable down).
type RollingUpdateDeployment struct {
	MaxUnavailable *intstr.IntOrString `json:"maxUnavailable,omitempty"`
	MaxSurge       *intstr.IntOrString `json:"maxSurge,omitempty"`
}

// DeploymentStatus is apps/v1 DeploymentStatus.
type DeploymentStatus struct {
	ObservedGeneration  int64                 `json:"observedGeneration,omitempty"`
	Replicas            int32                 `json:"replicas,omitempty"`
	UpdatedReplicas     int32                 `json:"updatedReplicas,omitempty"`
	ReadyReplicas       int32                 `json:"readyReplicas,omitempty"`
	AvailableReplicas   int32                 `json:"availableReplicas,omitempty"`
	UnavailableReplicas int32                 `json:"unavailableReplicas,omitempty"`
	TerminatingReplicas *int32                `json:"terminatingReplicas,omitempty"`
	Conditions          []DeploymentCondition `json:"conditions,omitempty"`
	CollisionCount      *int32                `json:"collisionCount,omitempty"`
}

// Deployment condition types ([api@HEAD] apps/v1/types.go DeploymentConditionType).
const (
	DeploymentAvailable      = "Available"
	DeploymentProgressing    = "Progressing"
	DeploymentReplicaFailure = "ReplicaFailure"
)

// DeploymentCondition is apps/v1 DeploymentCondition.
type DeploymentCondition struct {
	Type               string          `json:"type"`
	Status             ConditionStatus `json:"status"`
	LastUpdateTime     vtime.Time      `json:"lastUpdateTime,omitempty"`
	LastTransitionTime vtime.Time      `json:"lastTransitionTime,omitempty"`
	Reason             string          `json:"reason,omitempty"`
	Message            string          `json:"message,omitempty"`
}

// ---- StatefulSet ----

// StatefulSet is apps/v1 StatefulSet.
type StatefulSet struct {
	ObjectMeta `json:"metadata"`
	Spec       StatefulSetSpec   `json:"spec,omitempty"`
	Status     StatefulSetStatus `json:"status,omitempty"`
}

// StatefulSet pod management policies ([api@HEAD] apps/v1/types.go PodManagementPolicyType).
const (
	OrderedReadyPodManagement = "OrderedReady"
	ParallelPodManagement     = "Parallel"
)

// StatefulSet and DaemonSet update strategy types ([api@HEAD] apps/v1/types.go
// StatefulSetUpdateStrategyType, DaemonSetUpdateStrategyType: the same two strings).
const (
	RollingUpdateStatefulSetStrategyType = "RollingUpdate"
	OnDeleteStatefulSetStrategyType      = "OnDelete"
	RollingUpdateDaemonSetStrategyType   = "RollingUpdate"
	OnDeleteDaemonSetStrategyType        = "OnDelete"
)

// StatefulSetSpec is apps/v1 StatefulSetSpec (no volumeClaimTemplates or ordinals).
type StatefulSetSpec struct {
	Replicas             *int32                    `json:"replicas,omitempty"`
	Selector             *metav1.LabelSelector     `json:"selector"`
	Template             PodTemplateSpec           `json:"template"`
	ServiceName          string                    `json:"serviceName,omitempty"`
	PodManagementPolicy  string                    `json:"podManagementPolicy,omitempty"`
	UpdateStrategy       StatefulSetUpdateStrategy `json:"updateStrategy,omitempty"`
	RevisionHistoryLimit *int32                    `json:"revisionHistoryLimit,omitempty"`
	MinReadySeconds      int32                     `json:"minReadySeconds,omitempty"`
}

// StatefulSetUpdateStrategy is apps/v1 StatefulSetUpdateStrategy.
type StatefulSetUpdateStrategy struct {
	Type          string                            `json:"type,omitempty"`
	RollingUpdate *RollingUpdateStatefulSetStrategy `json:"rollingUpdate,omitempty"`
}

// RollingUpdateStatefulSetStrategy is apps/v1 RollingUpdateStatefulSetStrategy: pods with an
// ordinal >= Partition are updated.
type RollingUpdateStatefulSetStrategy struct {
	Partition      *int32              `json:"partition,omitempty"`
	MaxUnavailable *intstr.IntOrString `json:"maxUnavailable,omitempty"`
}

// StatefulSetStatus is apps/v1 StatefulSetStatus.
type StatefulSetStatus struct {
	ObservedGeneration int64                  `json:"observedGeneration,omitempty"`
	Replicas           int32                  `json:"replicas"`
	ReadyReplicas      int32                  `json:"readyReplicas,omitempty"`
	CurrentReplicas    int32                  `json:"currentReplicas,omitempty"`
	UpdatedReplicas    int32                  `json:"updatedReplicas,omitempty"`
	AvailableReplicas  int32                  `json:"availableReplicas"`
	CurrentRevision    string                 `json:"currentRevision,omitempty"`
	UpdateRevision     string                 `json:"updateRevision,omitempty"`
	CollisionCount     *int32                 `json:"collisionCount,omitempty"`
	Conditions         []StatefulSetCondition `json:"conditions,omitempty"`
}

// StatefulSetCondition is apps/v1 StatefulSetCondition.
type StatefulSetCondition struct {
	Type               string          `json:"type"`
	Status             ConditionStatus `json:"status"`
	LastTransitionTime vtime.Time      `json:"lastTransitionTime,omitempty"`
	Reason             string          `json:"reason,omitempty"`
	Message            string          `json:"message,omitempty"`
}

// ---- DaemonSet ----

// DaemonSet is apps/v1 DaemonSet.
type DaemonSet struct {
	ObjectMeta `json:"metadata"`
	Spec       DaemonSetSpec   `json:"spec,omitempty"`
	Status     DaemonSetStatus `json:"status,omitempty"`
}

// DaemonSetSpec is apps/v1 DaemonSetSpec.
type DaemonSetSpec struct {
	Selector             *metav1.LabelSelector   `json:"selector"`
	Template             PodTemplateSpec         `json:"template"`
	UpdateStrategy       DaemonSetUpdateStrategy `json:"updateStrategy,omitempty"`
	MinReadySeconds      int32                   `json:"minReadySeconds,omitempty"`
	RevisionHistoryLimit *int32                  `json:"revisionHistoryLimit,omitempty"`
}

// DaemonSetUpdateStrategy is apps/v1 DaemonSetUpdateStrategy.
type DaemonSetUpdateStrategy struct {
	Type          string                  `json:"type,omitempty"`
	RollingUpdate *RollingUpdateDaemonSet `json:"rollingUpdate,omitempty"`
}

// RollingUpdateDaemonSet is apps/v1 RollingUpdateDaemonSet: numbers or percentages of the
// desired number of scheduled pods.
type RollingUpdateDaemonSet struct {
	MaxUnavailable *intstr.IntOrString `json:"maxUnavailable,omitempty"`
	MaxSurge       *intstr.IntOrString `json:"maxSurge,omitempty"`
}

// DaemonSetStatus is apps/v1 DaemonSetStatus.
type DaemonSetStatus struct {
	CurrentNumberScheduled int32                `json:"currentNumberScheduled"`
	NumberMisscheduled     int32                `json:"numberMisscheduled"`
	DesiredNumberScheduled int32                `json:"desiredNumberScheduled"`
	NumberReady            int32                `json:"numberReady"`
	ObservedGeneration     int64                `json:"observedGeneration,omitempty"`
	UpdatedNumberScheduled int32                `json:"updatedNumberScheduled,omitempty"`
	NumberAvailable        int32                `json:"numberAvailable,omitempty"`
	NumberUnavailable      int32                `json:"numberUnavailable,omitempty"`
	CollisionCount         *int32               `json:"collisionCount,omitempty"`
	Conditions             []DaemonSetCondition `json:"conditions,omitempty"`
}

// DaemonSetCondition is apps/v1 DaemonSetCondition.
type DaemonSetCondition struct {
	Type               string          `json:"type"`
	Status             ConditionStatus `json:"status"`
	LastTransitionTime vtime.Time      `json:"lastTransitionTime,omitempty"`
	Reason             string          `json:"reason,omitempty"`
	Message            string          `json:"message,omitempty"`
}

// ---- ControllerRevision ----

// ControllerRevision is apps/v1 ControllerRevision, the history entry of a StatefulSet or
// DaemonSet. Upstream Data is a raw patch ({"spec":{"template":{...,"$patch":"replace"}}}
// for both controllers); here Data holds the template that patch would carry, typed, so that
// controllers compare and restore templates without a patch engine.
type ControllerRevision struct {
	ObjectMeta `json:"metadata"`
	Data       ControllerRevisionData `json:"data,omitempty"`
	Revision   int64                  `json:"revision"`
}

// ControllerRevisionData is the content of a ControllerRevision: the pod template of the
// revision.
type ControllerRevisionData struct {
	Template PodTemplateSpec `json:"template"`
}

// ---- Object methods and deep copies ----

func (o *Deployment) GetKind() Kind         { return KindDeployment }
func (o *StatefulSet) GetKind() Kind        { return KindStatefulSet }
func (o *DaemonSet) GetKind() Kind          { return KindDaemonSet }
func (o *ControllerRevision) GetKind() Kind { return KindControllerRevision }

func (o *Deployment) DeepCopyObject() Object         { return o.DeepCopy() }
func (o *StatefulSet) DeepCopyObject() Object        { return o.DeepCopy() }
func (o *DaemonSet) DeepCopyObject() Object          { return o.DeepCopy() }
func (o *ControllerRevision) DeepCopyObject() Object { return o.DeepCopy() }

// DeepCopy returns a deep copy.
func (o *Deployment) DeepCopy() *Deployment {
	out := copyWithMeta(o)
	out.Spec.Replicas = CopyPtr(o.Spec.Replicas)
	out.Spec.Selector = copyLabelSelector(o.Spec.Selector)
	o.Spec.Template.DeepCopyInto(&out.Spec.Template)
	if ru := o.Spec.Strategy.RollingUpdate; ru != nil {
		out.Spec.Strategy.RollingUpdate = &RollingUpdateDeployment{MaxUnavailable: CopyPtr(ru.MaxUnavailable), MaxSurge: CopyPtr(ru.MaxSurge)}
	}
	out.Spec.RevisionHistoryLimit = CopyPtr(o.Spec.RevisionHistoryLimit)
	out.Spec.ProgressDeadlineSeconds = CopyPtr(o.Spec.ProgressDeadlineSeconds)
	out.Status.TerminatingReplicas = CopyPtr(o.Status.TerminatingReplicas)
	out.Status.Conditions = copySlice(o.Status.Conditions)
	out.Status.CollisionCount = CopyPtr(o.Status.CollisionCount)
	return out
}

// DeepCopy returns a deep copy.
func (o *StatefulSet) DeepCopy() *StatefulSet {
	out := copyWithMeta(o)
	out.Spec.Replicas = CopyPtr(o.Spec.Replicas)
	out.Spec.Selector = copyLabelSelector(o.Spec.Selector)
	o.Spec.Template.DeepCopyInto(&out.Spec.Template)
	if ru := o.Spec.UpdateStrategy.RollingUpdate; ru != nil {
		out.Spec.UpdateStrategy.RollingUpdate = &RollingUpdateStatefulSetStrategy{Partition: CopyPtr(ru.Partition), MaxUnavailable: CopyPtr(ru.MaxUnavailable)}
	}
	out.Spec.RevisionHistoryLimit = CopyPtr(o.Spec.RevisionHistoryLimit)
	out.Status.CollisionCount = CopyPtr(o.Status.CollisionCount)
	out.Status.Conditions = copySlice(o.Status.Conditions)
	return out
}

// DeepCopy returns a deep copy.
func (o *DaemonSet) DeepCopy() *DaemonSet {
	out := copyWithMeta(o)
	out.Spec.Selector = copyLabelSelector(o.Spec.Selector)
	o.Spec.Template.DeepCopyInto(&out.Spec.Template)
	if ru := o.Spec.UpdateStrategy.RollingUpdate; ru != nil {
		out.Spec.UpdateStrategy.RollingUpdate = &RollingUpdateDaemonSet{MaxUnavailable: CopyPtr(ru.MaxUnavailable), MaxSurge: CopyPtr(ru.MaxSurge)}
	}
	out.Spec.RevisionHistoryLimit = CopyPtr(o.Spec.RevisionHistoryLimit)
	out.Status.CollisionCount = CopyPtr(o.Status.CollisionCount)
	out.Status.Conditions = copySlice(o.Status.Conditions)
	return out
}

// DeepCopy returns a deep copy.
func (o *ControllerRevision) DeepCopy() *ControllerRevision {
	out := copyWithMeta(o)
	o.Data.Template.DeepCopyInto(&out.Data.Template)
	return out
}
