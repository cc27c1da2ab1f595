package model

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	_ "time/tzdata" // timeZone validation must not depend on the host's zoneinfo

	"github.com/robfig/cron/v3"
	"k8s.io/apimachinery/pkg/api/equality"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Defaults of batch/v1 ([k8s] pkg/apis/batch/v1/defaults.go SetDefaults_Job, SetDefaults_CronJob).
const (
	DefaultJobBackoffLimit             int32 = 6
	DefaultSuccessfulJobsHistoryLimit  int32 = 3
	DefaultFailedJobsHistoryLimit      int32 = 1
	DefaultJobParallelismAndCompletion int32 = 1
)

// Limits of batch/v1 validation ([k8s] pkg/apis/batch/validation/validation.go).
const (
	maxPodFailurePolicyRules                    = 20
	maxPodFailurePolicyOnExitCodesValues        = 255
	maxPodFailurePolicyOnPodConditionsPatterns  = 20
	maxSuccessPolicyRules                       = 20
	completionsSoftLimit                        = 100_000
	parallelismLimitForHighCompletions          = 10_000
	maxFailedIndexesLimitForHighCompletions     = 10_000
	cronJobNameMaxLength                        = 63 - 11 // DNS1035LabelMaxLength - len("-<minutes>")
	maxJobCompletionsOrParallelismForSimulation = 1_000_000
)

// SetDefaults is SetDefaults_Job plus the nested defaults of the pod template and of the
// podFailurePolicy's pod condition patterns (SetDefaults_PodFailurePolicyOnPodConditionsPattern).
// podReplacementPolicy is defaulted as with JobPodReplacementPolicy on (beta since 1.29).
func (o *Job) SetDefaults() {
	s := &o.Spec
	if s.Completions == nil && s.Parallelism == nil {
		s.Completions = Ptr(DefaultJobParallelismAndCompletion)
		s.Parallelism = Ptr(DefaultJobParallelismAndCompletion)
	}
	if s.Parallelism == nil {
		s.Parallelism = Ptr(DefaultJobParallelismAndCompletion)
	}
	if s.BackoffLimit == nil {
		if s.BackoffLimitPerIndex != nil {
			s.BackoffLimit = Ptr(int32(math.MaxInt32))
		} else {
			s.BackoffLimit = Ptr(DefaultJobBackoffLimit)
		}
	}
	if s.CompletionMode == nil {
		s.CompletionMode = Ptr(NonIndexedCompletion)
	}
	if s.Suspend == nil {
		s.Suspend = Ptr(false)
	}
	if s.PodReplacementPolicy == nil {
		if s.PodFailurePolicy != nil {
			s.PodReplacementPolicy = Ptr(Failed)
		} else {
			s.PodReplacementPolicy = Ptr(TerminatingOrFailed)
		}
	}
	if s.ManualSelector == nil {
		s.ManualSelector = Ptr(false)
	}
	setDefaultsJobTemplateParts(s)
}

func setDefaultsJobTemplateParts(s *JobSpec) {
	if p := s.PodFailurePolicy; p != nil {
		for i := range p.Rules {
			for j := range p.Rules[i].OnPodConditions {
				if p.Rules[i].OnPodConditions[j].Status == "" {
					p.Rules[i].OnPodConditions[j].Status = ConditionTrue
				}
			}
		}
	}
	setDefaultsPodSpec(&s.Template.Spec)
}

// SetDefaults is SetDefaults_CronJob: concurrencyPolicy Allow, suspend false, history limits
// 3 and 1; the job template gets only the nested defaults (its Job defaults apply when the Job
// is created).
func (o *CronJob) SetDefaults() {
	s := &o.Spec
	if s.ConcurrencyPolicy == "" {
		s.ConcurrencyPolicy = AllowConcurrent
	}
	if s.Suspend == nil {
		s.Suspend = Ptr(false)
	}
	if s.SuccessfulJobsHistoryLimit == nil {
		s.SuccessfulJobsHistoryLimit = Ptr(DefaultSuccessfulJobsHistoryLimit)
	}
	if s.FailedJobsHistoryLimit == nil {
		s.FailedJobsHistoryLimit = Ptr(DefaultFailedJobsHistoryLimit)
	}
	setDefaultsJobTemplateParts(&s.JobTemplate.Spec)
}

// GenerateJobSelector is the Job strategy's generateSelector ([k8s]
// pkg/registry/batch/job/strategy.go): unless spec.manualSelector is true, the pod template
// gets the labels batch.kubernetes.io/controller-uid, batch.kubernetes.io/job-name and their
// legacy forms, and a missing selector becomes controller-uid=<uid>. The API server calls it
// with the UID the Job is about to get, before validation.
func GenerateJobSelector(j *Job, uid string) {
	if j.Spec.ManualSelector != nil && *j.Spec.ManualSelector {
		return
	}
	if j.Spec.Template.Labels == nil {
		j.Spec.Template.Labels = map[string]string{}
	}
	l := j.Spec.Template.Labels
	l[LegacyControllerUIDLabel] = uid
	l[LegacyJobNameLabel] = j.Name
	l[ControllerUIDLabel] = uid
	l[JobNameLabel] = j.Name
	if j.Spec.Selector == nil {
		j.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{ControllerUIDLabel: uid}}
	}
}

// Validate follows upstream ValidateJob for the modelled fields. A Job whose selector the API
// server will generate (no selector, manualSelector not true) is not asked for one.
func (o *Job) Validate() field.ErrorList {
	s := &o.Spec
	var errs field.ErrorList
	generated := s.Selector == nil && (s.ManualSelector == nil || !*s.ManualSelector)
	if !generated {
		errs = append(errs, validateJobSelector(s, specPath)...)
	}
	errs = append(errs, validateJobSpec(s, specPath)...)
	return errs
}

func validateJobSelector(s *JobSpec, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	selPath := path.Child("selector")
	if s.Selector == nil {
		return append(errs, field.Required(selPath, ""))
	}
	errs = append(errs, sortedErrs(metav1validation.ValidateLabelSelector(s.Selector, metav1validation.LabelSelectorValidationOptions{}, selPath))...)
	if sel, err := metav1.LabelSelectorAsSelector(s.Selector); err == nil && !sel.Matches(labels.Set(s.Template.Labels)) {
		errs = append(errs, field.Invalid(path.Child("template", "metadata", "labels"), s.Template.Labels, "`selector` does not match template `labels`"))
	}
	return errs
}

// validateJobSpec is upstream validateJobSpec (the parts shared by Jobs and job templates).
func validateJobSpec(s *JobSpec, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	nonNeg32 := func(p *int32, name string) {
		if p != nil {
			errs = append(errs, apivalidation.ValidateNonnegativeField(int64(*p), path.Child(name))...)
		}
	}
	nonNeg32(s.Parallelism, "parallelism")
	nonNeg32(s.Completions, "completions")
	nonNeg32(s.BackoffLimit, "backoffLimit")
	nonNeg32(s.BackoffLimitPerIndex, "backoffLimitPerIndex")
	nonNeg32(s.MaxFailedIndexes, "maxFailedIndexes")
	nonNeg32(s.TTLSecondsAfterFinished, "ttlSecondsAfterFinished")
	if s.ActiveDeadlineSeconds != nil {
		errs = append(errs, apivalidation.ValidateNonnegativeField(*s.ActiveDeadlineSeconds, path.Child("activeDeadlineSeconds"))...)
	}
	// The simulator's own bound: every completion is at least one simulated pod.
	for _, c := range []struct {
		p    *int32
		name string
	}{{s.Parallelism, "parallelism"}, {s.Completions, "completions"}} {
		if c.p != nil && *c.p > maxJobCompletionsOrParallelismForSimulation {
			errs = append(errs, field.Invalid(path.Child(c.name), *c.p, fmt.Sprintf("must be less than or equal to %d in the simulator", maxJobCompletionsOrParallelismForSimulation)))
		}
	}
	indexed := s.CompletionMode != nil && *s.CompletionMode == IndexedCompletion
	if s.CompletionMode != nil {
		switch *s.CompletionMode {
		case NonIndexedCompletion, IndexedCompletion:
		default:
			errs = append(errs, field.NotSupported(path.Child("completionMode"), *s.CompletionMode, []string{NonIndexedCompletion, IndexedCompletion}))
		}
	}
	if indexed {
		if s.Completions == nil {
			errs = append(errs, field.Required(path.Child("completions"), fmt.Sprintf("when completion mode is %s", IndexedCompletion)))
		}
		if s.Parallelism != nil && *s.Parallelism > completionsSoftLimit {
			errs = append(errs, field.Invalid(path.Child("parallelism"), *s.Parallelism, fmt.Sprintf("must be less than or equal to %d when completion mode is %s", completionsSoftLimit, IndexedCompletion)))
		}
	}
	if s.BackoffLimitPerIndex != nil {
		if !indexed {
			errs = append(errs, field.Forbidden(path.Child("backoffLimitPerIndex"), "requires indexed completion mode"))
		} else if s.Completions != nil && *s.Completions > completionsSoftLimit {
			errs = append(errs, field.Invalid(path.Child("completions"), *s.Completions, fmt.Sprintf("must be less than or equal to %d when backoffLimitPerIndex is specified", completionsSoftLimit)))
		}
		if s.MaxFailedIndexes != nil && s.Completions != nil && *s.MaxFailedIndexes > *s.Completions {
			errs = append(errs, field.Invalid(path.Child("maxFailedIndexes"), *s.MaxFailedIndexes, "must be less than or equal to completions"))
		}
		if s.MaxFailedIndexes != nil && *s.MaxFailedIndexes > completionsSoftLimit {
			errs = append(errs, field.Invalid(path.Child("maxFailedIndexes"), *s.MaxFailedIndexes, fmt.Sprintf("must be less than or equal to %d", completionsSoftLimit)))
		}
		if s.Completions != nil && *s.Completions > parallelismLimitForHighCompletions && s.MaxFailedIndexes != nil && *s.MaxFailedIndexes > maxFailedIndexesLimitForHighCompletions {
			errs = append(errs, field.Invalid(path.Child("maxFailedIndexes"), *s.MaxFailedIndexes, fmt.Sprintf("must be less than or equal to %d", maxFailedIndexesLimitForHighCompletions)))
		}
	} else if s.MaxFailedIndexes != nil {
		errs = append(errs, field.Required(path.Child("backoffLimitPerIndex"), "when maxFailedIndexes is specified"))
	}
	if s.ManagedBy != nil {
		v := *s.ManagedBy
		if len(v) > 63 {
			errs = append(errs, field.TooLongMaxLength(path.Child("managedBy"), v, 63))
		}
		errs = append(errs, validation.IsDomainPrefixedPath(path.Child("managedBy"), v)...)
	}
	if s.PodFailurePolicy != nil {
		errs = append(errs, validatePodFailurePolicy(s, path)...)
	}
	if s.SuccessPolicy != nil {
		errs = append(errs, validateSuccessPolicy(s, path)...)
	}
	if s.PodReplacementPolicy != nil {
		p := path.Child("podReplacementPolicy")
		switch {
		case s.PodFailurePolicy != nil && *s.PodReplacementPolicy != Failed:
			errs = append(errs, field.NotSupported(p, *s.PodReplacementPolicy, []string{Failed}))
		case *s.PodReplacementPolicy != Failed && *s.PodReplacementPolicy != TerminatingOrFailed:
			errs = append(errs, field.NotSupported(p, *s.PodReplacementPolicy, []string{TerminatingOrFailed, Failed}))
		}
	}
	tp := path.Child("template")
	errs = append(errs, validateLabels(s.Template.Labels, tp.Child("metadata", "labels"))...)
	errs = append(errs, validateAnnotations(s.Template.Annotations, tp.Child("metadata", "annotations"))...)
	errs = append(errs, validatePodSpec(&s.Template.Spec, tp.Child("spec"))...)
	if rp := s.Template.Spec.RestartPolicy; rp != RestartPolicyOnFailure && rp != RestartPolicyNever && rp != "" {
		errs = append(errs, field.NotSupported(tp.Child("spec", "restartPolicy"), rp, []string{RestartPolicyOnFailure, RestartPolicyNever}))
	}
	return errs
}

// validatePodFailurePolicy is upstream validatePodFailurePolicy and its rule checks.
// specP is the path of the JobSpec.
func validatePodFailurePolicy(s *JobSpec, specP *field.Path) field.ErrorList {
	var errs field.ErrorList
	rulesPath := specP.Child("podFailurePolicy", "rules")
	if rp := s.Template.Spec.RestartPolicy; rp != RestartPolicyNever {
		errs = append(errs, field.Invalid(specP.Child("template", "spec", "restartPolicy"), rp, "only \"Never\" is supported when podFailurePolicy is specified"))
	}
	if n := len(s.PodFailurePolicy.Rules); n > maxPodFailurePolicyRules {
		return append(errs, field.TooMany(rulesPath, n, maxPodFailurePolicyRules))
	}
	containerNames := map[string]bool{}
	for _, c := range s.Template.Spec.Containers {
		containerNames[c.Name] = true
	}
	for _, c := range s.Template.Spec.InitContainers {
		containerNames[c.Name] = true
	}
	for i := range s.PodFailurePolicy.Rules {
		errs = append(errs, validatePodFailurePolicyRule(s, &s.PodFailurePolicy.Rules[i], rulesPath.Index(i), containerNames)...)
	}
	return errs
}

func validatePodFailurePolicyRule(s *JobSpec, r *PodFailurePolicyRule, path *field.Path, containerNames map[string]bool) field.ErrorList {
	var errs field.ErrorList
	actionPath := path.Child("action")
	actions := []string{PodFailurePolicyActionCount, PodFailurePolicyActionFailIndex, PodFailurePolicyActionFailJob, PodFailurePolicyActionIgnore}
	switch r.Action {
	case "":
		errs = append(errs, field.Required(actionPath, ""))
	case PodFailurePolicyActionFailIndex:
		if s.BackoffLimitPerIndex == nil {
			errs = append(errs, field.Invalid(actionPath, r.Action, "requires the backoffLimitPerIndex to be set"))
		}
	case PodFailurePolicyActionCount, PodFailurePolicyActionFailJob, PodFailurePolicyActionIgnore:
	default:
		errs = append(errs, field.NotSupported(actionPath, r.Action, actions))
	}
	switch {
	case r.OnExitCodes != nil && len(r.OnPodConditions) > 0:
		errs = append(errs, field.Invalid(path, field.OmitValueType{}, "specifying both OnExitCodes and OnPodConditions is not supported"))
	case r.OnExitCodes == nil && len(r.OnPodConditions) == 0:
		errs = append(errs, field.Invalid(path, field.OmitValueType{}, "specifying one of OnExitCodes and OnPodConditions is required"))
	}
	if e := r.OnExitCodes; e != nil {
		ep := path.Child("onExitCodes")
		if e.ContainerName != nil && !containerNames[*e.ContainerName] {
			errs = append(errs, field.Invalid(ep.Child("containerName"), *e.ContainerName, "must be one of the container or initContainer names in the pod template"))
		}
		switch e.Operator {
		case PodFailurePolicyOnExitCodesOpIn, PodFailurePolicyOnExitCodesOpNotIn:
		case "":
			errs = append(errs, field.Required(ep.Child("operator"), ""))
		default:
			errs = append(errs, field.NotSupported(ep.Child("operator"), e.Operator, []string{PodFailurePolicyOnExitCodesOpIn, PodFailurePolicyOnExitCodesOpNotIn}))
		}
		vp := ep.Child("values")
		switch n := len(e.Values); {
		case n == 0:
			errs = append(errs, field.Invalid(vp, e.Values, "at least one value is required"))
		case n > maxPodFailurePolicyOnExitCodesValues:
			errs = append(errs, field.TooMany(vp, n, maxPodFailurePolicyOnExitCodesValues))
		default:
			for j, v := range e.Values {
				if e.Operator == PodFailurePolicyOnExitCodesOpIn && v == 0 {
					errs = append(errs, field.Invalid(vp.Index(j), v, "must not be 0 for the In operator"))
				}
				if j > 0 && e.Values[j-1] == v {
					errs = append(errs, field.Duplicate(vp.Index(j), v))
				} else if j > 0 && e.Values[j-1] > v {
					errs = append(errs, field.Invalid(vp, e.Values, "must be ordered"))
				}
			}
		}
	}
	cp := path.Child("onPodConditions")
	if n := len(r.OnPodConditions); n > maxPodFailurePolicyOnPodConditionsPatterns {
		return append(errs, field.TooMany(cp, n, maxPodFailurePolicyOnPodConditionsPatterns))
	}
	for j, pat := range r.OnPodConditions {
		pp := cp.Index(j)
		if pat.Type == "" {
			errs = append(errs, field.Required(pp.Child("type"), ""))
		} else {
			for _, msg := range labelKey(pat.Type) {
				errs = append(errs, field.Invalid(pp.Child("type"), pat.Type, msg))
			}
		}
		switch pat.Status {
		case ConditionTrue, ConditionFalse, ConditionUnknown:
		default:
			errs = append(errs, field.NotSupported(pp.Child("status"), pat.Status, []string{string(ConditionTrue), string(ConditionFalse), string(ConditionUnknown)}))
		}
	}
	return errs
}

// validateSuccessPolicy is upstream validateSuccessPolicy; specP is the path of the JobSpec.
func validateSuccessPolicy(s *JobSpec, specP *field.Path) field.ErrorList {
	var errs field.ErrorList
	rulesPath := specP.Child("successPolicy", "rules")
	if s.CompletionMode == nil || *s.CompletionMode != IndexedCompletion {
		errs = append(errs, field.Invalid(specP.Child("completionMode"), s.CompletionMode, "requires indexed completion mode"))
	}
	n := len(s.SuccessPolicy.Rules)
	switch {
	case n == 0:
		return append(errs, field.Required(rulesPath, "at least one rules must be specified when the successPolicy is specified"))
	case n > maxSuccessPolicyRules:
		return append(errs, field.TooMany(rulesPath, n, maxSuccessPolicyRules))
	}
	completions := int32(0)
	if s.Completions != nil {
		completions = *s.Completions
	}
	for i, r := range s.SuccessPolicy.Rules {
		rp := rulesPath.Index(i)
		if r.SucceededIndexes == nil && r.SucceededCount == nil {
			errs = append(errs, field.Required(rp, "at least one of succeededCount or succeededIndexes must be specified"))
			continue
		}
		var total int32 = -1
		if r.SucceededIndexes != nil {
			iv, err := ParseIndexesFromString(*r.SucceededIndexes, completions)
			if err != nil {
				errs = append(errs, field.Invalid(rp.Child("succeededIndexes"), *r.SucceededIndexes, fmt.Sprintf("error parsing indexes: %v", err)))
			} else {
				total = 0
				for _, x := range iv {
					total += x[1] - x[0] + 1
				}
			}
		}
		if r.SucceededCount != nil {
			c := *r.SucceededCount
			switch {
			case c < 0:
				errs = append(errs, field.Invalid(rp.Child("succeededCount"), c, "must be greater than or equal to 0"))
			case c > completions:
				errs = append(errs, field.Invalid(rp.Child("succeededCount"), c, fmt.Sprintf("must be less than or equal to %d (the number of specified completions)", completions)))
			case total >= 0 && c > total:
				errs = append(errs, field.Invalid(rp.Child("succeededCount"), c, fmt.Sprintf("must be less than or equal to %d (the number of indexes in the specified succeededIndexes field)", total)))
			}
		}
	}
	return errs
}

// ParseIndexesFromString parses an interval list such as "1,3-5" of indexes below
// completions, as upstream parseIndexesFromString: ordered, non-overlapping, each in
// [0, completions). It returns the intervals as [first, last] pairs. At most
// completionsSoftLimit intervals are read.
func ParseIndexesFromString(s string, completions int32) ([][2]int32, error) {
	if s == "" {
		return nil, nil
	}
	parts := strings.Split(s, ",")
	if len(parts) > completionsSoftLimit {
		return nil, fmt.Errorf("too many intervals (%d)", len(parts))
	}
	var out [][2]int32
	last := int32(-1)
	for _, p := range parts {
		lo, hi, isRange := strings.Cut(p, "-")
		a, err := strconv.ParseInt(lo, 10, 32)
		if err != nil {
			return nil, fmt.Errorf("cannot convert string to integer for index: %q", lo)
		}
		b := a
		if isRange {
			if b, err = strconv.ParseInt(hi, 10, 32); err != nil {
				return nil, fmt.Errorf("cannot convert string to integer for index: %q", hi)
			}
		}
		if b < a {
			return nil, fmt.Errorf("non-increasing order, previous: %d, current: %d", a, b)
		}
		if int32(a) <= last {
			return nil, fmt.Errorf("overlapping intervals")
		}
		if b >= int64(completions) {
			return nil, fmt.Errorf("too large index: %d", b)
		}
		out = append(out, [2]int32{int32(a), int32(b)})
		last = int32(b)
	}
	return out, nil
}

// Validate follows upstream ValidateCronJobCreate / ValidateCronJobSpec: the name leaves room
// for the 11 characters of a Job name's suffix, the schedule parses with cron.ParseStandard
// (github.com/robfig/cron/v3, as upstream) and carries no TZ/CRON_TZ, timeZone is a real
// zone, and the job template is a valid Job spec without a selector.
func (o *CronJob) Validate() field.ErrorList {
	var errs field.ErrorList
	if len(o.Name) > cronJobNameMaxLength {
		errs = append(errs, field.Invalid(metadataPath.Child("name"), o.Name, fmt.Sprintf("must be no more than %d characters", cronJobNameMaxLength)))
	}
	s := &o.Spec
	sp := specPath.Child("schedule")
	if s.Schedule == "" {
		errs = append(errs, field.Required(sp, ""))
	} else {
		errs = append(errs, ValidateCronSchedule(s.Schedule, sp)...)
	}
	if s.TimeZone != nil {
		errs = append(errs, validateTimeZone(*s.TimeZone, specPath.Child("timeZone"))...)
	}
	if s.StartingDeadlineSeconds != nil {
		errs = append(errs, apivalidation.ValidateNonnegativeField(*s.StartingDeadlineSeconds, specPath.Child("startingDeadlineSeconds"))...)
	}
	cp := specPath.Child("concurrencyPolicy")
	switch s.ConcurrencyPolicy {
	case AllowConcurrent, ForbidConcurrent, ReplaceConcurrent:
	case "":
		errs = append(errs, field.Required(cp, ""))
	default:
		errs = append(errs, field.NotSupported(cp, s.ConcurrencyPolicy, []string{AllowConcurrent, ForbidConcurrent, ReplaceConcurrent}))
	}
	for _, h := range []struct {
		p    *int32
		name string
	}{{s.SuccessfulJobsHistoryLimit, "successfulJobsHistoryLimit"}, {s.FailedJobsHistoryLimit, "failedJobsHistoryLimit"}} {
		if h.p != nil {
			errs = append(errs, apivalidation.ValidateNonnegativeField(int64(*h.p), specPath.Child(h.name))...)
		}
	}
	jt := specPath.Child("jobTemplate", "spec")
	errs = append(errs, validateJobSpec(&s.JobTemplate.Spec, jt)...)
	if s.JobTemplate.Spec.Selector != nil {
		errs = append(errs, field.Invalid(jt.Child("selector"), s.JobTemplate.Spec.Selector, "`selector` will be auto-generated"))
	}
	if m := s.JobTemplate.Spec.ManualSelector; m != nil && *m {
		errs = append(errs, field.NotSupported(jt.Child("manualSelector"), *m, []string{"nil", "false"}))
	}
	return errs
}

// ValidateCronSchedule is upstream validateScheduleFormat: the schedule must parse with
// cron.ParseStandard and must not set its own time zone.
func ValidateCronSchedule(schedule string, path *field.Path) field.ErrorList {
	if strings.Contains(schedule, "TZ") {
		return field.ErrorList{field.Invalid(path, schedule, "cannot use TZ or CRON_TZ in schedule, use timeZone field instead")}
	}
	if _, err := cron.ParseStandard(schedule); err != nil {
		return field.ErrorList{field.Invalid(path, schedule, err.Error())}
	}
	return nil
}

// validateTimeZone is upstream validateTimeZone.
func validateTimeZone(tz string, path *field.Path) field.ErrorList {
	if tz == "" {
		return field.ErrorList{field.Invalid(path, tz, "timeZone must be nil or non-empty string")}
	}
	if strings.EqualFold(tz, "Local") {
		return field.ErrorList{field.Invalid(path, tz, "timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones")}
	}
	if _, err := time.LoadLocation(tz); err != nil {
		return field.ErrorList{field.Invalid(path, tz, err.Error())}
	}
	return nil
}

// validateJobUpdate is upstream ValidateJobSpecUpdate for the modelled fields: selector,
// completionMode, podFailurePolicy, backoffLimitPerIndex and managedBy are immutable; the
// template is immutable; completions may change only for an Indexed Job scaled elastically
// (completions == parallelism after the update).
func validateJobUpdate(n, o *Job) field.ErrorList {
	var errs field.ErrorList
	ns, os := &n.Spec, &o.Spec
	errs = append(errs, apivalidation.ValidateImmutableField(ns.Selector, os.Selector, specPath.Child("selector"))...)
	errs = append(errs, apivalidation.ValidateImmutableField(ns.CompletionMode, os.CompletionMode, specPath.Child("completionMode"))...)
	errs = append(errs, apivalidation.ValidateImmutableField(ns.PodFailurePolicy, os.PodFailurePolicy, specPath.Child("podFailurePolicy"))...)
	errs = append(errs, apivalidation.ValidateImmutableField(ns.BackoffLimitPerIndex, os.BackoffLimitPerIndex, specPath.Child("backoffLimitPerIndex"))...)
	errs = append(errs, apivalidation.ValidateImmutableField(ns.ManagedBy, os.ManagedBy, specPath.Child("managedBy"))...)
	if !equality.Semantic.DeepEqual(ns.Template, os.Template) {
		errs = append(errs, field.Invalid(specPath.Child("template"), field.OmitValueType{}, apivalidation.FieldImmutableErrorMsg))
	}
	elastic := ns.CompletionMode != nil && *ns.CompletionMode == IndexedCompletion &&
		ns.Completions != nil && ns.Parallelism != nil && *ns.Completions == *ns.Parallelism
	if !elastic {
		errs = append(errs, apivalidation.ValidateImmutableField(ns.Completions, os.Completions, specPath.Child("completions"))...)
	}
	return errs
}
