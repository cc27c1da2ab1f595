package model

import (
	"testing"

	"github.com/reconsim/reconsim/vtime"
	"github.com/stretchr/testify/assert"
)

func TestUpdateDisruptionAllowedCondition(t *testing.T) {
	const t1, t2 = vtime.Time(1e9), vtime.Time(2e9)
	for _, tc := range []struct {
		name    string
		before  []Condition
		allowed int32
		want    Condition
		wantLen int
	}{
		{name: "added", allowed: 1, wantLen: 1,
			want: Condition{Type: DisruptionAllowedCondition, Status: ConditionTrue, Reason: SufficientPodsReason, LastTransitionTime: t2}},
		{name: "status flips: the time moves", allowed: 0, wantLen: 1,
			before: []Condition{{Type: DisruptionAllowedCondition, Status: ConditionTrue, Reason: SufficientPodsReason, LastTransitionTime: t1}},
			want:   Condition{Type: DisruptionAllowedCondition, Status: ConditionFalse, Reason: InsufficientPodsReason, LastTransitionTime: t2}},
		{name: "same status: the time stays", allowed: 3, wantLen: 2,
			before: []Condition{{Type: "Other"}, {Type: DisruptionAllowedCondition, Status: ConditionTrue, Reason: "Old", Message: "m", LastTransitionTime: t1}},
			want:   Condition{Type: DisruptionAllowedCondition, Status: ConditionTrue, Reason: SufficientPodsReason, LastTransitionTime: t1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pdb := &PodDisruptionBudget{Status: PodDisruptionBudgetStatus{DisruptionsAllowed: tc.allowed, Conditions: tc.before}}
			UpdateDisruptionAllowedCondition(pdb, t2)
			assert.Len(t, pdb.Status.Conditions, tc.wantLen)
			assert.Equal(t, tc.want, pdb.Status.Conditions[tc.wantLen-1])
		})
	}
}
