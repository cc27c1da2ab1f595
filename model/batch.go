package model

import (
	"github.com/reconsim/reconsim/vtime"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// batch/v1 kinds: field names and JSON names as in k8s.io/api batch/v1/types.go, reduced to
// what the simulator models.

// ---- Job ----

// Job is batch/v1 Job.
type Job struct {
	ObjectMeta `json:"metadata"`
	Spec       JobSpec   `json:"spec,omitempty"`
	Status     JobStatus `json:"status,omitempty"`
}

// Completion modes ([api] batch/v1/types.go CompletionMode).
const (
	NonIndexedCompletion = "NonIndexed"
	IndexedCompletion    = "Indexed"
)

// Pod replacement policies ([api] batch/v1/types.go PodReplacementPolicy).
const (
	TerminatingOrFailed = "TerminatingOrFailed"
	Failed              = "Failed"
)

// JobSpec is batch/v1 JobSpec.
type JobSpec struct {
	Parallelism             *int32                `json:"parallelism,omitempty"`
	Completions             *int32                `json:"completions,omitempty"`
	ActiveDeadlineSeconds   *int64                `json:"activeDeadlineSeconds,omitempty"`
	PodFailurePolicy        *PodFailurePolicy     `json:"podFailurePolicy,omitempty"`
	SuccessPolicy           *SuccessPolicy        `json:"successPolicy,omitempty"`
	BackoffLimit            *int32                `json:"backoffLimit,omitempty"`
	BackoffLimitPerIndex    *int32                `json:"backoffLimitPerIndex,omitempty"`
	MaxFailedIndexes        *int32                `json:"maxFailedIndexes,omitempty"`
	Selector                *metav1.LabelSelector `json:"selector,omitempty"`
	ManualSelector          *bool                 `json:"manualSelector,omitempty"`
	Template                PodTemplateSpec       `json:"template"`
	TTLSecondsAfterFinished *int32                `json:"ttlSecondsAfterFinished,omitempty"`
	CompletionMode          *string               `json:"completionMode,omitempty"`
	Suspend                 *bool                 `json:"suspend,omitempty"`
	PodReplacementPolicy    *string               `json:"podReplacementPolicy,omitempty"`
	ManagedBy               *string               `json:"managedBy,omitempty"`
}

// Pod failure policy actions ([api] batch/v1/types.go PodFailurePolicyAction).
const (
	PodFailurePolicyActionFailJob   = "FailJob"
	PodFailurePolicyActionFailIndex = "FailIndex"
	PodFailurePolicyActionIgnore    = "Ignore"
	PodFailurePolicyActionCount     = "Count"
)

// Exit-code operators ([api] batch/v1/types.go PodFailurePolicyOnExitCodesOperator).
const (
	PodFailurePolicyOnExitCodesOpIn    = "In"
	PodFailurePolicyOnExitCodesOpNotIn = "NotIn"
)

// PodFailurePolicy is batch/v1 PodFailurePolicy: rules evaluated in order, first match wins.
type PodFailurePolicy struct {
	Rules []PodFailurePolicyRule `json:"rules"`
}

// PodFailurePolicyRule is batch/v1 PodFailurePolicyRule: exactly one of OnExitCodes and
// OnPodConditions is set.
type PodFailurePolicyRule struct {
	Action          string                                   `json:"action"`
	OnExitCodes     *PodFailurePolicyOnExitCodesRequirement  `json:"onExitCodes,omitempty"`
	OnPodConditions []PodFailurePolicyOnPodConditionsPattern `json:"onPodConditions,omitempty"`
}

// PodFailurePolicyOnExitCodesRequirement is batch/v1 PodFailurePolicyOnExitCodesRequirement.
type PodFailurePolicyOnExitCodesRequirement struct {
	ContainerName *string `json:"containerName,omitempty"`
	Operator      string  `json:"operator"`
	Values        []int32 `json:"values"`
}

// PodFailurePolicyOnPodConditionsPattern is batch/v1 PodFailurePolicyOnPodConditionsPattern
// (status defaults to True).
type PodFailurePolicyOnPodConditionsPattern struct {
	Type   string          `json:"type"`
	Status ConditionStatus `json:"status,omitempty"`
}

// SuccessPolicy is batch/v1 SuccessPolicy (Indexed Jobs only).
type SuccessPolicy struct {
	Rules []SuccessPolicyRule `json:"rules"`
}

// SuccessPolicyRule is batch/v1 SuccessPolicyRule: at least one field is set.
type SuccessPolicyRule struct {
	SucceededIndexes *string `json:"succeededIndexes,omitempty"`
	SucceededCount   *int32  `json:"succeededCount,omitempty"`
}

// JobStatus is batch/v1 JobStatus.
type JobStatus struct {
	Conditions              []JobCondition           `json:"conditions,omitempty"`
	StartTime               *vtime.Time              `json:"startTime,omitempty"`
	CompletionTime          *vtime.Time              `json:"completionTime,omitempty"`
	Active                  int32                    `json:"active,omitempty"`
	Succeeded               int32                    `json:"succeeded,omitempty"`
	Failed                  int32                    `json:"failed,omitempty"`
	Terminating             *int32                   `json:"terminating,omitempty"`
	CompletedIndexes        string                   `json:"completedIndexes,omitempty"`
	FailedIndexes           *string                  `json:"failedIndexes,omitempty"`
	UncountedTerminatedPods *UncountedTerminatedPods `json:"uncountedTerminatedPods,omitempty"`
	Ready                   *int32                   `json:"ready,omitempty"`
}

// UncountedTerminatedPods is batch/v1 UncountedTerminatedPods: UIDs of finished pods whose
// tracking finalizer the controller removed (or is removing) but has not counted yet.
type UncountedTerminatedPods struct {
	Succeeded []string `json:"succeeded,omitempty"`
	Failed    []string `json:"failed,omitempty"`
}

// Job condition types ([api] batch/v1/types.go JobConditionType).
const (
	JobSuspended          = "Suspended"
	JobComplete           = "Complete"
	JobFailed             = "Failed"
	JobFailureTarget      = "FailureTarget"
	JobSuccessCriteriaMet = "SuccessCriteriaMet"
)

// Job condition reasons ([api] batch/v1/types.go JobReason*).
const (
	JobReasonPodFailurePolicy         = "PodFailurePolicy"
	JobReasonBackoffLimitExceeded     = "BackoffLimitExceeded"
	JobReasonDeadlineExceeded         = "DeadlineExceeded"
	JobReasonMaxFailedIndexesExceeded = "MaxFailedIndexesExceeded"
	JobReasonFailedIndexes            = "FailedIndexes"
	JobReasonSuccessPolicy            = "SuccessPolicy"
	JobReasonCompletionsReached       = "CompletionsReached"
)

// JobCondition is batch/v1 JobCondition.
type JobCondition struct {
	Type               string          `json:"type"`
	Status             ConditionStatus `json:"status"`
	LastProbeTime      vtime.Time      `json:"lastProbeTime,omitempty"`
	LastTransitionTime vtime.Time      `json:"lastTransitionTime,omitempty"`
	Reason             string          `json:"reason,omitempty"`
	Message            string          `json:"message,omitempty"`
}

// Job labels and annotations ([api] batch/v1/types.go).
const (
	JobNameLabel              = "batch.kubernetes.io/job-name"
	ControllerUIDLabel        = "batch.kubernetes.io/controller-uid"
	LegacyJobNameLabel        = "job-name"
	LegacyControllerUIDLabel  = "controller-uid"
	JobCompletionIndexAnnot   = "batch.kubernetes.io/job-completion-index"
	JobIndexFailureCountAnnot = "batch.kubernetes.io/job-index-failure-count"
	JobTrackingFinalizer      = "batch.kubernetes.io/job-tracking"
	CronJobScheduledTimestamp = "batch.kubernetes.io/cronjob-scheduled-timestamp"
	// JobCompletionIndexEnv is the environment variable of an Indexed Job's containers.
	JobCompletionIndexEnv = "JOB_COMPLETION_INDEX"
)

// IsJobFinished reports whether the Job has a Complete or Failed condition that is True
// (pkg/controller/job/util IsJobFinished).
func IsJobFinished(j *Job) bool {
	_, ok := JobFinishedCondition(j)
	return ok
}

// JobFinishedCondition returns the True Complete or Failed condition of j, if any.
func JobFinishedCondition(j *Job) (*JobCondition, bool) {
	for i := range j.Status.Conditions {
		c := &j.Status.Conditions[i]
		if (c.Type == JobComplete || c.Type == JobFailed) && c.Status == ConditionTrue {
			return c, true
		}
	}
	return nil, false
}

// ---- CronJob ----

// CronJob is batch/v1 CronJob.
type CronJob struct {
	ObjectMeta `json:"metadata"`
	Spec       CronJobSpec   `json:"spec,omitempty"`
	Status     CronJobStatus `json:"status,omitempty"`
}

// Concurrency policies ([api] batch/v1/types.go ConcurrencyPolicy).
const (
	AllowConcurrent   = "Allow"
	ForbidConcurrent  = "Forbid"
	ReplaceConcurrent = "Replace"
)

// CronJobSpec is batch/v1 CronJobSpec.
type CronJobSpec struct {
	Schedule                   string          `json:"schedule"`
	TimeZone                   *string         `json:"timeZone,omitempty"`
	StartingDeadlineSeconds    *int64          `json:"startingDeadlineSeconds,omitempty"`
	ConcurrencyPolicy          string          `json:"concurrencyPolicy,omitempty"`
	Suspend                    *bool           `json:"suspend,omitempty"`
	JobTemplate                JobTemplateSpec `json:"jobTemplate"`
	SuccessfulJobsHistoryLimit *int32          `json:"successfulJobsHistoryLimit,omitempty"`
	FailedJobsHistoryLimit     *int32          `json:"failedJobsHistoryLimit,omitempty"`
}

// JobTemplateSpec is batch/v1 JobTemplateSpec.
type JobTemplateSpec struct {
	ObjectMeta `json:"metadata,omitempty"`
	Spec       JobSpec `json:"spec,omitempty"`
}

// CronJobStatus is batch/v1 CronJobStatus.
type CronJobStatus struct {
	Active             []ObjectReference `json:"active,omitempty"`
	LastScheduleTime   *vtime.Time       `json:"lastScheduleTime,omitempty"`
	LastSuccessfulTime *vtime.Time       `json:"lastSuccessfulTime,omitempty"`
}

// ---- Object methods and deep copies ----

func (o *Job) GetKind() Kind     { return KindJob }
func (o *CronJob) GetKind() Kind { return KindCronJob }

func (o *Job) DeepCopyObject() Object     { return o.DeepCopy() }
func (o *CronJob) DeepCopyObject() Object { return o.DeepCopy() }

// DeepCopy returns a deep copy.
func (o *Job) DeepCopy() *Job {
	out := copyWithMeta(o)
	o.Spec.DeepCopyInto(&out.Spec)
	s := &o.Status
	out.Status.Conditions = copySlice(s.Conditions)
	out.Status.StartTime = CopyPtr(s.StartTime)
	out.Status.CompletionTime = CopyPtr(s.CompletionTime)
	out.Status.Terminating = CopyPtr(s.Terminating)
	out.Status.FailedIndexes = CopyPtr(s.FailedIndexes)
	out.Status.Ready = CopyPtr(s.Ready)
	if u := s.UncountedTerminatedPods; u != nil {
		out.Status.UncountedTerminatedPods = &UncountedTerminatedPods{Succeeded: copySlice(u.Succeeded), Failed: copySlice(u.Failed)}
	}
	return out
}

// DeepCopyInto copies s into out.
func (s *JobSpec) DeepCopyInto(out *JobSpec) {
	*out = *s
	out.Parallelism = CopyPtr(s.Parallelism)
	out.Completions = CopyPtr(s.Completions)
	out.ActiveDeadlineSeconds = CopyPtr(s.ActiveDeadlineSeconds)
	if p := s.PodFailurePolicy; p != nil {
		out.PodFailurePolicy = &PodFailurePolicy{Rules: copyEach(p.Rules, func(r PodFailurePolicyRule) PodFailurePolicyRule {
			nr := PodFailurePolicyRule{Action: r.Action, OnPodConditions: copySlice(r.OnPodConditions)}
			if e := r.OnExitCodes; e != nil {
				nr.OnExitCodes = &PodFailurePolicyOnExitCodesRequirement{ContainerName: CopyPtr(e.ContainerName), Operator: e.Operator, Values: copySlice(e.Values)}
			}
			return nr
		})}
	}
	if p := s.SuccessPolicy; p != nil {
		out.SuccessPolicy = &SuccessPolicy{Rules: copyEach(p.Rules, func(r SuccessPolicyRule) SuccessPolicyRule {
			return SuccessPolicyRule{SucceededIndexes: CopyPtr(r.SucceededIndexes), SucceededCount: CopyPtr(r.SucceededCount)}
		})}
	}
	out.BackoffLimit = CopyPtr(s.BackoffLimit)
	out.BackoffLimitPerIndex = CopyPtr(s.BackoffLimitPerIndex)
	out.MaxFailedIndexes = CopyPtr(s.MaxFailedIndexes)
	out.Selector = copyLabelSelector(s.Selector)
	out.ManualSelector = CopyPtr(s.ManualSelector)
	s.Template.DeepCopyInto(&out.Template)
	out.TTLSecondsAfterFinished = CopyPtr(s.TTLSecondsAfterFinished)
	out.CompletionMode = CopyPtr(s.CompletionMode)
	out.Suspend = CopyPtr(s.Suspend)
	out.PodReplacementPolicy = CopyPtr(s.PodReplacementPolicy)
	out.ManagedBy = CopyPtr(s.ManagedBy)
}

// DeepCopy returns a deep copy.
func (o *CronJob) DeepCopy() *CronJob {
	out := copyWithMeta(o)
	out.Spec.TimeZone = CopyPtr(o.Spec.TimeZone)
	out.Spec.StartingDeadlineSeconds = CopyPtr(o.Spec.StartingDeadlineSeconds)
	out.Spec.Suspend = CopyPtr(o.Spec.Suspend)
	o.Spec.JobTemplate.ObjectMeta.DeepCopyInto(&out.Spec.JobTemplate.ObjectMeta)
	o.Spec.JobTemplate.Spec.DeepCopyInto(&out.Spec.JobTemplate.Spec)
	out.Spec.SuccessfulJobsHistoryLimit = CopyPtr(o.Spec.SuccessfulJobsHistoryLimit)
	out.Spec.FailedJobsHistoryLimit = CopyPtr(o.Spec.FailedJobsHistoryLimit)
	out.Status.Active = copySlice(o.Status.Active)
	out.Status.LastScheduleTime = CopyPtr(o.Status.LastScheduleTime)
	out.Status.LastSuccessfulTime = CopyPtr(o.Status.LastSuccessfulTime)
	return out
}

// DeepCopyForJob returns a deep copy of the template, for building a Job from it.
func (t *JobTemplateSpec) DeepCopyForJob() *JobTemplateSpec {
	out := &JobTemplateSpec{}
	t.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	t.Spec.DeepCopyInto(&out.Spec)
	return out
}
