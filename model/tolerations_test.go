package model

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/reconsim/reconsim/vtime"
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

func TestTolerationEquality(t *testing.T) {
	secs := func(n int64) *int64 { return &n }
	base := Toleration{Key: "k", Operator: TolerationOpEqual, Value: "v", Effect: TaintEffectNoExecute, TolerationSeconds: secs(30)}
	tests := []struct {
		name         string
		edit         func(*Toleration)
		match, equal bool
	}{
		{"same", func(*Toleration) {}, true, true},
		{"other seconds", func(u *Toleration) { u.TolerationSeconds = secs(60) }, true, false},
		{"no seconds", func(u *Toleration) { u.TolerationSeconds = nil }, true, false},
		{"other key", func(u *Toleration) { u.Key = "x" }, false, false},
		{"other operator", func(u *Toleration) { u.Operator = TolerationOpExists }, false, false},
		{"other value", func(u *Toleration) { u.Value = "x" }, false, false},
		{"other effect", func(u *Toleration) { u.Effect = TaintEffectNoSchedule }, false, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			u := base
			u.TolerationSeconds = secs(30)
			tc.edit(&u)
			assert.Equal(t, tc.match, base.MatchToleration(&u), "MatchToleration")
			assert.Equal(t, tc.equal, TolerationEqual(&base, &u), "TolerationEqual")
			assert.Equal(t, tc.equal, TolerationsEqual([]Toleration{base}, []Toleration{u}), "TolerationsEqual")
		})
	}
	assert.True(t, TolerationsEqual(nil, []Toleration{}), "nil and empty are equal, as Semantic.DeepEqual")
	assert.False(t, TolerationsEqual([]Toleration{base}, nil))
}

func TestTaintsEqual(t *testing.T) {
	at := func(v vtime.Time) *vtime.Time { return &v }
	stamped := unreachableTaint
	stamped.TimeAdded = at(7)
	restamped := unreachableTaint
	restamped.TimeAdded = at(8)
	tests := []struct {
		name string
		a, b []Taint
		want bool
	}{
		{"nil and empty", nil, []Taint{}, true},
		{"same", []Taint{unreachableTaint, dedicatedTaint}, []Taint{unreachableTaint, dedicatedTaint}, true},
		{"time added set on one side", []Taint{unreachableTaint}, []Taint{stamped}, false},
		{"other time added", []Taint{stamped}, []Taint{restamped}, false},
		{"equal times at different addresses", []Taint{stamped}, []Taint{{Key: stamped.Key, Effect: stamped.Effect, TimeAdded: at(7)}}, true},
		{"other order", []Taint{unreachableTaint, notReadyTaint}, []Taint{notReadyTaint, unreachableTaint}, false},
		{"other value", []Taint{dedicatedTaint}, []Taint{{Key: "dedicated", Value: "cpu", Effect: TaintEffectNoExecute}}, false},
		{"other effect", []Taint{dedicatedTaint}, []Taint{{Key: "dedicated", Value: "gpu", Effect: TaintEffectNoSchedule}}, false},
		{"one more", []Taint{dedicatedTaint}, []Taint{dedicatedTaint, notReadyTaint}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, TaintsEqual(tc.a, tc.b))
			assert.Equal(t, tc.want, TaintsEqual(tc.b, tc.a), "symmetric")
		})
	}
}
