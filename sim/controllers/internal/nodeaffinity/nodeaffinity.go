package nodeaffinity

import (
	"errors"
	"fmt"

	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"

	"github.com/reconsim/reconsim/model"
)

// nodeSelectorTerm is a parsed NodeSelectorTerm (component-helpers nodeaffinity
// nodeSelectorTerm): its expressions become a label selector built with apimachinery's
// labels.NewRequirement, so the operators and their validation are upstream's own.
type nodeSelectorTerm struct {
	matchLabels labels.Selector // nil when the term has no matchExpressions
	// matchNames holds the metadata.name requirements: In (want true) or NotIn (want false).
	matchNames []nameRequirement
	parseErr   error
}

type nameRequirement struct {
	name string
	in   bool
}

func isEmptyNodeSelectorTerm(t *model.NodeSelectorTerm) bool {
	return len(t.MatchExpressions) == 0 && len(t.MatchFields) == 0
}

func selectionOperator(op string) (selection.Operator, bool) {
	switch op {
	case model.NodeSelectorOpIn:
		return selection.In, true
	case model.NodeSelectorOpNotIn:
		return selection.NotIn, true
	case model.NodeSelectorOpExists:
		return selection.Exists, true
	case model.NodeSelectorOpDoesNotExist:
		return selection.DoesNotExist, true
	case model.NodeSelectorOpGt:
		return selection.GreaterThan, true
	case model.NodeSelectorOpLt:
		return selection.LessThan, true
	}
	return "", false
}

func parseNodeSelectorTerm(t *model.NodeSelectorTerm) nodeSelectorTerm {
	var out nodeSelectorTerm
	var errs []error
	if len(t.MatchExpressions) > 0 {
		reqs := make([]labels.Requirement, 0, len(t.MatchExpressions))
		for i, expr := range t.MatchExpressions {
			op, ok := selectionOperator(expr.Operator)
			if !ok {
				errs = append(errs, fmt.Errorf("matchExpressions[%d].operator: %q is not a valid node selector operator", i, expr.Operator))
				continue
			}
			r, err := labels.NewRequirement(expr.Key, op, expr.Values)
			if err != nil {
				errs = append(errs, fmt.Errorf("matchExpressions[%d]: %w", i, err))
				continue
			}
			reqs = append(reqs, *r)
		}
		out.matchLabels = labels.NewSelector().Add(reqs...)
	}
	for i, expr := range t.MatchFields {
		if expr.Key != model.ObjectNameField {
			errs = append(errs, fmt.Errorf("matchFields[%d].key: %q must be 'metadata.name'", i, expr.Key))
			continue
		}
		if len(expr.Values) != 1 {
			errs = append(errs, fmt.Errorf("matchFields[%d].values: must have one element", i))
			continue
		}
		switch expr.Operator {
		case model.NodeSelectorOpIn:
			out.matchNames = append(out.matchNames, nameRequirement{name: expr.Values[0], in: true})
		case model.NodeSelectorOpNotIn:
			out.matchNames = append(out.matchNames, nameRequirement{name: expr.Values[0], in: false})
		default:
			errs = append(errs, fmt.Errorf("matchFields[%d].operator: %q is not supported (In, NotIn)", i, expr.Operator))
		}
	}
	if len(errs) > 0 {
		out.parseErr = errors.Join(errs...)
	}
	return out
}

// match reports whether node matches the term; a term that did not parse matches nothing.
func (t *nodeSelectorTerm) match(node *model.Node) bool {
	if t.parseErr != nil {
		return false
	}
	if t.matchLabels != nil && !t.matchLabels.Matches(labels.Set(node.Labels)) {
		return false
	}
	for _, r := range t.matchNames {
		if (node.Name == r.name) != r.in {
			return false
		}
	}
	return true
}

// RequiredNodeAffinity is the pod's hard placement constraint: spec.nodeSelector AND the
// required node affinity (component-helpers nodeaffinity RequiredNodeAffinity). The terms of
// the affinity are ORed; empty terms select nothing.
type RequiredNodeAffinity struct {
	nodeSelector labels.Selector // nil without spec.nodeSelector
	hasAffinity  bool            // requiredDuringScheduling... is set (even with no terms)
	terms        []nodeSelectorTerm
}

// GetRequiredNodeAffinity parses a pod's spec.nodeSelector and required node affinity
// (upstream GetRequiredNodeAffinity takes the pod; the DaemonSet controller has only the spec
// its pod would have).
func GetRequiredNodeAffinity(spec *model.PodSpec) RequiredNodeAffinity {
	var r RequiredNodeAffinity
	if len(spec.NodeSelector) > 0 {
		r.nodeSelector = labels.SelectorFromSet(spec.NodeSelector)
	}
	if a := spec.Affinity; a != nil && a.NodeAffinity != nil && a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution != nil {
		r.hasAffinity = true
		for i := range a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
			t := &a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms[i]
			if isEmptyNodeSelectorTerm(t) {
				continue
			}
			r.terms = append(r.terms, parseNodeSelectorTerm(t))
		}
	}
	return r
}

// MatchesAll reports whether Match is true for every node: the pod has neither a nodeSelector
// nor a required node affinity.
func (r *RequiredNodeAffinity) MatchesAll() bool { return r.nodeSelector == nil && !r.hasAffinity }

// Match reports whether node satisfies both the nodeSelector and the required affinity.
// Parse errors make a term match nothing, which upstream also does (it ignores the error for
// backwards compatibility).
func (r *RequiredNodeAffinity) Match(node *model.Node) bool {
	if r.nodeSelector != nil && !r.nodeSelector.Matches(labels.Set(node.Labels)) {
		return false
	}
	if !r.hasAffinity {
		return true
	}
	for i := range r.terms {
		if r.terms[i].match(node) {
			return true
		}
	}
	return false
}

// PreferredTerm is a parsed PreferredSchedulingTerm.
type PreferredTerm struct {
	term   nodeSelectorTerm
	weight int64
}

// GetPreferredTerms parses a pod's preferred node affinity, dropping terms with weight 0 or
// an empty preference as upstream NewPreferredSchedulingTerms does. Upstream fails the whole
// PreScore on a parse error; here a term that does not parse is dropped instead (the apiserver's
// validation is what should reject it).
func GetPreferredTerms(spec *model.PodSpec) []PreferredTerm {
	a := spec.Affinity
	if a == nil || a.NodeAffinity == nil {
		return nil
	}
	var out []PreferredTerm
	for i := range a.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution {
		p := &a.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution[i]
		if p.Weight == 0 || isEmptyNodeSelectorTerm(&p.Preference) {
			continue
		}
		t := parseNodeSelectorTerm(&p.Preference)
		if t.parseErr != nil {
			continue
		}
		out = append(out, PreferredTerm{term: t, weight: int64(p.Weight)})
	}
	return out
}

// ScorePreferred sums the weights of the preferred terms node matches (NodeAffinity Score).
func ScorePreferred(terms []PreferredTerm, node *model.Node) int64 {
	var score int64
	for i := range terms {
		if terms[i].term.match(node) {
			score += terms[i].weight
		}
	}
	return score
}
