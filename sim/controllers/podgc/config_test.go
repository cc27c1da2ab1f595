package podgc

import (
	"sort"
	"testing"
	"time"

	"github.com/reconsim/reconsim/sim/internal/testworld"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/vtime"
)

func TestDefaultConfigIsUpstream(t *testing.T) {
	c := DefaultConfig()
	require.NoError(t, c.Validate())
	assert.Equal(t, 12500, c.TerminatedPodGCThreshold)
	assert.Equal(t, 20*time.Second, c.GCCheckPeriod)
	assert.Equal(t, 40*time.Second, c.QuarantineTime)
}

func TestConfigValidate(t *testing.T) {
	testworld.CheckConfig(t, DefaultConfig, []testworld.ConfigCase[Config]{
		{Name: "no check period", Edit: func(c *Config) { c.GCCheckPeriod = 0 }, Want: "gc check period"},
		{Name: "negative quarantine", Edit: func(c *Config) { c.QuarantineTime = -time.Second }, Want: "quarantine"},
		{Name: "zero threshold disables gcTerminated", Edit: func(c *Config) { c.TerminatedPodGCThreshold = 0 }, Want: ""},
	})
}

func TestByEvictionAndCreationTimestamp(t *testing.T) {
	mk := func(name string, created vtime.Time, evicted bool) *model.Pod {
		p := &model.Pod{}
		p.Name, p.CreationTimestamp = name, created
		p.Status.Phase = model.PodSucceeded
		if evicted {
			p.Status.Phase, p.Status.Reason = model.PodFailed, "Evicted"
		}
		return p
	}
	pods := []*model.Pod{mk("new", 30, false), mk("b-old", 10, false), mk("a-old", 10, false), mk("ev-new", 40, true), mk("ev-old", 20, true)}
	sort.Sort(byEvictionAndCreationTimestamp(pods))
	var names []string
	for _, p := range pods {
		names = append(names, p.Name)
	}
	assert.Equal(t, []string{"ev-old", "ev-new", "a-old", "b-old", "new"}, names)
}

func TestIsPodTerminated(t *testing.T) {
	tests := []struct {
		phase string
		want  bool
	}{
		{model.PodPending, false}, {model.PodRunning, false}, {model.PodUnknown, false},
		{model.PodSucceeded, true}, {model.PodFailed, true}, {"", true},
	}
	for _, tc := range tests {
		p := &model.Pod{}
		p.Status.Phase = tc.phase
		assert.Equal(t, tc.want, isPodTerminated(p), "phase %q", tc.phase)
	}
}

func TestUpdatePodCondition(t *testing.T) {
	conds := []model.PodCondition{{Type: model.PodReady, Status: model.ConditionTrue, LastTransitionTime: 5}}
	cond := model.PodCondition{Type: model.PodDisruptionTarget, Status: model.ConditionTrue, Reason: DeletionByPodGCReason}
	conds = updatePodCondition(conds, cond, 100)
	require.Len(t, conds, 2)
	assert.Equal(t, vtime.Time(100), conds[1].LastTransitionTime)
	// Same status again: the transition time stays; the reason is replaced.
	cond.Reason = "Other"
	conds = updatePodCondition(conds, cond, 200)
	require.Len(t, conds, 2)
	assert.Equal(t, vtime.Time(100), conds[1].LastTransitionTime)
	assert.Equal(t, "Other", conds[1].Reason)
	// A status change moves it.
	cond.Status = model.ConditionFalse
	conds = updatePodCondition(conds, cond, 300)
	assert.Equal(t, vtime.Time(300), conds[1].LastTransitionTime)
}
