package scheduler

import "github.com/reconsim/reconsim/model"

// Toleration operators (model.TolerationOpExists, model.TolerationOpEqual).
const (
	TolerationOpExists = model.TolerationOpExists
	TolerationOpEqual  = model.TolerationOpEqual
)

// doNotScheduleTaint is helper.DoNotScheduleTaintsFilterFunc: the effects a pod must tolerate
// to be placed on a node.
func doNotScheduleTaint(t *model.Taint) bool {
	return t.Effect == model.TaintEffectNoSchedule || t.Effect == model.TaintEffectNoExecute
}

// untoleratedTaintIndex is model.FindMatchingUntoleratedTaint returning the taint's index, -1 for
// none.
func untoleratedTaintIndex(taints []model.Taint, tolerations []model.Toleration, inclusionFilter func(*model.Taint) bool) int {
	for i := range taints {
		if inclusionFilter != nil && !inclusionFilter(&taints[i]) {
			continue
		}
		if !model.TolerationsTolerateTaint(tolerations, &taints[i]) {
			return i
		}
	}
	return -1
}

// preferNoScheduleTolerations keeps the tolerations that can tolerate a PreferNoSchedule taint:
// those with an empty effect or PreferNoSchedule (TaintToleration getAllTolerationPreferNoSchedule).
func preferNoScheduleTolerations(tolerations []model.Toleration) []model.Toleration {
	var out []model.Toleration
	for _, t := range tolerations {
		if t.Effect == "" || t.Effect == model.TaintEffectPreferNoSchedule {
			out = append(out, t)
		}
	}
	return out
}

// countIntolerableTaintsPreferNoSchedule counts the node's PreferNoSchedule taints that none
// of tolerations tolerates (TaintToleration Score).
func countIntolerableTaintsPreferNoSchedule(taints []model.Taint, tolerations []model.Toleration) int64 {
	var n int64
	for i := range taints {
		if taints[i].Effect != model.TaintEffectPreferNoSchedule {
			continue
		}
		if !model.TolerationsTolerateTaint(tolerations, &taints[i]) {
			n++
		}
	}
	return n
}
