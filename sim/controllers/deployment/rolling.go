package deployment

import (
	"context"
	"fmt"
	"slices"

	"github.com/reconsim/reconsim/model"
)

// The RollingUpdate strategy (upstream pkg/controller/deployment/rolling.go).

// rolloutRolling moves one step of a rolling update: create the new ReplicaSet if needed, then
// scale it up if the surge allows; if it did not, scale old ReplicaSets down if availability
// allows; if nothing moved and the rollout is complete, clean up old ReplicaSets. Each path ends
// with syncRolloutStatus.
func (dc *Controller) rolloutRolling(ctx context.Context, d *model.Deployment, rsList []*model.ReplicaSet) error {
	newRS, oldRSs, err := dc.getAllReplicaSetsAndSyncRevision(ctx, d, rsList, true)
	if err != nil {
		return err
	}
	allRSs := append(slices.Clip(oldRSs), newRS)

	scaledUp, err := dc.reconcileNewReplicaSet(ctx, allRSs, newRS, d)
	if err != nil {
		return err
	}
	if scaledUp {
		return dc.syncRolloutStatus(ctx, allRSs, newRS, d)
	}
	scaledDown, err := dc.reconcileOldReplicaSets(ctx, allRSs, FilterActiveReplicaSets(oldRSs), newRS, d)
	if err != nil {
		return err
	}
	if scaledDown {
		return dc.syncRolloutStatus(ctx, allRSs, newRS, d)
	}
	if DeploymentComplete(d, &d.Status) {
		if err := dc.cleanupDeployment(ctx, oldRSs, d); err != nil {
			return err
		}
	}
	return dc.syncRolloutStatus(ctx, allRSs, newRS, d)
}

// reconcileNewReplicaSet sizes the new ReplicaSet: down to spec.replicas if larger, else up to
// NewRSNewReplicas. It reports whether the size changed.
func (dc *Controller) reconcileNewReplicaSet(ctx context.Context, allRSs []*model.ReplicaSet, newRS *model.ReplicaSet, d *model.Deployment) (bool, error) {
	replicas := deploymentReplicas(d)
	if rsReplicas(newRS) == replicas {
		return false, nil
	}
	if rsReplicas(newRS) > replicas {
		scaled, _, err := dc.scaleReplicaSetAndRecordEvent(ctx, newRS, replicas, d)
		return scaled, err
	}
	newReplicasCount, err := NewRSNewReplicas(d, allRSs, newRS)
	if err != nil {
		return false, err
	}
	scaled, _, err := dc.scaleReplicaSetAndRecordEvent(ctx, newRS, newReplicasCount, d)
	return scaled, err
}

// reconcileOldReplicaSets scales old ReplicaSets down as far as availability allows and reports
// whether it did. At most maxScaledDown = sum(spec.replicas) - (replicas - maxUnavailable) -
// (newRS spec - newRS available) pods may go: first the old pods that are not available
// (cleanupUnhealthyReplicas, oldest ReplicaSet first), then available old pods while the
// available total stays above replicas - maxUnavailable
// (scaleDownOldReplicaSetsForRollingUpdate).
//
// As upstream, an error from either step ends the reconcile without error and without
// reporting a scale-down (rolling.go returns "false, nil"); the rollout then continues at the
// next sync.
func (dc *Controller) reconcileOldReplicaSets(ctx context.Context, allRSs, oldRSs []*model.ReplicaSet, newRS *model.ReplicaSet, d *model.Deployment) (bool, error) {
	if GetReplicaCountForReplicaSets(oldRSs) == 0 {
		return false, nil
	}
	allPodsCount := GetReplicaCountForReplicaSets(allRSs)
	minAvailable := deploymentReplicas(d) - MaxUnavailable(d)
	newRSUnavailablePodCount := rsReplicas(newRS) - newRS.Status.AvailableReplicas
	budget := maxScaledDown(allPodsCount, minAvailable, newRSUnavailablePodCount)
	if budget <= 0 {
		return false, nil
	}
	oldRSs, cleanupCount, err := dc.cleanupUnhealthyReplicas(ctx, oldRSs, d, budget)
	if err != nil {
		dc.Kernel.Emit(Component, "cleanup-unhealthy-error", dRef(d), 0, errorReason(err))
		return false, nil
	}
	allRSs = append(slices.Clip(oldRSs), newRS)
	scaledDownCount, err := dc.scaleDownOldReplicaSetsForRollingUpdate(ctx, allRSs, oldRSs, d)
	if err != nil {
		dc.Kernel.Emit(Component, "scale-down-error", dRef(d), 0, errorReason(err))
		return false, nil
	}
	return cleanupCount+scaledDownCount > 0, nil
}

// cleanupUnhealthyReplicas scales old ReplicaSets (oldest first, sorted in place) down by their
// unavailable replicas, at most maxCleanupCount in total, so that pods that never became
// available do not block the rollout (kubernetes issue 16737). It returns the ReplicaSets as
// updated, the number removed, and the first error.
func (dc *Controller) cleanupUnhealthyReplicas(ctx context.Context, oldRSs []*model.ReplicaSet, d *model.Deployment, maxCleanupCount int32) ([]*model.ReplicaSet, int32, error) {
	slices.SortStableFunc(oldRSs, compareByCreationTimestamp)
	var total int32
	for i, rs := range oldRSs {
		if total >= maxCleanupCount {
			break
		}
		replicas := rsReplicas(rs)
		if replicas == 0 || replicas == rs.Status.AvailableReplicas {
			continue
		}
		count := min(maxCleanupCount-total, replicas-rs.Status.AvailableReplicas)
		newCount := replicas - count
		if newCount > replicas {
			return nil, 0, fmt.Errorf("when cleaning up unhealthy replicas, got invalid request to scale down %s/%s %d -> %d", rs.Namespace, rs.Name, replicas, newCount)
		}
		_, updated, err := dc.scaleReplicaSetAndRecordEvent(ctx, rs, newCount, d)
		if err != nil {
			return nil, total, err
		}
		total += count
		oldRSs[i] = updated
	}
	return oldRSs, total, nil
}

// scaleDownOldReplicaSetsForRollingUpdate scales old ReplicaSets (oldest first) down by as many
// pods as the available total exceeds replicas - maxUnavailable. It returns the number removed
// and the first error.
func (dc *Controller) scaleDownOldReplicaSetsForRollingUpdate(ctx context.Context, allRSs, oldRSs []*model.ReplicaSet, d *model.Deployment) (int32, error) {
	minAvailable := deploymentReplicas(d) - MaxUnavailable(d)
	available := GetAvailableReplicaCountForReplicaSets(allRSs)
	if available <= minAvailable {
		return 0, nil
	}
	slices.SortStableFunc(oldRSs, compareByCreationTimestamp)
	var total int32
	totalScaleDownCount := available - minAvailable
	for _, rs := range oldRSs {
		if total >= totalScaleDownCount {
			break
		}
		replicas := rsReplicas(rs)
		if replicas == 0 {
			continue
		}
		count := min(replicas, totalScaleDownCount-total)
		newCount := replicas - count
		if newCount > replicas {
			return 0, fmt.Errorf("when scaling down old RS, got invalid request to scale down %s/%s %d -> %d", rs.Namespace, rs.Name, replicas, newCount)
		}
		if _, _, err := dc.scaleReplicaSetAndRecordEvent(ctx, rs, newCount, d); err != nil {
			return total, err
		}
		total += count
	}
	return total, nil
}
