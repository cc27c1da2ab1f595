package nodelifecycle

import "github.com/reconsim/reconsim/model"

// ZoneHealth is the disruption state of one zone (upstream ZoneState in
// node_lifecycle_controller.go).
type ZoneHealth string

// Zone states. Initial is the state of a zone seen for the first time, before its first
// handleDisruption.
const (
	ZoneInitial           ZoneHealth = "Initial"
	ZoneNormal            ZoneHealth = "Normal"
	ZoneFullDisruption    ZoneHealth = "FullDisruption"
	ZonePartialDisruption ZoneHealth = "PartialDisruption"
)

// ComputeZoneState is upstream Controller.ComputeZoneState. It counts the Ready conditions of
// a zone's nodes (nil or not True counts as not ready) and returns the number not ready and
// the state: FullDisruption when none is ready and at least one is not; PartialDisruption
// when more than two are not ready and their share is at least unhealthyZoneThreshold;
// Normal otherwise. The share is computed in float32, as upstream, so that thresholds such as
// 0.55 compare exactly as they do there.
func ComputeZoneState(readyConditions []*model.NodeCondition, unhealthyZoneThreshold float32) (notReady int, state ZoneHealth) {
	ready := 0
	for _, c := range readyConditions {
		if c != nil && c.Status == model.ConditionTrue {
			ready++
		} else {
			notReady++
		}
	}
	switch {
	case ready == 0 && notReady > 0:
		return notReady, ZoneFullDisruption
	case notReady > 2 && float32(notReady)/float32(notReady+ready) >= unhealthyZoneThreshold:
		return notReady, ZonePartialDisruption
	default:
		return notReady, ZoneNormal
	}
}

// ZoneEvictionQPS is upstream setLimiterInZone with the default enterPartialDisruptionFunc
// (ReducedQPSFunc) and enterFullDisruptionFunc (HealthyQPSFunc): the tainting rate of a zone of
// zoneSize nodes in the given state. Normal and FullDisruption get NodeEvictionRate;
// PartialDisruption gets SecondaryNodeEvictionRate when the zone has more than
// LargeClusterSizeThreshold nodes and 0 (no tainting) otherwise. ok is false for a state
// setLimiterInZone leaves alone (Initial). The all-zones-fully-disrupted case is decided by
// handleDisruption, not here.
func ZoneEvictionQPS(cfg Config, zoneSize int, state ZoneHealth) (qps float32, ok bool) {
	switch state {
	case ZoneNormal:
		return cfg.NodeEvictionRate, true
	case ZonePartialDisruption:
		return reducedQPS(cfg, zoneSize), true
	case ZoneFullDisruption:
		return healthyQPS(cfg, zoneSize), true
	}
	return 0, false
}

// healthyQPS is upstream HealthyQPSFunc.
func healthyQPS(cfg Config, _ int) float32 { return cfg.NodeEvictionRate }

// reducedQPS is upstream ReducedQPSFunc.
func reducedQPS(cfg Config, zoneSize int) float32 {
	if int64(zoneSize) > int64(cfg.LargeClusterSizeThreshold) {
		return cfg.SecondaryNodeEvictionRate
	}
	return 0
}
