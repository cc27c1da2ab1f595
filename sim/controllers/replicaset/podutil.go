package replicaset

import (
	"strconv"
	"time"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/vtime"
)

// PodDeletionCostAnnotation is the annotation whose integer value orders pods for scale-down
// (upstream core.PodDeletionCost, read under the PodDeletionCost gate, on by default since 1.22).
const PodDeletionCostAnnotation = "controller.kubernetes.io/pod-deletion-cost"

// IsPodActive reports whether a pod still counts as a replica: its phase is neither Succeeded
// nor Failed and it is not being deleted (upstream controller_utils.go IsPodActive). A pod that
// has a deletionTimestamp is inactive at once, so a Terminating pod is replaced without
// waiting for its grace period.
func IsPodActive(p *model.Pod) bool {
	return p.Status.Phase != model.PodSucceeded && p.Status.Phase != model.PodFailed && p.DeletionTimestamp == nil
}

// FilterActivePods returns the active pods of pods, in their original order (upstream
// FilterActivePods). The result shares the pod pointers; it never modifies them.
func FilterActivePods(pods []*model.Pod) []*model.Pod {
	out := make([]*model.Pod, 0, len(pods))
	for _, p := range pods {
		if IsPodActive(p) {
			out = append(out, p)
		}
	}
	return out
}

// podReadyCondition returns the pod's Ready condition, or nil (upstream
// podutil.GetPodReadyCondition).
func podReadyCondition(p *model.Pod) *model.PodCondition {
	for i := range p.Status.Conditions {
		if p.Status.Conditions[i].Type == model.PodReady {
			return &p.Status.Conditions[i]
		}
	}
	return nil
}

// IsPodReady reports whether the pod's Ready condition is True (upstream podutil.IsPodReady).
func IsPodReady(p *model.Pod) bool {
	c := podReadyCondition(p)
	return c != nil && c.Status == model.ConditionTrue
}

// IsPodAvailable reports whether the pod has been Ready for more than minReadySeconds at now
// (upstream podutil.IsPodAvailable): a pod that is not Ready is never available; with
// minReadySeconds 0 a Ready pod is available at once; otherwise the Ready condition's
// lastTransitionTime plus minReadySeconds must lie strictly before now.
//
// Upstream also treats an unset (zero) lastTransitionTime as "not available". In the simulator
// time 0 is the first instant of the run, a real time that the kubelet may write, so it is
// not treated as unset.
func IsPodAvailable(p *model.Pod, minReadySeconds int32, now vtime.Time) bool {
	c := podReadyCondition(p)
	if c == nil || c.Status != model.ConditionTrue {
		return false
	}
	return readySinceAvailable(c.LastTransitionTime, minReadySeconds, now)
}

// readySinceAvailable is IsPodAvailable for a pod that has been Ready since readySince.
func readySinceAvailable(readySince vtime.Time, minReadySeconds int32, now vtime.Time) bool {
	if minReadySeconds <= 0 {
		return true
	}
	return readySince.Add(time.Duration(minReadySeconds) * time.Second).Before(now)
}

// podReadyTime returns when the pod last became Ready and whether it is Ready at all
// (upstream podReadyTime, which returns the zero time for a pod that is not Ready).
func podReadyTime(p *model.Pod) (vtime.Time, bool) {
	c := podReadyCondition(p)
	if c == nil || c.Status != model.ConditionTrue {
		return 0, false
	}
	return c.LastTransitionTime, true
}

// deletionCost returns the pod's deletion cost: the annotation's value as an int32, or 0 when
// it is missing or invalid (upstream helper.GetDeletionCostFromPodAnnotations, which rejects a
// leading '+' and leading zeros and defaults to 0 on any error).
func deletionCost(p *model.Pod) int32 {
	v, ok := p.Annotations[PodDeletionCostAnnotation]
	if !ok || !validFirstDigit(v) {
		return 0
	}
	n, err := strconv.ParseInt(v, 10, 32)
	if err != nil {
		return 0
	}
	return int32(n)
}

func validFirstDigit(s string) bool {
	if s == "" {
		return false
	}
	return s[0] == '-' || s == "0" || (s[0] >= '1' && s[0] <= '9')
}

// maxContainerRestarts is the largest restartCount among the pod's containers (upstream
// maxContainerRestarts; the model has no restartable init containers, so the sidecar
// comparison upstream adds never applies).
func maxContainerRestarts(p *model.Pod) int32 {
	var m int32
	for _, c := range p.Status.ContainerStatuses {
		m = max(m, c.RestartCount)
	}
	return m
}

// podKey is the key expectations track deletions by (upstream controller.PodKey).
func podKey(p *model.Pod) string { return p.Namespace + "/" + p.Name }
