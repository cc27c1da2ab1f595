package controllerutil

import (
	"maps"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// LabelSelectorsEqual reports whether a and b are the same label selector field by field
// (apimachinery's Semantic.DeepEqual of the two, nil and empty maps and lists alike): equal
// selectors convert to the same labels.Selector, so a selector parsed from one serves the
// other.
func LabelSelectorsEqual(a, b *metav1.LabelSelector) bool {
	if a == b {
		return true
	}
	if a == nil || b == nil {
		return false
	}
	return maps.Equal(a.MatchLabels, b.MatchLabels) &&
		slices.EqualFunc(a.MatchExpressions, b.MatchExpressions, func(x, y metav1.LabelSelectorRequirement) bool {
			return x.Key == y.Key && x.Operator == y.Operator && slices.Equal(x.Values, y.Values)
		})
}
