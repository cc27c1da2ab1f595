package deployment

import (
	"context"
	"fmt"
	"reflect"
	"time"

	"github.com/reconsim/reconsim/model"
)

// Progress reporting (upstream pkg/controller/deployment/progress.go).

// syncRolloutStatus writes the status of a Deployment during a rollout, with the Progressing
// condition estimated as upstream:
//
//   - without progressDeadlineSeconds there is no Progressing condition;
//   - a rollout already complete (reason NewReplicaSetAvailable and no old replicas) is not
//     estimated again;
//   - otherwise, in this order: complete now gives True NewReplicaSetAvailable; any progress
//     (DeploymentProgressing) gives True ReplicaSetUpdated with lastUpdateTime now (the
//     transition time kept while it stays True); a Progressing condition older than the
//     deadline gives False ProgressDeadlineExceeded.
//
// A ReplicaFailure condition of the new (else any) ReplicaSet is copied. When nothing changed,
// a rollout that is neither complete nor timed out is requeued for its deadline check
// (requeueStuckDeployment). It returns the status write's error.
func (dc *Controller) syncRolloutStatus(ctx context.Context, allRSs []*model.ReplicaSet, newRS *model.ReplicaSet, d *model.Deployment) error {
	now := dc.Kernel.Now()
	newStatus := calculateStatus(allRSs, newRS, d, now)
	if !HasProgressDeadline(d) {
		RemoveDeploymentCondition(&newStatus, model.DeploymentProgressing)
	}
	currentCond := GetDeploymentCondition(d.Status, model.DeploymentProgressing)
	isCompleteDeployment := newStatus.Replicas == newStatus.UpdatedReplicas && currentCond != nil && currentCond.Reason == NewRSAvailableReason
	if HasProgressDeadline(d) && !isCompleteDeployment {
		switch {
		case DeploymentComplete(d, &newStatus):
			msg := fmt.Sprintf("Deployment %q has successfully progressed.", d.Name)
			if newRS != nil {
				msg = fmt.Sprintf("ReplicaSet %q has successfully progressed.", newRS.Name)
			}
			SetDeploymentCondition(&newStatus, NewDeploymentCondition(model.DeploymentProgressing, model.ConditionTrue, NewRSAvailableReason, msg, now))
		case DeploymentProgressing(d, &newStatus):
			msg := fmt.Sprintf("Deployment %q is progressing.", d.Name)
			if newRS != nil {
				msg = fmt.Sprintf("ReplicaSet %q is progressing.", newRS.Name)
			}
			cond := NewDeploymentCondition(model.DeploymentProgressing, model.ConditionTrue, ReplicaSetUpdatedReason, msg, now)
			// Progress moves lastUpdateTime even when the reason stays the same, which
			// SetDeploymentCondition alone would not do.
			if currentCond != nil {
				if currentCond.Status == model.ConditionTrue {
					cond.LastTransitionTime = currentCond.LastTransitionTime
				}
				RemoveDeploymentCondition(&newStatus, model.DeploymentProgressing)
			}
			SetDeploymentCondition(&newStatus, cond)
		case DeploymentTimedOut(d, &newStatus, now):
			msg := fmt.Sprintf("Deployment %q has timed out progressing.", d.Name)
			if newRS != nil {
				msg = fmt.Sprintf("ReplicaSet %q has timed out progressing.", newRS.Name)
			}
			SetDeploymentCondition(&newStatus, NewDeploymentCondition(model.DeploymentProgressing, model.ConditionFalse, TimedOutReason, msg, now))
		}
	}
	if failures := getReplicaFailures(allRSs, newRS); len(failures) > 0 {
		SetDeploymentCondition(&newStatus, failures[0])
	} else {
		RemoveDeploymentCondition(&newStatus, model.DeploymentReplicaFailure)
	}
	if reflect.DeepEqual(d.Status, newStatus) {
		dc.requeueStuckDeployment(d, newStatus)
		return nil
	}
	d.Status = newStatus
	return dc.updateStatus(ctx, d)
}

// getReplicaFailures returns the ReplicaFailure conditions of the new ReplicaSet, or if it has
// none, of all of them, as Deployment conditions.
func getReplicaFailures(allRSs []*model.ReplicaSet, newRS *model.ReplicaSet) []model.DeploymentCondition {
	var out []model.DeploymentCondition
	if newRS != nil {
		for _, c := range newRS.Status.Conditions {
			if c.Type == model.DeploymentReplicaFailure {
				out = append(out, replicaSetToDeploymentCondition(c))
			}
		}
	}
	if len(out) > 0 {
		return out
	}
	for _, rs := range allRSs {
		if rs == nil {
			continue
		}
		for _, c := range rs.Status.Conditions {
			if c.Type == model.DeploymentReplicaFailure {
				out = append(out, replicaSetToDeploymentCondition(c))
			}
		}
	}
	return out
}

// requeueStuckDeployment schedules the progress check of a rollout that shows no progress now:
// at lastUpdateTime + progressDeadlineSeconds (plus a second against clock skew, kubernetes
// issue 39785), or at once rate-limited when that is less than a second away. It returns the
// delay, 0 for "now", or -1 when no check is needed (no deadline or no Progressing condition,
// complete, or already timed out). In the last case a check still pending is cancelled: upstream
// leaves the delayed item in the queue, where it only causes a sync that changes nothing, but
// here a pending check holds off quiescence (see enqueueAfter).
func (dc *Controller) requeueStuckDeployment(d *model.Deployment, newStatus model.DeploymentStatus) time.Duration {
	currentCond := GetDeploymentCondition(d.Status, model.DeploymentProgressing)
	if !HasProgressDeadline(d) || currentCond == nil ||
		DeploymentComplete(d, &newStatus) || currentCond.Reason == TimedOutReason {
		dc.forgetProgressCheck(model.Key(d))
		return -1
	}
	deadline := currentCond.LastUpdateTime.Add(time.Duration(*d.Spec.ProgressDeadlineSeconds) * time.Second)
	after := deadline.Sub(dc.Kernel.Now())
	dc.stats.ProgressChecks++
	if after < time.Second {
		dc.Kernel.Emit(Component, "progress-check", dRef(d), 0, "now")
		dc.enqueueRateLimited(d)
		return 0
	}
	dc.Kernel.Emit(Component, "progress-check", dRef(d), 0, "after="+(after+time.Second).String())
	dc.enqueueAfter(d, after+time.Second)
	return after
}
