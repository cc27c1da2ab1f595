package scheduler

import (
	"maps"

	"k8s.io/apimachinery/pkg/labels"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim/controllers/internal/nodeaffinity"
)

// pluginSet is a set of filter plugins, as the bits of filterPluginNames.
type pluginSet uint8

// filterPluginNames gives each plugin that can reject a pod its bit in a pluginSet, in the
// default profile's order.
var filterPluginNames = []string{PluginNodeUnschedulable, PluginNodeName, PluginTaintToleration, PluginNodeAffinity, PluginNodeResourcesFit,
	PluginPodTopologySpread, PluginInterPodAffinity}

func pluginBit(name string) pluginSet {
	for i, n := range filterPluginNames {
		if n == name {
			return 1 << i
		}
	}
	return 0
}

// names returns the plugins in s, in profile order.
func (s pluginSet) names() []string {
	var out []string
	for i, n := range filterPluginNames {
		if s&(1<<i) != 0 {
			out = append(out, n)
		}
	}
	return out
}

// eventKind is the resource and action of a cluster event (upstream fwk.ClusterEvent).
type eventKind int

const (
	eventNodeAdd eventKind = iota
	eventNodeUpdate
	eventAssignedPodDelete
	eventAssignedPodAdd
	eventUnscheduledPodUpdate
	// eventUnschedulableTimeout is the wildcard event of flushUnschedulablePodsLeftover: it
	// requeues every pod it is applied to, after its backoff.
	eventUnschedulableTimeout
)

// nodeChange is the set of node update action types (fwk.UpdateNodeAllocatable, ...)
// computed by NodeSchedulingPropertiesChange.
type nodeChange uint8

const (
	nodeChangeAllocatable nodeChange = 1 << iota
	nodeChangeLabel
	// nodeChangeTaint also covers spec.unschedulable flipping to false
	// (nodeSpecUnschedulableChange is reported as UpdateNodeTaint).
	nodeChangeTaint
	nodeChangeCondition
)

// clusterEvent is one change the scheduling queue may react to, with the objects involved.
type clusterEvent struct {
	kind             eventKind
	nodeChanges      nodeChange // for eventNodeUpdate
	oldNode, newNode *model.Node
	oldPod, newPod   *model.Pod
	// tolerationsChanged is UpdatePodToleration, for eventUnscheduledPodUpdate.
	tolerationsChanged bool
}

// label names the event the way upstream labels them in metrics and logs.
func (e *clusterEvent) label() string {
	switch e.kind {
	case eventNodeAdd:
		return "NodeAdd"
	case eventNodeUpdate:
		return "NodeUpdate"
	case eventAssignedPodDelete:
		return "AssignedPodDelete"
	case eventAssignedPodAdd:
		return "AssignedPodAdd"
	case eventUnscheduledPodUpdate:
		return "UnscheduledPodUpdate"
	default:
		return "UnschedulableTimeout"
	}
}

// nodeSchedulingPropertiesChange is framework.NodeSchedulingPropertiesChange: which
// scheduling-relevant parts of a node changed. Heartbeat-only condition updates are not a
// change.
func nodeSchedulingPropertiesChange(newNode, oldNode *model.Node) nodeChange {
	var c nodeChange
	if newNode.Spec.Unschedulable != oldNode.Spec.Unschedulable && !newNode.Spec.Unschedulable {
		c |= nodeChangeTaint
	}
	if !model.ResourceListsEqual(newNode.Status.Allocatable, oldNode.Status.Allocatable) {
		c |= nodeChangeAllocatable
	}
	if !maps.Equal(newNode.Labels, oldNode.Labels) {
		c |= nodeChangeLabel
	}
	if !model.TaintsEqual(newNode.Spec.Taints, oldNode.Spec.Taints) {
		c |= nodeChangeTaint
	}
	if !conditionsEqualIgnoringHeartbeat(newNode.Status.Conditions, oldNode.Status.Conditions) {
		c |= nodeChangeCondition
	}
	return c
}

// conditionsEqualIgnoringHeartbeat is !nodeConditionsChanged: only each condition type's
// status counts, not heartbeats, reasons or messages.
func conditionsEqualIgnoringHeartbeat(a, b []model.NodeCondition) bool {
	status := func(conds []model.NodeCondition) map[string]model.ConditionStatus {
		m := make(map[string]model.ConditionStatus, len(conds))
		for _, c := range conds {
			m[c.Type] = c.Status
		}
		return m
	}
	return maps.Equal(status(a), status(b))
}

// queueingHint is a plugin's answer to "could this event make the pod schedulable?".
type queueingHint bool

const (
	queueSkipHint queueingHint = false
	queueHint     queueingHint = true
)

// interestedIn reports whether plugin registered for the event (the plugins' EventsToRegister
// with SchedulerQueueingHints on, which is GA).
func interestedIn(plugin string, e *clusterEvent) bool {
	switch plugin {
	case PluginNodeUnschedulable, PluginTaintToleration:
		// Node Add | UpdateNodeTaint (TaintToleration also Pod UpdatePodToleration).
		switch e.kind {
		case eventNodeAdd:
			return true
		case eventNodeUpdate:
			return e.nodeChanges&nodeChangeTaint != 0
		case eventUnscheduledPodUpdate:
			return plugin == PluginTaintToleration && e.tolerationsChanged
		}
	case PluginNodeName:
		return e.kind == eventNodeAdd
	case PluginNodeAffinity:
		// Node Add | UpdateNodeLabel.
		return e.kind == eventNodeAdd || (e.kind == eventNodeUpdate && e.nodeChanges&nodeChangeLabel != 0)
	case PluginNodeResourcesFit:
		// Pod Delete; Node Add | UpdateNodeAllocatable.
		switch e.kind {
		case eventNodeAdd, eventAssignedPodDelete:
			return true
		case eventNodeUpdate:
			return e.nodeChanges&nodeChangeAllocatable != 0
		}
	case PluginPodTopologySpread, PluginInterPodAffinity:
		// Pod Add | UpdatePodLabel | Delete; Node Add | UpdateNodeLabel (PodTopologySpread also
		// UpdateNodeTaint and Delete, the latter not modelled here as no plugin moves pods on it).
		switch e.kind {
		case eventNodeAdd, eventAssignedPodDelete, eventAssignedPodAdd:
			return true
		case eventNodeUpdate:
			changes := nodeChangeLabel
			if plugin == PluginPodTopologySpread {
				changes |= nodeChangeTaint
			}
			return e.nodeChanges&changes != 0
		}
	}
	return false
}

// queueingHintFor runs plugin's QueueingHintFn for pod and the event. Each follows the
// upstream plugin's isSchedulableAfter... function: Queue only when the change could turn the
// plugin's rejection into a pass.
func queueingHintFor(plugin string, pod *model.Pod, e *clusterEvent) queueingHint {
	switch plugin {
	case PluginNodeUnschedulable:
		unschedulableTaint := model.Taint{Key: model.TaintNodeUnschedulable, Effect: model.TaintEffectNoSchedule}
		tolerates := model.TolerationsTolerateTaint(pod.Spec.Tolerations, &unschedulableTaint)
		if e.newNode.Spec.Unschedulable && !tolerates {
			return queueSkipHint
		}
		if e.oldNode == nil || (e.oldNode.Spec.Unschedulable && !tolerates) {
			return queueHint
		}
		return queueSkipHint
	case PluginNodeName:
		return queueingHint(pod.Spec.NodeName == "" || pod.Spec.NodeName == e.newNode.Name)
	case PluginTaintToleration:
		if e.kind == eventUnscheduledPodUpdate {
			// isSchedulableAfterPodTolerationChange: the pod's own tolerations changed.
			return queueHint
		}
		if _, untolerated := model.FindMatchingUntoleratedTaint(e.newNode.Spec.Taints, pod.Spec.Tolerations, doNotScheduleTaint); untolerated {
			return queueSkipHint
		}
		if e.oldNode == nil {
			return queueHint
		}
		_, wasUntolerated := model.FindMatchingUntoleratedTaint(e.oldNode.Spec.Taints, pod.Spec.Tolerations, doNotScheduleTaint)
		return queueingHint(wasUntolerated)
	case PluginNodeAffinity:
		req := nodeaffinity.GetRequiredNodeAffinity(&pod.Spec)
		if !req.Match(e.newNode) {
			return queueSkipHint
		}
		if e.oldNode == nil {
			return queueHint
		}
		return queueingHint(!req.Match(e.oldNode))
	case PluginPodTopologySpread:
		return spreadHint(pod, e)
	case PluginInterPodAffinity:
		return affinityHint(pod, e)
	case PluginNodeResourcesFit:
		if e.kind == eventAssignedPodDelete {
			// Any deletion of a scheduled pod may free room.
			return queueingHint(e.oldPod != nil && e.oldPod.Spec.NodeName != "")
		}
		return fitHintAfterNodeChange(pod, e.oldNode, e.newNode)
	}
	return queueSkipHint
}

// fitHintAfterNodeChange is Fit.isSchedulableAfterNodeChange: Queue when the pod fits the
// node's allocatable on an empty node, and (for an update) some resource the pod requests, or
// the pod count, grew.
func fitHintAfterNodeChange(pod *model.Pod, oldNode, newNode *model.Node) queueingHint {
	req := PodRequests(pod, false)
	newAlloc := nodeAllocatable(newNode)
	if len(fitsRequest(req, 0, newAlloc, Resource{})) > 0 {
		return queueSkipHint
	}
	if oldNode == nil {
		return queueHint
	}
	oldAlloc := nodeAllocatable(oldNode)
	if newAlloc.AllowedPodNumber > oldAlloc.AllowedPodNumber {
		return queueHint
	}
	if req.isZero() {
		return queueSkipHint
	}
	if (req.MilliCPU > 0 && newAlloc.MilliCPU > oldAlloc.MilliCPU) ||
		(req.Memory > 0 && newAlloc.Memory > oldAlloc.Memory) ||
		(req.EphemeralStorage > 0 && newAlloc.EphemeralStorage > oldAlloc.EphemeralStorage) {
		return queueHint
	}
	for name, q := range req.Scalar { //detlint:ordered an any-match check; order does not matter
		if q != 0 && newAlloc.Scalar[name] > oldAlloc.Scalar[name] {
			return queueHint
		}
	}
	return queueSkipHint
}

// requeueStrategy is upstream's queueingStrategy.
type requeueStrategy int

const (
	queueSkip requeueStrategy = iota
	queueAfterBackoff
)

// isPodWorthRequeuing decides what an event means for a pod rejected by the plugins in
// rejectors (upstream PriorityQueue.isPodWorthRequeuing): a pod rejected by no plugin (an error) and the
// wildcard timeout event always requeue after backoff; otherwise the pod is requeued when one
// of its rejecting plugins that registered for the event says Queue.
func isPodWorthRequeuing(pod *model.Pod, rejectors pluginSet, e *clusterEvent) requeueStrategy {
	if rejectors == 0 || e.kind == eventUnschedulableTimeout {
		return queueAfterBackoff
	}
	for _, plugin := range rejectors.names() {
		if !interestedIn(plugin, e) {
			continue
		}
		if queueingHintFor(plugin, pod, e) == queueHint {
			return queueAfterBackoff
		}
	}
	return queueSkip
}

// eventOfInterest reports whether any plugin registered for e (upstream PriorityQueue.isEventOfInterest);
// other events are not recorded for in-flight pods.
func eventOfInterest(e *clusterEvent) bool {
	if e.kind == eventUnschedulableTimeout {
		return true
	}
	for _, plugin := range filterPluginNames {
		if interestedIn(plugin, e) {
			return true
		}
	}
	return false
}

// spreadHint is PodTopologySpread's QueueingHintFn (isSchedulableAfterPodChange,
// isSchedulableAfterNodeChange) for a pod its Filter rejected, so for its DoNotSchedule
// constraints: an assigned pod in the pod's namespace that a constraint selects was added or
// deleted; a node with every topology key was added; a node's topology labels changed, or its
// taints when a constraint honours them.
func spreadHint(pod *model.Pod, e *clusterEvent) queueingHint {
	constraints := filterTopologySpreadConstraints(pod.Spec.TopologySpreadConstraints, pod.Labels, model.DoNotSchedule)
	switch e.kind {
	case eventAssignedPodAdd, eventAssignedPodDelete:
		other := e.newPod
		if e.kind == eventAssignedPodDelete {
			other = e.oldPod
		}
		if other == nil || other.Spec.NodeName == "" || other.Namespace != pod.Namespace {
			return queueSkipHint
		}
		for i := range constraints {
			if constraints[i].selector.Matches(labels.Set(other.Labels)) {
				return queueHint
			}
		}
		return queueSkipHint
	case eventNodeAdd:
		return queueingHint(nodeLabelsMatchSpreadConstraints(e.newNode.Labels, constraints))
	case eventNodeUpdate:
		if !nodeLabelsMatchSpreadConstraints(e.newNode.Labels, constraints) {
			return queueSkipHint
		}
		for i := range constraints {
			key := constraints[i].topologyKey
			if e.oldNode.Labels[key] != e.newNode.Labels[key] {
				return queueHint
			}
			if constraints[i].honorTaints && e.nodeChanges&nodeChangeTaint != 0 {
				return queueHint
			}
		}
		return queueingHint(!nodeLabelsMatchSpreadConstraints(e.oldNode.Labels, constraints))
	}
	return queueSkipHint
}

// affinityHint is InterPodAffinity's QueueingHintFn: an added assigned pod that matches all
// the pod's required affinity terms; a deleted one that matched one of its anti-affinity terms
// or had required anti-affinity of its own (reconsim requeues on the latter without checking
// that it selected the pod); a new node, or changed node labels under one of the terms'
// topology keys.
func affinityHint(pod *model.Pod, e *clusterEvent) queueingHint {
	info := newPodAffinityInfo(pod)
	switch e.kind {
	case eventAssignedPodAdd:
		if info == nil || e.newPod == nil {
			return queueSkipHint
		}
		return queueingHint(podMatchesAllAffinityTerms(e.newPod, info.requiredAffinity))
	case eventAssignedPodDelete:
		if e.oldPod == nil {
			return queueSkipHint
		}
		if other := newPodAffinityInfo(e.oldPod); other != nil && len(other.requiredAnti) > 0 {
			return queueHint
		}
		if info == nil {
			return queueSkipHint
		}
		for i := range info.requiredAnti {
			if info.requiredAnti[i].matches(e.oldPod, nil) {
				return queueHint
			}
		}
		return queueSkipHint
	case eventNodeAdd:
		return queueHint
	case eventNodeUpdate:
		if info == nil {
			return queueHint
		}
		for _, terms := range [][]affinityTerm{info.requiredAffinity, info.requiredAnti} {
			for i := range terms {
				key := terms[i].topologyKey
				if e.oldNode.Labels[key] != e.newNode.Labels[key] {
					return queueHint
				}
			}
		}
	}
	return queueSkipHint
}
