package model

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/reconsim/reconsim/vtime"
)

func TestUpdatePodCondition(t *testing.T) {
	ready := func(s ConditionStatus, reason string, at vtime.Time) PodCondition {
		return PodCondition{Type: PodReady, Status: s, Reason: reason, LastTransitionTime: at}
	}
	tests := []struct {
		name    string
		have    []PodCondition
		set     PodCondition
		want    []PodCondition
		changed bool
	}{
		{"appended", nil, ready(ConditionFalse, "r", 0), []PodCondition{ready(ConditionFalse, "r", 9)}, true},
		{"same status keeps the transition time", []PodCondition{ready(ConditionFalse, "r", 3)}, ready(ConditionFalse, "r", 0), []PodCondition{ready(ConditionFalse, "r", 3)}, false},
		{"same status, new reason", []PodCondition{ready(ConditionFalse, "r", 3)}, ready(ConditionFalse, "s", 0), []PodCondition{ready(ConditionFalse, "s", 3)}, true},
		{"status flips at now", []PodCondition{ready(ConditionTrue, "", 3)}, ready(ConditionFalse, "r", 0), []PodCondition{ready(ConditionFalse, "r", 9)}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status := &PodStatus{Conditions: tt.have}
			assert.Equal(t, tt.changed, UpdatePodCondition(status, tt.set, 9))
			assert.Equal(t, tt.want, status.Conditions)
		})
	}
}
