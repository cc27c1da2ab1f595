package ttlafterfinished

import (
	"context"
	"fmt"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim"
	"github.com/reconsim/reconsim/sim/client"
	"github.com/reconsim/reconsim/sim/client/record"
	"github.com/reconsim/reconsim/sim/client/workqueue"
	"github.com/reconsim/reconsim/sim/controllers/internal/controllerutil"
	"github.com/reconsim/reconsim/vtime"
)

// Component is the controller's name in traces and its event source (upstream
// "ttl-after-finished-controller").
const Component = "ttl-after-finished-controller"

// Controller is the TTL-after-finished controller (upstream ttlafterfinished.Controller).
type Controller struct {
	controllerutil.Base
	cfg Config

	jobInformer *client.Informer

	// Deleted counts the Jobs this controller deleted.
	Deleted uint64
}

// New builds the controller on the shared Job informer of f.
func New(k *sim.Kernel, c *client.Client, f *client.SharedInformerFactory, rec record.Recorder, cfg Config) (*Controller, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	tc := &Controller{cfg: cfg, jobInformer: f.For(model.KindJob)}
	tc.Base = controllerutil.NewBase(k, c, rec, Component, "Job", "ttl_jobs_to_delete",
		workqueue.DefaultControllerRateLimiter[string](), tc.processJob)
	enqueue := func(obj model.Object) {
		if j, ok := client.ObjectAs[*model.Job](obj); ok && needsCleanup(j) {
			tc.Queue.Add(model.Key(j))
		}
	}
	tc.jobInformer.AddEventHandler(client.EventHandlerFuncs{
		AddFunc:    func(obj model.Object, _ bool) { enqueue(obj) },
		UpdateFunc: func(_, cur model.Object) { enqueue(cur) },
	})
	return tc, nil
}

// Start waits for the Job cache and starts the workers.
func (tc *Controller) Start() { tc.Loop.Start(tc.cfg.ConcurrentTTLSyncs, tc.jobInformer) }

// Stop kills the controller's processes.
func (tc *Controller) Stop() { tc.Loop.Stop() }

// needsCleanup is upstream needsCleanup: a finished Job with a TTL, not being deleted.
func needsCleanup(j *model.Job) bool {
	return j.Spec.TTLSecondsAfterFinished != nil && model.IsJobFinished(j) && j.DeletionTimestamp == nil
}

// timeLeft is upstream timeLeft: the finish time is the Complete or Failed condition's
// transition time; the Job expires TTL seconds after it.
func timeLeft(j *model.Job, now vtime.Time) (left time.Duration, expireAt vtime.Time, ok bool) {
	c, finished := model.JobFinishedCondition(j)
	if !finished || j.Spec.TTLSecondsAfterFinished == nil {
		return 0, 0, false
	}
	expireAt = c.LastTransitionTime.Add(time.Duration(*j.Spec.TTLSecondsAfterFinished) * time.Second)
	return expireAt.Sub(now), expireAt, true
}

// processJob is upstream processJob: if the cached Job expired, check again on a fresh GET (the
// TTL may have changed), then delete it in the foreground with a UID precondition, so its pods
// go first.
func (tc *Controller) processJob(ctx context.Context, key string) error {
	ns, name, _ := strings.Cut(key, "/")
	obj, ok := tc.jobInformer.Get(ns, name)
	if !ok {
		return nil
	}
	if expired, err := tc.processTTL(obj.(*model.Job)); err != nil || !expired {
		return err
	}
	fresh, err := tc.Client.Get(ctx, model.KindJob, ns, name)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	fj := fresh.(*model.Job)
	if expired, err := tc.processTTL(fj); err != nil || !expired {
		return err
	}
	fg := model.DeletePropagationForeground
	uid := fj.UID
	err = tc.Client.Delete(ctx, model.KindJob, ns, name, model.DeleteOptions{
		PropagationPolicy: &fg,
		Preconditions:     &model.Preconditions{UID: &uid},
	})
	if err != nil && !apierrors.IsNotFound(err) {
		return err
	}
	if err == nil {
		tc.Deleted++
		tc.Kernel.Emit(Component, "delete", "Job "+key, fj.ResourceVersion, fmt.Sprintf("ttl=%ds", *fj.Spec.TTLSecondsAfterFinished))
	}
	return nil
}

// processTTL is upstream processTTL: not expired yet requeues for the time left.
func (tc *Controller) processTTL(j *model.Job) (bool, error) {
	if !needsCleanup(j) {
		return false, nil
	}
	left, _, ok := timeLeft(j, tc.Kernel.Now())
	if !ok {
		return false, nil
	}
	if left > 0 {
		tc.Queue.AddAfter(model.Key(j), left)
		return false, nil
	}
	return true, nil
}
