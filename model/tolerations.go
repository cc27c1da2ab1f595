package model

import (
	"slices"

	"k8s.io/utils/ptr"
)

// Toleration operators (core/v1 TolerationOperator, k8s.io/api core/v1/types.go, release 1.33).
// An empty operator means Equal.
const (
	TolerationOpExists = "Exists"
	TolerationOpEqual  = "Equal"
)

// ToleratesTaint reports whether t tolerates taint (k8s.io/api core/v1/toleration.go
// Toleration.ToleratesTaint, release 1.33):
//   - an empty effect matches every effect, otherwise the effects must be equal;
//   - an empty key matches every key (validation only allows it with Exists), otherwise the
//     keys must be equal;
//   - operator Exists matches any value; Equal (or empty) needs equal values; any other
//     operator matches nothing.
func (t *Toleration) ToleratesTaint(taint *Taint) bool {
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

// MatchToleration reports whether t and u are the same rule: same key, operator, value and
// effect (k8s.io/api core/v1/toleration.go Toleration.MatchToleration, release 1.33); their
// tolerationSeconds may differ.
func (t *Toleration) MatchToleration(u *Toleration) bool {
	return t.Key == u.Key && t.Effect == u.Effect && t.Operator == u.Operator && t.Value == u.Value
}

// TolerationEqual reports whether a and b are the same rule with the same tolerationSeconds
// (apimachinery's Semantic.DeepEqual of two tolerations).
func TolerationEqual(a, b *Toleration) bool {
	return a.MatchToleration(b) && ptr.Equal(a.TolerationSeconds, b.TolerationSeconds)
}

// TolerationsEqual reports whether a and b hold equal tolerations (TolerationEqual) in the same
// order; nil and empty are equal, as Semantic.DeepEqual has them.
func TolerationsEqual(a, b []Toleration) bool {
	return slices.EqualFunc(a, b, func(x, y Toleration) bool { return TolerationEqual(&x, &y) })
}

// TaintsEqual reports whether a and b hold the same taints in the same order, their
// TimeAdded included; nil and empty are equal. It is apimachinery's Semantic.DeepEqual of two
// taint lists, which the scheduler (pkg/scheduler/framework/events.go extractNodeTaintsChange)
// and taint eviction (pkg/controller/tainteviction/taint_eviction.go handleNodeUpdate) use.
func TaintsEqual(a, b []Taint) bool {
	return slices.EqualFunc(a, b, func(x, y Taint) bool {
		return x.Key == y.Key && x.Value == y.Value && x.Effect == y.Effect && ptr.Equal(x.TimeAdded, y.TimeAdded)
	})
}

// TolerationsTolerateTaint reports whether any of tolerations tolerates taint
// (k8s.io/component-helpers scheduling/corev1/helpers.go TolerationsTolerateTaint).
func TolerationsTolerateTaint(tolerations []Toleration, taint *Taint) bool {
	for i := range tolerations {
		if tolerations[i].ToleratesTaint(taint) {
			return true
		}
	}
	return false
}

// FindMatchingUntoleratedTaint returns the first of taints, in order, that inclusionFilter
// accepts (nil: every taint) and none of tolerations tolerates (k8s.io/component-helpers
// scheduling/corev1/helpers.go FindMatchingUntoleratedTaint).
func FindMatchingUntoleratedTaint(taints []Taint, tolerations []Toleration, inclusionFilter func(*Taint) bool) (Taint, bool) {
	for i := range taints {
		if inclusionFilter != nil && !inclusionFilter(&taints[i]) {
			continue
		}
		if !TolerationsTolerateTaint(tolerations, &taints[i]) {
			return taints[i], true
		}
	}
	return Taint{}, false
}
