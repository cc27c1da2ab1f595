package nodelifecycle

import (
	"github.com/reconsim/reconsim/model"
)

// LabelNodeExcludeDisruption excludes a node from the zone disruption bookkeeping
// (upstream labelNodeDisruptionExclusion in node_lifecycle_controller.go).
const LabelNodeExcludeDisruption = "node.kubernetes.io/exclude-disruption"

// Zone and region labels read by GetZoneKey (upstream component-helpers node/topology; the
// deprecated failure-domain.beta labels win when present, as upstream).
const (
	LabelTopologyZone            = "topology.kubernetes.io/zone"
	LabelTopologyRegion          = "topology.kubernetes.io/region"
	LabelFailureDomainBetaZone   = "failure-domain.beta.kubernetes.io/zone"
	LabelFailureDomainBetaRegion = "failure-domain.beta.kubernetes.io/region"
)

// unreachableTaintTemplate and notReadyTaintTemplate are the NoExecute taints that drive
// taint-based eviction (upstream UnreachableTaintTemplate / NotReadyTaintTemplate).
var (
	unreachableTaintTemplate = model.Taint{Key: model.TaintNodeUnreachable, Effect: model.TaintEffectNoExecute}
	notReadyTaintTemplate    = model.Taint{Key: model.TaintNodeNotReady, Effect: model.TaintEffectNoExecute}
)

// conditionTaintKey is upstream nodeConditionToTaintKeyStatusMap: which NoSchedule taint a node
// condition in a given status calls for. ok is false when the pair calls for none.
func conditionTaintKey(conditionType string, status model.ConditionStatus) (key string, ok bool) {
	switch conditionType {
	case model.NodeReady:
		switch status {
		case model.ConditionFalse:
			return model.TaintNodeNotReady, true
		case model.ConditionUnknown:
			return model.TaintNodeUnreachable, true
		}
	case model.NodeMemoryPressure:
		if status == model.ConditionTrue {
			return model.TaintNodeMemoryPressure, true
		}
	case model.NodeDiskPressure:
		if status == model.ConditionTrue {
			return model.TaintNodeDiskPressure, true
		}
	case model.NodeNetworkUnavailable:
		if status == model.ConditionTrue {
			return model.TaintNodeNetworkUnavailable, true
		}
	case model.NodePIDPressure:
		if status == model.ConditionTrue {
			return model.TaintNodePIDPressure, true
		}
	}
	return "", false
}

// isConditionTaintKey is upstream taintKeyToNodeConditionMap membership.
func isConditionTaintKey(key string) bool {
	switch key {
	case model.TaintNodeNotReady, model.TaintNodeUnreachable, model.TaintNodeNetworkUnavailable,
		model.TaintNodeMemoryPressure, model.TaintNodeDiskPressure, model.TaintNodePIDPressure:
		return true
	}
	return false
}

// NoScheduleTaintsFor returns the NoSchedule taints a node's conditions and spec.unschedulable
// call for, in condition order then unschedulable (upstream doNoScheduleTaintingPass). The
// taints carry no TimeAdded.
func NoScheduleTaintsFor(node *model.Node) []model.Taint {
	var taints []model.Taint
	for _, c := range node.Status.Conditions {
		if key, ok := conditionTaintKey(c.Type, c.Status); ok {
			taints = append(taints, model.Taint{Key: key, Effect: model.TaintEffectNoSchedule})
		}
	}
	if node.Spec.Unschedulable {
		taints = append(taints, model.Taint{Key: model.TaintNodeUnschedulable, Effect: model.TaintEffectNoSchedule})
	}
	return taints
}

// managedNoScheduleTaints filters a node's taints down to the NoSchedule taints this controller
// owns (upstream TaintSetFilter in doNoScheduleTaintingPass).
func managedNoScheduleTaints(taints []model.Taint) []model.Taint {
	var out []model.Taint
	for _, t := range taints {
		if t.Effect != model.TaintEffectNoSchedule {
			continue
		}
		if t.Key == model.TaintNodeUnschedulable || isConditionTaintKey(t.Key) {
			out = append(out, t)
		}
	}
	return out
}

// NoExecuteTaintFor returns the NoExecute taint matching a Ready condition status and the
// opposite taint to remove (upstream doNoExecuteTaintingPass): False → not-ready, Unknown →
// unreachable. ok is false for True (or any other status): nothing to taint.
func NoExecuteTaintFor(ready model.ConditionStatus) (add, remove model.Taint, ok bool) {
	switch ready {
	case model.ConditionFalse:
		return notReadyTaintTemplate, unreachableTaintTemplate, true
	case model.ConditionUnknown:
		return unreachableTaintTemplate, notReadyTaintTemplate, true
	}
	return model.Taint{}, model.Taint{}, false
}

// taintMatches is upstream Taint.MatchTaint: the same key and effect.
func taintMatches(a, b *model.Taint) bool { return a.Key == b.Key && a.Effect == b.Effect }

// taintExists is upstream taintutils.TaintExists.
func taintExists(taints []model.Taint, t *model.Taint) bool {
	for i := range taints {
		if taintMatches(&taints[i], t) {
			return true
		}
	}
	return false
}

// hasNoExecuteTaint reports whether taints hold the unreachable or the not-ready taint
// (markNodeAsReachable removes either).
func hasNoExecuteTaint(taints []model.Taint) bool {
	return taintExists(taints, &unreachableTaintTemplate) || taintExists(taints, &notReadyTaintTemplate)
}

// addOrUpdateTaint is upstream taintutils.AddOrUpdateTaint on a taint list: a matching taint
// that is not semantically equal (value or TimeAdded differ) is replaced in place, otherwise
// the taint is appended. It returns a new slice and whether anything changed; the input is not
// modified.
func addOrUpdateTaint(taints []model.Taint, t model.Taint) ([]model.Taint, bool) {
	out := make([]model.Taint, 0, len(taints)+1)
	replaced := false
	for i := range taints {
		if taintMatches(&taints[i], &t) {
			if model.EqualTaint(&taints[i], &t) {
				return taints, false
			}
			out = append(out, t)
			replaced = true
			continue
		}
		out = append(out, taints[i])
	}
	if !replaced {
		out = append(out, t)
	}
	return out, true
}

// deleteTaint is upstream taintutils.DeleteTaint: it drops every taint matching t (key and
// effect) and reports whether any was dropped. The input is not modified.
func deleteTaint(taints []model.Taint, t *model.Taint) ([]model.Taint, bool) {
	var out []model.Taint
	deleted := false
	for i := range taints {
		if taintMatches(&taints[i], t) {
			deleted = true
			continue
		}
		out = append(out, taints[i])
	}
	if !deleted {
		return taints, false
	}
	return out, true
}

// taintSetDiff is upstream taintutils.TaintSetDiff: the taints of want missing from have (by
// key and effect), and the taints of have missing from want.
func taintSetDiff(want, have []model.Taint) (toAdd, toDel []model.Taint) {
	for i := range want {
		if !taintExists(have, &want[i]) {
			toAdd = append(toAdd, want[i])
		}
	}
	for i := range have {
		if !taintExists(want, &have[i]) {
			toDel = append(toDel, have[i])
		}
	}
	return toAdd, toDel
}

// GetZoneKey is upstream component-helpers node/topology GetZoneKey: "region:\x00:zone", or ""
// for a node with neither label. The beta failure-domain labels take precedence when present.
func GetZoneKey(node *model.Node) string {
	labels := node.Labels
	if labels == nil {
		return ""
	}
	zone, ok := labels[LabelFailureDomainBetaZone]
	if !ok {
		zone = labels[LabelTopologyZone]
	}
	region, ok := labels[LabelFailureDomainBetaRegion]
	if !ok {
		region = labels[LabelTopologyRegion]
	}
	if region == "" && zone == "" {
		return ""
	}
	return region + ":\x00:" + zone
}

// ZoneDisplayName renders a zone key for traces and reports: "region/zone", "zone" when the
// region is empty, and "(none)" for the empty key.
func ZoneDisplayName(key string) string {
	if key == "" {
		return "(none)"
	}
	for i := 0; i+2 < len(key); i++ {
		if key[i] == ':' && key[i+1] == 0 && key[i+2] == ':' {
			region, zone := key[:i], key[i+3:]
			if region == "" {
				return zone
			}
			return region + "/" + zone
		}
	}
	return key
}

func getNodeCondition(status *model.NodeStatus, conditionType string) *model.NodeCondition {
	if status == nil {
		return nil
	}
	for i := range status.Conditions {
		if status.Conditions[i].Type == conditionType {
			return &status.Conditions[i]
		}
	}
	return nil
}
