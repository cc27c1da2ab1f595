package job

import (
	"fmt"
	"slices"

	"github.com/reconsim/reconsim/model"
)

// matchPodFailurePolicy is upstream matchPodFailurePolicy ([k8s]
// pkg/controller/job/pod_failure_policy.go): the rules are tried in order and the first that
// matches the failed pod decides. It returns the FailJob message (nil for other actions),
// whether the failure counts towards backoffLimit, and the matched action ("" when no rule
// matched, which counts). The simulator has no init container statuses, so exit-code rules see
// the containers only.
func matchPodFailurePolicy(pfp *model.PodFailurePolicy, pod *model.Pod) (msg *string, count bool, action string) {
	if pfp == nil {
		return nil, true, ""
	}
	for i := range pfp.Rules {
		r := &pfp.Rules[i]
		var matched string
		if r.OnExitCodes != nil {
			cs := matchOnExitCodes(&pod.Status, r.OnExitCodes)
			if cs == nil {
				continue
			}
			matched = fmt.Sprintf("Container %s for pod %s/%s failed with exit code %d matching %s rule at index %d",
				cs.Name, pod.Namespace, pod.Name, cs.State.Terminated.ExitCode, r.Action, i)
		} else if len(r.OnPodConditions) > 0 {
			cond := matchOnPodConditions(&pod.Status, r.OnPodConditions)
			if cond == nil {
				continue
			}
			matched = fmt.Sprintf("Pod %s/%s has condition %s matching %s rule at index %d", pod.Namespace, pod.Name, cond.Type, r.Action, i)
		} else {
			continue
		}
		switch r.Action {
		case model.PodFailurePolicyActionIgnore:
			return nil, false, r.Action
		case model.PodFailurePolicyActionCount, model.PodFailurePolicyActionFailIndex:
			return nil, true, r.Action
		case model.PodFailurePolicyActionFailJob:
			return &matched, true, r.Action
		}
	}
	return nil, true, ""
}

// matchOnExitCodes is upstream matchOnExitCodes: a terminated container (of the named one, if
// any) with a non-zero exit code the operator accepts.
func matchOnExitCodes(st *model.PodStatus, req *model.PodFailurePolicyOnExitCodesRequirement) *model.ContainerStatus {
	for i := range st.ContainerStatuses {
		cs := &st.ContainerStatuses[i]
		if req.ContainerName != nil && *req.ContainerName != cs.Name {
			continue
		}
		t := cs.State.Terminated
		if t == nil || t.ExitCode == 0 {
			continue
		}
		in := slices.Contains(req.Values, t.ExitCode)
		if (req.Operator == model.PodFailurePolicyOnExitCodesOpIn) == in {
			return cs
		}
	}
	return nil
}

// matchOnPodConditions is upstream matchOnPodConditions.
func matchOnPodConditions(st *model.PodStatus, patterns []model.PodFailurePolicyOnPodConditionsPattern) *model.PodCondition {
	for _, pat := range patterns {
		for i := range st.Conditions {
			c := &st.Conditions[i]
			if c.Type == pat.Type && c.Status == pat.Status {
				return c
			}
		}
	}
	return nil
}
