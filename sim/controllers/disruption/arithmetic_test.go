package disruption

import (
	"errors"
	"testing"
	"time"

	"github.com/reconsim/reconsim/sim/internal/testworld"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/vtime"
)

func TestGetExpectedPodCount(t *testing.T) {
	intOrStr := func(s string) *intstr.IntOrString {
		v := intstr.Parse(s)
		return &v
	}
	scaleOf := func(n int32) func() (int32, []string, error) {
		return func() (int32, []string, error) { return n, nil, nil }
	}
	noScale := func() (int32, []string, error) {
		return 0, nil, errors.New("scale must not be asked for an integer minAvailable")
	}
	tests := []struct {
		name                   string
		minAvailable, maxUnav  string
		pods                   int
		scale                  func() (int32, []string, error)
		wantExpected, wantDesi int32
		wantErr                string
	}{
		{name: "minAvailable int uses the pod count", minAvailable: "2", pods: 3, scale: noScale, wantExpected: 3, wantDesi: 2},
		{name: "minAvailable int larger than the pods", minAvailable: "5", pods: 3, scale: noScale, wantExpected: 3, wantDesi: 5},
		{name: "minAvailable int with no pods", minAvailable: "1", pods: 0, scale: noScale, wantExpected: 0, wantDesi: 1},
		{name: "minAvailable percent rounds up", minAvailable: "50%", pods: 2, scale: scaleOf(3), wantExpected: 3, wantDesi: 2},
		{name: "minAvailable percent exact", minAvailable: "50%", pods: 4, scale: scaleOf(4), wantExpected: 4, wantDesi: 2},
		{name: "minAvailable 1% of 10 rounds up to 1", minAvailable: "1%", pods: 10, scale: scaleOf(10), wantExpected: 10, wantDesi: 1},
		{name: "minAvailable 100%", minAvailable: "100%", pods: 5, scale: scaleOf(5), wantExpected: 5, wantDesi: 5},
		{name: "maxUnavailable int", maxUnav: "1", pods: 3, scale: scaleOf(3), wantExpected: 3, wantDesi: 2},
		{name: "maxUnavailable int beyond scale floors at 0", maxUnav: "5", pods: 3, scale: scaleOf(3), wantExpected: 3, wantDesi: 0},
		{name: "maxUnavailable percent rounds up", maxUnav: "25%", pods: 10, scale: scaleOf(10), wantExpected: 10, wantDesi: 7},
		{name: "maxUnavailable 33% of 3 rounds up to 1", maxUnav: "33%", pods: 3, scale: scaleOf(3), wantExpected: 3, wantDesi: 2},
		{name: "maxUnavailable 0%", maxUnav: "0%", pods: 4, scale: scaleOf(4), wantExpected: 4, wantDesi: 4},
		{name: "maxUnavailable against the scale, not the pods", maxUnav: "1", pods: 1, scale: scaleOf(3), wantExpected: 3, wantDesi: 2},
		{name: "maxUnavailable wins over minAvailable", minAvailable: "3", maxUnav: "1", pods: 3, scale: scaleOf(3), wantExpected: 3, wantDesi: 2},
		{name: "neither set", pods: 3, scale: noScale, wantExpected: 0, wantDesi: 0},
		{name: "scale error", maxUnav: "1", pods: 3, scale: func() (int32, []string, error) { return 0, nil, errors.New("found no controllers for pod \"x\"") }, wantErr: "found no controllers"},
		{name: "percent without number", minAvailable: "abc%", pods: 3, scale: scaleOf(3), wantErr: "invalid value"},
		{name: "string that is not a percent", maxUnav: "abc", pods: 3, scale: scaleOf(3), wantErr: "invalid value"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pdb := &model.PodDisruptionBudget{}
			if tc.minAvailable != "" {
				pdb.Spec.MinAvailable = intOrStr(tc.minAvailable)
			}
			if tc.maxUnav != "" {
				pdb.Spec.MaxUnavailable = intOrStr(tc.maxUnav)
			}
			expected, desired, _, err := getExpectedPodCount(pdb, tc.pods, tc.scale)
			if tc.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.wantExpected, expected, "expectedCount")
			assert.Equal(t, tc.wantDesi, desired, "desiredHealthy")
		})
	}
}

func TestDisruptionsAllowed(t *testing.T) {
	tests := []struct {
		current, desired, expected, want int32
	}{
		{current: 3, desired: 2, expected: 3, want: 1},
		{current: 2, desired: 2, expected: 3, want: 0},
		{current: 1, desired: 2, expected: 3, want: 0},
		{current: 5, desired: 0, expected: 5, want: 5},
		{current: 3, desired: 0, expected: 0, want: 0}, // a budget that expects no pods allows nothing
		{current: 0, desired: 0, expected: 0, want: 0},
	}
	for _, tc := range tests {
		assert.Equal(t, tc.want, disruptionsAllowed(tc.current, tc.desired, tc.expected), "%+v", tc)
	}
}

func TestCountHealthyPods(t *testing.T) {
	now := vtime.Time(10 * time.Minute)
	ready := func(name string) *model.Pod {
		p := &model.Pod{}
		p.Name = name
		p.Status.Conditions = []model.PodCondition{{Type: model.PodReady, Status: model.ConditionTrue}}
		return p
	}
	deleting := ready("deleting")
	deleting.DeletionTimestamp = model.Ptr(now)
	notReady := ready("not-ready")
	notReady.Status.Conditions[0].Status = model.ConditionFalse
	pods := []*model.Pod{ready("a"), ready("b"), ready("c"), deleting, notReady}
	disrupted := map[string]vtime.Time{
		"b": now.Add(-time.Minute),     // evicted a minute ago: still expected to go
		"c": now.Add(-3 * time.Minute), // older than DeletionTimeout: counts again
	}
	assert.Equal(t, int32(2), countHealthyPods(pods, disrupted, now, DeletionTimeout))
	assert.Equal(t, int32(3), countHealthyPods(pods, nil, now, DeletionTimeout))
	// An entry exactly DeletionTimeout old has expired (Add(timeout).After(now) is false).
	assert.Equal(t, int32(3), countHealthyPods(pods, map[string]vtime.Time{"b": now.Add(-DeletionTimeout)}, now, DeletionTimeout))
}

func TestDisruptionAllowedCondition(t *testing.T) {
	pdb := &model.PodDisruptionBudget{}
	pdb.Generation = 2
	pdb.Status.ObservedGeneration = 2
	pdb.Status.DisruptionsAllowed = 1
	assert.False(t, conditionsAreUpToDate(pdb), "no condition yet")

	model.UpdateDisruptionAllowedCondition(pdb, vtime.Time(5))
	require.Len(t, pdb.Status.Conditions, 1)
	c := pdb.Status.Conditions[0]
	assert.Equal(t, model.Condition{Type: model.DisruptionAllowedCondition, Status: model.ConditionTrue, Reason: model.SufficientPodsReason,
		ObservedGeneration: 2, LastTransitionTime: 5}, c)
	assert.True(t, conditionsAreUpToDate(pdb))

	// Same status later: the transition time stays.
	model.UpdateDisruptionAllowedCondition(pdb, vtime.Time(9))
	assert.Equal(t, vtime.Time(5), pdb.Status.Conditions[0].LastTransitionTime)

	pdb.Status.DisruptionsAllowed = 0
	assert.False(t, conditionsAreUpToDate(pdb), "allowed dropped to 0 but the condition says True")
	model.UpdateDisruptionAllowedCondition(pdb, vtime.Time(12))
	c = pdb.Status.Conditions[0]
	assert.Equal(t, model.ConditionFalse, c.Status)
	assert.Equal(t, model.InsufficientPodsReason, c.Reason)
	assert.Equal(t, vtime.Time(12), c.LastTransitionTime)
	assert.True(t, conditionsAreUpToDate(pdb))

	pdb.Generation = 3
	assert.False(t, conditionsAreUpToDate(pdb), "a newer generation is not observed")
}

func TestUpdatePodCondition(t *testing.T) {
	var st model.PodStatus
	assert.True(t, model.UpdatePodCondition(&st, model.PodCondition{Type: model.PodDisruptionTarget, Status: model.ConditionTrue, Reason: "EvictionByEvictionAPI"}, 1))
	assert.False(t, model.UpdatePodCondition(&st, model.PodCondition{Type: model.PodDisruptionTarget, Status: model.ConditionTrue, Reason: "EvictionByEvictionAPI"}, 2),
		"the same condition again is no change, and keeps its transition time")
	assert.Equal(t, vtime.Time(1), st.Conditions[0].LastTransitionTime)
	assert.True(t, model.UpdatePodCondition(&st, model.PodCondition{Type: model.PodDisruptionTarget, Status: model.ConditionFalse}, 3))
	assert.Equal(t, model.PodCondition{Type: model.PodDisruptionTarget, Status: model.ConditionFalse, LastTransitionTime: 3}, st.Conditions[0])
	require.Len(t, st.Conditions, 1)
}

func TestVerifyGroupKind(t *testing.T) {
	tests := []struct {
		apiVersion string
		kind       model.Kind
		want       bool
		wantErr    bool
	}{
		{"apps/v1", model.KindReplicaSet, true, false},
		{"extensions/v1beta1", model.KindReplicaSet, true, false},
		{"v1", model.KindReplicaSet, false, false},
		{"apps/v1", model.KindDeployment, false, false},
		{"a/b/c", model.KindReplicaSet, false, true},
	}
	for _, tc := range tests {
		ok, err := verifyGroupKind(&model.OwnerReference{APIVersion: tc.apiVersion, Kind: tc.kind}, model.KindReplicaSet, "apps", "extensions")
		assert.Equal(t, tc.want, ok, "%+v", tc)
		assert.Equal(t, tc.wantErr, err != nil, "%+v", tc)
	}
}

func TestConfigValidate(t *testing.T) {
	assert.Equal(t, 2*time.Minute, DefaultConfig().DeletionTimeout)
	testworld.CheckConfig(t, DefaultConfig, []testworld.ConfigCase[Config]{
		{Name: "no deletion timeout", Edit: func(c *Config) { c.DeletionTimeout = 0 }, Want: "DeletionTimeout"},
		{Name: "stale timeout too long", Edit: func(c *Config) { c.StalePodDisruptionTimeout = 48 * time.Hour }, Want: "stalePodDisruptionTimeout"},
	})
}
