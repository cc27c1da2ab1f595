package scheduler

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reconsim/reconsim/model"
)

// TestCriticalPathsUpdate follows podtopologyspread criticalPaths.update (filtering.go): the
// first path always holds the smaller count; a value already tracked is updated in place and
// the two swap when needed; a new value displaces the first or the second when smaller.
func TestCriticalPathsUpdate(t *testing.T) {
	type step struct {
		value string
		num   int
	}
	tests := []struct {
		name  string
		start map[string]int
		steps []step
		want  criticalPaths
	}{
		{"built: the two smallest, ties by value", map[string]int{"c": 1, "b": 1, "a": 3}, nil,
			criticalPaths{{"b", 1}, {"c", 1}}},
		{"one domain", map[string]int{"a": 2}, nil, criticalPaths{{"a", 2}, {"", 2147483647}}},
		{"tracked first drops further", map[string]int{"a": 1, "b": 2, "c": 3}, []step{{"a", 0}},
			criticalPaths{{"a", 0}, {"b", 2}}},
		{"tracked first grows past the second: swap", map[string]int{"a": 1, "b": 2, "c": 3}, []step{{"a", 3}},
			criticalPaths{{"b", 2}, {"a", 3}}},
		{"untracked drops below the first", map[string]int{"a": 1, "b": 2, "c": 3}, []step{{"c", 0}},
			criticalPaths{{"c", 0}, {"a", 1}}},
		{"untracked drops between", map[string]int{"a": 1, "b": 3, "c": 4}, []step{{"c", 2}},
			criticalPaths{{"a", 1}, {"c", 2}}},
		// As upstream: after the first grows twice, the second path need not be the second
		// smallest (c's 2 is not tracked), which a later step can expose.
		{"approximate after growth", map[string]int{"a": 1, "b": 1, "c": 2}, []step{{"a", 3}, {"b", 4}},
			criticalPaths{{"a", 3}, {"b", 4}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := buildCriticalPaths(tt.start)
			for _, s := range tt.steps {
				p.update(s.value, s.num)
			}
			assert.Equal(t, tt.want, p)
		})
	}
}

// TestPreFilterExtensionsRoundTrip follows RunPreFilterExtensionRemovePod and
// RunPreFilterExtensionAddPod on the states of PodTopologySpread and InterPodAffinity
// (updateWithPod in both plugins' filtering.go): removing a pod and adding it back restores
// the counts, a removed pod's domain counts one less, and a clone is independent.
func TestPreFilterExtensionsRoundTrip(t *testing.T) {
	a1, b1 := zoneNode("a1", "a"), zoneNode("b1", "b")
	anti := labelled("anti", "default", "app", "web")
	anti.Spec.Affinity = &model.Affinity{PodAntiAffinity: &model.PodAntiAffinity{
		RequiredDuringSchedulingIgnoredDuringExecution: []model.PodAffinityTerm{{LabelSelector: sel("app", "web"), TopologyKey: LabelHostname}}}}
	w1, w2 := labelled("w1", "default", "app", "web"), labelled("w2", "default", "app", "web")
	other := labelled("o", "other", "app", "web")
	infos := []*NodeInfo{nodeInfoWith(a1, w1, anti, other), nodeInfoWith(b1, w2)}
	pod := withSpread(labelled("p", "default", "app", "web"),
		model.TopologySpreadConstraint{MaxSkew: 1, TopologyKey: LabelTopologyZone, WhenUnsatisfiable: model.DoNotSchedule, LabelSelector: sel("app", "web")})
	pod.Spec.Affinity = &model.Affinity{PodAntiAffinity: &model.PodAntiAffinity{
		RequiredDuringSchedulingIgnoredDuringExecution: []model.PodAffinityTerm{{LabelSelector: sel("app", "web"), TopologyKey: LabelTopologyZone}}}}
	s := newCycleState(pod)
	s.preFilter(infos)
	require.NotNil(t, s.spread)
	require.NotNil(t, s.affinity)
	assert.Equal(t, map[string]int{"a": 2, "b": 1}, s.spread.tpValueToMatchNum[0])
	zoneA := topologyPair{LabelTopologyZone, "a"}
	hostA := topologyPair{LabelHostname, "a1"}
	assert.Equal(t, int64(2), s.affinity.anti[zoneA])
	assert.Equal(t, int64(1), s.affinity.existingAnti[hostA])

	c := s.clone()
	ni := infos[0].clone()
	for _, key := range []string{"default/anti", "default/w1", "other/o"} {
		removePodWithState(c, ni, key)
	}
	assert.Equal(t, map[string]int{"a": 0, "b": 1}, c.spread.tpValueToMatchNum[0], "the other namespace's pod never counted")
	assert.Equal(t, criticalPath{"a", 0}, c.spread.criticalPaths[0][0])
	assert.NotContains(t, c.affinity.anti, zoneA, "a count down to 0 is deleted")
	assert.NotContains(t, c.affinity.existingAnti, hostA)
	assert.Equal(t, map[string]int{"a": 2, "b": 1}, s.spread.tpValueToMatchNum[0], "the original state is unchanged")
	assert.Equal(t, int64(2), s.affinity.anti[zoneA])
	assert.Equal(t, 3, infos[0].NumPods(), "the original NodeInfo is unchanged")

	for _, p := range []*model.Pod{w1, anti, other} {
		bound := p.DeepCopy()
		bound.Spec.NodeName = "a1"
		addPodWithState(c, ni, bound)
	}
	assert.Equal(t, s.spread.tpValueToMatchNum, c.spread.tpValueToMatchNum)
	assert.Equal(t, s.affinity.anti, c.affinity.anti)
	assert.Equal(t, s.affinity.existingAnti, c.affinity.existingAnti)
}

// TestNodeInfoCloneKeepsCountsApart: the label and selector counts of a clone (NodeInfo.Snapshot)
// change with its own pods only; removing pods from a clone, as the preemption dry run does,
// leaves the cache's counts alone.
func TestNodeInfoCloneKeepsCountsApart(t *testing.T) {
	ni := nodeInfoWith(zoneNode("a1", "a"), labelled("w1", "default", "app", "web"), labelled("w2", "default", "app", "web"))
	web := selectorOf(sel("app", "web"))
	mk := newMatchKey("default", web)
	require.Equal(t, 2, countPodsMatching(ni, mk))
	c := ni.clone()
	c.removePod("default/w1")
	c.removePod("default/w2")
	assert.Equal(t, 0, countPodsMatching(c, mk))
	assert.Equal(t, 2, countPodsMatching(ni, mk), "the original's live count")
	assert.Equal(t, 2, countPodsMatchSelector(ni, web, "default"))
	c.addPod("default/w3", labelled("w3", "default", "app", "web"))
	assert.Equal(t, 1, countPodsMatching(c, mk))
	assert.Equal(t, 2, countPodsMatching(ni, mk))
}

// TestNominatedPodsCountInPreFilterState follows RunFilterPluginsWithNominatedPods with
// addGENominatedPods: a nominated pod of higher priority is added to copies of the NodeInfo
// and of the cycle state (RunPreFilterExtensionAddPod), so PodTopologySpread counts it in its
// domain; the cycle's own state is not changed.
func TestNominatedPodsCountInPreFilterState(t *testing.T) {
	a1, b1 := zoneNode("a1", "a"), zoneNode("b1", "b")
	infos := []*NodeInfo{nodeInfoWith(a1), nodeInfoWith(b1)}
	pod := withSpread(labelled("p", "default", "app", "web"),
		model.TopologySpreadConstraint{MaxSkew: 1, TopologyKey: LabelTopologyZone, WhenUnsatisfiable: model.DoNotSchedule, LabelSelector: sel("app", "web")})
	s := newCycleState(pod)
	s.preFilter(infos)
	require.True(t, runFilterPluginsWithNominatedPods(s, infos[0]).IsSuccess(), "zone a: 0 + 1 - 0")
	nominated := labelled("n", "default", "app", "web")
	nominated.Spec.Priority = model.Ptr(int32(100))
	s.nominated = map[string][]*model.Pod{"a1": {nominated}}
	st := runFilterPluginsWithNominatedPods(s, infos[0])
	assert.Equal(t, ErrReasonConstraintsNotMatch, st.Message(), "zone a with the nominated pod: 1 + 1 - 0")
	assert.True(t, runFilterPluginsWithNominatedPods(s, infos[1]).IsSuccess(), "zone b: 0 + 1 - 0")
	assert.Equal(t, map[string]int{"a": 0, "b": 0}, s.spread.tpValueToMatchNum[0])
	assert.Zero(t, infos[0].NumPods())
}
