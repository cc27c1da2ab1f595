package replicaset

import (
	"strconv"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/vtime"
)

// PodDeletionCostAnnotation is the annotation whose integer value orders pods for scale-down
// (upstream core.PodDeletionCost, read under the PodDeletionCost gate, on by default since 1.22).
const PodDeletionCostAnnotation = "controller.kubernetes.io/pod-deletion-cost"

// FilterActivePods returns the active pods of pods, in their original order (upstream
// FilterActivePods). The result shares the pod pointers; it never modifies them.
func FilterActivePods(pods []*model.Pod) []*model.Pod {
	out := make([]*model.Pod, 0, len(pods))
	for _, p := range pods {
		if model.IsPodActive(p) {
			out = append(out, p)
		}
	}
	return out
}

// podReadyTime returns when the pod last became Ready and whether it is Ready at all
// (upstream podReadyTime, which returns the zero time for a pod that is not Ready).
func podReadyTime(p *model.Pod) (vtime.Time, bool) {
	c := model.GetPodReadyCondition(p)
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
