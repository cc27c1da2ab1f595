package model

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

var (
	unreachableTaint = Taint{Key: "node.kubernetes.io/unreachable", Effect: TaintEffectNoExecute}
	notReadyTaint    = Taint{Key: "node.kubernetes.io/not-ready", Effect: TaintEffectNoExecute}
	dedicatedTaint   = Taint{Key: "dedicated", Value: "gpu", Effect: TaintEffectNoExecute}
)

func TestToleratesTaint(t *testing.T) {
	tests := []struct {
		name string
		tol  Toleration
		t    Taint
		want bool
	}{
		{"exists with key", Toleration{Key: "node.kubernetes.io/unreachable", Operator: TolerationOpExists}, unreachableTaint, true},
		{"exists with key, other key", Toleration{Key: "node.kubernetes.io/unreachable", Operator: TolerationOpExists}, notReadyTaint, false},
		{"exists without key tolerates everything", Toleration{Operator: TolerationOpExists}, dedicatedTaint, true},
		{"effect must match when set", Toleration{Key: "node.kubernetes.io/unreachable", Operator: TolerationOpExists, Effect: TaintEffectNoSchedule}, unreachableTaint, false},
		{"empty effect matches any", Toleration{Key: "node.kubernetes.io/unreachable", Operator: TolerationOpExists}, unreachableTaint, true},
		{"equal with value", Toleration{Key: "dedicated", Operator: TolerationOpEqual, Value: "gpu"}, dedicatedTaint, true},
		{"equal with other value", Toleration{Key: "dedicated", Operator: TolerationOpEqual, Value: "cpu"}, dedicatedTaint, false},
		{"empty operator is equal", Toleration{Key: "dedicated", Value: "gpu"}, dedicatedTaint, true},
		{"empty operator, empty value vs valued taint", Toleration{Key: "dedicated"}, dedicatedTaint, false},
		{"empty operator, empty value vs empty taint value", Toleration{Key: "node.kubernetes.io/unreachable"}, unreachableTaint, true},
		{"empty key with Exists and another effect", Toleration{Operator: TolerationOpExists, Effect: TaintEffectPreferNoSchedule}, dedicatedTaint, false},
		{"unknown operator", Toleration{Key: "node.kubernetes.io/unreachable", Operator: "Gt"}, unreachableTaint, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, tt.tol.ToleratesTaint(&tt.t))
		})
	}
}

func TestFindMatchingUntoleratedTaint(t *testing.T) {
	taints := []Taint{unreachableTaint, dedicatedTaint}
	noExecute := func(t *Taint) bool { return t.Effect == TaintEffectNoExecute }
	tests := []struct {
		name        string
		tolerations []Toleration
		filter      func(*Taint) bool
		want        Taint
		found       bool
	}{
		{"nothing tolerated: the first taint", nil, nil, unreachableTaint, true},
		{"first tolerated: the second", []Toleration{{Key: unreachableTaint.Key, Operator: TolerationOpExists}}, noExecute, dedicatedTaint, true},
		{"all tolerated", []Toleration{{Operator: TolerationOpExists}}, nil, Taint{}, false},
		{"filter excludes all", nil, func(*Taint) bool { return false }, Taint{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, found := FindMatchingUntoleratedTaint(taints, tt.tolerations, tt.filter)
			assert.Equal(t, tt.found, found)
			assert.Equal(t, tt.want, got)
		})
	}
}
