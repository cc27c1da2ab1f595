package replicaset

import (
	"slices"

	"k8s.io/utils/ptr"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim/controllers/internal/controllerutil"
	"github.com/reconsim/reconsim/vtime"
)

// ReplicaSetReplicaFailure is the condition type the controller sets when it cannot create or
// delete pods (upstream apps.ReplicaSetReplicaFailure).
const ReplicaSetReplicaFailure = "ReplicaFailure"

// Event and condition reasons (upstream controller_utils.go).
const (
	FailedCreatePodReason     = controllerutil.FailedCreatePodReason
	SuccessfulCreatePodReason = controllerutil.SuccessfulCreatePodReason
	FailedDeletePodReason     = controllerutil.FailedDeletePodReason
	SuccessfulDeletePodReason = controllerutil.SuccessfulDeletePodReason
)

// calculateStatus computes the status the ReplicaSet should have (upstream
// replica_set_utils.go calculateStatus): replicas = active owned pods; fullyLabeledReplicas =
// those whose labels include every template label; readyReplicas = those Ready;
// availableReplicas = those Ready for more than minReadySeconds at now; terminatingReplicas =
// owned pods being deleted that have not finished (the DeploymentReplicaSetTerminatingReplicas
// gate, beta and on by default since 1.35, KEP-3973). A manageReplicas error sets the
// ReplicaFailure condition (reason FailedCreate when pods were missing, FailedDelete when
// there were too many) if it is not already set; success removes it.
//
// templateLabels are labelPairs(rs.Spec.Template.Labels) (selectorOf derives them once per
// version).
func calculateStatus(rs *model.ReplicaSet, templateLabels []labelPair, activePods []*podFacts, terminatingPods int, manageReplicasErr error, now vtime.Time) model.ReplicaSetStatus {
	newStatus := rs.Status
	newStatus.Conditions = slices.Clone(rs.Status.Conditions)
	// labels.Set(template labels).AsSelectorPreValidated() matches exactly the label maps
	// that hold every template label with its value.
	// The pods nearly all share one label set, which the matcher answers without a map probe.
	var fullyLabeled, ready, available int32
	fully := labelMatcher{sel: templateLabelSelector(templateLabels)}
	for _, f := range activePods {
		if fully.matches(f) {
			fullyLabeled++
		}
		if f.ready {
			ready++
			if model.ReadySinceAvailable(f.readySince, rs.Spec.MinReadySeconds, now) {
				available++
			}
		}
	}
	failureCond := getCondition(rs.Status, ReplicaSetReplicaFailure)
	switch {
	case manageReplicasErr != nil && failureCond == nil:
		var reason string
		if diff := len(activePods) - int(specReplicas(rs)); diff < 0 {
			reason = FailedCreatePodReason
		} else if diff > 0 {
			reason = FailedDeletePodReason
		}
		setCondition(&newStatus, model.ReplicaSetCondition{
			Type:               ReplicaSetReplicaFailure,
			Status:             model.ConditionTrue,
			LastTransitionTime: now,
			Reason:             reason,
			Message:            manageReplicasErr.Error(),
		})
	case manageReplicasErr == nil && failureCond != nil:
		removeCondition(&newStatus, ReplicaSetReplicaFailure)
	}
	newStatus.Replicas = int32(len(activePods))
	newStatus.FullyLabeledReplicas = fullyLabeled
	newStatus.ReadyReplicas = ready
	newStatus.AvailableReplicas = available
	// Stored objects are immutable, so an unchanged count keeps the stored pointer rather
	// than allocating an equal one on every sync.
	if cur := rs.Status.TerminatingReplicas; cur == nil || *cur != int32(terminatingPods) {
		newStatus.TerminatingReplicas = model.Ptr(int32(terminatingPods))
	}
	return newStatus
}

// specReplicas is spec.replicas, defaulting to 1 when unset as the API server's defaulting
// would have.
func specReplicas(rs *model.ReplicaSet) int32 {
	if rs.Spec.Replicas == nil {
		return 1
	}
	return *rs.Spec.Replicas
}

func getCondition(status model.ReplicaSetStatus, condType string) *model.ReplicaSetCondition {
	for i := range status.Conditions {
		if status.Conditions[i].Type == condType {
			c := status.Conditions[i]
			return &c
		}
	}
	return nil
}

// setCondition adds or replaces a condition; one with the same status and reason as the
// existing one is left alone, keeping its transition time (upstream SetCondition).
func setCondition(status *model.ReplicaSetStatus, c model.ReplicaSetCondition) {
	if cur := getCondition(*status, c.Type); cur != nil && cur.Status == c.Status && cur.Reason == c.Reason {
		return
	}
	removeCondition(status, c.Type)
	status.Conditions = append(status.Conditions, c)
}

func removeCondition(status *model.ReplicaSetStatus, condType string) {
	var out []model.ReplicaSetCondition
	for _, c := range status.Conditions {
		if c.Type != condType {
			out = append(out, c)
		}
	}
	status.Conditions = out
}

// statusUnchanged reports whether writing newStatus would change nothing (upstream
// updateReplicaSetStatus's steady-state check, which includes observedGeneration).
func statusUnchanged(rs *model.ReplicaSet, newStatus model.ReplicaSetStatus) bool {
	cur := rs.Status
	return cur.Replicas == newStatus.Replicas &&
		cur.FullyLabeledReplicas == newStatus.FullyLabeledReplicas &&
		cur.ReadyReplicas == newStatus.ReadyReplicas &&
		cur.AvailableReplicas == newStatus.AvailableReplicas &&
		ptr.Equal(cur.TerminatingReplicas, newStatus.TerminatingReplicas) &&
		rs.Generation == cur.ObservedGeneration &&
		slices.Equal(cur.Conditions, newStatus.Conditions)
}
