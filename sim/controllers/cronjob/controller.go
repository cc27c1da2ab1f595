package cronjob

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim"
	"github.com/reconsim/reconsim/sim/client"
	"github.com/reconsim/reconsim/sim/client/record"
	"github.com/reconsim/reconsim/sim/client/workqueue"
	"github.com/reconsim/reconsim/sim/controllers/internal/controllerutil"
)

// Component is the controller's name in traces and its event source (upstream
// EventSource{Component: "cronjob-controller"}).
const Component = "cronjob-controller"

// Controller is the CronJob controller v2 (upstream ControllerV2, cronjob_controllerv2.go).
type Controller struct {
	controllerutil.Base
	cfg Config

	cjInformer  *client.Informer
	jobInformer *client.Informer
	// held requeues a CronJob for its next schedule time as pending work: a run with a
	// CronJob is not quiescent while a schedule time is ahead.
	held *client.HeldRequeue
}

// New builds the controller on the shared CronJob and Job informers of f.
func New(k *sim.Kernel, c *client.Client, f *client.SharedInformerFactory, rec record.Recorder, cfg Config) (*Controller, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	jm := &Controller{
		cfg:         cfg,
		cjInformer:  f.For(model.KindCronJob),
		jobInformer: f.For(model.KindJob),
	}
	jm.Base = controllerutil.NewBase(k, c, rec, Component, "CronJob", "cronjob",
		workqueue.DefaultControllerRateLimiter[string](), jm.syncKey)
	jm.held = client.NewHeldRequeue(k, jm.Queue.Add)
	// processNextWorkItem's own requeue: an error is rate limited, a requeueAfter forgets the
	// key's back-off and adds it after that delay.
	jm.cjInformer.AddEventHandler(client.EventHandlerFuncs{
		AddFunc:    func(obj model.Object, _ bool) { jm.Queue.Add(model.Key(obj)) },
		UpdateFunc: jm.updateCronJob,
		DeleteFunc: func(obj any) {
			if o, ok := client.ObjectOf(obj); ok {
				jm.Queue.Add(model.Key(o))
			}
		},
	})
	onJob := func(obj any) {
		o, ok := client.ObjectOf(obj)
		if !ok {
			return
		}
		if ref := model.ControllerOf(o); ref != nil && ref.Kind == model.KindCronJob {
			if cj, ok := client.ResolveControllerRef[*model.CronJob](jm.cjInformer, model.KindCronJob, o.Meta().Namespace, ref); ok {
				jm.Queue.Add(model.Key(cj))
			}
		}
	}
	jm.jobInformer.AddEventHandler(client.EventHandlerFuncs{
		AddFunc:    func(obj model.Object, _ bool) { onJob(obj) },
		UpdateFunc: func(_, cur model.Object) { onJob(cur) },
		DeleteFunc: onJob,
	})
	return jm, nil
}

// Start waits for the Job and CronJob caches and starts the workers (upstream Run).
func (jm *Controller) Start() {
	jm.Loop.Start(jm.cfg.ConcurrentCronJobSyncs, jm.jobInformer, jm.cjInformer)
}

// Stop kills the controller's processes.
func (jm *Controller) Stop() {
	jm.held.Stop()
	jm.Loop.Stop()
}

// updateCronJob is upstream updateCronJob: a changed schedule or time zone requeues for the
// next schedule time; any other change syncs at once.
func (jm *Controller) updateCronJob(oldObj, curObj model.Object) {
	old, ok1 := client.ObjectAs[*model.CronJob](oldObj)
	cur, ok2 := client.ObjectAs[*model.CronJob](curObj)
	if !ok1 || !ok2 {
		return
	}
	if old.Spec.Schedule != cur.Spec.Schedule || !equalStringPtr(old.Spec.TimeZone, cur.Spec.TimeZone) {
		sched, err := parseSchedule(cur)
		if err != nil {
			jm.Recorder.Eventf(cur, model.EventTypeWarning, "UnParseableCronJobSchedule", "unparseable schedule for cronjob: %s", cur.Spec.Schedule)
			return
		}
		jm.held.AddAfter(model.Key(cur), nextScheduleTimeDuration(cur, wall(jm.Kernel.Now()), sched))
		return
	}
	jm.Queue.Add(model.Key(cur))
}

func equalStringPtr(a, b *string) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// syncKey is upstream processNextWorkItem's call of sync: a requeueAfter forgets the key's
// back-off and adds it after the delay.
func (jm *Controller) syncKey(ctx context.Context, key string) error {
	after, err := jm.sync(ctx, key)
	if err != nil {
		return err
	}
	if after != nil {
		jm.Queue.Forget(key)
		jm.held.AddAfter(key, *after)
	}
	return nil
}

// sync is upstream sync: the CronJob's Jobs, history cleanup, syncCronJob, one status write.
func (jm *Controller) sync(ctx context.Context, key string) (*time.Duration, error) {
	cached, ok := controllerutil.Lister[*model.CronJob]{Informer: jm.cjInformer}.GetByKey(key)
	if !ok {
		jm.held.Forget(key)
		return nil, nil
	}
	cj := cached.DeepCopy()
	jobs := jm.jobsToBeReconciled(cj)
	updated := jm.cleanupFinishedJobs(ctx, cj, jobs)
	after, updated2, err := jm.syncCronJob(ctx, cj, jobs)
	if updated || updated2 {
		if _, uerr := jm.Client.UpdateStatus(ctx, cj); uerr != nil {
			return nil, uerr
		}
	}
	if err != nil {
		return nil, err
	}
	if after != nil {
		jm.Kernel.Emit(Component, "requeue", "CronJob "+key, cj.ResourceVersion, fmt.Sprintf("after=%s", *after))
	}
	return after, nil
}

// jobsToBeReconciled is upstream getJobsToBeReconciled: the namespace's Jobs whose controller
// is this CronJob.
func (jm *Controller) jobsToBeReconciled(cj *model.CronJob) []*model.Job {
	var out []*model.Job
	for _, o := range jm.jobInformer.ListNamespace(cj.Namespace, nil) {
		j := o.(*model.Job)
		if ref := model.ControllerOf(j); ref != nil && ref.Kind == model.KindCronJob && ref.Name == cj.Name {
			out = append(out, j)
		}
	}
	return out
}

func finishedType(j *model.Job) (string, bool) {
	c, ok := model.JobFinishedCondition(j)
	if !ok {
		return "", false
	}
	return c.Type, true
}

func inActiveList(cj *model.CronJob, uid string) bool {
	return slices.ContainsFunc(cj.Status.Active, func(r model.ObjectReference) bool { return r.UID == uid })
}

func inActiveListByName(cj *model.CronJob, name string) bool {
	return slices.ContainsFunc(cj.Status.Active, func(r model.ObjectReference) bool { return r.Name == name })
}

func deleteFromActiveList(cj *model.CronJob, uid string) {
	cj.Status.Active = slices.DeleteFunc(cj.Status.Active, func(r model.ObjectReference) bool { return r.UID == uid })
}

// syncCronJob is upstream syncCronJob: reconcile status.active with the Jobs, then start the
// Job of the most recent unmet schedule time if the deadline and concurrency policy allow it.
// It returns when to sync again and whether the status changed.
func (jm *Controller) syncCronJob(ctx context.Context, cj *model.CronJob, jobs []*model.Job) (*time.Duration, bool, error) {
	now := wall(jm.Kernel.Now())
	updated := false
	children := map[string]bool{}
	for _, j := range jobs {
		children[j.UID] = true
		found := inActiveList(cj, j.UID)
		typ, finished := finishedType(j)
		if !found && !finished {
			// The cache may be older than the Job: ask the API server before calling the Job
			// unexpected (upstream re-GETs the CronJob here).
			fresh, err := jm.Client.Get(ctx, model.KindCronJob, cj.Namespace, cj.Name)
			if err != nil {
				return nil, updated, err
			}
			if f := fresh.(*model.CronJob); inActiveList(f, j.UID) {
				*cj = *f
				continue
			}
		}
		switch {
		case !found && !finished:
			jm.Recorder.Eventf(cj, model.EventTypeWarning, "UnexpectedJob", "Saw a job that the controller did not create or forgot: %s", j.Name)
		case found && finished:
			deleteFromActiveList(cj, j.UID)
			jm.Recorder.Eventf(cj, model.EventTypeNormal, "SawCompletedJob", "Saw completed job: %s, status: %s", j.Name, typ)
			updated = true
		}
		if finished && typ == model.JobComplete && j.Status.CompletionTime != nil {
			if cj.Status.LastSuccessfulTime == nil || cj.Status.LastSuccessfulTime.Before(*j.Status.CompletionTime) {
				t := *j.Status.CompletionTime
				cj.Status.LastSuccessfulTime = &t
				updated = true
			}
		}
	}
	for _, ref := range slices.Clone(cj.Status.Active) {
		if children[ref.UID] {
			continue
		}
		_, err := jm.Client.Get(ctx, model.KindJob, ref.Namespace, ref.Name)
		switch {
		case apierrors.IsNotFound(err):
			jm.Recorder.Eventf(cj, model.EventTypeNormal, "MissingJob", "Active job went missing: %v", ref.Name)
			deleteFromActiveList(cj, ref.UID)
			updated = true
		case err != nil:
			return nil, updated, err
		}
	}
	if cj.DeletionTimestamp != nil {
		return nil, updated, nil
	}
	if cj.Spec.TimeZone != nil {
		if _, err := time.LoadLocation(*cj.Spec.TimeZone); err != nil {
			jm.Recorder.Eventf(cj, model.EventTypeWarning, "UnknownTimeZone", "invalid timeZone: %q: %s", *cj.Spec.TimeZone, err)
			return nil, updated, nil
		}
	}
	if cj.Spec.Suspend != nil && *cj.Spec.Suspend {
		return nil, updated, nil
	}
	sched, err := parseSchedule(cj)
	if err != nil {
		jm.Recorder.Eventf(cj, model.EventTypeWarning, "UnparseableSchedule", "unparseable schedule: %q : %s", cj.Spec.Schedule, err)
		return nil, updated, nil
	}
	_, most, m, err := mostRecentScheduleTime(cj, now, sched, true)
	if err != nil {
		jm.Recorder.Eventf(cj, model.EventTypeWarning, "InvalidSchedule", "invalid schedule: %s : %s", cj.Spec.Schedule, err)
		return nil, updated, nil
	}
	if most != nil && m == manyMissed {
		jm.Recorder.Eventf(cj, model.EventTypeWarning, "TooManyMissedTimes", "too many missed start times. Set or decrease .spec.startingDeadlineSeconds or check clock skew")
	}
	next := nextScheduleTimeDuration(cj, now, sched)
	if most == nil {
		return &next, updated, nil
	}
	scheduled := *most
	if sds := cj.Spec.StartingDeadlineSeconds; sds != nil && scheduled.Add(time.Duration(*sds)*time.Second).Before(now) {
		jm.Recorder.Eventf(cj, model.EventTypeWarning, "MissSchedule", "Missed scheduled time to start a job: %s", scheduled.UTC().Format(time.RFC1123Z))
		return &next, updated, nil
	}
	name := getJobName(cj, scheduled)
	if inActiveListByName(cj, name) || (cj.Status.LastScheduleTime != nil && wall(*cj.Status.LastScheduleTime).Equal(scheduled)) {
		return &next, updated, nil
	}
	if cj.Spec.ConcurrencyPolicy == model.ForbidConcurrent && len(cj.Status.Active) > 0 {
		jm.Recorder.Eventf(cj, model.EventTypeNormal, "JobAlreadyActive", "Not starting job because prior execution is running and concurrency policy is Forbid")
		jm.Kernel.Emit(Component, "forbid", "CronJob "+model.Key(cj), cj.ResourceVersion, "scheduled="+scheduled.UTC().Format(time.RFC3339))
		return &next, updated, nil
	}
	if cj.Spec.ConcurrencyPolicy == model.ReplaceConcurrent {
		for _, ref := range slices.Clone(cj.Status.Active) {
			if err := jm.deleteJob(ctx, cj, ref.Namespace, ref.Name); err != nil {
				return nil, updated, err
			}
			deleteFromActiveList(cj, ref.UID)
			updated = true
		}
	}
	jobReq := getJobFromTemplate2(cj, scheduled)
	created, err := jm.Client.Create(ctx, jobReq)
	switch {
	case apierrors.IsAlreadyExists(err):
		existing, gerr := jm.Client.Get(ctx, model.KindJob, jobReq.Namespace, jobReq.Name)
		if gerr != nil {
			return nil, updated, gerr
		}
		if ref := model.ControllerOf(existing); ref != nil && ref.UID == cj.UID && !inActiveList(cj, existing.Meta().UID) {
			cj.Status.Active = append(cj.Status.Active, objectRef(existing))
			updated = true
		}
		return &next, updated, nil
	case err != nil:
		jm.Recorder.Eventf(cj, model.EventTypeWarning, "FailedCreate", "Error creating job: %v", err)
		return nil, updated, err
	}
	jm.Recorder.Eventf(cj, model.EventTypeNormal, "SuccessfulCreate", "Created job %v", created.Meta().Name)
	jm.Kernel.Emit(Component, "create-job", "CronJob "+model.Key(cj), cj.ResourceVersion,
		fmt.Sprintf("job=%s scheduled=%s skew=%s", created.Meta().Name, scheduled.UTC().Format(time.RFC3339), now.Sub(scheduled)))
	cj.Status.Active = append(cj.Status.Active, objectRef(created))
	st := virtual(scheduled)
	cj.Status.LastScheduleTime = &st
	return &next, true, nil
}

func objectRef(o model.Object) model.ObjectReference {
	m := o.Meta()
	return model.ObjectReference{Kind: model.KindJob, Namespace: m.Namespace, Name: m.Name, UID: m.UID, APIVersion: "batch/v1", ResourceVersion: m.ResourceVersion}
}

// deleteJob is upstream deleteJob: a background-propagated delete, with its events.
func (jm *Controller) deleteJob(ctx context.Context, cj *model.CronJob, namespace, name string) error {
	bg := model.DeletePropagationBackground
	err := jm.Client.Delete(ctx, model.KindJob, namespace, name, model.DeleteOptions{PropagationPolicy: &bg})
	if err != nil && !apierrors.IsNotFound(err) {
		jm.Recorder.Eventf(cj, model.EventTypeWarning, "FailedDelete", "Deleted job: %v", err)
		return err
	}
	jm.Recorder.Eventf(cj, model.EventTypeNormal, "SuccessfulDelete", "Deleted job %v", name)
	return nil
}

// cleanupFinishedJobs is upstream cleanupFinishedJobs and removeOldestJobs: finished Jobs
// beyond successfulJobsHistoryLimit and failedJobsHistoryLimit are deleted, oldest first by
// start time (a Job without one is newest; names break ties: byJobStartTime).
func (jm *Controller) cleanupFinishedJobs(ctx context.Context, cj *model.CronJob, jobs []*model.Job) bool {
	if cj.Spec.SuccessfulJobsHistoryLimit == nil && cj.Spec.FailedJobsHistoryLimit == nil {
		return false
	}
	var ok, failed []*model.Job
	for _, j := range jobs {
		switch typ, _ := finishedType(j); typ {
		case model.JobComplete:
			ok = append(ok, j)
		case model.JobFailed:
			failed = append(failed, j)
		}
	}
	updated := false
	prune := func(list []*model.Job, limit *int32) {
		if limit == nil || len(list) <= int(*limit) {
			return
		}
		slices.SortStableFunc(list, byJobStartTime)
		for _, j := range list[:len(list)-int(*limit)] {
			if jm.deleteJob(ctx, cj, j.Namespace, j.Name) == nil && inActiveList(cj, j.UID) {
				deleteFromActiveList(cj, j.UID)
				updated = true
			}
		}
	}
	prune(ok, cj.Spec.SuccessfulJobsHistoryLimit)
	prune(failed, cj.Spec.FailedJobsHistoryLimit)
	return updated
}

func byJobStartTime(a, b *model.Job) int {
	as, bs := a.Status.StartTime, b.Status.StartTime
	switch {
	case as == nil && bs != nil:
		return 1
	case as != nil && bs == nil:
		return -1
	case as != nil && bs != nil && *as != *bs:
		if *as < *bs {
			return -1
		}
		return 1
	}
	return strings.Compare(a.Name, b.Name)
}
