package disruption

import (
	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/vtime"
)

// setStatusCondition is apimachinery meta.SetStatusCondition on virtual time: a new condition
// is appended (transition time now); an existing one of the same type takes the new status
// (with transition time now when the status changes), reason, message and observedGeneration.
// It reports whether anything changed.
func setStatusCondition(conds *[]model.Condition, c model.Condition, now vtime.Time) bool {
	for i := range *conds {
		existing := &(*conds)[i]
		if existing.Type != c.Type {
			continue
		}
		changed := false
		if existing.Status != c.Status {
			existing.Status = c.Status
			existing.LastTransitionTime = now
			changed = true
		}
		if existing.Reason != c.Reason {
			existing.Reason = c.Reason
			changed = true
		}
		if existing.Message != c.Message {
			existing.Message = c.Message
			changed = true
		}
		if existing.ObservedGeneration != c.ObservedGeneration {
			existing.ObservedGeneration = c.ObservedGeneration
			changed = true
		}
		return changed
	}
	c.LastTransitionTime = now
	*conds = append(*conds, c)
	return true
}

// findCondition returns the condition of type typ, or nil.
func findCondition(conds []model.Condition, typ string) *model.Condition {
	for i := range conds {
		if conds[i].Type == typ {
			return &conds[i]
		}
	}
	return nil
}

// updateDisruptionAllowedCondition sets DisruptionAllowed from status.disruptionsAllowed:
// True/SufficientPods when positive, False/InsufficientPods otherwise, with an empty message
// ([component-helpers@HEAD] apps/poddisruptionbudget/helpers.go UpdateDisruptionAllowedCondition).
func updateDisruptionAllowedCondition(pdb *model.PodDisruptionBudget, now vtime.Time) {
	c := model.Condition{
		Type:               model.DisruptionAllowedCondition,
		Status:             model.ConditionFalse,
		Reason:             model.InsufficientPodsReason,
		ObservedGeneration: pdb.Status.ObservedGeneration,
	}
	if pdb.Status.DisruptionsAllowed > 0 {
		c.Status, c.Reason = model.ConditionTrue, model.SufficientPodsReason
	}
	setStatusCondition(&pdb.Status.Conditions, c, now)
}

// conditionsAreUpToDate reports whether the DisruptionAllowed condition agrees with
// status.disruptionsAllowed and status.observedGeneration with metadata.generation
// (component-helpers ConditionsAreUpToDate).
func conditionsAreUpToDate(pdb *model.PodDisruptionBudget) bool {
	c := findCondition(pdb.Status.Conditions, model.DisruptionAllowedCondition)
	if c == nil || pdb.Status.ObservedGeneration != pdb.Generation {
		return false
	}
	if pdb.Status.DisruptionsAllowed > 0 {
		return c.Status == model.ConditionTrue && c.Reason == model.SufficientPodsReason
	}
	return c.Status == model.ConditionFalse && c.Reason == model.InsufficientPodsReason
}
