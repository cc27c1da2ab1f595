package deployment

import (
	"context"
	"slices"

	"github.com/reconsim/reconsim/model"
)

// The Recreate strategy (upstream pkg/controller/deployment/recreate.go).

// rolloutRecreate scales every old ReplicaSet to 0, waits until no old pod runs, then creates
// the new ReplicaSet (only then: never scale up before scaling down) at full size, and cleans
// up when complete. Each step that changed something ends with syncRolloutStatus.
//
// Upstream's DeploymentPodReplacementPolicy gate (alpha, off by default) can also wait for
// terminating pods; it is not modelled: a pod counts as running until it is Succeeded or
// Failed or gone, whether or not it is terminating.
func (dc *Controller) rolloutRecreate(ctx context.Context, d *model.Deployment, rsList []*model.ReplicaSet, podMap map[string][]*model.Pod) error {
	newRS, oldRSs, err := dc.getAllReplicaSetsAndSyncRevision(ctx, d, rsList, false)
	if err != nil {
		return err
	}
	allRSs := append(slices.Clip(oldRSs), newRS)
	activeOldRSs := FilterActiveReplicaSets(oldRSs)

	scaledDown, err := dc.scaleDownOldReplicaSetsForRecreate(ctx, activeOldRSs, d)
	if err != nil {
		return err
	}
	if scaledDown {
		return dc.syncRolloutStatus(ctx, allRSs, newRS, d)
	}
	if oldPodsRunning(newRS, oldRSs, podMap) {
		return dc.syncRolloutStatus(ctx, allRSs, newRS, d)
	}
	if newRS == nil {
		newRS, oldRSs, err = dc.getAllReplicaSetsAndSyncRevision(ctx, d, rsList, true)
		if err != nil {
			return err
		}
		allRSs = append(slices.Clip(oldRSs), newRS)
	}
	if _, _, err := dc.scaleReplicaSetAndRecordEvent(ctx, newRS, deploymentReplicas(d), d); err != nil {
		return err
	}
	if DeploymentComplete(d, &d.Status) {
		if err := dc.cleanupDeployment(ctx, oldRSs, d); err != nil {
			return err
		}
	}
	return dc.syncRolloutStatus(ctx, allRSs, newRS, d)
}

// scaleDownOldReplicaSetsForRecreate scales every given ReplicaSet to 0 and reports whether any
// changed; it stops at the first error.
func (dc *Controller) scaleDownOldReplicaSetsForRecreate(ctx context.Context, oldRSs []*model.ReplicaSet, d *model.Deployment) (bool, error) {
	scaled := false
	for i, rs := range oldRSs {
		if rsReplicas(rs) == 0 {
			continue
		}
		changed, updated, err := dc.scaleReplicaSetAndRecordEvent(ctx, rs, 0, d)
		if err != nil {
			return false, err
		}
		if changed {
			oldRSs[i] = updated
			scaled = true
		}
	}
	return scaled, nil
}

// oldPodsRunning reports whether an old ReplicaSet still reports pods, or any pod of a
// ReplicaSet other than the new one is neither Succeeded nor Failed (upstream oldPodsRunning:
// Pending, Running and Unknown pods all count).
func oldPodsRunning(newRS *model.ReplicaSet, oldRSs []*model.ReplicaSet, podMap map[string][]*model.Pod) bool {
	if GetActualReplicaCountForReplicaSets(oldRSs) > 0 {
		return true
	}
	//detlint:ordered the answer is "any", which does not depend on order
	for rsUID, pods := range podMap {
		if newRS != nil && newRS.UID == rsUID {
			continue
		}
		for _, pod := range pods {
			if pod.Status.Phase != model.PodSucceeded && pod.Status.Phase != model.PodFailed {
				return true
			}
		}
	}
	return false
}
