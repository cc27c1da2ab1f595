package deployment

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strconv"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim/client"
	"github.com/reconsim/reconsim/vtime"
)

// The scaling, status and history code of upstream pkg/controller/deployment/sync.go.

// syncStatusOnly writes the status and changes nothing else (a Deployment being deleted).
func (dc *Controller) syncStatusOnly(ctx context.Context, d *model.Deployment, rsList []*model.ReplicaSet) error {
	newRS, oldRSs, err := dc.getAllReplicaSetsAndSyncRevision(ctx, d, rsList, false)
	if err != nil {
		return err
	}
	return dc.syncDeploymentStatus(ctx, append(oldRSs, newRS), newRS, d)
}

// sync handles scaling events and paused Deployments: it resizes the ReplicaSets (scale), never
// creates a new one, cleans up old ones when paused, and writes the status.
func (dc *Controller) sync(ctx context.Context, d *model.Deployment, rsList []*model.ReplicaSet) error {
	newRS, oldRSs, err := dc.getAllReplicaSetsAndSyncRevision(ctx, d, rsList, false)
	if err != nil {
		return err
	}
	if err := dc.scale(ctx, d, newRS, oldRSs); err != nil {
		return err
	}
	if d.Spec.Paused {
		if err := dc.cleanupDeployment(ctx, oldRSs, d); err != nil {
			return err
		}
	}
	return dc.syncDeploymentStatus(ctx, append(oldRSs, newRS), newRS, d)
}

// checkPausedConditions records a pause or a resume in the Progressing condition (reason
// DeploymentPaused or DeploymentResumed, status Unknown), so that the time spent paused does not
// count against progressDeadlineSeconds. A ProgressDeadlineExceeded condition is never
// overwritten. It returns the status write's error.
func (dc *Controller) checkPausedConditions(ctx context.Context, d *model.Deployment) error {
	if !HasProgressDeadline(d) {
		return nil
	}
	cond := GetDeploymentCondition(d.Status, model.DeploymentProgressing)
	if cond != nil && cond.Reason == TimedOutReason {
		return nil
	}
	pausedCondExists := cond != nil && cond.Reason == PausedDeployReason
	now := dc.Kernel.Now()
	switch {
	case d.Spec.Paused && !pausedCondExists:
		SetDeploymentCondition(&d.Status, NewDeploymentCondition(model.DeploymentProgressing, model.ConditionUnknown, PausedDeployReason, "Deployment is paused", now))
	case !d.Spec.Paused && pausedCondExists:
		SetDeploymentCondition(&d.Status, NewDeploymentCondition(model.DeploymentProgressing, model.ConditionUnknown, ResumedDeployReason, "Deployment is resumed", now))
	default:
		return nil
	}
	return dc.updateStatus(ctx, d)
}

// getAllReplicaSetsAndSyncRevision splits rsList into the new ReplicaSet (the one whose template
// is the Deployment's; created if missing and createIfNotExisted) and all the old ones, and
// brings the revision annotations of the new ReplicaSet and the Deployment up to date.
func (dc *Controller) getAllReplicaSetsAndSyncRevision(ctx context.Context, d *model.Deployment, rsList []*model.ReplicaSet, createIfNotExisted bool) (*model.ReplicaSet, []*model.ReplicaSet, error) {
	_, allOldRSs := FindOldReplicaSets(d, rsList)
	newRS, err := dc.getNewReplicaSet(ctx, d, rsList, allOldRSs, createIfNotExisted)
	if err != nil {
		return nil, nil, err
	}
	return newRS, allOldRSs, nil
}

// getNewReplicaSet returns the ReplicaSet that matches the Deployment's template, or nil if
// there is none and createIfNotExisted is false (upstream getNewReplicaSet):
//
//   - An existing one gets the Deployment's annotations, revision max(old)+1 and minReadySeconds
//     (one update, whose result is returned); otherwise the Deployment's revision annotation is
//     synced and, with a deadline and no Progressing condition yet, FoundNewReplicaSet recorded.
//   - A new one is named <deployment>-<hash>, hash = ComputeHash(template, collisionCount), with
//     pod-template-hash=<hash> in its labels, selector and template, sized by NewRSNewReplicas.
//     If the name exists with another template (a hash collision) status.collisionCount is
//     bumped and the AlreadyExists error returned, so the next sync hashes differently. Any
//     other create error sets Progressing=False ReplicaSetCreateError and records a warning.
//
// As upstream, the status writes here do not refresh d's resourceVersion: a later status write
// in the same sync then fails with a Conflict and the key is retried.
func (dc *Controller) getNewReplicaSet(ctx context.Context, d *model.Deployment, rsList, oldRSs []*model.ReplicaSet, createIfNotExisted bool) (*model.ReplicaSet, error) {
	existingNewRS := FindNewReplicaSet(d, rsList)
	newRevision := strconv.FormatInt(MaxRevision(oldRSs)+1, 10)
	now := dc.Kernel.Now()

	if existingNewRS != nil {
		rsCopy := existingNewRS.DeepCopy()
		annotationsUpdated := SetNewReplicaSetAnnotations(d, rsCopy, newRevision, true, maxRevHistoryLengthInChars)
		if annotationsUpdated || rsCopy.Spec.MinReadySeconds != d.Spec.MinReadySeconds {
			rsCopy.Spec.MinReadySeconds = d.Spec.MinReadySeconds
			return dc.writeReplicaSet(ctx, rsCopy)
		}
		needsUpdate := SetDeploymentRevision(d, rsCopy.Annotations[RevisionAnnotation])
		if HasProgressDeadline(d) && GetDeploymentCondition(d.Status, model.DeploymentProgressing) == nil {
			msg := fmt.Sprintf("Found new replica set %q", rsCopy.Name)
			SetDeploymentCondition(&d.Status, NewDeploymentCondition(model.DeploymentProgressing, model.ConditionTrue, FoundNewRSReason, msg, now))
			needsUpdate = true
		}
		if needsUpdate {
			if err := dc.updateStatus(ctx, d); err != nil {
				return nil, err
			}
		}
		return rsCopy, nil
	}
	if !createIfNotExisted {
		return nil, nil
	}

	var template model.PodTemplateSpec
	d.Spec.Template.DeepCopyInto(&template)
	hash := ComputeHash(&template, d.Status.CollisionCount)
	template.Labels = cloneAndAddLabel(d.Spec.Template.Labels, DefaultDeploymentUniqueLabelKey, hash)
	newRS := &model.ReplicaSet{}
	newRS.Name = d.Name + "-" + hash
	newRS.Namespace = d.Namespace
	newRS.OwnerReferences = []model.OwnerReference{deploymentControllerRef(d)}
	newRS.Labels = cloneAndAddLabel(template.Labels, "", "")
	newRS.Spec = model.ReplicaSetSpec{
		Replicas:        model.Ptr(int32(0)),
		MinReadySeconds: d.Spec.MinReadySeconds,
		Selector:        cloneSelectorAndAddLabel(d.Spec.Selector, DefaultDeploymentUniqueLabelKey, hash),
		Template:        template,
	}
	newReplicasCount, err := NewRSNewReplicas(d, append(slices.Clip(oldRSs), newRS), newRS)
	if err != nil {
		return nil, err
	}
	newRS.Spec.Replicas = model.Ptr(newReplicasCount)
	SetNewReplicaSetAnnotations(d, newRS, newRevision, false, maxRevHistoryLengthInChars)

	alreadyExists := false
	var createdRS *model.ReplicaSet
	obj, err := dc.Client.Create(ctx, newRS)
	switch {
	case err == nil:
		createdRS, _ = obj.(*model.ReplicaSet)
		if createdRS == nil {
			return nil, fmt.Errorf("deployment: create ReplicaSet %s returned a %s", newRS.Name, obj.GetKind())
		}
		dc.stats.ReplicaSetsCreated++
		dc.Kernel.Emit(Component, "create-rs", "ReplicaSet "+model.Key(createdRS), createdRS.ResourceVersion, fmt.Sprintf("replicas=%d revision=%s for %s", newReplicasCount, newRevision, dRef(d)))
	case apierrors.IsAlreadyExists(err):
		// A slow cache or a fast resync, or a hash collision.
		alreadyExists = true
		cached, ok := dc.rsInformer.Get(newRS.Namespace, newRS.Name)
		if !ok {
			dc.stats.CreateErrors++
			return nil, apierrors.NewNotFound(rsGroupResource, newRS.Name)
		}
		rs, _ := client.ObjectAs[*model.ReplicaSet](cached)
		if rs != nil && isControlledBy(rs, d) && EqualIgnoreHash(&d.Spec.Template, &rs.Spec.Template) {
			createdRS = rs
			break
		}
		dc.stats.CreateErrors++
		dc.stats.Collisions++
		prev := int32(0)
		if d.Status.CollisionCount != nil {
			prev = *d.Status.CollisionCount
		}
		d.Status.CollisionCount = model.Ptr(prev + 1)
		dc.Kernel.Emit(Component, "collision", dRef(d), 0, fmt.Sprintf("replicaset=%s collisionCount=%d->%d", newRS.Name, prev, prev+1))
		_ = dc.updateStatus(ctx, d)
		return nil, err
	case apierrors.HasStatusCause(err, model.NamespaceTerminatingCause):
		dc.stats.CreateErrors++
		return nil, err
	default:
		dc.stats.CreateErrors++
		msg := fmt.Sprintf("Failed to create new replica set %q: %v", newRS.Name, err)
		if HasProgressDeadline(d) {
			SetDeploymentCondition(&d.Status, NewDeploymentCondition(model.DeploymentProgressing, model.ConditionFalse, FailedRSCreateReason, msg, now))
			_ = dc.updateStatus(ctx, d)
		}
		dc.Recorder.Eventf(d, model.EventTypeWarning, FailedRSCreateReason, "%s", msg)
		return nil, err
	}
	if !alreadyExists && newReplicasCount > 0 {
		dc.stats.ScaleUps++
		dc.Recorder.Eventf(d, model.EventTypeNormal, ScalingReplicaSetReason, "Scaled up replica set %s from 0 to %d", createdRS.Name, newReplicasCount)
	}
	needsUpdate := SetDeploymentRevision(d, newRevision)
	if !alreadyExists && HasProgressDeadline(d) {
		msg := fmt.Sprintf("Created new replica set %q", createdRS.Name)
		SetDeploymentCondition(&d.Status, NewDeploymentCondition(model.DeploymentProgressing, model.ConditionTrue, NewReplicaSetReason, msg, now))
		needsUpdate = true
	}
	if needsUpdate {
		err = dc.updateStatus(ctx, d)
	}
	return createdRS, err
}

// cloneAndAddLabel returns a copy of m with key=value added (nothing added for an empty key).
func cloneAndAddLabel(m map[string]string, key, value string) map[string]string {
	out := make(map[string]string, len(m)+1)
	//detlint:ordered copying every entry gives the same map in any order
	for k, v := range m {
		out[k] = v
	}
	if key != "" {
		out[key] = value
	}
	return out
}

// cloneSelectorAndAddLabel returns a copy of sel whose matchLabels include key=value (upstream
// labelsutil.CloneSelectorAndAddLabel).
func cloneSelectorAndAddLabel(sel *metav1.LabelSelector, key, value string) *metav1.LabelSelector {
	out := &metav1.LabelSelector{}
	if sel != nil {
		sel.DeepCopyInto(out)
	}
	out.MatchLabels = cloneAndAddLabel(out.MatchLabels, key, value)
	return out
}

// scale resizes the ReplicaSets of a Deployment whose replicas changed, or that is paused
// (upstream scale): with one active (or, with none, the newest) ReplicaSet, that one gets
// spec.replicas; when the new ReplicaSet is saturated, the old ones go to 0; otherwise, for a
// rolling Deployment, the difference is shared out in proportion to the current sizes
// (proportionalSizes). It returns the first update error.
func (dc *Controller) scale(ctx context.Context, d *model.Deployment, newRS *model.ReplicaSet, oldRSs []*model.ReplicaSet) error {
	replicas := deploymentReplicas(d)
	if activeOrLatest := FindActiveOrLatest(newRS, oldRSs); activeOrLatest != nil {
		if rsReplicas(activeOrLatest) == replicas {
			return nil
		}
		_, _, err := dc.scaleReplicaSetAndRecordEvent(ctx, activeOrLatest, replicas, d)
		return err
	}
	if IsSaturated(d, newRS) {
		for _, old := range FilterActiveReplicaSets(oldRSs) {
			if _, _, err := dc.scaleReplicaSetAndRecordEvent(ctx, old, 0, d); err != nil {
				return err
			}
		}
		return nil
	}
	if IsRollingUpdate(d) {
		ordered, sizes, operation := proportionalSizes(d, append(slices.Clip(oldRSs), newRS))
		for i, rs := range ordered {
			if _, _, err := dc.scaleReplicaSet(ctx, rs, sizes[i], d, operation); err != nil {
				return err
			}
		}
	}
	return nil
}

// scaleReplicaSetAndRecordEvent resizes rs to newScale unless it has that size already.
func (dc *Controller) scaleReplicaSetAndRecordEvent(ctx context.Context, rs *model.ReplicaSet, newScale int32, d *model.Deployment) (bool, *model.ReplicaSet, error) {
	if rsReplicas(rs) == newScale {
		return false, rs, nil
	}
	operation := "down"
	if rsReplicas(rs) < newScale {
		operation = "up"
	}
	return dc.scaleReplicaSet(ctx, rs, newScale, d, operation)
}

// scaleReplicaSet writes newScale and the replicas annotations (desired-replicas = spec.replicas,
// max-replicas = spec.replicas + maxSurge) if either differs, and records ScalingReplicaSet
// "Scaled <up|down> replica set <name> from <old> to <new>" when the size changed. It returns
// whether the size changed, the ReplicaSet as written (nil on error) and the update error.
func (dc *Controller) scaleReplicaSet(ctx context.Context, rs *model.ReplicaSet, newScale int32, d *model.Deployment, operation string) (bool, *model.ReplicaSet, error) {
	replicas := deploymentReplicas(d)
	maxReplicas := replicas + MaxSurge(d)
	sizeNeedsUpdate := rsReplicas(rs) != newScale
	if !sizeNeedsUpdate && !ReplicasAnnotationsNeedUpdate(rs, replicas, maxReplicas) {
		return false, rs, nil
	}
	oldScale := rsReplicas(rs)
	rsCopy := rs.DeepCopy()
	rsCopy.Spec.Replicas = model.Ptr(newScale)
	SetReplicasAnnotations(rsCopy, replicas, maxReplicas)
	updated, err := dc.writeReplicaSet(ctx, rsCopy)
	if err != nil || !sizeNeedsUpdate {
		return false, updated, err
	}
	if newScale > oldScale {
		dc.stats.ScaleUps++
	} else {
		dc.stats.ScaleDowns++
	}
	dc.Kernel.Emit(Component, "scale-rs", "ReplicaSet "+model.Key(updated), updated.ResourceVersion, fmt.Sprintf("%d->%d for %s", oldScale, newScale, dRef(d)))
	dc.Recorder.Eventf(d, model.EventTypeNormal, ScalingReplicaSetReason, "Scaled %s replica set %s from %d to %d", operation, updated.Name, oldScale, newScale)
	return true, updated, nil
}

// rsGroupResource names ReplicaSets in API errors made here.
var rsGroupResource = schema.GroupResource{Group: "apps", Resource: "replicasets"}

// writeReplicaSet writes rs (main resource) and returns the stored copy.
func (dc *Controller) writeReplicaSet(ctx context.Context, rs *model.ReplicaSet) (*model.ReplicaSet, error) {
	obj, err := dc.Client.Update(ctx, rs)
	if err != nil {
		dc.Kernel.Emit(Component, "update-rs-error", "ReplicaSet "+model.Key(rs), rs.ResourceVersion, errorReason(err))
		return nil, err
	}
	out, ok := client.ObjectAs[*model.ReplicaSet](obj)
	if !ok {
		return nil, fmt.Errorf("deployment: update ReplicaSet %s returned a %s", model.Key(rs), obj.GetKind())
	}
	return out, nil
}

// cleanupDeployment deletes the oldest old ReplicaSets beyond revisionHistoryLimit that are
// fully scaled down and observed (upstream cleanupDeployment). It returns the first delete
// error other than NotFound, without trying the rest.
func (dc *Controller) cleanupDeployment(ctx context.Context, oldRSs []*model.ReplicaSet, d *model.Deployment) error {
	if !HasRevisionHistoryLimit(d) {
		return nil
	}
	for _, rs := range replicaSetsToCleanUp(oldRSs, *d.Spec.RevisionHistoryLimit) {
		err := dc.Client.Delete(ctx, model.KindReplicaSet, rs.Namespace, rs.Name, model.DeleteOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			return err
		}
		if err == nil {
			dc.stats.ReplicaSetsDeleted++
			dc.Kernel.Emit(Component, "cleanup-rs", "ReplicaSet "+model.Key(rs), 0, fmt.Sprintf("revision=%s for %s", rs.Annotations[RevisionAnnotation], dRef(d)))
		}
	}
	return nil
}

// replicaSetsToCleanUp chooses what cleanupDeployment deletes: of the old ReplicaSets not being
// deleted, the len-limit with the lowest revisions, skipping any that still has replicas (spec
// or status) or whose status has not observed its generation.
func replicaSetsToCleanUp(oldRSs []*model.ReplicaSet, limit int32) []*model.ReplicaSet {
	var alive []*model.ReplicaSet
	for _, rs := range oldRSs {
		if rs != nil && rs.DeletionTimestamp == nil {
			alive = append(alive, rs)
		}
	}
	diff := len(alive) - int(limit)
	if diff <= 0 {
		return nil
	}
	slices.SortStableFunc(alive, compareByRevision)
	var out []*model.ReplicaSet
	for _, rs := range alive[:diff] {
		if rs.Status.Replicas != 0 || rsReplicas(rs) != 0 || rs.Generation > rs.Status.ObservedGeneration {
			continue
		}
		out = append(out, rs)
	}
	return out
}

// syncDeploymentStatus writes calculateStatus if it differs from the current status.
func (dc *Controller) syncDeploymentStatus(ctx context.Context, allRSs []*model.ReplicaSet, newRS *model.ReplicaSet, d *model.Deployment) error {
	newStatus := calculateStatus(allRSs, newRS, d, dc.Kernel.Now())
	if reflect.DeepEqual(d.Status, newStatus) {
		return nil
	}
	d.Status = newStatus
	return dc.updateStatus(ctx, d)
}

// calculateStatus is the Deployment's status as its ReplicaSets report it (upstream
// calculateStatus): replicas, updated (the new ReplicaSet's), ready, available and terminating
// replicas from the ReplicaSets' statuses, unavailable = sum of spec.replicas - available
// (never negative), observedGeneration = generation, the collision count carried over, and the
// Available condition (True MinimumReplicasAvailable when available >= replicas -
// maxUnavailable, else False MinimumReplicasUnavailable). Other conditions are carried over.
func calculateStatus(allRSs []*model.ReplicaSet, newRS *model.ReplicaSet, d *model.Deployment, now vtime.Time) model.DeploymentStatus {
	available := GetAvailableReplicaCountForReplicaSets(allRSs)
	total := GetReplicaCountForReplicaSets(allRSs)
	status := model.DeploymentStatus{
		ObservedGeneration:  d.Generation,
		Replicas:            GetActualReplicaCountForReplicaSets(allRSs),
		UpdatedReplicas:     GetActualReplicaCountForReplicaSets([]*model.ReplicaSet{newRS}),
		ReadyReplicas:       GetReadyReplicaCountForReplicaSets(allRSs),
		AvailableReplicas:   available,
		UnavailableReplicas: max(total-available, 0),
		TerminatingReplicas: GetTerminatingReplicaCountForReplicaSets(allRSs),
		CollisionCount:      d.Status.CollisionCount,
	}
	status.Conditions = append(status.Conditions, d.Status.Conditions...)
	if available >= deploymentReplicas(d)-MaxUnavailable(d) {
		SetDeploymentCondition(&status, NewDeploymentCondition(model.DeploymentAvailable, model.ConditionTrue, MinimumReplicasAvailable, "Deployment has minimum availability.", now))
	} else {
		SetDeploymentCondition(&status, NewDeploymentCondition(model.DeploymentAvailable, model.ConditionFalse, MinimumReplicasUnavailable, "Deployment does not have minimum availability.", now))
	}
	return status
}

// isScalingEvent reports whether an active ReplicaSet's desired-replicas annotation differs
// from spec.replicas: the user resized the Deployment rather than changing its template.
func (dc *Controller) isScalingEvent(ctx context.Context, d *model.Deployment, rsList []*model.ReplicaSet) (bool, error) {
	newRS, oldRSs, err := dc.getAllReplicaSetsAndSyncRevision(ctx, d, rsList, false)
	if err != nil {
		return false, err
	}
	for _, rs := range FilterActiveReplicaSets(append(oldRSs, newRS)) {
		desired, ok := GetDesiredReplicasAnnotation(rs)
		if ok && desired != deploymentReplicas(d) {
			return true, nil
		}
	}
	return false, nil
}

// updateStatus writes d's status. Like upstream it leaves d as it was (resourceVersion
// included), so a second write in one sync conflicts and the sync is retried.
func (dc *Controller) updateStatus(ctx context.Context, d *model.Deployment) error {
	obj, err := dc.Client.UpdateStatus(ctx, d)
	if err != nil {
		dc.stats.StatusUpdateErrors++
		dc.Kernel.Emit(Component, "update-status-error", dRef(d), d.ResourceVersion, errorReason(err))
		return err
	}
	dc.stats.StatusUpdates++
	if out, ok := client.ObjectAs[*model.Deployment](obj); ok {
		dc.Kernel.Emit(Component, "update-status", dRef(out), out.ResourceVersion, statusSummary(out))
	}
	return nil
}

// statusSummary is the trace detail of a status write.
func statusSummary(d *model.Deployment) string {
	s := d.Status
	out := fmt.Sprintf("replicas=%d updated=%d ready=%d available=%d unavailable=%d",
		s.Replicas, s.UpdatedReplicas, s.ReadyReplicas, s.AvailableReplicas, s.UnavailableReplicas)
	if s.TerminatingReplicas != nil {
		out += fmt.Sprintf(" terminating=%d", *s.TerminatingReplicas)
	}
	out += fmt.Sprintf(" observedGeneration=%d", s.ObservedGeneration)
	if s.CollisionCount != nil {
		out += fmt.Sprintf(" collisionCount=%d", *s.CollisionCount)
	}
	for _, c := range s.Conditions {
		out += fmt.Sprintf(" %s=%s/%s", c.Type, c.Status, c.Reason)
	}
	return out
}
