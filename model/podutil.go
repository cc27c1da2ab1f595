package model

import (
	"time"

	"github.com/reconsim/reconsim/vtime"
)

// Pod helpers of upstream pkg/api/v1/pod/util.go and pkg/controller/controller_utils.go (release
// 1.33). They live with the API types, as upstream's podutil does, so that controllers, the
// API server's eviction, the kubelet, the metrics server and the verdicts read readiness one way.

// GetPodCondition returns the pod's condition of type typ, or nil (upstream
// pkg/api/v1/pod/util.go GetPodConditionFromList).
func GetPodCondition(pod *Pod, typ string) *PodCondition {
	for i := range pod.Status.Conditions {
		if pod.Status.Conditions[i].Type == typ {
			return &pod.Status.Conditions[i]
		}
	}
	return nil
}

// GetPodReadyCondition returns the pod's Ready condition, or nil (upstream
// podutil.GetPodReadyCondition).
func GetPodReadyCondition(pod *Pod) *PodCondition {
	return GetPodCondition(pod, PodReady)
}

// IsPodReady reports whether the pod's Ready condition is True (upstream podutil.IsPodReady).
func IsPodReady(pod *Pod) bool {
	c := GetPodReadyCondition(pod)
	return c != nil && c.Status == ConditionTrue
}

// IsPodAvailable reports whether the pod has been Ready for more than minReadySeconds at now
// (upstream podutil.IsPodAvailable): a pod that is not Ready is never available; with
// minReadySeconds 0 a Ready pod is available at once; otherwise the Ready condition's
// lastTransitionTime plus minReadySeconds must lie strictly before now.
//
// Upstream also treats an unset (zero) lastTransitionTime as "not available". In the simulator
// time 0 is the first instant of the run, a real time that the kubelet may write, so it is
// not treated as unset.
func IsPodAvailable(pod *Pod, minReadySeconds int32, now vtime.Time) bool {
	c := GetPodReadyCondition(pod)
	if c == nil || c.Status != ConditionTrue {
		return false
	}
	return ReadySinceAvailable(c.LastTransitionTime, minReadySeconds, now)
}

// ReadySinceAvailable is IsPodAvailable for a pod that has been Ready since readySince.
func ReadySinceAvailable(readySince vtime.Time, minReadySeconds int32, now vtime.Time) bool {
	if minReadySeconds <= 0 {
		return true
	}
	return readySince.Add(time.Duration(minReadySeconds) * time.Second).Before(now)
}

// IsPodActive reports whether a pod still counts as a replica: its phase is neither Succeeded
// nor Failed and it is not being deleted (upstream controller_utils.go IsPodActive).
func IsPodActive(pod *Pod) bool {
	return pod.Status.Phase != PodSucceeded && pod.Status.Phase != PodFailed && pod.DeletionTimestamp == nil
}

// IsPodTerminal reports whether the pod's phase is Succeeded or Failed (upstream
// podutil.IsPodTerminal).
func IsPodTerminal(pod *Pod) bool {
	return pod.Status.Phase == PodSucceeded || pod.Status.Phase == PodFailed
}

// UpdatePodCondition sets condition in status, replacing the condition of its type or
// appending it, and reports whether the status changed in any field (upstream
// pkg/api/v1/pod/util.go UpdatePodCondition, release 1.33). LastTransitionTime is now, unless
// the condition's status is unchanged, when the old transition time is kept.
func UpdatePodCondition(status *PodStatus, condition PodCondition, now vtime.Time) bool {
	condition.LastTransitionTime = now
	for i := range status.Conditions {
		old := &status.Conditions[i]
		if old.Type != condition.Type {
			continue
		}
		if condition.Status == old.Status {
			condition.LastTransitionTime = old.LastTransitionTime
		}
		equal := condition.Status == old.Status && condition.Reason == old.Reason && condition.Message == old.Message &&
			condition.LastProbeTime == old.LastProbeTime && condition.LastTransitionTime == old.LastTransitionTime
		status.Conditions[i] = condition
		return !equal
	}
	status.Conditions = append(status.Conditions, condition)
	return true
}
