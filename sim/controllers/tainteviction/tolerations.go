package tainteviction

import (
	"math"
	"time"

	"github.com/reconsim/reconsim/model"
)

// Toleration operators (model.TolerationOpExists, model.TolerationOpEqual).
const (
	TolerationOpExists = model.TolerationOpExists
	TolerationOpEqual  = model.TolerationOpEqual
)

// GetMatchingTolerations is upstream v1helper.GetMatchingTolerations: allTolerated is true when
// every taint is tolerated, and used then lists, per taint in order, the first toleration that
// tolerates it. With no taints everything is tolerated and used is empty; when some taint is
// not tolerated used is empty.
func GetMatchingTolerations(taints []model.Taint, tolerations []model.Toleration) (allTolerated bool, used []model.Toleration) {
	if len(taints) == 0 {
		return true, nil
	}
	if len(tolerations) == 0 {
		return false, nil
	}
	used = make([]model.Toleration, 0, len(taints))
	for i := range taints {
		found := false
		for j := range tolerations {
			if tolerations[j].ToleratesTaint(&taints[i]) {
				used = append(used, tolerations[j])
				found = true
				break
			}
		}
		if !found {
			return false, nil
		}
	}
	return true, used
}

// MinTolerationTime is upstream getMinTolerationTime: the smallest tolerationSeconds among the
// used tolerations. It returns 0 (evict now) for an empty list or any tolerationSeconds <= 0,
// and -1 when every toleration is unbounded (nil seconds: tolerate forever).
func MinTolerationTime(tolerations []model.Toleration) time.Duration {
	if len(tolerations) == 0 {
		return 0
	}
	minSeconds := int64(math.MaxInt64)
	for i := range tolerations {
		s := tolerations[i].TolerationSeconds
		if s == nil {
			continue
		}
		if *s <= 0 {
			return 0
		}
		if *s < minSeconds {
			minSeconds = *s
		}
	}
	if minSeconds == math.MaxInt64 {
		return -1
	}
	// tolerationSeconds beyond what a Duration can hold (about 292 years) is forever in
	// practice; clamp instead of overflowing into a negative duration.
	if minSeconds > int64(math.MaxInt64/int64(time.Second)) {
		return time.Duration(math.MaxInt64/int64(time.Second)) * time.Second
	}
	return time.Duration(minSeconds) * time.Second
}

// noExecuteTaints is upstream getNoExecuteTaints: the NoExecute taints of a list, in order.
func noExecuteTaints(taints []model.Taint) []model.Taint {
	var out []model.Taint
	for i := range taints {
		if taints[i].Effect == model.TaintEffectNoExecute {
			out = append(out, taints[i])
		}
	}
	return out
}
