package nodelifecycle

import (
	"math/rand/v2"
	"testing"

	"github.com/reconsim/reconsim/sim/internal/testworld"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/vtime"
)

func readyConds(statuses ...model.ConditionStatus) []*model.NodeCondition {
	out := make([]*model.NodeCondition, len(statuses))
	for i, s := range statuses {
		if s == "" {
			continue // a node without a Ready condition
		}
		out[i] = &model.NodeCondition{Type: model.NodeReady, Status: s}
	}
	return out
}

const (
	T = model.ConditionTrue
	F = model.ConditionFalse
	U = model.ConditionUnknown
)

func TestComputeZoneState(t *testing.T) {
	tests := []struct {
		name         string
		conds        []*model.NodeCondition
		threshold    float32
		wantNotReady int
		want         ZoneHealth
	}{
		{"all ready", readyConds(T, T, T), 0.55, 0, ZoneNormal},
		{"one of three down", readyConds(T, T, U), 0.55, 1, ZoneNormal},
		{"two of two down is full", readyConds(U, F), 0.55, 2, ZoneFullDisruption},
		{"single node down is full", readyConds(U), 0.55, 1, ZoneFullDisruption},
		{"nil condition counts as not ready", readyConds("", ""), 0.55, 2, ZoneFullDisruption},
		{"three of four down is partial", readyConds(T, U, U, F), 0.55, 3, ZonePartialDisruption},
		{"two of three down: not more than two", readyConds(T, U, U), 0.55, 2, ZoneNormal},
		{"three of six is 0.5: below threshold", readyConds(T, T, T, U, U, U), 0.55, 3, ZoneNormal},
		{"11 of 20 is exactly 0.55 in float32", append(readyConds(U, U, U, U, U, U, U, U, U, U, U), readyConds(T, T, T, T, T, T, T, T, T)...), 0.55, 11, ZonePartialDisruption},
		{"10 of 20 is below", append(readyConds(U, U, U, U, U, U, U, U, U, U), readyConds(T, T, T, T, T, T, T, T, T, T)...), 0.55, 10, ZoneNormal},
		{"empty zone is normal", nil, 0.55, 0, ZoneNormal},
		{"threshold 1: partial only when all but none ready", readyConds(T, U, U, U), 1, 3, ZoneNormal},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			notReady, state := ComputeZoneState(tt.conds, tt.threshold)
			assert.Equal(t, tt.wantNotReady, notReady)
			assert.Equal(t, tt.want, state)
		})
	}
}

func TestZoneEvictionQPS(t *testing.T) {
	cfg := DefaultConfig()
	tests := []struct {
		name   string
		size   int
		state  ZoneHealth
		want   float32
		wantOK bool
	}{
		{"normal", 10, ZoneNormal, 0.1, true},
		{"partial small zone stops tainting", 10, ZonePartialDisruption, 0, true},
		{"partial zone of exactly the threshold stops tainting", 50, ZonePartialDisruption, 0, true},
		{"partial large zone gets the secondary rate", 51, ZonePartialDisruption, 0.01, true},
		{"full disruption gets the healthy rate", 3, ZoneFullDisruption, 0.1, true},
		{"initial leaves the limiter alone", 3, ZoneInitial, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			qps, ok := ZoneEvictionQPS(cfg, tt.size, tt.state)
			assert.Equal(t, tt.wantOK, ok)
			assert.Equal(t, tt.want, qps)
		})
	}
}

func TestNoExecuteTaintFor(t *testing.T) {
	tests := []struct {
		ready      model.ConditionStatus
		add, del   string
		wantTaint  bool
		wantEffect model.TaintEffect
	}{
		{F, model.TaintNodeNotReady, model.TaintNodeUnreachable, true, model.TaintEffectNoExecute},
		{U, model.TaintNodeUnreachable, model.TaintNodeNotReady, true, model.TaintEffectNoExecute},
		{T, "", "", false, ""},
		{"Bogus", "", "", false, ""},
	}
	for _, tt := range tests {
		t.Run(string(tt.ready), func(t *testing.T) {
			add, del, ok := NoExecuteTaintFor(tt.ready)
			require.Equal(t, tt.wantTaint, ok)
			assert.Equal(t, tt.add, add.Key)
			assert.Equal(t, tt.del, del.Key)
			assert.Equal(t, tt.wantEffect, add.Effect)
		})
	}
}

func TestNoScheduleTaintsFor(t *testing.T) {
	node := &model.Node{
		Spec: model.NodeSpec{Unschedulable: true},
		Status: model.NodeStatus{Conditions: []model.NodeCondition{
			{Type: model.NodeReady, Status: U},
			{Type: model.NodeMemoryPressure, Status: T},
			{Type: model.NodeDiskPressure, Status: F},
			{Type: model.NodePIDPressure, Status: T},
			{Type: model.NodeNetworkUnavailable, Status: T},
		}},
	}
	var keys []string
	for _, tn := range NoScheduleTaintsFor(node) {
		assert.Equal(t, model.TaintEffectNoSchedule, tn.Effect)
		assert.Nil(t, tn.TimeAdded)
		keys = append(keys, tn.Key)
	}
	assert.Equal(t, []string{model.TaintNodeUnreachable, model.TaintNodeMemoryPressure, model.TaintNodePIDPressure, model.TaintNodeNetworkUnavailable, model.TaintNodeUnschedulable}, keys)

	node.Status.Conditions = []model.NodeCondition{{Type: model.NodeReady, Status: F}}
	node.Spec.Unschedulable = false
	got := NoScheduleTaintsFor(node)
	require.Len(t, got, 1)
	assert.Equal(t, model.TaintNodeNotReady, got[0].Key)

	node.Status.Conditions = []model.NodeCondition{{Type: model.NodeReady, Status: T}}
	assert.Empty(t, NoScheduleTaintsFor(node))
}

func TestTaintHelpers(t *testing.T) {
	at := vtime.Time(5)
	base := []model.Taint{
		{Key: "a", Effect: model.TaintEffectNoSchedule},
		{Key: model.TaintNodeUnreachable, Effect: model.TaintEffectNoExecute, TimeAdded: &at},
	}

	// Same key and effect, different TimeAdded: replaced in place.
	later := vtime.Time(9)
	out, changed := addOrUpdateTaint(base, model.Taint{Key: model.TaintNodeUnreachable, Effect: model.TaintEffectNoExecute, TimeAdded: &later})
	require.True(t, changed)
	require.Len(t, out, 2)
	assert.Equal(t, later, *out[1].TimeAdded)
	assert.Equal(t, at, *base[1].TimeAdded, "input must not change")

	// Semantically equal: no change.
	_, changed = addOrUpdateTaint(base, model.Taint{Key: model.TaintNodeUnreachable, Effect: model.TaintEffectNoExecute, TimeAdded: &at})
	assert.False(t, changed)

	// Same key, other effect: appended.
	out, changed = addOrUpdateTaint(base, model.Taint{Key: model.TaintNodeUnreachable, Effect: model.TaintEffectNoSchedule})
	assert.True(t, changed)
	assert.Len(t, out, 3)

	out, changed = deleteTaint(base, &unreachableTaintTemplate)
	assert.True(t, changed)
	assert.Equal(t, []model.Taint{base[0]}, out)
	_, changed = deleteTaint(base, &notReadyTaintTemplate)
	assert.False(t, changed)

	toAdd, toDel := taintSetDiff(
		[]model.Taint{{Key: model.TaintNodeNotReady, Effect: model.TaintEffectNoSchedule}, {Key: "a", Effect: model.TaintEffectNoSchedule}},
		[]model.Taint{{Key: "a", Effect: model.TaintEffectNoSchedule}, {Key: model.TaintNodeUnreachable, Effect: model.TaintEffectNoSchedule}},
	)
	require.Len(t, toAdd, 1)
	require.Len(t, toDel, 1)
	assert.Equal(t, model.TaintNodeNotReady, toAdd[0].Key)
	assert.Equal(t, model.TaintNodeUnreachable, toDel[0].Key)

	managed := managedNoScheduleTaints([]model.Taint{
		{Key: "user", Effect: model.TaintEffectNoSchedule},
		{Key: model.TaintNodeUnschedulable, Effect: model.TaintEffectNoSchedule},
		{Key: model.TaintNodeUnreachable, Effect: model.TaintEffectNoExecute},
		{Key: model.TaintNodeDiskPressure, Effect: model.TaintEffectNoSchedule},
	})
	require.Len(t, managed, 2)
	assert.Equal(t, model.TaintNodeUnschedulable, managed[0].Key)
	assert.Equal(t, model.TaintNodeDiskPressure, managed[1].Key)
}

func TestGetZoneKey(t *testing.T) {
	tests := []struct {
		name   string
		labels map[string]string
		want   string
		show   string
	}{
		{"no labels", nil, "", "(none)"},
		{"zone only", map[string]string{LabelTopologyZone: "a"}, ":\x00:a", "a"},
		{"region and zone", map[string]string{LabelTopologyZone: "a", LabelTopologyRegion: "r"}, "r:\x00:a", "r/a"},
		{"beta labels win", map[string]string{LabelTopologyZone: "a", LabelFailureDomainBetaZone: "b"}, ":\x00:b", "b"},
		{"unrelated labels", map[string]string{"x": "y"}, "", "(none)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			key := GetZoneKey(&model.Node{ObjectMeta: model.ObjectMeta{Labels: tt.labels}})
			assert.Equal(t, tt.want, key)
			assert.Equal(t, tt.show, ZoneDisplayName(key))
		})
	}
}

func TestConfigValidate(t *testing.T) {
	testworld.CheckConfig(t, DefaultConfig, []testworld.ConfigCase[Config]{
		{Name: "zero period", Edit: func(c *Config) { c.NodeMonitorPeriod = 0 }, Want: "--node-monitor-period"},
		{Name: "negative grace", Edit: func(c *Config) { c.NodeMonitorGracePeriod = -1 }, Want: "--node-monitor-grace-period"},
		{Name: "huge startup grace", Edit: func(c *Config) { c.NodeStartupGracePeriod = 25 * 3600e9 }, Want: "--node-startup-grace-period"},
		{Name: "negative rate", Edit: func(c *Config) { c.NodeEvictionRate = -0.1 }, Want: "--node-eviction-rate"},
		{Name: "NaN secondary rate", Edit: func(c *Config) { c.SecondaryNodeEvictionRate = float32(nan()) }, Want: "--secondary-node-eviction-rate"},
		{Name: "negative threshold size", Edit: func(c *Config) { c.LargeClusterSizeThreshold = -1 }, Want: "--large-cluster-size-threshold"},
		{Name: "zero unhealthy threshold", Edit: func(c *Config) { c.UnhealthyZoneThreshold = 0 }, Want: "--unhealthy-zone-threshold"},
		{Name: "unhealthy threshold above 1", Edit: func(c *Config) { c.UnhealthyZoneThreshold = 1.5 }, Want: "--unhealthy-zone-threshold"},
	})
}

func nan() float64 {
	zero := 0.0
	return zero / zero
}

// TestNodeFactsFollowTheNodeVersion: the zone key and the disruption exclusion a monitor pass
// reads from the memo are those of the node version it is given, not of the version seen
// before (a node relabelled into or out of the exclusion, or into another zone).
func TestNodeFactsFollowTheNodeVersion(t *testing.T) {
	nc := &Controller{}
	v1 := &model.Node{ObjectMeta: model.ObjectMeta{Name: "n1", Labels: map[string]string{LabelTopologyZone: "a"}}}
	m := nc.facts(v1)
	assert.False(t, m.excluded)
	assert.Equal(t, ":\x00:a", m.zoneKey)

	v2 := v1.DeepCopy()
	v2.Labels[LabelNodeExcludeDisruption] = ""
	v2.Labels[LabelTopologyZone] = "b"
	assert.Same(t, m, nc.facts(v2), "one memo per node name")
	assert.True(t, m.excluded)
	assert.Equal(t, ":\x00:b", m.zoneKey)
	assert.Equal(t, ":\x00:b", nc.zoneKey(v2))

	v3 := v1.DeepCopy()
	assert.False(t, nc.memo("n1").of(v3).excluded)
	assert.Equal(t, ":\x00:a", nc.zoneKey(v3))
}

// TestReadyConditionFollowsTheStatusObject: the Ready condition a pass reads from the memo is
// that of the status it is given, found again for every new status object (a node whose
// kubelet posted NotReady, or that lost its Ready condition), and none for no status.
func TestReadyConditionFollowsTheStatusObject(t *testing.T) {
	m := &nodeMemo{}
	v1 := &model.Node{Status: model.NodeStatus{Conditions: []model.NodeCondition{
		{Type: model.NodeMemoryPressure, Status: model.ConditionFalse},
		{Type: model.NodeReady, Status: model.ConditionTrue},
	}}}
	assert.Same(t, &v1.Status.Conditions[1], m.readyOf(&v1.Status))
	assert.Same(t, &v1.Status.Conditions[1], m.readyOf(&v1.Status), "the same status again")

	v2 := v1.DeepCopy()
	v2.Status.Conditions[1].Status = model.ConditionFalse
	require.Same(t, &v2.Status.Conditions[1], m.readyOf(&v2.Status), "a new status object")
	assert.Equal(t, model.ConditionFalse, m.readyOf(&v2.Status).Status)

	v3 := v1.DeepCopy()
	v3.Status.Conditions = v3.Status.Conditions[:1]
	assert.Nil(t, m.readyOf(&v3.Status), "a status without Ready")
	assert.Nil(t, m.readyOf(nil))
	assert.Same(t, &v1.Status.Conditions[1], m.readyOf(&v1.Status), "back to the first status")
}

// TestReadyOfIsGetNodeCondition holds the memo's two-status cache to getNodeCondition over
// seeded sequences of status objects (Ready first, last, absent, no conditions, nil), asked
// about in any order and repeated, as a pass asks about a node's new status and then the one
// its health record saved.
func TestReadyOfIsGetNodeCondition(t *testing.T) {
	cond := func(ct string) model.NodeCondition {
		return model.NodeCondition{Type: ct, Status: model.ConditionTrue}
	}
	statuses := []*model.NodeStatus{nil, {}}
	for _, types := range [][]string{
		{model.NodeReady},
		{model.NodeMemoryPressure, model.NodeReady},
		{model.NodeMemoryPressure, model.NodeDiskPressure, model.NodePIDPressure, model.NodeReady},
		{model.NodeMemoryPressure, model.NodeDiskPressure},
		{model.NodeReady, model.NodeMemoryPressure},
	} {
		for copies := 0; copies < 2; copies++ { // equal statuses in different objects
			s := &model.NodeStatus{}
			for _, ct := range types {
				s.Conditions = append(s.Conditions, cond(ct))
			}
			statuses = append(statuses, s)
		}
	}
	for seed := uint64(0); seed < 50; seed++ {
		r := rand.New(rand.NewPCG(seed, 17))
		m := &nodeMemo{}
		for i := 0; i < 200; i++ {
			s := statuses[r.IntN(len(statuses))]
			if got, want := m.readyOf(s), getNodeCondition(s, model.NodeReady); got != want {
				t.Fatalf("seed %d, ask %d: readyOf gives %p, getNodeCondition %p", seed, i, got, want)
			}
		}
	}
}
