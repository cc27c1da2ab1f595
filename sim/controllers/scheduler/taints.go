package scheduler

import "github.com/reconsim/reconsim/model"

// Well-known taint keys ([api@HEAD] core/v1/well_known_taints.go; docs/upstream.md#node-lifecycle).
const (
	TaintNodeNotReady           = "node.kubernetes.io/not-ready"
	TaintNodeUnreachable        = "node.kubernetes.io/unreachable"
	TaintNodeUnschedulable      = "node.kubernetes.io/unschedulable"
	TaintNodeMemoryPressure     = "node.kubernetes.io/memory-pressure"
	TaintNodeDiskPressure       = "node.kubernetes.io/disk-pressure"
	TaintNodePIDPressure        = "node.kubernetes.io/pid-pressure"
	TaintNodeNetworkUnavailable = "node.kubernetes.io/network-unavailable"
)

// Toleration operators (core/v1 TolerationOperator). An empty operator means Equal.
const (
	TolerationOpExists = "Exists"
	TolerationOpEqual  = "Equal"
)

// ToleratesTaint reports whether toleration t tolerates taint, as upstream
// Toleration.ToleratesTaint ([api@HEAD] core/v1/toleration.go):
//   - an empty effect matches every effect, otherwise the effects must be equal;
//   - an empty key matches every key (validation only allows it with Exists), otherwise the
//     keys must be equal;
//   - operator Exists matches any value; Equal (or empty) needs equal values; any other
//     operator matches nothing.
func ToleratesTaint(t *model.Toleration, taint *model.Taint) bool {
	if t.Effect != "" && t.Effect != taint.Effect {
		return false
	}
	if t.Key != "" && t.Key != taint.Key {
		return false
	}
	switch t.Operator {
	case "", TolerationOpEqual:
		return t.Value == taint.Value
	case TolerationOpExists:
		return true
	default:
		return false
	}
}

// TolerationsTolerateTaint reports whether any of tolerations tolerates taint
// (component-helpers corev1 TolerationsTolerateTaint).
func TolerationsTolerateTaint(tolerations []model.Toleration, taint *model.Taint) bool {
	for i := range tolerations {
		if ToleratesTaint(&tolerations[i], taint) {
			return true
		}
	}
	return false
}

// doNotScheduleTaint is helper.DoNotScheduleTaintsFilterFunc: the effects a pod must tolerate
// to be placed on a node.
func doNotScheduleTaint(t *model.Taint) bool {
	return t.Effect == model.TaintEffectNoSchedule || t.Effect == model.TaintEffectNoExecute
}

// FindMatchingUntoleratedTaint returns the first of taints, in the node's order, that passes
// inclusionFilter and is tolerated by none of tolerations (component-helpers corev1
// FindMatchingUntoleratedTaint).
func FindMatchingUntoleratedTaint(taints []model.Taint, tolerations []model.Toleration, inclusionFilter func(*model.Taint) bool) (model.Taint, bool) {
	if i := untoleratedTaintIndex(taints, tolerations, inclusionFilter); i >= 0 {
		return taints[i], true
	}
	return model.Taint{}, false
}

// untoleratedTaintIndex is FindMatchingUntoleratedTaint returning the taint's index, -1 for
// none.
func untoleratedTaintIndex(taints []model.Taint, tolerations []model.Toleration, inclusionFilter func(*model.Taint) bool) int {
	for i := range taints {
		if inclusionFilter != nil && !inclusionFilter(&taints[i]) {
			continue
		}
		if !TolerationsTolerateTaint(tolerations, &taints[i]) {
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
		if !TolerationsTolerateTaint(tolerations, &taints[i]) {
			n++
		}
	}
	return n
}
