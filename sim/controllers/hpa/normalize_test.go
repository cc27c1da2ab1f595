package hpa

import (
	"testing"
	"time"

	"github.com/reconsim/reconsim/sim/internal/testworld"

	"github.com/stretchr/testify/assert"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim"
	"github.com/reconsim/reconsim/vtime"
)

var normNow = vtime.Time(time.Hour)

func ago(d time.Duration) vtime.Time { return normNow.Add(-d) }

func rules(selectPolicy string, stabilization int32, policies ...model.HPAScalingPolicy) *model.HPAScalingRules {
	r := &model.HPAScalingRules{SelectPolicy: model.Ptr(selectPolicy), StabilizationWindowSeconds: model.Ptr(stabilization), Policies: policies}
	return r
}

func pods(v, period int32) model.HPAScalingPolicy {
	return model.HPAScalingPolicy{Type: model.PodsScalingPolicy, Value: v, PeriodSeconds: period}
}

func percent(v, period int32) model.HPAScalingPolicy {
	return model.HPAScalingPolicy{Type: model.PercentScalingPolicy, Value: v, PeriodSeconds: period}
}

// defaultUp is upstream's default scale-up rules: {Pods 4 / 15s, Percent 100 / 15s}, Max.
var defaultUp = rules(model.MaxChangePolicySelect, 0, pods(4, 15), percent(100, 15))

// defaultDown is the default scale-down rules with the controller's 300s window:
// {Percent 100 / 15s}, Max.
var defaultDown = rules(model.MaxChangePolicySelect, 300, percent(100, 15))

// limitCase is one case of a scale limit function: current replicas, the recent scale events
// and the rules; want is the limit.
type limitCase struct {
	name     string
	current  int32
	up, down []timestampedScaleEvent
	rules    *model.HPAScalingRules
	want     int32
}

// checkLimits runs each case against limit at normNow.
func checkLimits(t *testing.T, limit func(current int32, up, down []timestampedScaleEvent, rules *model.HPAScalingRules, now vtime.Time) int32, cases []limitCase) {
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, limit(tc.current, tc.up, tc.down, tc.rules, normNow))
		})
	}
}

func TestScaleUpLimitWithScalingRules(t *testing.T) {
	checkLimits(t, calculateScaleUpLimitWithScalingRules, []limitCase{
		// No events: the period starts at current. Pods: 2+4 = 6; Percent: ceil(2*2) = 4; Max: 6.
		{name: "small: pods policy wins", current: 2, rules: defaultUp, want: 6},
		// Pods: 10+4 = 14; Percent: ceil(10*2) = 20; Max: 20.
		{name: "large: percent policy wins", current: 10, rules: defaultUp, want: 20},
		// Select Min: min(14, 20) = 14.
		{name: "select Min", current: 10, rules: rules(model.MinChangePolicySelect, 0, pods(4, 15), percent(100, 15)), want: 14},
		{name: "select Disabled", current: 10, rules: rules(model.DisabledPolicySelect, 0, pods(4, 15), percent(100, 15)), want: 10},
		// +5 ten seconds ago is inside the 15s period: it started at 10-5 = 5; Pods 5+4 = 9,
		// Percent ceil(5*2) = 10; Max 10 (the caller floors it at current, so no more growth).
		{name: "recent scale-up counts", current: 10, up: []timestampedScaleEvent{{5, ago(10 * time.Second), false}}, rules: defaultUp, want: 10},
		// The same event 15s ago is not after the cutoff: the period starts at 10: 20.
		{name: "event at the cutoff is outside", current: 10, up: []timestampedScaleEvent{{5, ago(15 * time.Second), false}}, rules: defaultUp, want: 20},
		// A scale-down of 3 five seconds ago: the period started at 7+3 = 10: Pods 14,
		// Percent 20: 20.
		{name: "recent scale-down adds back", current: 7, down: []timestampedScaleEvent{{3, ago(5 * time.Second), false}}, rules: defaultUp, want: 20},
		// Percent rounds up: 3 * 1.1 = 3.3 -> 4.
		{name: "percent rounds up", current: 3, rules: rules(model.MaxChangePolicySelect, 0, percent(10, 60)), want: 4},
		// Two policies with different periods: +2 40s ago counts for the 60s policy only.
		// Pods 1/15s: 8+1 = 9; Pods 3/60s: (8-2)+3 = 9; Max 9.
		{name: "periods differ", current: 8, up: []timestampedScaleEvent{{2, ago(40 * time.Second), false}}, rules: rules(model.MaxChangePolicySelect, 0, pods(1, 15), pods(3, 60)), want: 9},
	})
}

func TestScaleDownLimitWithBehaviors(t *testing.T) {
	checkLimits(t, calculateScaleDownLimitWithBehaviors, []limitCase{
		// Percent 100: int(10 * 0) = 0 — everything may go at once (bounded by minReplicas).
		{name: "default: percent 100", current: 10, rules: defaultDown, want: 0},
		// Percent 50: int(9 * 0.5) = int(4.5) = 4 (truncation).
		{name: "percent truncates", current: 9, rules: rules(model.MaxChangePolicySelect, 0, percent(50, 60)), want: 4},
		// Max (the biggest change) picks the lowest: Pods 10-2 = 8, Percent int(10*0.5) = 5: 5.
		{name: "select Max picks the lowest", current: 10, rules: rules(model.MaxChangePolicySelect, 0, pods(2, 60), percent(50, 60)), want: 5},
		{name: "select Min picks the highest", current: 10, rules: rules(model.MinChangePolicySelect, 0, pods(2, 60), percent(50, 60)), want: 8},
		{name: "select Disabled", current: 10, rules: rules(model.DisabledPolicySelect, 0, pods(2, 60)), want: 10},
		// -2 thirty seconds ago within the 60s period: it started at 8+2 = 10; Pods 2: 8, which
		// is the current count (the caller floors at current: no further scale-down).
		{name: "recent scale-down counts", current: 8, down: []timestampedScaleEvent{{2, ago(30 * time.Second), false}}, rules: rules(model.MaxChangePolicySelect, 0, pods(2, 60)), want: 8},
	})
}

// testController is a controller with a fixed clock for the normalization functions.
func testController(t *testing.T) (*Controller, *sim.Kernel) {
	k := sim.New(1)
	k.After(time.Hour, func() {})
	k.Run(sim.Limits{})
	return &Controller{
		k:               k,
		cfg:             DefaultConfig(),
		recommendations: map[string][]timestampedRecommendation{},
		scaleUpEvents:   map[string][]timestampedScaleEvent{},
		scaleDownEvents: map[string][]timestampedScaleEvent{},
	}, k
}

func TestBehaviorNormalization(t *testing.T) {
	hpaWith := func(b *model.HorizontalPodAutoscalerBehavior) *model.HorizontalPodAutoscaler {
		return &model.HorizontalPodAutoscaler{Spec: model.HorizontalPodAutoscalerSpec{MaxReplicas: 50, Behavior: b}}
	}
	type rec = timestampedRecommendation
	for _, tc := range []struct {
		name            string
		behavior        *model.HorizontalPodAutoscalerBehavior
		recommendations []rec
		up, down        []timestampedScaleEvent
		current, desire int32
		min             int32
		want            int32
		limited         string // ScalingLimited reason
		able            string // AbleToScale reason
	}{
		{
			// 5 -> 30 wanted; the default rules allow max(5+4, 5*2) = 10 in this 15s period.
			name: "default scale-up is rate limited", behavior: &model.HorizontalPodAutoscalerBehavior{ScaleUp: defaultUp, ScaleDown: defaultDown},
			current: 5, desire: 30, min: 1, want: 10, limited: "ScaleUpLimit", able: "ReadyForNewScale",
		},
		{
			// 10 was reached by +5 five seconds ago: the period started at 5, the limit is
			// max(9, 10) = 10 = current: no growth until that event is 15s old.
			name: "no more growth within the period", behavior: &model.HorizontalPodAutoscalerBehavior{ScaleUp: defaultUp, ScaleDown: defaultDown},
			up:      []timestampedScaleEvent{{5, ago(5 * time.Second), false}},
			current: 10, desire: 30, min: 1, want: 10, limited: "ScaleUpLimit", able: "ReadyForNewScale",
		},
		{
			// Desire 3 from 10, but 12 was recommended 200s ago (inside 300s): stabilized at
			// min(current, 12) = 10, no change.
			name: "scale-down held by the stabilization window", behavior: &model.HorizontalPodAutoscalerBehavior{ScaleUp: defaultUp, ScaleDown: defaultDown},
			recommendations: []rec{{12, ago(200 * time.Second)}, {4, ago(100 * time.Second)}},
			current:         10, desire: 3, min: 1, want: 10, limited: "DesiredWithinRange", able: "ScaleDownStabilized",
		},
		{
			// The 12 is now 301s old: the window's highest is 4; Percent 100 allows all: 4.
			name: "scale-down after the window", behavior: &model.HorizontalPodAutoscalerBehavior{ScaleUp: defaultUp, ScaleDown: defaultDown},
			recommendations: []rec{{12, ago(301 * time.Second)}, {4, ago(100 * time.Second)}},
			current:         10, desire: 3, min: 1, want: 4, limited: "DesiredWithinRange", able: "ScaleDownStabilized",
		},
		{
			// Scale-down by at most 1 pod per minute: 10 -> 9.
			name: "scale-down rate limited", behavior: &model.HorizontalPodAutoscalerBehavior{ScaleUp: defaultUp, ScaleDown: rules(model.MaxChangePolicySelect, 0, pods(1, 60))},
			current: 10, desire: 3, min: 1, want: 9, limited: "ScaleDownLimit", able: "ReadyForNewScale",
		},
		{
			// minReplicas 6 binds before the 100% policy: TooFewReplicas.
			name: "minReplicas", behavior: &model.HorizontalPodAutoscalerBehavior{ScaleUp: defaultUp, ScaleDown: rules(model.MaxChangePolicySelect, 0, percent(100, 15))},
			current: 10, desire: 3, min: 6, want: 6, limited: "TooFewReplicas", able: "ReadyForNewScale",
		},
		{
			// A 60s scale-up window: the lowest recommendation in it (6) bounds the scale-up.
			name: "scale-up stabilization", behavior: &model.HorizontalPodAutoscalerBehavior{ScaleUp: rules(model.MaxChangePolicySelect, 60, pods(100, 15)), ScaleDown: defaultDown},
			recommendations: []rec{{6, ago(30 * time.Second)}},
			current:         5, desire: 20, min: 1, want: 6, limited: "DesiredWithinRange", able: "ScaleUpStabilized",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, _ := testController(t)
			key := "ns/h"
			a.recommendations[key] = append([]rec(nil), tc.recommendations...)
			a.scaleUpEvents[key] = tc.up
			a.scaleDownEvents[key] = tc.down
			h := hpaWith(tc.behavior)
			got := a.normalizeDesiredReplicasWithBehaviors(h, key, tc.current, tc.desire, tc.min)
			assert.Equal(t, tc.want, got)
			assert.Equal(t, tc.limited, condition(h, model.ScalingLimited).Reason)
			assert.Equal(t, tc.able, condition(h, model.AbleToScale).Reason)
			// The raw recommendation is recorded now, in a stale slot (older than both windows)
			// if there is one.
			assert.Contains(t, a.recommendations[key], rec{tc.desire, normNow})
		})
	}
}

func condition(h *model.HorizontalPodAutoscaler, typ string) model.HorizontalPodAutoscalerCondition {
	for _, c := range h.Status.Conditions {
		if c.Type == typ {
			return c
		}
	}
	return model.HorizontalPodAutoscalerCondition{}
}

func TestLegacyNormalization(t *testing.T) {
	type rec = timestampedRecommendation
	for _, tc := range []struct {
		name            string
		recommendations []rec
		current, desire int32
		min, max        int32
		want            int32
		limited, able   string
	}{
		// 3 -> 20 wanted: the legacy limit is max(2*3, 4) = 6.
		{name: "scale-up limit", current: 3, desire: 20, min: 1, max: 50, want: 6, limited: "ScaleUpLimit", able: "ReadyForNewScale"},
		// 1 -> 20: max(2, 4) = 4.
		{name: "scale-up minimum of 4", current: 1, desire: 20, min: 1, max: 50, want: 4, limited: "ScaleUpLimit", able: "ReadyForNewScale"},
		// maxReplicas 5 is below the limit of 6: TooManyReplicas.
		{name: "maxReplicas", current: 3, desire: 20, min: 1, max: 5, want: 5, limited: "TooManyReplicas", able: "ReadyForNewScale"},
		// 8 recommended 4 minutes ago: the highest in 5 minutes wins over the new 2.
		{name: "recommendation window", recommendations: []rec{{8, ago(4 * time.Minute)}}, current: 8, desire: 2, min: 1, max: 50, want: 8, limited: "DesiredWithinRange", able: "ScaleDownStabilized"},
		// The 8 is older than 5 minutes (and its slot is reused): 2.
		{name: "old recommendation ignored", recommendations: []rec{{8, ago(6 * time.Minute)}}, current: 8, desire: 2, min: 1, max: 50, want: 2, limited: "DesiredWithinRange", able: "ReadyForNewScale"},
		{name: "minReplicas", current: 8, desire: 1, min: 3, max: 50, want: 3, limited: "TooFewReplicas", able: "ReadyForNewScale"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, _ := testController(t)
			key := "ns/h"
			a.recommendations[key] = append([]rec(nil), tc.recommendations...)
			h := &model.HorizontalPodAutoscaler{Spec: model.HorizontalPodAutoscalerSpec{MaxReplicas: tc.max}}
			assert.Equal(t, tc.want, a.normalizeDesiredReplicas(h, key, tc.current, tc.desire, tc.min))
			assert.Equal(t, tc.limited, condition(h, model.ScalingLimited).Reason)
			assert.Equal(t, tc.able, condition(h, model.AbleToScale).Reason)
			if len(tc.recommendations) > 0 && tc.name == "old recommendation ignored" {
				assert.Len(t, a.recommendations[key], 1, "the stale slot is reused")
			}
		})
	}
}

func TestStoreScaleEvent(t *testing.T) {
	a, k := testController(t)
	b := &model.HorizontalPodAutoscalerBehavior{ScaleUp: defaultUp, ScaleDown: rules(model.MaxChangePolicySelect, 0, percent(100, 60))}
	a.storeScaleEvent(b, "k", 2, 6)
	a.storeScaleEvent(b, "k", 6, 4)
	assert.Equal(t, []timestampedScaleEvent{{4, normNow, false}}, a.scaleUpEvents["k"])
	assert.Equal(t, []timestampedScaleEvent{{2, normNow, false}}, a.scaleDownEvents["k"])
	// 20s later the scale-up event is older than the longest scale-up period (15s): it is
	// marked outdated and its slot reused.
	k.After(20*time.Second, func() {})
	k.Run(sim.Limits{})
	a.storeScaleEvent(b, "k", 4, 5)
	assert.Equal(t, []timestampedScaleEvent{{1, k.Now(), false}}, a.scaleUpEvents["k"])
	// The legacy path stores nothing.
	a.storeScaleEvent(nil, "legacy", 1, 2)
	assert.Empty(t, a.scaleUpEvents["legacy"])
}

func TestConfigValidate(t *testing.T) {
	testworld.CheckConfig(t, DefaultConfig, []testworld.ConfigCase[Config]{
		{Name: "tolerance above 1", Edit: func(c *Config) { c.HorizontalPodAutoscalerTolerance = 2 },
			Want: "horizontal-pod-autoscaler-tolerance must be in [0, 1], got 2"},
		{Name: "no workers", Edit: func(c *Config) { c.ConcurrentHorizontalPodAutoscalerSyncs = 0 },
			Want: "concurrent-horizontal-pod-autoscaler-syncs must be in [1, 1000], got 0"},
		{Name: "negative stabilization", Edit: func(c *Config) { c.HorizontalPodAutoscalerDownscaleStabilizationWindow = -time.Second },
			Want: "horizontal-pod-autoscaler-downscale-stabilization must be in [0s, 24h0m0s], got -1s"},
	})
}
