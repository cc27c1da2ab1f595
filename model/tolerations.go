package model

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
