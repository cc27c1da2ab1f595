package disruption

import (
	"github.com/reconsim/reconsim/model"
)

// findCondition returns the condition of type typ, or nil.
func findCondition(conds []model.Condition, typ string) *model.Condition {
	for i := range conds {
		if conds[i].Type == typ {
			return &conds[i]
		}
	}
	return nil
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
