package model

import (
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/reconsim/reconsim/vtime"
)

// ResourceList maps a resource name ("cpu", "memory", "pods") to a quantity.
type ResourceList map[string]resource.Quantity

// Resource names used by the scheduler and kubelet.
const (
	ResourceCPU    = "cpu"
	ResourceMemory = "memory"
	ResourcePods   = "pods"
)

// ConditionStatus is "True", "False" or "Unknown".
type ConditionStatus string

// Condition statuses.
const (
	ConditionTrue    ConditionStatus = "True"
	ConditionFalse   ConditionStatus = "False"
	ConditionUnknown ConditionStatus = "Unknown"
)

// ---- Namespace ----

// Namespace is core/v1 Namespace.
type Namespace struct {
	ObjectMeta `json:"metadata"`
	Status     NamespaceStatus `json:"status,omitempty"`
}

// NamespaceStatus holds the namespace phase ("Active" or "Terminating").
type NamespaceStatus struct {
	Phase string `json:"phase,omitempty"`
}

// ---- Node ----

// Node is core/v1 Node.
type Node struct {
	ObjectMeta `json:"metadata"`
	Spec       NodeSpec   `json:"spec,omitempty"`
	Status     NodeStatus `json:"status,omitempty"`
}

// NodeSpec is the part of core/v1 NodeSpec the simulator models.
type NodeSpec struct {
	Unschedulable bool    `json:"unschedulable,omitempty"`
	Taints        []Taint `json:"taints,omitempty"`
	ProviderID    string  `json:"providerID,omitempty"`
}

// TaintEffect is NoSchedule, PreferNoSchedule or NoExecute.
type TaintEffect string

// Taint effects.
const (
	TaintEffectNoSchedule       TaintEffect = "NoSchedule"
	TaintEffectPreferNoSchedule TaintEffect = "PreferNoSchedule"
	TaintEffectNoExecute        TaintEffect = "NoExecute"
)

// Taint is core/v1 Taint.
type Taint struct {
	Key       string      `json:"key"`
	Value     string      `json:"value,omitempty"`
	Effect    TaintEffect `json:"effect"`
	TimeAdded *vtime.Time `json:"timeAdded,omitempty"`
}

// NodeStatus is the part of core/v1 NodeStatus the simulator models.
type NodeStatus struct {
	Capacity    ResourceList    `json:"capacity,omitempty"`
	Allocatable ResourceList    `json:"allocatable,omitempty"`
	Conditions  []NodeCondition `json:"conditions,omitempty"`
}

// Node condition types.
const (
	NodeReady              = "Ready"
	NodeMemoryPressure     = "MemoryPressure"
	NodeDiskPressure       = "DiskPressure"
	NodePIDPressure        = "PIDPressure"
	NodeNetworkUnavailable = "NetworkUnavailable"
)

// NodeCondition is core/v1 NodeCondition.
type NodeCondition struct {
	Type               string          `json:"type"`
	Status             ConditionStatus `json:"status"`
	LastHeartbeatTime  vtime.Time      `json:"lastHeartbeatTime,omitempty"`
	LastTransitionTime vtime.Time      `json:"lastTransitionTime,omitempty"`
	Reason             string          `json:"reason,omitempty"`
	Message            string          `json:"message,omitempty"`
}

// ---- Lease ----

// Lease is coordination.k8s.io/v1 Lease (the kubelet's heartbeat in kube-node-lease).
type Lease struct {
	ObjectMeta `json:"metadata"`
	Spec       LeaseSpec `json:"spec,omitempty"`
}

// LeaseSpec is coordination.k8s.io/v1 LeaseSpec.
type LeaseSpec struct {
	HolderIdentity       string      `json:"holderIdentity,omitempty"`
	LeaseDurationSeconds *int32      `json:"leaseDurationSeconds,omitempty"`
	AcquireTime          *vtime.Time `json:"acquireTime,omitempty"`
	RenewTime            *vtime.Time `json:"renewTime,omitempty"`
	// LeaseTransitions counts the changes of holder (leader election writes it; the kubelet's
	// node lease leaves it unset).
	LeaseTransitions *int32 `json:"leaseTransitions,omitempty"`
}

// ---- Pod ----

// Pod is core/v1 Pod.
type Pod struct {
	ObjectMeta `json:"metadata"`
	Spec       PodSpec   `json:"spec,omitempty"`
	Status     PodStatus `json:"status,omitempty"`
}

// PodTemplateSpec is core/v1 PodTemplateSpec.
type PodTemplateSpec struct {
	ObjectMeta `json:"metadata,omitempty"`
	Spec       PodSpec `json:"spec,omitempty"`
}

// PodSpec is the part of core/v1 PodSpec the simulator models.
type PodSpec struct {
	Containers                    []Container       `json:"containers"`
	InitContainers                []Container       `json:"initContainers,omitempty"`
	RestartPolicy                 string            `json:"restartPolicy,omitempty"`
	TerminationGracePeriodSeconds *int64            `json:"terminationGracePeriodSeconds,omitempty"`
	NodeSelector                  map[string]string `json:"nodeSelector,omitempty"`
	NodeName                      string            `json:"nodeName,omitempty"`
	SchedulerName                 string            `json:"schedulerName,omitempty"`
	Affinity                      *Affinity         `json:"affinity,omitempty"`
	Tolerations                   []Toleration      `json:"tolerations,omitempty"`
	// TopologySpreadConstraints are read by the scheduler's PodTopologySpread plugin.
	TopologySpreadConstraints []TopologySpreadConstraint `json:"topologySpreadConstraints,omitempty"`
	Priority                  *int32                     `json:"priority,omitempty"`
	PriorityClassName         string                     `json:"priorityClassName,omitempty"`
	// PreemptionPolicy is set by the Priority admission plugin from the pod's class
	// (PreemptLowerPriority or Never).
	PreemptionPolicy *string `json:"preemptionPolicy,omitempty"`
	// Hostname is the pod's hostname; the Job controller sets it to <job>-<index> for an
	// Indexed Job's pods (pkg/controller/job/indexed_job_utils.go).
	Hostname string `json:"hostname,omitempty"`
}

// Restart policies.
const (
	// ContainerRestartPolicyAlways is the only container-level restartPolicy (core/v1
	// ContainerRestartPolicyAlways).
	ContainerRestartPolicyAlways = "Always"

	RestartPolicyAlways    = "Always"
	RestartPolicyOnFailure = "OnFailure"
	RestartPolicyNever     = "Never"
)

// Container is the part of core/v1 Container the simulator models.
type Container struct {
	Name           string               `json:"name"`
	Image          string               `json:"image,omitempty"`
	Resources      ResourceRequirements `json:"resources,omitempty"`
	ReadinessProbe *Probe               `json:"readinessProbe,omitempty"`
	LivenessProbe  *Probe               `json:"livenessProbe,omitempty"`
	StartupProbe   *Probe               `json:"startupProbe,omitempty"`
	// RestartPolicy is the container-level restart policy: only "Always", and only on an init
	// container, which makes it a sidecar (a restartable init container, KEP-753): it starts
	// before the regular containers, keeps running beside them and stops after them.
	RestartPolicy *string `json:"restartPolicy,omitempty"`
	// Env holds literal environment variables (no valueFrom); the Job controller adds
	// JOB_COMPLETION_INDEX to an Indexed Job's containers.
	Env []EnvVar `json:"env,omitempty"`
}

// EnvVar is core/v1 EnvVar with a literal value only.
type EnvVar struct {
	Name  string `json:"name"`
	Value string `json:"value,omitempty"`
}

// ResourceRequirements is core/v1 ResourceRequirements.
type ResourceRequirements struct {
	Requests ResourceList `json:"requests,omitempty"`
	Limits   ResourceList `json:"limits,omitempty"`
}

// Probe is core/v1 Probe without the handler (the simulator decides outcomes from the scenario).
type Probe struct {
	InitialDelaySeconds int32 `json:"initialDelaySeconds,omitempty"`
	TimeoutSeconds      int32 `json:"timeoutSeconds,omitempty"`
	PeriodSeconds       int32 `json:"periodSeconds,omitempty"`
	SuccessThreshold    int32 `json:"successThreshold,omitempty"`
	FailureThreshold    int32 `json:"failureThreshold,omitempty"`
}

// Affinity is core/v1 Affinity.
type Affinity struct {
	NodeAffinity    *NodeAffinity    `json:"nodeAffinity,omitempty"`
	PodAffinity     *PodAffinity     `json:"podAffinity,omitempty"`
	PodAntiAffinity *PodAntiAffinity `json:"podAntiAffinity,omitempty"`
}

// PodAffinity is core/v1 PodAffinity: the pod wants to share a topology domain with the pods
// its terms select.
type PodAffinity struct {
	RequiredDuringSchedulingIgnoredDuringExecution  []PodAffinityTerm         `json:"requiredDuringSchedulingIgnoredDuringExecution,omitempty"`
	PreferredDuringSchedulingIgnoredDuringExecution []WeightedPodAffinityTerm `json:"preferredDuringSchedulingIgnoredDuringExecution,omitempty"`
}

// PodAntiAffinity is core/v1 PodAntiAffinity: the pod wants to stay out of the topology
// domains of the pods its terms select.
type PodAntiAffinity struct {
	RequiredDuringSchedulingIgnoredDuringExecution  []PodAffinityTerm         `json:"requiredDuringSchedulingIgnoredDuringExecution,omitempty"`
	PreferredDuringSchedulingIgnoredDuringExecution []WeightedPodAffinityTerm `json:"preferredDuringSchedulingIgnoredDuringExecution,omitempty"`
}

// PodAffinityTerm is core/v1 PodAffinityTerm. Empty namespaces and a nil namespaceSelector
// mean the pod's own namespace; an empty namespaceSelector ({}) means every namespace.
type PodAffinityTerm struct {
	LabelSelector     *metav1.LabelSelector `json:"labelSelector,omitempty"`
	Namespaces        []string              `json:"namespaces,omitempty"`
	TopologyKey       string                `json:"topologyKey"`
	NamespaceSelector *metav1.LabelSelector `json:"namespaceSelector,omitempty"`
	// MatchLabelKeys and MismatchLabelKeys add "key in (pod's value)" and "key notin (pod's
	// value)" to the label selector (KEP-3633, on by default since v1.33).
	MatchLabelKeys    []string `json:"matchLabelKeys,omitempty"`
	MismatchLabelKeys []string `json:"mismatchLabelKeys,omitempty"`
}

// WeightedPodAffinityTerm is core/v1 WeightedPodAffinityTerm (weight 1-100).
type WeightedPodAffinityTerm struct {
	Weight          int32           `json:"weight"`
	PodAffinityTerm PodAffinityTerm `json:"podAffinityTerm"`
}

// TopologySpreadConstraint is core/v1 TopologySpreadConstraint.
type TopologySpreadConstraint struct {
	MaxSkew           int32                 `json:"maxSkew"`
	TopologyKey       string                `json:"topologyKey"`
	WhenUnsatisfiable string                `json:"whenUnsatisfiable"`
	LabelSelector     *metav1.LabelSelector `json:"labelSelector,omitempty"`
	MinDomains        *int32                `json:"minDomains,omitempty"`
	// NodeAffinityPolicy and NodeTaintsPolicy are Honor or Ignore; unset they mean Honor and
	// Ignore.
	NodeAffinityPolicy *string  `json:"nodeAffinityPolicy,omitempty"`
	NodeTaintsPolicy   *string  `json:"nodeTaintsPolicy,omitempty"`
	MatchLabelKeys     []string `json:"matchLabelKeys,omitempty"`
}

// Topology spread constraint values (core/v1 UnsatisfiableConstraintAction and
// NodeInclusionPolicy).
const (
	DoNotSchedule             = "DoNotSchedule"
	ScheduleAnyway            = "ScheduleAnyway"
	NodeInclusionPolicyHonor  = "Honor"
	NodeInclusionPolicyIgnore = "Ignore"
)

// NodeAffinity is core/v1 NodeAffinity.
type NodeAffinity struct {
	RequiredDuringSchedulingIgnoredDuringExecution  *NodeSelector             `json:"requiredDuringSchedulingIgnoredDuringExecution,omitempty"`
	PreferredDuringSchedulingIgnoredDuringExecution []PreferredSchedulingTerm `json:"preferredDuringSchedulingIgnoredDuringExecution,omitempty"`
}

// NodeSelector is core/v1 NodeSelector: the terms are ORed.
type NodeSelector struct {
	NodeSelectorTerms []NodeSelectorTerm `json:"nodeSelectorTerms"`
}

// NodeSelectorTerm is core/v1 NodeSelectorTerm: the requirements are ANDed.
type NodeSelectorTerm struct {
	MatchExpressions []NodeSelectorRequirement `json:"matchExpressions,omitempty"`
	MatchFields      []NodeSelectorRequirement `json:"matchFields,omitempty"`
}

// NodeSelectorRequirement is core/v1 NodeSelectorRequirement (operators In, NotIn, Exists,
// DoesNotExist, Gt, Lt).
type NodeSelectorRequirement struct {
	Key      string   `json:"key"`
	Operator string   `json:"operator"`
	Values   []string `json:"values,omitempty"`
}

// Node selector operators (core/v1 NodeSelectorOperator, k8s.io/api core/v1/types.go).
const (
	NodeSelectorOpIn           = "In"
	NodeSelectorOpNotIn        = "NotIn"
	NodeSelectorOpExists       = "Exists"
	NodeSelectorOpDoesNotExist = "DoesNotExist"
	NodeSelectorOpGt           = "Gt"
	NodeSelectorOpLt           = "Lt"
)

// ObjectNameField is the one field a node selector's matchFields may name
// (metav1.ObjectNameField).
const ObjectNameField = "metadata.name"

// PreferredSchedulingTerm is core/v1 PreferredSchedulingTerm.
type PreferredSchedulingTerm struct {
	Weight     int32            `json:"weight"`
	Preference NodeSelectorTerm `json:"preference"`
}

// Toleration is core/v1 Toleration.
type Toleration struct {
	Key               string      `json:"key,omitempty"`
	Operator          string      `json:"operator,omitempty"`
	Value             string      `json:"value,omitempty"`
	Effect            TaintEffect `json:"effect,omitempty"`
	TolerationSeconds *int64      `json:"tolerationSeconds,omitempty"`
}

// Pod phases.
const (
	PodPending   = "Pending"
	PodRunning   = "Running"
	PodSucceeded = "Succeeded"
	PodFailed    = "Failed"
	PodUnknown   = "Unknown"
)

// Pod condition types.
const (
	PodScheduled                  = "PodScheduled"
	PodReadyToStartContainers     = "PodReadyToStartContainers"
	PodInitialized                = "Initialized"
	PodContainersReady            = "ContainersReady"
	PodReady                      = "Ready"
	PodDisruptionTarget           = "DisruptionTarget"
	PodReasonUnschedulable        = "Unschedulable"
	PodReasonTerminationByKubelet = "TerminationByKubelet"
	// PodReasonPreemptionByScheduler is the DisruptionTarget reason kube-scheduler gives the
	// victims of a preemption (core/v1 types.go).
	PodReasonPreemptionByScheduler = "PreemptionByScheduler"
)

// PodStatus is the part of core/v1 PodStatus the simulator models.
type PodStatus struct {
	Phase             string            `json:"phase,omitempty"`
	Conditions        []PodCondition    `json:"conditions,omitempty"`
	Message           string            `json:"message,omitempty"`
	Reason            string            `json:"reason,omitempty"`
	HostIP            string            `json:"hostIP,omitempty"`
	PodIP             string            `json:"podIP,omitempty"`
	StartTime         *vtime.Time       `json:"startTime,omitempty"`
	ContainerStatuses []ContainerStatus `json:"containerStatuses,omitempty"`
	// InitContainerStatuses are the init containers' statuses, in spec order (kubectl's
	// Init:N/M is read from them).
	InitContainerStatuses []ContainerStatus `json:"initContainerStatuses,omitempty"`
	// NominatedNodeName is set by kube-scheduler on a pod that preempted others: the node it
	// is expected to run on once the victims are gone.
	NominatedNodeName string `json:"nominatedNodeName,omitempty"`
}

// PodCondition is core/v1 PodCondition.
type PodCondition struct {
	Type               string          `json:"type"`
	Status             ConditionStatus `json:"status"`
	LastProbeTime      vtime.Time      `json:"lastProbeTime,omitempty"`
	LastTransitionTime vtime.Time      `json:"lastTransitionTime,omitempty"`
	Reason             string          `json:"reason,omitempty"`
	Message            string          `json:"message,omitempty"`
}

// ContainerStatus is core/v1 ContainerStatus.
type ContainerStatus struct {
	Name         string         `json:"name"`
	State        ContainerState `json:"state,omitempty"`
	LastState    ContainerState `json:"lastState,omitempty"` // upstream LastTerminationState, JSON "lastState"
	Ready        bool           `json:"ready"`
	Started      *bool          `json:"started,omitempty"`
	RestartCount int32          `json:"restartCount"`
	Image        string         `json:"image,omitempty"`
}

// ContainerState is core/v1 ContainerState: at most one member is set.
type ContainerState struct {
	Waiting    *ContainerStateWaiting    `json:"waiting,omitempty"`
	Running    *ContainerStateRunning    `json:"running,omitempty"`
	Terminated *ContainerStateTerminated `json:"terminated,omitempty"`
}

// ContainerStateWaiting is core/v1 ContainerStateWaiting (reason ContainerCreating,
// CrashLoopBackOff, ...).
type ContainerStateWaiting struct {
	Reason  string `json:"reason,omitempty"`
	Message string `json:"message,omitempty"`
}

// ContainerStateRunning is core/v1 ContainerStateRunning.
type ContainerStateRunning struct {
	StartedAt vtime.Time `json:"startedAt,omitempty"`
}

// ContainerStateTerminated is core/v1 ContainerStateTerminated.
type ContainerStateTerminated struct {
	ExitCode   int32      `json:"exitCode"`
	Reason     string     `json:"reason,omitempty"`
	StartedAt  vtime.Time `json:"startedAt,omitempty"`
	FinishedAt vtime.Time `json:"finishedAt,omitempty"`
}

// ---- ReplicaSet ----

// ReplicaSet is apps/v1 ReplicaSet.
type ReplicaSet struct {
	ObjectMeta `json:"metadata"`
	Spec       ReplicaSetSpec   `json:"spec,omitempty"`
	Status     ReplicaSetStatus `json:"status,omitempty"`
}

// ReplicaSetSpec is apps/v1 ReplicaSetSpec.
type ReplicaSetSpec struct {
	Replicas        *int32                `json:"replicas,omitempty"`
	MinReadySeconds int32                 `json:"minReadySeconds,omitempty"`
	Selector        *metav1.LabelSelector `json:"selector"`
	Template        PodTemplateSpec       `json:"template,omitempty"`
}

// ReplicaSetStatus is apps/v1 ReplicaSetStatus.
type ReplicaSetStatus struct {
	Replicas             int32                 `json:"replicas"`
	FullyLabeledReplicas int32                 `json:"fullyLabeledReplicas,omitempty"`
	ReadyReplicas        int32                 `json:"readyReplicas,omitempty"`
	AvailableReplicas    int32                 `json:"availableReplicas,omitempty"`
	TerminatingReplicas  *int32                `json:"terminatingReplicas,omitempty"`
	ObservedGeneration   int64                 `json:"observedGeneration,omitempty"`
	Conditions           []ReplicaSetCondition `json:"conditions,omitempty"`
}

// ReplicaSetCondition is apps/v1 ReplicaSetCondition (type ReplicaFailure).
type ReplicaSetCondition struct {
	Type               string          `json:"type"`
	Status             ConditionStatus `json:"status"`
	LastTransitionTime vtime.Time      `json:"lastTransitionTime,omitempty"`
	Reason             string          `json:"reason,omitempty"`
	Message            string          `json:"message,omitempty"`
}

// ---- Event ----

// Event is core/v1 Event (the object behind `kubectl get events`).
type Event struct {
	ObjectMeta     `json:"metadata"`
	InvolvedObject ObjectReference `json:"involvedObject"`
	Reason         string          `json:"reason,omitempty"`
	Message        string          `json:"message,omitempty"`
	Source         EventSource     `json:"source,omitempty"`
	FirstTimestamp vtime.Time      `json:"firstTimestamp,omitempty"`
	LastTimestamp  vtime.Time      `json:"lastTimestamp,omitempty"`
	Count          int32           `json:"count,omitempty"`
	Type           string          `json:"type,omitempty"`
	// ReportingController and ReportingInstance are core/v1 reportingComponent and
	// reportingInstance; client-go's recorder sets them to the source's component and host
	// (tools/record/event.go generateEvent).
	ReportingController string `json:"reportingComponent,omitempty"`
	ReportingInstance   string `json:"reportingInstance,omitempty"`
}

// Event types.
const (
	EventTypeNormal  = "Normal"
	EventTypeWarning = "Warning"
)

// ObjectReference is core/v1 ObjectReference.
type ObjectReference struct {
	Kind            Kind   `json:"kind,omitempty"`
	Namespace       string `json:"namespace,omitempty"`
	Name            string `json:"name,omitempty"`
	UID             string `json:"uid,omitempty"`
	APIVersion      string `json:"apiVersion,omitempty"`
	ResourceVersion uint64 `json:"resourceVersion,omitempty"`
}

// EventSource is core/v1 EventSource.
type EventSource struct {
	Component string `json:"component,omitempty"`
	Host      string `json:"host,omitempty"`
}

// EqualTaint reports whether a and b have the same content: key, value, effect, and timeAdded
// both unset or both set to the same time.
func EqualTaint(a, b *Taint) bool {
	return a.Key == b.Key && a.Value == b.Value && a.Effect == b.Effect && ptr.Equal(a.TimeAdded, b.TimeAdded)
}

// IsRestartableInitContainer reports whether an init container is a sidecar: its
// restartPolicy is Always (k8s.io/kubernetes pkg/api/v1/pod/util.go IsRestartableInitContainer).
func IsRestartableInitContainer(c *Container) bool {
	return c.RestartPolicy != nil && *c.RestartPolicy == ContainerRestartPolicyAlways
}
