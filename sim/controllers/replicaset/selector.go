package replicaset

import (
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// podSelector matches pod labels as metav1.LabelSelectorAsSelector(ls) would. A sync matches
// every owned pod against the selector (upstream ClaimPods), so the common selector made of
// matchLabels alone is compared directly against the label map: for such a selector the
// converted selector is exactly "each key present with its value", and the direct comparison
// gives the same answer without the generic Requirement machinery. Any selector with
// matchExpressions goes through the converted selector.
type podSelector struct {
	sel   labels.Selector
	pairs []labelPair // set when ls has matchLabels only (at least one)
	// templatePairs are the ReplicaSet's template labels (labelPairs), which the status's
	// fullyLabeledReplicas counts pods against: derived with the selector, once per version.
	templatePairs []labelPair
}

type labelPair struct{ key, value string }

// templateLabelSelector is labels.Set(template labels).AsSelectorPreValidated() as a
// podSelector, for templatePairs = labelPairs(template labels): it matches the label maps that
// hold every pair. No pairs match every map, as the empty set's selector does.
func templateLabelSelector(templatePairs []labelPair) podSelector {
	if templatePairs == nil {
		templatePairs = []labelPair{}
	}
	return podSelector{pairs: templatePairs}
}

func newPodSelector(ls *metav1.LabelSelector, sel labels.Selector) podSelector {
	ps := podSelector{sel: sel}
	if ls != nil && len(ls.MatchExpressions) == 0 && len(ls.MatchLabels) > 0 {
		ps.pairs = labelPairs(ls.MatchLabels)
	}
	return ps
}

// labelPairs returns the pairs of m sorted by key, so that a comparison visits them in a fixed
// order.
func labelPairs(m map[string]string) []labelPair {
	out := make([]labelPair, 0, len(m))
	for k, v := range m { //detlint:ordered the pairs are sorted below
		out = append(out, labelPair{k, v})
	}
	slices.SortFunc(out, func(a, b labelPair) int { return strings.Compare(a.key, b.key) })
	return out
}

func (ps podSelector) matches(podLabels map[string]string) bool {
	if ps.pairs == nil {
		return ps.sel.Matches(labels.Set(podLabels))
	}
	return hasAllPairs(podLabels, ps.pairs)
}

// hasAllPairs reports whether every pair is present in m with its value.
func hasAllPairs(m map[string]string, pairs []labelPair) bool {
	for _, p := range pairs {
		if v, ok := m[p.key]; !ok || v != p.value {
			return false
		}
	}
	return true
}
