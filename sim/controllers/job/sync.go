package job

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim"
	"github.com/reconsim/reconsim/sim/controllers/internal/controllerutil"
	"github.com/reconsim/reconsim/vtime"
)

// Event reasons ([k8s] pkg/controller/controller_utils.go and job_controller.go).
const (
	reasonSuccessfulCreate = "SuccessfulCreate"
	reasonFailedCreate     = "FailedCreate"
	reasonSuccessfulDelete = "SuccessfulDelete"
	reasonFailedDelete     = "FailedDelete"
	reasonCompleted        = "Completed"
	reasonSuspended        = "Suspended"
	reasonResumed          = "Resumed"
)

// Condition messages ([k8s] job_controller.go syncJob).
const (
	msgBackoffLimitExceeded = "Job has reached the specified backoff limit"
	msgDeadlineExceeded     = "Job was active longer than specified deadline"
	msgCompletionsReached   = "Reached expected number of succeeded pods"
	// Per-index failure messages (job_controller.go syncJob, backoffLimitPerIndex).
	msgMaxFailedIndexesExceeded = "Job has exceeded the specified maximal number of failed indexes"
	msgFailedIndexes            = "Job has failed indexes"
)

// ManagedByJobController is the value of spec.managedBy that means this controller
// (batch/v1 JobControllerName).
const ManagedByJobController = "kubernetes.io/job-controller"

// syncCtx is upstream syncJobCtx: what one sync learned.
type syncCtx struct {
	job               *model.Job
	pods              []*model.Pod
	activePods        []*model.Pod
	finishedCondition *model.JobCondition
	succeeded, failed int32
	succeededIndexes  orderedIntervals
	// perIndex is backoffLimitPerIndex set on an Indexed Job; failedIndexes and
	// lastFailedPerIndex (the latest failed pod of each index) serve it.
	perIndex           bool
	failedIndexes      orderedIntervals
	lastFailedPerIndex map[int]*model.Pod
	newBackoffRecord   backoffRecord
	expectedRm         map[string]bool
	terminating        int32
	ready              int32
}

// syncJob is upstream syncJob for one Job key: count the pods, decide whether the Job failed
// or succeeded, otherwise create or delete pods (manageJob), and record the result through the
// uncounted-pods protocol of the job-tracking finalizer.
func (jm *Controller) syncJob(ctx context.Context, key string) error {
	shared, ok := controllerutil.Lister[*model.Job]{Informer: jm.jobInformer}.GetByKey(key)
	if !ok {
		jm.held.Forget(key)
		jm.expectations.DeleteExpectations(key)
		delete(jm.finalizerExpectations, key)
		jm.backoff.remove(key)
		return nil
	}
	if jm.cfg.HonourManagedBy && shared.Spec.ManagedBy != nil && *shared.Spec.ManagedBy != ManagedByJobController {
		jm.Kernel.Emit(Component, "skip-managed-by", jobRef(shared), shared.ResourceVersion, *shared.Spec.ManagedBy)
		return nil
	}
	if model.IsJobFinished(shared) {
		jm.held.Forget(key)
		jm.backoff.remove(key)
		return nil
	}
	if mode := ptr.Deref(shared.Spec.CompletionMode, model.NonIndexedCompletion); mode != model.NonIndexedCompletion && mode != model.IndexedCompletion {
		jm.Recorder.Eventf(shared, model.EventTypeWarning, "UnknownCompletionMode", "Skipped Job sync because completion mode is unknown")
		return nil
	}
	job := shared.DeepCopy()
	now := jm.Kernel.Now()
	satisfied := jm.expectations.SatisfiedExpectations(key)
	pods := jm.getPodsForJob(job)
	sc := &syncCtx{job: job, pods: pods, expectedRm: map[string]bool{}}
	for _, uid := range jm.expectedFinalizerRemovals(key) {
		sc.expectedRm[uid] = true
	}
	sc.activePods = filterActive(pods)
	sc.terminating = countTerminating(pods)
	for _, p := range sc.activePods {
		if model.IsPodReady(p) {
			sc.ready++
		}
	}
	uncounted := uncountedOf(job)
	newSucceeded, newFailed := jm.getNewFinishedPods(sc, uncounted)
	sc.succeeded = job.Status.Succeeded + int32(len(newSucceeded)) + int32(len(uncounted.Succeeded))
	sc.failed = job.Status.Failed + nonIgnoredFailedPodsCount(job, newFailed) + int32(len(uncounted.Failed))
	suspended := ptr.Deref(job.Spec.Suspend, false)
	if job.Status.StartTime == nil && !suspended {
		t := now
		job.Status.StartTime = &t
	}
	sc.newBackoffRecord = jm.backoff.newBackoffRecord(key, newSucceeded, newFailed)
	indexed := isIndexed(job)
	if indexed {
		sc.succeededIndexes = succeededIndexesOf(job, pods)
		sc.succeeded = int32(sc.succeededIndexes.total())
	}
	if indexed && job.Spec.BackoffLimitPerIndex != nil {
		sc.perIndex = true
		sc.failedIndexes, sc.lastFailedPerIndex = failedIndexesOf(job, pods)
		job.Status.FailedIndexes = model.Ptr(sc.failedIndexes.String())
	}
	completions := int(ptr.Deref(job.Spec.Completions, 0))

	// The order of the failure checks is upstream's: a FailureTarget already set, a FailJob
	// rule, the back-off limit, the active deadline.
	if c := findCondition(job, model.JobFailureTarget); c != nil && c.Status == model.ConditionTrue {
		sc.finishedCondition = newCondition(model.JobFailed, c.Reason, c.Message, now)
	} else if msg := failJobMessage(job, pods); msg != nil {
		sc.finishedCondition = newFailureCondition(model.JobReasonPodFailurePolicy, *msg, now)
	} else if exceedsBackoffLimit(job, sc.failed) || pastBackoffLimitOnFailure(job, pods) {
		sc.finishedCondition = newFailureCondition(model.JobReasonBackoffLimitExceeded, msgBackoffLimitExceeded, now)
	} else if jm.pastActiveDeadline(job) {
		sc.finishedCondition = newFailureCondition(model.JobReasonDeadlineExceeded, msgDeadlineExceeded, now)
	} else if sc.perIndex && job.Spec.MaxFailedIndexes != nil && sc.failedIndexes.total() > int(*job.Spec.MaxFailedIndexes) {
		sc.finishedCondition = newFailureCondition(model.JobReasonMaxFailedIndexesExceeded, msgMaxFailedIndexesExceeded, now)
	} else if sc.perIndex && sc.failedIndexes.total() > 0 && sc.failedIndexes.total()+sc.succeededIndexes.total() >= completions {
		sc.finishedCondition = newFailureCondition(model.JobReasonFailedIndexes, msgFailedIndexes, now)
	} else if job.Spec.ActiveDeadlineSeconds != nil && !suspended {
		left := time.Duration(*job.Spec.ActiveDeadlineSeconds)*time.Second - now.Sub(*job.Status.StartTime)
		jm.held.AddAfter(key, left)
	}
	if sc.finishedCondition == nil {
		if c := findCondition(job, model.JobSuccessCriteriaMet); c != nil && c.Status == model.ConditionTrue {
			sc.finishedCondition = newCondition(model.JobComplete, c.Reason, c.Message, now)
		} else if indexed && job.Spec.SuccessPolicy != nil {
			if msg, ok := matchSuccessPolicy(job.Spec.SuccessPolicy, int(ptr.Deref(job.Spec.Completions, 0)), sc.succeededIndexes); ok {
				sc.finishedCondition = newCondition(model.JobSuccessCriteriaMet, model.JobReasonSuccessPolicy, msg, now)
			}
		}
	}

	jobCtxActive := int32(len(sc.activePods))
	var manageErr error
	if sc.finishedCondition != nil {
		// Terminate the pods that are left (upstream deleteActivePods); the Job finishes
		// once they are gone.
		deleted, err := jm.deleteJobPods(ctx, job, sc.activePods)
		jobCtxActive -= deleted
		sc.terminating += deleted
		manageErr = err
	} else {
		complete := false
		completions := job.Spec.Completions
		if completions == nil {
			complete = sc.succeeded > 0 && len(sc.activePods) == 0
		} else {
			complete = sc.succeeded >= *completions && len(sc.activePods) == 0
		}
		if completions != nil && sc.succeeded > *completions {
			// More pods succeeded than asked for (a replacement raced a slow success).
			jm.Recorder.Eventf(job, model.EventTypeWarning, "TooManySucceededPods", "Too many succeeded pods running after completion count reached")
		}
		if complete {
			sc.finishedCondition = newCondition(model.JobSuccessCriteriaMet, model.JobReasonCompletionsReached, msgCompletionsReached, now)
		} else if satisfied && job.DeletionTimestamp == nil {
			var err error
			jobCtxActive, err = jm.manageJob(ctx, sc)
			manageErr = err
		}
		jm.syncSuspended(job, suspended, now)
	}
	job.Status.Active = jobCtxActive
	job.Status.Ready = model.Ptr(sc.ready)
	job.Status.Terminating = model.Ptr(sc.terminating)
	err := jm.trackJobStatusAndRemoveFinalizers(ctx, sc, shared, newSucceeded, newFailed)
	if err != nil {
		return err
	}
	return manageErr
}

// getPodsForJob lists the cached pods this Job controls (upstream getPodsForJob, without
// adoption: the simulator's Jobs create every pod they own).
func (jm *Controller) getPodsForJob(j *model.Job) []*model.Pod {
	sel, err := metav1.LabelSelectorAsSelector(j.Spec.Selector)
	if err != nil {
		return nil
	}
	var out []*model.Pod
	for _, o := range jm.podInformer.ListNamespace(j.Namespace, sel) {
		p := o.(*model.Pod)
		if ref := model.ControllerOf(p); ref != nil && ref.UID == j.UID {
			out = append(out, p)
		}
	}
	return out
}

// filterActive is controller.FilterActivePods: not finished and not being deleted.
func filterActive(pods []*model.Pod) []*model.Pod {
	var out []*model.Pod
	for _, p := range pods {
		if p.Status.Phase != model.PodSucceeded && p.Status.Phase != model.PodFailed && p.DeletionTimestamp == nil {
			out = append(out, p)
		}
	}
	return out
}

// countTerminating is upstream controller.CountTerminatingPods.
func countTerminating(pods []*model.Pod) int32 {
	var n int32
	for _, p := range pods {
		if p.DeletionTimestamp != nil && p.Status.Phase != model.PodSucceeded && p.Status.Phase != model.PodFailed {
			n++
		}
	}
	return n
}

// onlyReplaceFailedPods is upstream onlyReplaceFailedPods: podReplacementPolicy Failed, or a
// podFailurePolicy (which implies it).
func onlyReplaceFailedPods(j *model.Job) bool {
	return (j.Spec.PodReplacementPolicy != nil && *j.Spec.PodReplacementPolicy == model.Failed) || j.Spec.PodFailurePolicy != nil
}

// isPodFailed is upstream isPodFailed: phase Failed; and, unless only failed pods are
// replaced, a pod being deleted that did not succeed.
func isPodFailed(p *model.Pod, j *model.Job) bool {
	if p.Status.Phase == model.PodFailed {
		return true
	}
	if onlyReplaceFailedPods(j) {
		return false
	}
	return p.DeletionTimestamp != nil && p.Status.Phase != model.PodSucceeded
}

// getNewFinishedPods returns the finished pods that still carry the tracking finalizer, are not
// yet listed as uncounted and whose finalizer removal is not already expected (upstream
// getNewFinishedPods), in name order.
func (jm *Controller) getNewFinishedPods(sc *syncCtx, unc *model.UncountedTerminatedPods) (succeeded, failed []*model.Pod) {
	for _, p := range sc.pods {
		if !hasTrackingFinalizer(p) || sc.expectedRm[p.UID] {
			continue
		}
		switch {
		case p.Status.Phase == model.PodSucceeded:
			if !slices.Contains(unc.Succeeded, p.UID) {
				succeeded = append(succeeded, p)
			}
		case isPodFailed(p, sc.job):
			if !slices.Contains(unc.Failed, p.UID) {
				failed = append(failed, p)
			}
		}
	}
	return succeeded, failed
}

// nonIgnoredFailedPodsCount is upstream nonIgnoredFailedPodsCount: failures an Ignore rule
// matches do not count.
func nonIgnoredFailedPodsCount(j *model.Job, failed []*model.Pod) int32 {
	var n int32
	for _, p := range failed {
		if j.Spec.PodFailurePolicy != nil {
			if _, count, _ := matchPodFailurePolicy(j.Spec.PodFailurePolicy, p); !count {
				continue
			}
		}
		n++
	}
	return n
}

// failJobMessage is upstream getFailJobMessage: the message of the first failed pod a FailJob
// rule matches.
func failJobMessage(j *model.Job, pods []*model.Pod) *string {
	if j.Spec.PodFailurePolicy == nil {
		return nil
	}
	for _, p := range pods {
		if p.Status.Phase != model.PodFailed {
			continue
		}
		if msg, _, action := matchPodFailurePolicy(j.Spec.PodFailurePolicy, p); action == model.PodFailurePolicyActionFailJob {
			return msg
		}
	}
	return nil
}

// exceedsBackoffLimit is upstream's failed > backoffLimit.
func exceedsBackoffLimit(j *model.Job, failed int32) bool {
	return j.Spec.BackoffLimit != nil && failed > *j.Spec.BackoffLimit
}

// pastBackoffLimitOnFailure is upstream pastBackoffLimitOnFailure: with restartPolicy
// OnFailure, container restarts of running or pending pods count towards backoffLimit.
func pastBackoffLimitOnFailure(j *model.Job, pods []*model.Pod) bool {
	if j.Spec.Template.Spec.RestartPolicy != model.RestartPolicyOnFailure {
		return false
	}
	var result int32
	for _, p := range pods {
		if p.Status.Phase == model.PodRunning || p.Status.Phase == model.PodPending {
			for _, cs := range p.Status.ContainerStatuses {
				result += cs.RestartCount
			}
		}
	}
	limit := ptr.Deref(j.Spec.BackoffLimit, 0)
	if limit == 0 {
		return result > 0
	}
	return result >= limit
}

// pastActiveDeadline is upstream pastActiveDeadline.
func (jm *Controller) pastActiveDeadline(j *model.Job) bool {
	if j.Spec.ActiveDeadlineSeconds == nil || j.Status.StartTime == nil || ptr.Deref(j.Spec.Suspend, false) {
		return false
	}
	return jm.Kernel.Now().Sub(*j.Status.StartTime) >= time.Duration(*j.Spec.ActiveDeadlineSeconds)*time.Second
}

// newFailureCondition is upstream newFailureCondition with delayTerminalCondition() true (the
// JobPodReplacementPolicy gate is on in every supported version): a FailureTarget first, the
// Failed condition once the pods are gone.
func newFailureCondition(reason, msg string, now vtime.Time) *model.JobCondition {
	return newCondition(model.JobFailureTarget, reason, msg, now)
}

func newCondition(typ, reason, msg string, now vtime.Time) *model.JobCondition {
	return &model.JobCondition{Type: typ, Status: model.ConditionTrue, Reason: reason, Message: msg, LastProbeTime: now, LastTransitionTime: now}
}

func findCondition(j *model.Job, typ string) *model.JobCondition {
	for i := range j.Status.Conditions {
		if j.Status.Conditions[i].Type == typ {
			return &j.Status.Conditions[i]
		}
	}
	return nil
}

// setCondition adds or updates a condition; the transition time moves only with the status.
func setCondition(j *model.Job, c model.JobCondition) bool {
	if old := findCondition(j, c.Type); old != nil {
		if old.Status == c.Status && old.Reason == c.Reason && old.Message == c.Message {
			return false
		}
		if old.Status == c.Status {
			c.LastTransitionTime = old.LastTransitionTime
		}
		*old = c
		return true
	}
	j.Status.Conditions = append(j.Status.Conditions, c)
	return true
}

// syncSuspended records the Suspended condition (upstream syncJob's suspend handling):
// Suspended=True on suspension, Suspended=False with a reset startTime on resume.
func (jm *Controller) syncSuspended(j *model.Job, suspended bool, now vtime.Time) {
	c := findCondition(j, model.JobSuspended)
	switch {
	case suspended && (c == nil || c.Status != model.ConditionTrue):
		setCondition(j, model.JobCondition{Type: model.JobSuspended, Status: model.ConditionTrue, Reason: "JobSuspended", Message: "Job suspended", LastProbeTime: now, LastTransitionTime: now})
		j.Status.StartTime = nil
		jm.Recorder.Eventf(j, model.EventTypeNormal, reasonSuspended, "Job suspended")
	case !suspended && c != nil && c.Status == model.ConditionTrue:
		setCondition(j, model.JobCondition{Type: model.JobSuspended, Status: model.ConditionFalse, Reason: "JobResumed", Message: "Job resumed", LastProbeTime: now, LastTransitionTime: now})
		t := now
		j.Status.StartTime = &t
		jm.Recorder.Eventf(j, model.EventTypeNormal, reasonResumed, "Job resumed")
	}
}

// succeededIndexesOf is upstream calculateSucceededIndexes: the indexes recorded in
// status.completedIndexes plus those of succeeded pods still carrying the finalizer.
func succeededIndexesOf(j *model.Job, pods []*model.Pod) orderedIntervals {
	completions := int(ptr.Deref(j.Spec.Completions, 0))
	prev := parseIndexesFromString(j.Status.CompletedIndexes, completions)
	var ixs []int
	for _, p := range pods {
		if p.Status.Phase != model.PodSucceeded {
			continue
		}
		if ix := getCompletionIndex(p); ix != unknownCompletionIndex && ix < completions {
			ixs = append(ixs, ix)
		}
	}
	return prev.withIndexes(ixs)
}

// matchSuccessPolicy is upstream matchSuccessPolicy ([k8s] success_policy.go): the first rule
// whose indexes all succeeded (or at least succeededCount of them) matches.
func matchSuccessPolicy(sp *model.SuccessPolicy, completions int, succeeded orderedIntervals) (string, bool) {
	for i, r := range sp.Rules {
		var want orderedIntervals
		if r.SucceededIndexes != nil {
			want = parseIndexesFromString(*r.SucceededIndexes, completions)
		} else {
			want = orderedIntervals{{0, completions - 1}}
		}
		got := 0
		for _, v := range want {
			for ix := v.First; ix <= v.Last; ix++ {
				if succeeded.has(ix) {
					got++
				}
			}
		}
		need := want.total()
		if r.SucceededCount != nil {
			need = int(*r.SucceededCount)
		}
		if need > 0 && got >= need {
			return fmt.Sprintf("Matched rules at index %d", i), true
		}
	}
	return "", false
}

// manageJob is upstream manageJob: suspend deletes every active pod; otherwise too many active
// pods are deleted, and missing ones created in slow-start batches unless the pod-failure
// back-off is still running. It returns the active count after its actions.
func (jm *Controller) manageJob(ctx context.Context, sc *syncCtx) (int32, error) {
	j := sc.job
	key := model.Key(j)
	active := int32(len(sc.activePods))
	parallelism := ptr.Deref(j.Spec.Parallelism, 1)
	if ptr.Deref(j.Spec.Suspend, false) {
		n, err := jm.deleteJobPods(ctx, j, sc.activePods)
		sc.terminating += n
		return active - n, err
	}
	var wantActive int32
	if j.Spec.Completions == nil {
		if sc.succeeded > 0 {
			wantActive = active
		} else {
			wantActive = parallelism
		}
	} else {
		wantActive = max(0, min(*j.Spec.Completions-sc.succeeded, parallelism))
	}
	rmAtLeast := active - wantActive
	if rmAtLeast > 0 {
		rmAtLeast = min(rmAtLeast, MaxPodCreateDeletePerSync)
		victims := activePodsForRemoval(sc.activePods, int(rmAtLeast))
		jm.expectations.ExpectDeletions(key, len(victims))
		jm.Kernel.Emit(Component, "too-many", jobRef(j), j.ResourceVersion, fmt.Sprintf("active=%d want=%d deleting=%d", active, wantActive, len(victims)))
		n, err := jm.deleteJobPods(ctx, j, victims)
		sc.terminating += n
		return active - n, err
	}
	// With podReplacementPolicy Failed, replacements wait until terminating pods are Failed.
	diff := wantActive - active
	if onlyReplaceFailedPods(j) {
		diff -= sc.terminating
	}
	if diff <= 0 {
		return active, nil
	}
	if sc.perIndex {
		return jm.createPerIndex(ctx, sc, active, wantActive, diff)
	}
	if rem := sc.newBackoffRecord.remainingTime(jm.Kernel.Now(), jm.cfg.PodFailureBackOff, jm.cfg.MaxPodFailureBackOff); rem > 0 {
		jm.Kernel.Emit(Component, "backoff", jobRef(j), j.ResourceVersion, fmt.Sprintf("failures=%d wait=%s", sc.newBackoffRecord.failuresAfterLastSuccess, rem))
		jm.enqueueWithDelay(key, rem)
		return active, nil
	}
	diff = min(diff, MaxPodCreateDeletePerSync)
	var indexes []int
	if isIndexed(j) {
		indexes = firstPendingIndexes(sc.activePods, sc.succeededIndexes, int(diff), int(ptr.Deref(j.Spec.Completions, 0)))
		diff = int32(len(indexes))
		if diff == 0 {
			return active, nil
		}
	}
	jm.expectations.ExpectCreations(key, int(diff))
	jm.Kernel.Emit(Component, "creating", jobRef(j), j.ResourceVersion, fmt.Sprintf("active=%d want=%d creating=%d", active, wantActive, diff))
	created, err := jm.slowStartCreate(ctx, j, int(diff), indexes, nil)
	if skipped := int(diff) - created; skipped > 0 {
		for range skipped {
			jm.expectations.CreationObserved(key)
		}
	}
	return active + int32(created), err
}

// slowStartCreate creates n pods in batches of 1, 2, 4, ... and stops after a batch with an
// error (upstream manageJob's slow start with SlowStartInitialBatchSize).
func (jm *Controller) slowStartCreate(ctx context.Context, j *model.Job, n int, indexes []int, failureCounts map[int]int) (int, error) {
	done := 0
	for batch := min(n, SlowStartInitialBatchSize); batch > 0; batch = min(2*batch, n-done) {
		first := done
		errs := sim.RunConcurrently(ctx, Component+"/create", first, batch, func(ctx context.Context, i int) error {
			ix := unknownCompletionIndex
			if indexes != nil {
				ix = indexes[i]
			}
			return jm.createPod(ctx, j, ix, failureCounts)
		})
		done += batch - len(errs)
		if len(errs) > 0 {
			return done, errs[0]
		}
	}
	return done, nil
}

// createPod creates one pod from the template (upstream podControl.CreatePodsWithGenerateName
// with the Job's controller reference and the tracking finalizer; for an Indexed Job the
// completion index annotation and label, hostname and JOB_COMPLETION_INDEX).
func (jm *Controller) createPod(ctx context.Context, j *model.Job, index int, failureCounts map[int]int) error {
	tmpl := &model.PodTemplateSpec{}
	j.Spec.Template.DeepCopyInto(tmpl)
	pod := controllerutil.PodFromTemplate(tmpl, j, controllerutil.NewControllerRef(j, model.KindJob, "batch/v1"))
	pod.Finalizers = append(pod.Finalizers, model.JobTrackingFinalizer)
	if index != unknownCompletionIndex {
		s := strconv.Itoa(index)
		if pod.Annotations == nil {
			pod.Annotations = map[string]string{}
		}
		pod.Annotations[model.JobCompletionIndexAnnot] = s
		if pod.Labels == nil {
			pod.Labels = map[string]string{}
		}
		pod.Labels[model.JobCompletionIndexAnnot] = s // PodIndexLabel, on since 1.28
		if failureCounts != nil {
			pod.Annotations[model.JobIndexFailureCountAnnot] = strconv.Itoa(failureCounts[index])
		}
		pod.GenerateName = podGenerateNameWithIndex(j.Name, index)
		pod.Spec.Hostname = fmt.Sprintf("%s-%d", j.Name, index)
		for i := range pod.Spec.Containers {
			pod.Spec.Containers[i].Env = append(pod.Spec.Containers[i].Env, model.EnvVar{Name: model.JobCompletionIndexEnv, Value: s})
		}
	}
	created, err := jm.Client.Create(ctx, pod)
	if err != nil {
		jm.stats.CreateErrors++
		jm.Recorder.Eventf(j, model.EventTypeWarning, reasonFailedCreate, "Error creating: %v", err)
		return err
	}
	jm.stats.PodsCreated++
	jm.Recorder.Eventf(j, model.EventTypeNormal, reasonSuccessfulCreate, "Created pod: %s", created.Meta().Name)
	return nil
}

// deleteJobPods deletes pods concurrently (upstream deleteJobPods) and returns how many were
// deleted.
func (jm *Controller) deleteJobPods(ctx context.Context, j *model.Job, pods []*model.Pod) (int32, error) {
	if len(pods) == 0 {
		return 0, nil
	}
	errs := sim.RunConcurrently(ctx, Component+"/delete", 0, len(pods), func(ctx context.Context, i int) error {
		p := pods[i]
		err := jm.Client.Delete(ctx, model.KindPod, p.Namespace, p.Name, model.DeleteOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			jm.stats.DeleteErrors++
			jm.Recorder.Eventf(j, model.EventTypeWarning, reasonFailedDelete, "Error deleting: %v", err)
			return err
		}
		if err == nil {
			jm.stats.PodsDeleted++
			jm.Recorder.Eventf(j, model.EventTypeNormal, reasonSuccessfulDelete, "Deleted pod: %s", p.Name)
		}
		return nil
	})
	n := int32(len(pods) - len(errs))
	if len(errs) > 0 {
		return n, errs[0]
	}
	return n, nil
}

// activePodsForRemoval picks n pods to delete (upstream activePodsForRemoval, ranked as
// controller.ActivePods: unscheduled, then pending, then not ready first); for an Indexed Job
// the highest indexes go first.
func activePodsForRemoval(pods []*model.Pod, n int) []*model.Pod {
	rank := func(p *model.Pod) int {
		switch {
		case p.Spec.NodeName == "":
			return 0
		case p.Status.Phase == model.PodPending:
			return 1
		case !model.IsPodReady(p):
			return 2
		}
		return 3
	}
	sorted := slices.Clone(pods)
	slices.SortStableFunc(sorted, func(a, b *model.Pod) int {
		if ra, rb := rank(a), rank(b); ra != rb {
			return ra - rb
		}
		return getCompletionIndex(b) - getCompletionIndex(a)
	})
	return sorted[:min(n, len(sorted))]
}

// trackJobStatusAndRemoveFinalizers is upstream trackJobStatusAndRemoveFinalizers and
// flushUncountedAndRemoveFinalizers: newly finished pods are first recorded in
// status.uncountedTerminatedPods (a status write), then their tracking finalizers are removed,
// then they are moved into status.succeeded/failed (and completedIndexes); once nothing is
// uncounted, a pending finish becomes the terminal condition (after the last pod terminated,
// as delayTerminalCondition asks).
func (jm *Controller) trackJobStatusAndRemoveFinalizers(ctx context.Context, sc *syncCtx, shared *model.Job, newSucceeded, newFailed []*model.Pod) error {
	j := sc.job
	key := model.Key(j)
	unc := uncountedOf(j)
	var toRemove []*model.Pod
	add := func(p *model.Pod, list *[]string) bool {
		if len(unc.Succeeded)+len(unc.Failed) >= MaxUncountedPods {
			return false
		}
		*list = append(*list, p.UID)
		toRemove = append(toRemove, p)
		return true
	}
	for _, p := range newSucceeded {
		if !add(p, &unc.Succeeded) {
			break
		}
	}
	for _, p := range newFailed {
		if !add(p, &unc.Failed) {
			break
		}
	}
	setUncounted(j, unc)
	if len(toRemove) > 0 {
		// Step 1: persist the uncounted UIDs, so a crash between here and the counting
		// cannot lose or double a pod.
		if err := jm.writeStatus(ctx, j, shared); err != nil {
			return err
		}
		shared = j.DeepCopy()
	}
	// Step 2: remove the finalizers.
	var removed []string
	if len(toRemove) > 0 {
		ok := make([]bool, len(toRemove))
		errs := sim.RunConcurrently(ctx, Component+"/finalizer", 0, len(toRemove), func(ctx context.Context, i int) error {
			if err := jm.removeTrackingFinalizer(ctx, toRemove[i]); err != nil && !apierrors.IsNotFound(err) {
				return err
			}
			ok[i] = true
			return nil
		})
		for i, p := range toRemove {
			if ok[i] {
				jm.expectFinalizerRemoval(key, p.UID)
				removed = append(removed, p.UID)
				jm.stats.FinalizersRemoved++
			}
		}
		if len(errs) > 0 {
			return errs[0]
		}
	}
	// Step 3: count what is uncounted and no longer carries the finalizer. Pods whose
	// removal this sync made or expects are counted; the others stay uncounted.
	stillTracked := map[string]bool{}
	for _, p := range sc.pods {
		if hasTrackingFinalizer(p) && !sc.expectedRm[p.UID] && !slices.Contains(removed, p.UID) {
			stillTracked[p.UID] = true
		}
	}
	var keepS, keepF []string
	var succeededIxs []int
	podByUID := map[string]*model.Pod{}
	for _, p := range sc.pods {
		podByUID[p.UID] = p
	}
	for _, uid := range unc.Succeeded {
		if stillTracked[uid] {
			keepS = append(keepS, uid)
			continue
		}
		j.Status.Succeeded++
		if p := podByUID[uid]; p != nil {
			if ix := getCompletionIndex(p); ix != unknownCompletionIndex {
				succeededIxs = append(succeededIxs, ix)
			}
		}
	}
	for _, uid := range unc.Failed {
		if stillTracked[uid] {
			keepF = append(keepF, uid)
			continue
		}
		p := podByUID[uid]
		if p != nil && j.Spec.PodFailurePolicy != nil {
			if _, count, _ := matchPodFailurePolicy(j.Spec.PodFailurePolicy, p); !count {
				continue
			}
		}
		j.Status.Failed++
	}
	setUncounted(j, &model.UncountedTerminatedPods{Succeeded: keepS, Failed: keepF})
	if isIndexed(j) {
		completions := int(ptr.Deref(j.Spec.Completions, 0))
		prev := parseIndexesFromString(j.Status.CompletedIndexes, completions)
		var valid []int
		for _, ix := range succeededIxs {
			if ix < completions {
				valid = append(valid, ix)
			}
		}
		done := prev.withIndexes(valid)
		j.Status.CompletedIndexes = done.String()
		j.Status.Succeeded = int32(done.total())
	}
	if len(removed) > 0 || len(toRemove) == 0 {
		jm.backoff.update(sc.newBackoffRecord)
	}
	// Step 4: the finish.
	now := jm.Kernel.Now()
	var finishedNow *model.JobCondition
	if fc := sc.finishedCondition; fc != nil {
		switch fc.Type {
		case model.JobFailureTarget, model.JobSuccessCriteriaMet:
			setCondition(j, *fc)
			if len(keepS)+len(keepF) == 0 && sc.terminating == 0 && j.Status.Active == 0 {
				final := model.JobFailed
				if fc.Type == model.JobSuccessCriteriaMet {
					final = model.JobComplete
				}
				finishedNow = newCondition(final, fc.Reason, fc.Message, now)
			} else {
				jm.enqueueBatched(j)
			}
		default:
			if len(keepS)+len(keepF) == 0 && sc.terminating == 0 && j.Status.Active == 0 {
				finishedNow = fc
			} else {
				jm.enqueueBatched(j)
			}
		}
	}
	if finishedNow != nil {
		setCondition(j, *finishedNow)
		if finishedNow.Type == model.JobComplete {
			t := now
			j.Status.CompletionTime = &t
		}
	}
	if err := jm.writeStatus(ctx, j, shared); err != nil {
		return err
	}
	if finishedNow != nil {
		jm.backoff.remove(key)
		jm.Kernel.Emit(Component, "finished", jobRef(j), j.ResourceVersion, fmt.Sprintf("%s reason=%s succeeded=%d failed=%d", finishedNow.Type, finishedNow.Reason, j.Status.Succeeded, j.Status.Failed))
		if finishedNow.Type == model.JobComplete {
			jm.Recorder.Eventf(j, model.EventTypeNormal, reasonCompleted, "Job completed")
		} else {
			jm.Recorder.Eventf(j, model.EventTypeWarning, finishedNow.Reason, "%s", finishedNow.Message)
		}
	}
	return nil
}

// writeStatus writes j's status if it differs from shared's (upstream updateStatusHandler);
// on success j gets the new resourceVersion.
func (jm *Controller) writeStatus(ctx context.Context, j, shared *model.Job) error {
	if statusEqual(&j.Status, &shared.Status) {
		return nil
	}
	out, err := jm.Client.UpdateStatus(ctx, j)
	if err != nil {
		return err
	}
	jm.stats.StatusUpdates++
	j.ResourceVersion = out.Meta().ResourceVersion
	return nil
}

func statusEqual(a, b *model.JobStatus) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return string(ja) == string(jb)
}

// removeTrackingFinalizer removes the job-tracking finalizer from a pod with a JSON merge patch
// of the remaining finalizers (upstream uses a strategic-merge $deleteFromPrimitiveList).
func (jm *Controller) removeTrackingFinalizer(ctx context.Context, p *model.Pod) error {
	rest := slices.DeleteFunc(slices.Clone(p.Finalizers), func(f string) bool { return f == model.JobTrackingFinalizer })
	var patch []byte
	if len(rest) == 0 {
		patch = []byte(`{"metadata":{"finalizers":null}}`)
	} else {
		b, _ := json.Marshal(map[string]any{"metadata": map[string]any{"finalizers": rest}})
		patch = b
	}
	_, err := jm.Client.Patch(ctx, model.KindPod, p.Namespace, p.Name, patch)
	return err
}

func uncountedOf(j *model.Job) *model.UncountedTerminatedPods {
	u := j.Status.UncountedTerminatedPods
	if u == nil {
		return &model.UncountedTerminatedPods{}
	}
	return &model.UncountedTerminatedPods{Succeeded: slices.Clone(u.Succeeded), Failed: slices.Clone(u.Failed)}
}

// setUncounted stores u; an empty list is kept as an empty struct, as upstream does once the
// controller tracked the Job with finalizers.
func setUncounted(j *model.Job, u *model.UncountedTerminatedPods) {
	j.Status.UncountedTerminatedPods = &model.UncountedTerminatedPods{Succeeded: u.Succeeded, Failed: u.Failed}
}

func isIndexed(j *model.Job) bool {
	return j.Spec.CompletionMode != nil && *j.Spec.CompletionMode == model.IndexedCompletion
}

func jobRef(j *model.Job) string { return "Job " + model.Key(j) }

// createPerIndex is manageJob's creation for backoffLimitPerIndex: pending indexes that did not
// fail, skipping those whose own back-off (from their latest failed pod, failure count from
// its annotation) has not passed; each new pod carries its index's failure count.
func (jm *Controller) createPerIndex(ctx context.Context, sc *syncCtx, active, wantActive, diff int32) (int32, error) {
	j := sc.job
	key := model.Key(j)
	now := jm.Kernel.Now()
	completions := int(ptr.Deref(j.Spec.Completions, 0))
	done := append(append(orderedIntervals{}, sc.succeededIndexes...), sc.failedIndexes...).withIndexes(nil)
	candidates := firstPendingIndexes(sc.activePods, done, completions, completions)
	var indexes []int
	counts := map[int]int{}
	var wait time.Duration
	for _, ix := range candidates {
		if len(indexes) >= int(min(diff, MaxPodCreateDeletePerSync)) {
			break
		}
		last := sc.lastFailedPerIndex[ix]
		n := nextIndexFailureCount(j, last)
		if last != nil && n > 0 {
			d := backoffDelay(int32(n), jm.cfg.PodFailureBackOff, jm.cfg.MaxPodFailureBackOff)
			if rem := d - now.Sub(getFinishedTime(last)); rem > 0 {
				if wait == 0 || rem < wait {
					wait = rem
				}
				continue
			}
		}
		indexes = append(indexes, ix)
		counts[ix] = n
	}
	if wait > 0 {
		jm.Kernel.Emit(Component, "backoff", jobRef(j), j.ResourceVersion, fmt.Sprintf("per-index wait=%s", wait))
		jm.enqueueWithDelay(key, wait)
	}
	if len(indexes) == 0 {
		return active, nil
	}
	jm.expectations.ExpectCreations(key, len(indexes))
	jm.Kernel.Emit(Component, "creating", jobRef(j), j.ResourceVersion, fmt.Sprintf("active=%d want=%d creating=%d", active, wantActive, len(indexes)))
	created, err := jm.slowStartCreate(ctx, j, len(indexes), indexes, counts)
	for range len(indexes) - created {
		jm.expectations.CreationObserved(key)
	}
	return active + int32(created), err
}
