package daemonset

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/labels"

	"github.com/reconsim/reconsim/model"
)

// rollingUpdate deletes old pods, or creates new pods beside old ones, within the strategy's
// budget (upstream rollingUpdate). Nodes are visited in name order (upstream ranges over a
// map).
//
// Without surge (maxSurge 0): a node with an old pod that is not available has it replaced at
// once; otherwise old available pods are deleted while the number of unavailable nodes (no
// pod, old and new, more than one of a kind, or a new pod not yet available) stays below
// maxUnavailable; manage then creates the new pods. Pods being deleted are not counted.
//
// With surge: a new pod is created beside an old one that is not available at once, and beside
// up to maxSurge available old ones; an old pod goes when the new pod on its node is
// available. On nodes that no longer qualify, old pods go only while enough pods elsewhere are
// available.
func (dsc *Controller) rollingUpdate(ctx context.Context, ds *model.DaemonSet, selector labels.Selector, nodeList []*model.Node, hash string) error {
	nodeToPods, err := dsc.getNodesToDaemonPods(ctx, ds, selector, false)
	if err != nil {
		return fmt.Errorf("couldn't get node to daemon pod mapping for daemon set %q: %v", ds.Name, err)
	}
	maxSurge, maxUnavailable, desired, err := dsc.updatedDesiredNodeCounts(ds, nodeList, nodeToPods)
	if err != nil {
		return fmt.Errorf("couldn't get unavailable numbers: %v", err)
	}
	now := dsc.Kernel.Now()
	generation, err := getTemplateGeneration(ds)
	if err != nil {
		generation = nil
	}
	available := func(p *model.Pod) bool { return model.IsPodAvailable(p, ds.Spec.MinReadySeconds, now) }

	if maxSurge == 0 {
		numUnavailable := 0
		var allowedReplacements, candidates []string
		for _, nodeName := range sortedNodeNames(nodeToPods) {
			newPod, oldPod, ok := findUpdatedPodsOnNode(nodeToPods[nodeName], hash, generation)
			if !ok {
				numUnavailable++
				continue
			}
			switch {
			case oldPod == nil && newPod == nil, oldPod != nil && newPod != nil:
				numUnavailable++
			case newPod != nil:
				if !available(newPod) {
					numUnavailable++
				}
			default:
				switch {
				case !available(oldPod):
					allowedReplacements = append(allowedReplacements, oldPod.Name)
					numUnavailable++
				case numUnavailable >= maxUnavailable:
				default:
					candidates = append(candidates, oldPod.Name)
				}
			}
		}
		remaining := min(max(maxUnavailable-numUnavailable, 0), len(candidates))
		oldPodsToDelete := append(allowedReplacements, candidates[:remaining]...)
		if len(oldPodsToDelete) > 0 {
			dsc.Kernel.Emit(Component, "rolling-update", dsRef(ds), ds.ResourceVersion, fmt.Sprintf("maxUnavailable=%d unavailable=%d replacing=%s", maxUnavailable, numUnavailable, list(oldPodsToDelete)))
		}
		return dsc.syncNodes(ctx, ds, oldPodsToDelete, nil, hash)
	}

	var oldPodsToDelete, shouldNotRunPodsToDelete, candidateNewNodes, allowedNewNodes []string
	numSurge, numAvailable := 0, 0
	for _, nodeName := range sortedNodeNames(nodeToPods) {
		newPod, oldPod, ok := findUpdatedPodsOnNode(nodeToPods[nodeName], hash, generation)
		if !ok {
			numSurge++
			continue
		}
		if oldPod != nil {
			if available(oldPod) {
				numAvailable++
			}
		} else if newPod != nil && available(newPod) {
			numAvailable++
		}
		switch {
		case oldPod == nil:
		case newPod == nil:
			obj, found := dsc.nodeInformer.Get("", nodeName)
			if !found {
				return fmt.Errorf("couldn't get node for nodeName %q: not found", nodeName)
			}
			shouldRun, _ := dsc.shouldRun(obj.(*model.Node), ds)
			switch {
			case !available(oldPod):
				if !shouldRun {
					oldPodsToDelete = append(oldPodsToDelete, oldPod.Name)
					continue
				}
				allowedNewNodes = append(allowedNewNodes, nodeName)
			default:
				if !shouldRun {
					shouldNotRunPodsToDelete = append(shouldNotRunPodsToDelete, oldPod.Name)
					continue
				}
				if numSurge >= maxSurge {
					continue
				}
				candidateNewNodes = append(candidateNewNodes, nodeName)
			}
		default:
			if !available(newPod) {
				numSurge++
				continue
			}
			oldPodsToDelete = append(oldPodsToDelete, oldPod.Name)
		}
	}
	remainingSurge := maxSurge - numSurge
	if deletable := numAvailable - desired; deletable > 0 {
		deletable = min(deletable, len(shouldNotRunPodsToDelete))
		for _, name := range shouldNotRunPodsToDelete[:deletable] {
			if _, ok := dsc.podInformer.Get(ds.Namespace, name); !ok {
				continue
			}
			oldPodsToDelete = append(oldPodsToDelete, name)
		}
	}
	remainingSurge = min(max(remainingSurge, 0), len(candidateNewNodes))
	newNodesToCreate := append(allowedNewNodes, candidateNewNodes[:remainingSurge]...)
	if len(newNodesToCreate) > 0 || len(oldPodsToDelete) > 0 {
		dsc.Kernel.Emit(Component, "rolling-update", dsRef(ds), ds.ResourceVersion, fmt.Sprintf("maxSurge=%d surging=%d create-on=%s deleting=%s", maxSurge, numSurge, list(newNodesToCreate), list(oldPodsToDelete)))
	}
	return dsc.syncNodes(ctx, ds, oldPodsToDelete, newNodesToCreate, hash)
}

// findUpdatedPodsOnNode returns the node's new and old pod among those not being deleted, and
// false if it has more than one of either (upstream findUpdatedPodsOnNode); manage prunes such
// nodes first.
func findUpdatedPodsOnNode(pods []*model.Pod, hash string, generation *int64) (newPod, oldPod *model.Pod, ok bool) {
	for _, p := range pods {
		if p.DeletionTimestamp != nil {
			continue
		}
		if isPodUpdated(p, hash, generation) {
			if newPod != nil {
				return nil, nil, false
			}
			newPod = p
		} else {
			if oldPod != nil {
				return nil, nil, false
			}
			oldPod = p
		}
	}
	return newPod, oldPod, true
}

// updatedDesiredNodeCounts counts the eligible nodes, adds an empty entry to nodeToPods for each
// that has no pod, and resolves maxSurge and maxUnavailable against that count; with both 0 it
// falls back to maxUnavailable 1 (upstream updatedDesiredNodeCounts).
func (dsc *Controller) updatedDesiredNodeCounts(ds *model.DaemonSet, nodeList []*model.Node, nodeToPods map[string][]*model.Pod) (maxSurge, maxUnavailable, desired int, err error) {
	for _, node := range nodeList {
		if shouldRun, _ := dsc.shouldRun(node, ds); !shouldRun {
			continue
		}
		desired++
		if _, ok := nodeToPods[node.Name]; !ok {
			nodeToPods[node.Name] = nil
		}
	}
	maxUnavailable, err = unavailableCount(ds, desired)
	if err != nil {
		return -1, -1, -1, fmt.Errorf("invalid value for MaxUnavailable: %v", err)
	}
	maxSurge, err = surgeCount(ds, desired)
	if err != nil {
		return -1, -1, -1, fmt.Errorf("invalid value for MaxSurge: %v", err)
	}
	if desired > 0 && maxUnavailable == 0 && maxSurge == 0 {
		maxUnavailable = 1
	}
	return maxSurge, maxUnavailable, desired, nil
}
