package testworld

import (
	"fmt"
	"maps"
	"slices"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim/apiserver"
)

// checkCPU is the invariant checked after every run on top of the shared world's: no node's
// pods (not terminal) request more CPU than it has allocatable.
func checkCPU(s *apiserver.Store) error {
	requested := map[string]int64{}
	allocatable := map[string]int64{}
	for _, kind := range []model.Kind{model.KindNode, model.KindPod} {
		objs, _, err := s.List(kind, model.ListOptions{})
		if err != nil {
			return err
		}
		for _, o := range objs {
			if n, ok := o.(*model.Node); ok {
				if q, ok := n.Status.Allocatable[model.ResourceCPU]; ok {
					allocatable[n.Name] = q.MilliValue()
				}
			}
			if p, ok := o.(*model.Pod); ok && p.Spec.NodeName != "" && p.Status.Phase != model.PodSucceeded && p.Status.Phase != model.PodFailed {
				for _, c := range p.Spec.Containers {
					if q, ok := c.Resources.Requests[model.ResourceCPU]; ok {
						requested[p.Spec.NodeName] += q.MilliValue()
					}
				}
			}
		}
	}
	for _, node := range sortedNames(requested) {
		if alloc, ok := allocatable[node]; ok && requested[node] > alloc {
			return fmt.Errorf("invariant: pods on node %s request %dm CPU, allocatable is %dm", node, requested[node], alloc)
		}
	}
	return nil
}

func sortedNames(m map[string]int64) []string { return slices.Sorted(maps.Keys(m)) }
