package scheduler

import "github.com/reconsim/reconsim/model"

// nominator is the scheduling queue's record of nominated pods (upstream
// pkg/scheduler/backend/queue/nominator.go): the unscheduled pods that preempted others (or
// arrived with status.nominatedNodeName set) and the node each expects to run on. The filters
// count a node's nominated pods of equal or higher priority as if they ran there
// (runFilterPluginsWithNominatedPods), so that pods of lower priority do not take the room a
// preemption freed.
type nominator struct {
	// byNode lists each node's nominated pods in nomination order, as upstream's
	// nominatedPods slice; podToNode maps a pod key to its node.
	byNode    map[string][]*model.Pod
	podToNode map[string]string
}

func newNominator() *nominator {
	return &nominator{byNode: map[string][]*model.Pod{}, podToNode: map[string]string{}}
}

// add is addNominatedPodUnlocked: the pod is nominated to node, or, when node is "", to its
// own status.nominatedNodeName (ModeNoop); a pod without either is not nominated. A bound pod
// is never nominated.
func (n *nominator) add(pod *model.Pod, node string) {
	n.delete(pod)
	if node == "" {
		node = pod.Status.NominatedNodeName
	}
	if node == "" || pod.Spec.NodeName != "" {
		return
	}
	key := model.Key(pod)
	n.podToNode[key] = node
	n.byNode[node] = append(n.byNode[node], pod)
}

// delete is DeleteNominatedPodIfExists.
func (n *nominator) delete(pod *model.Pod) {
	key := model.Key(pod)
	node, ok := n.podToNode[key]
	if !ok {
		return
	}
	delete(n.podToNode, key)
	pods := n.byNode[node]
	for i, p := range pods {
		if model.Key(p) == key {
			pods = append(pods[:i:i], pods[i+1:]...)
			break
		}
	}
	if len(pods) == 0 {
		delete(n.byNode, node)
	} else {
		n.byNode[node] = pods
	}
}

// update is UpdateNominatedPod: a pod nominated in memory keeps its node through an update
// that neither adds, changes nor removes status.nominatedNodeName (the informer may deliver
// the pod before the scheduler's own status write).
func (n *nominator) update(oldPod, newPod *model.Pod) {
	node := ""
	if oldPod.Status.NominatedNodeName == "" && newPod.Status.NominatedNodeName == "" {
		node = n.podToNode[model.Key(oldPod)]
	}
	n.delete(oldPod)
	n.add(newPod, node)
}

// podsForNode is NominatedPodsForNode (the slice is the nominator's; callers do not modify it).
func (n *nominator) podsForNode(node string) []*model.Pod { return n.byNode[node] }

// count returns how many pods are nominated.
func (n *nominator) count() int { return len(n.podToNode) }

// override is AddNominatedPod with ModeOverride: the pod is nominated to node, or, when node
// is "", no longer nominated.
func (n *nominator) override(pod *model.Pod, node string) {
	n.delete(pod)
	if node != "" {
		n.add(pod, node)
	}
}
