package hpa

import (
	"math"
	"time"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/vtime"
)

// This file is the normalization half of upstream horizontal.go: the legacy path (no
// behavior: recommendation window, then bounds and the 2x/4 scale-up limit) and the behavior
// path (stabilization windows, then scaling policies over stored scale events).

// Legacy scale-up limit: at most max(scaleUpLimitFactor*current, scaleUpLimitMinimum) replicas
// (upstream horizontal.go scaleUpLimitFactor, scaleUpLimitMinimum; docs/upstream.md#hpa).
const (
	scaleUpLimitFactor  = 2.0
	scaleUpLimitMinimum = 4.0
)

// stabilizeRecommendation (legacy path) records prenormalizedDesiredReplicas, overwriting one
// recommendation older than the downscale stabilization window if there is one, and returns the
// largest recommendation inside the window, the new one included.
func (a *Controller) stabilizeRecommendation(key string, prenormalizedDesiredReplicas int32) int32 {
	now := a.k.Now()
	maxRecommendation := prenormalizedDesiredReplicas
	foundOldSample := false
	oldSampleIndex := 0
	cutoff := now.Add(-a.cfg.HorizontalPodAutoscalerDownscaleStabilizationWindow)
	for i, rec := range a.recommendations[key] {
		if rec.timestamp.Before(cutoff) {
			foundOldSample = true
			oldSampleIndex = i
		} else if rec.recommendation > maxRecommendation {
			maxRecommendation = rec.recommendation
		}
	}
	if foundOldSample {
		a.recommendations[key][oldSampleIndex] = timestampedRecommendation{prenormalizedDesiredReplicas, now}
	} else {
		a.recommendations[key] = append(a.recommendations[key], timestampedRecommendation{prenormalizedDesiredReplicas, now})
	}
	return maxRecommendation
}

// normalizeDesiredReplicas is the legacy path: stabilize, then clamp to the bounds and the
// scale-up limit, setting AbleToScale and ScalingLimited to say what happened.
func (a *Controller) normalizeDesiredReplicas(hpa *model.HorizontalPodAutoscaler, key string, currentReplicas, prenormalizedDesiredReplicas, minReplicas int32) int32 {
	stabilized := a.stabilizeRecommendation(key, prenormalizedDesiredReplicas)
	if stabilized != prenormalizedDesiredReplicas {
		a.setCondition(hpa, model.AbleToScale, model.ConditionTrue, "ScaleDownStabilized", "recent recommendations were higher than current one, applying the highest recent recommendation")
	} else {
		a.setCondition(hpa, model.AbleToScale, model.ConditionTrue, "ReadyForNewScale", "recommended size matches current size")
	}
	desiredReplicas, reason, message := convertDesiredReplicasWithRules(currentReplicas, stabilized, minReplicas, hpa.Spec.MaxReplicas)
	if desiredReplicas == stabilized {
		a.setCondition(hpa, model.ScalingLimited, model.ConditionFalse, reason, "%s", message)
	} else {
		a.setCondition(hpa, model.ScalingLimited, model.ConditionTrue, reason, "%s", message)
	}
	return desiredReplicas
}

// convertDesiredReplicasWithRules clamps desiredReplicas to [hpaMinReplicas, min(hpaMaxReplicas,
// scale-up limit)] and names the rule that applied (TooFewReplicas, ScaleUpLimit,
// TooManyReplicas or DesiredWithinRange) with upstream's message.
func convertDesiredReplicasWithRules(currentReplicas, desiredReplicas, hpaMinReplicas, hpaMaxReplicas int32) (int32, string, string) {
	var maximumAllowedReplicas int32
	var possibleLimitingCondition, possibleLimitingReason string
	minimumAllowedReplicas := hpaMinReplicas
	scaleUpLimit := calculateScaleUpLimit(currentReplicas)
	if hpaMaxReplicas > scaleUpLimit {
		maximumAllowedReplicas = scaleUpLimit
		possibleLimitingCondition = "ScaleUpLimit"
		possibleLimitingReason = "the desired replica count is increasing faster than the maximum scale rate"
	} else {
		maximumAllowedReplicas = hpaMaxReplicas
		possibleLimitingCondition = "TooManyReplicas"
		possibleLimitingReason = "the desired replica count is more than the maximum replica count"
	}
	if desiredReplicas < minimumAllowedReplicas {
		return minimumAllowedReplicas, "TooFewReplicas", "the desired replica count is less than the minimum replica count"
	} else if desiredReplicas > maximumAllowedReplicas {
		return maximumAllowedReplicas, possibleLimitingCondition, possibleLimitingReason
	}
	return desiredReplicas, "DesiredWithinRange", "the desired count is within the acceptable range"
}

// calculateScaleUpLimit is max(2*current, 4).
func calculateScaleUpLimit(currentReplicas int32) int32 {
	return int32(math.Max(scaleUpLimitFactor*float64(currentReplicas), scaleUpLimitMinimum))
}

// normalizationArg carries what the behavior path needs (upstream NormalizationArg).
type normalizationArg struct {
	Key               string
	ScaleUpBehavior   *model.HPAScalingRules
	ScaleDownBehavior *model.HPAScalingRules
	MinReplicas       int32
	MaxReplicas       int32
	CurrentReplicas   int32
	DesiredReplicas   int32
}

// normalizeDesiredReplicasWithBehaviors is the behavior path: stabilize over the scale-up and
// scale-down windows, then limit the change by the policies, setting AbleToScale and
// ScalingLimited to say what happened.
func (a *Controller) normalizeDesiredReplicasWithBehaviors(hpa *model.HorizontalPodAutoscaler, key string, currentReplicas, prenormalizedDesiredReplicas, minReplicas int32) int32 {
	a.maybeInitScaleDownStabilizationWindow(hpa)
	arg := normalizationArg{
		Key:               key,
		ScaleUpBehavior:   hpa.Spec.Behavior.ScaleUp,
		ScaleDownBehavior: hpa.Spec.Behavior.ScaleDown,
		MinReplicas:       minReplicas,
		MaxReplicas:       hpa.Spec.MaxReplicas,
		CurrentReplicas:   currentReplicas,
		DesiredReplicas:   prenormalizedDesiredReplicas,
	}
	stabilized, reason, message := a.stabilizeRecommendationWithBehaviors(arg)
	arg.DesiredReplicas = stabilized
	if stabilized != prenormalizedDesiredReplicas {
		a.setCondition(hpa, model.AbleToScale, model.ConditionTrue, reason, "%s", message)
	} else {
		a.setCondition(hpa, model.AbleToScale, model.ConditionTrue, "ReadyForNewScale", "recommended size matches current size")
	}
	desiredReplicas, reason, message := a.convertDesiredReplicasWithBehaviorRate(arg)
	if desiredReplicas == stabilized {
		a.setCondition(hpa, model.ScalingLimited, model.ConditionFalse, reason, "%s", message)
	} else {
		a.setCondition(hpa, model.ScalingLimited, model.ConditionTrue, reason, "%s", message)
	}
	return desiredReplicas
}

// maybeInitScaleDownStabilizationWindow gives a scale-down rule without a window the
// controller's --horizontal-pod-autoscaler-downscale-stabilization (the API leaves it nil).
func (a *Controller) maybeInitScaleDownStabilizationWindow(hpa *model.HorizontalPodAutoscaler) {
	b := hpa.Spec.Behavior
	if b != nil && b.ScaleDown != nil && b.ScaleDown.StabilizationWindowSeconds == nil {
		seconds := int32(a.cfg.HorizontalPodAutoscalerDownscaleStabilizationWindow.Seconds())
		b.ScaleDown.StabilizationWindowSeconds = &seconds
	}
}

func windowSeconds(r *model.HPAScalingRules) time.Duration {
	if r == nil || r.StabilizationWindowSeconds == nil {
		return 0
	}
	return time.Duration(*r.StabilizationWindowSeconds) * time.Second
}

// stabilizeRecommendationWithBehaviors returns the current count brought up to the lowest
// recommendation of the scale-up window and down to the highest of the scale-down window (the
// new one included in both), records the new one (overwriting one older than both windows),
// and names the stabilization that would apply.
func (a *Controller) stabilizeRecommendationWithBehaviors(arg normalizationArg) (int32, string, string) {
	now := a.k.Now()
	foundOldSample := false
	oldSampleIndex := 0
	upRecommendation := arg.DesiredReplicas
	upCutoff := now.Add(-windowSeconds(arg.ScaleUpBehavior))
	downRecommendation := arg.DesiredReplicas
	downCutoff := now.Add(-windowSeconds(arg.ScaleDownBehavior))
	for i, rec := range a.recommendations[arg.Key] {
		if rec.timestamp.After(upCutoff) {
			upRecommendation = min(rec.recommendation, upRecommendation)
		}
		if rec.timestamp.After(downCutoff) {
			downRecommendation = max(rec.recommendation, downRecommendation)
		}
		if rec.timestamp.Before(upCutoff) && rec.timestamp.Before(downCutoff) {
			foundOldSample = true
			oldSampleIndex = i
		}
	}
	recommendation := arg.CurrentReplicas
	if recommendation < upRecommendation {
		recommendation = upRecommendation
	}
	if recommendation > downRecommendation {
		recommendation = downRecommendation
	}
	if foundOldSample {
		a.recommendations[arg.Key][oldSampleIndex] = timestampedRecommendation{arg.DesiredReplicas, now}
	} else {
		a.recommendations[arg.Key] = append(a.recommendations[arg.Key], timestampedRecommendation{arg.DesiredReplicas, now})
	}
	if arg.DesiredReplicas >= arg.CurrentReplicas {
		return recommendation, "ScaleUpStabilized", "recent recommendations were lower than current one, applying the lowest recent recommendation"
	}
	return recommendation, "ScaleDownStabilized", "recent recommendations were higher than current one, applying the highest recent recommendation"
}

// convertDesiredReplicasWithBehaviorRate limits the change by the direction's policies and the
// bounds, naming the limit that applied (ScaleUpLimit, TooManyReplicas, ScaleDownLimit,
// TooFewReplicas or DesiredWithinRange).
func (a *Controller) convertDesiredReplicasWithBehaviorRate(arg normalizationArg) (int32, string, string) {
	var reason, message string
	if arg.DesiredReplicas > arg.CurrentReplicas {
		scaleUpLimit := calculateScaleUpLimitWithScalingRules(arg.CurrentReplicas, a.scaleUpEvents[arg.Key], a.scaleDownEvents[arg.Key], arg.ScaleUpBehavior, a.k.Now())
		if scaleUpLimit < arg.CurrentReplicas {
			// No further scale-up until the period's events age out.
			scaleUpLimit = arg.CurrentReplicas
		}
		maximumAllowedReplicas := arg.MaxReplicas
		if maximumAllowedReplicas > scaleUpLimit {
			maximumAllowedReplicas = scaleUpLimit
			reason = "ScaleUpLimit"
			message = "the desired replica count is increasing faster than the maximum scale rate"
		} else {
			reason = "TooManyReplicas"
			message = "the desired replica count is more than the maximum replica count"
		}
		if arg.DesiredReplicas > maximumAllowedReplicas {
			return maximumAllowedReplicas, reason, message
		}
	} else if arg.DesiredReplicas < arg.CurrentReplicas {
		scaleDownLimit := calculateScaleDownLimitWithBehaviors(arg.CurrentReplicas, a.scaleUpEvents[arg.Key], a.scaleDownEvents[arg.Key], arg.ScaleDownBehavior, a.k.Now())
		if scaleDownLimit > arg.CurrentReplicas {
			// No further scale-down until the period's events age out.
			scaleDownLimit = arg.CurrentReplicas
		}
		minimumAllowedReplicas := arg.MinReplicas
		if minimumAllowedReplicas < scaleDownLimit {
			minimumAllowedReplicas = scaleDownLimit
			reason = "ScaleDownLimit"
			message = "the desired replica count is decreasing faster than the maximum scale rate"
		} else {
			reason = "TooFewReplicas"
			message = "the desired replica count is less than the minimum replica count"
		}
		if arg.DesiredReplicas < minimumAllowedReplicas {
			return minimumAllowedReplicas, reason, message
		}
	}
	return arg.DesiredReplicas, "DesiredWithinRange", "the desired count is within the acceptable range"
}

// calculateScaleUpLimitWithScalingRules returns the most replicas the scale-up policies allow
// now: for each policy, the count at the start of its period (current, minus what was added
// and plus what was removed within the period) plus Value pods, or times (1+Value/100) rounded
// up; then the largest of those (selectPolicy Max), the smallest (Min), or current (Disabled).
func calculateScaleUpLimitWithScalingRules(currentReplicas int32, scaleUpEvents, scaleDownEvents []timestampedScaleEvent, rules *model.HPAScalingRules, now vtime.Time) int32 {
	return scaleLimitWithRules(currentReplicas, scaleUpEvents, scaleDownEvents, rules, now, true,
		func(periodStartReplicas int32, policy model.HPAScalingPolicy) int32 {
			switch policy.Type {
			case model.PodsScalingPolicy:
				return periodStartReplicas + policy.Value
			case model.PercentScalingPolicy:
				// Rounded up, or a small count could never grow.
				return int32(math.Ceil(float64(periodStartReplicas) * (1 + float64(policy.Value)/100)))
			}
			return 0
		})
}

// calculateScaleDownLimitWithBehaviors returns the fewest replicas the scale-down policies allow
// now: for each policy, the count at the start of its period minus Value pods, or times
// (1-Value/100) truncated; then the smallest of those (selectPolicy Max: the largest change),
// the largest (Min), or current (Disabled).
func calculateScaleDownLimitWithBehaviors(currentReplicas int32, scaleUpEvents, scaleDownEvents []timestampedScaleEvent, rules *model.HPAScalingRules, now vtime.Time) int32 {
	return scaleLimitWithRules(currentReplicas, scaleUpEvents, scaleDownEvents, rules, now, false,
		func(periodStartReplicas int32, policy model.HPAScalingPolicy) int32 {
			switch policy.Type {
			case model.PodsScalingPolicy:
				return periodStartReplicas - policy.Value
			case model.PercentScalingPolicy:
				return int32(float64(periodStartReplicas) * (1 - float64(policy.Value)/100))
			}
			return 0
		})
}

// scaleLimitWithRules is the loop the two limits above share (upstream writes it twice): each
// policy of rules proposes a count from the replicas at the start of its period (current,
// minus what was added and plus what was removed within the period), and the proposals are
// folded towards the largest change (selectPolicy Max: the largest count when scaling up, the
// smallest when scaling down) or the smallest (Min); Disabled allows no change.
func scaleLimitWithRules(currentReplicas int32, scaleUpEvents, scaleDownEvents []timestampedScaleEvent, rules *model.HPAScalingRules, now vtime.Time, up bool, propose func(periodStartReplicas int32, policy model.HPAScalingPolicy) int32) int32 {
	policy := selectPolicy(rules)
	if policy == model.DisabledPolicySelect {
		return currentReplicas
	}
	// Scaling up with Max, or down with Min, keeps the largest proposal.
	keepLargest := up == (policy != model.MinChangePolicySelect)
	result, pick := int32(math.MaxInt32), minInt32
	if keepLargest {
		result, pick = math.MinInt32, maxInt32
	}
	for _, policy := range policiesOf(rules) {
		added := getReplicasChangePerPeriod(policy.PeriodSeconds, scaleUpEvents, now)
		deleted := getReplicasChangePerPeriod(policy.PeriodSeconds, scaleDownEvents, now)
		result = pick(result, propose(currentReplicas-added+deleted, policy))
	}
	return result
}

func policiesOf(rules *model.HPAScalingRules) []model.HPAScalingPolicy {
	if rules == nil {
		return nil
	}
	return rules.Policies
}

func selectPolicy(rules *model.HPAScalingRules) string {
	if rules == nil || rules.SelectPolicy == nil {
		return model.MaxChangePolicySelect
	}
	return *rules.SelectPolicy
}

func minInt32(a, b int32) int32 { return min(a, b) }
func maxInt32(a, b int32) int32 { return max(a, b) }

// getReplicasChangePerPeriod sums the changes of the events later than now-periodSeconds.
func getReplicasChangePerPeriod(periodSeconds int32, scaleEvents []timestampedScaleEvent, now vtime.Time) int32 {
	cutoff := now.Add(-time.Duration(periodSeconds) * time.Second)
	var replicas int32
	for _, rec := range scaleEvents {
		if rec.timestamp.After(cutoff) {
			replicas += rec.replicaChange
		}
	}
	return replicas
}

// storeScaleEvent records a rescale for the behavior path (nothing for the legacy path): in the
// direction's list, events older than its longest policy period are marked outdated first, and
// the new event overwrites an outdated one or is appended.
func (a *Controller) storeScaleEvent(behavior *model.HorizontalPodAutoscalerBehavior, key string, prevReplicas, newReplicas int32) {
	if behavior == nil {
		return
	}
	now := a.k.Now()
	events, rules, change := a.scaleDownEvents, behavior.ScaleDown, prevReplicas-newReplicas
	if newReplicas > prevReplicas {
		events, rules, change = a.scaleUpEvents, behavior.ScaleUp, newReplicas-prevReplicas
	}
	list := events[key]
	markScaleEventsOutdated(list, getLongestPolicyPeriod(rules), now)
	foundOldSample := false
	oldSampleIndex := 0
	for i, ev := range list {
		if ev.outdated {
			foundOldSample = true
			oldSampleIndex = i
		}
	}
	newEvent := timestampedScaleEvent{replicaChange: change, timestamp: now}
	if foundOldSample {
		list[oldSampleIndex] = newEvent
	} else {
		list = append(list, newEvent)
	}
	events[key] = list
}

func getLongestPolicyPeriod(rules *model.HPAScalingRules) int32 {
	var longest int32
	if rules == nil {
		return 0
	}
	for _, p := range rules.Policies {
		longest = max(longest, p.PeriodSeconds)
	}
	return longest
}

// markScaleEventsOutdated marks events older than the longest policy period for reuse.
func markScaleEventsOutdated(scaleEvents []timestampedScaleEvent, longestPolicyPeriod int32, now vtime.Time) {
	cutoff := now.Add(-time.Duration(longestPolicyPeriod) * time.Second)
	for i := range scaleEvents {
		if scaleEvents[i].timestamp.Before(cutoff) {
			scaleEvents[i].outdated = true
		}
	}
}
