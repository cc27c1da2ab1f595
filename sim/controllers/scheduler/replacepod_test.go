package scheduler

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/reconsim/reconsim/model"
)

// TestReplacePodKeepsRequestsOnlyForSharedContainers replaces a node's pods with random new
// versions: status writes that share the old version's container arrays (whose requests
// replacePod keeps), copies with other requests, and added init and sidecar containers. After
// every step each pod's requests must be PodRequests of its current version, and the node's
// sums those of a node built afresh from the current pods.
func TestReplacePodKeepsRequestsOnlyForSharedContainers(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 5))
	quantity := func() []string {
		kv := []string{"cpu", fmt.Sprintf("%dm", 50+rng.IntN(500))}
		if rng.IntN(2) == 0 {
			kv = append(kv, "memory", fmt.Sprintf("%dMi", 16+rng.IntN(512)))
		}
		return kv
	}
	node := testNode("n1", "64", "256Gi", 110)
	ni := newNodeInfo(node)
	current := map[string]*model.Pod{}
	for i := range 6 {
		p := testPod(fmt.Sprintf("p%d", i), quantity()...)
		p.Spec.NodeName = node.Name
		ni.addPod(model.Key(p), p)
		current[model.Key(p)] = p
	}
	sharedSteps := 0
	for step := 0; step < 2000; step++ {
		key := fmt.Sprintf("default/p%d", rng.IntN(len(current)))
		old := current[key]
		next := new(model.Pod)
		*next = *old // shares the spec's arrays, as a status write's new version does
		next.Status.Phase = []string{model.PodPending, model.PodRunning}[rng.IntN(2)]
		switch rng.IntN(4) {
		case 0:
			next.Spec.Containers = append([]model.Container(nil), old.Spec.Containers...)
			next.Spec.Containers[0].Resources.Requests = resources(quantity()...)
		case 1:
			init := model.Container{Name: fmt.Sprintf("i%d", step), Resources: model.ResourceRequirements{Requests: resources(quantity()...)}}
			if rng.IntN(2) == 0 {
				init.RestartPolicy = model.Ptr(model.ContainerRestartPolicyAlways)
			}
			next.Spec.InitContainers = append(append([]model.Container(nil), old.Spec.InitContainers...), init)
		default:
			sharedSteps++
		}
		ni.replacePod(ni.pods[key], next)
		current[key] = next

		fresh := newNodeInfo(node)
		for k, p := range current { //detlint:ordered sums do not depend on the order
			require.Equal(t, PodRequests(p, false), ni.pods[k].req, "step %d %s", step, k)
			require.Equal(t, PodRequests(p, true), ni.pods[k].nonZero, "step %d %s", step, k)
			fresh.addPod(k, p)
		}
		require.Equal(t, fresh.requested, ni.requested, "step %d", step)
		require.Equal(t, fresh.nonZeroRequested, ni.nonZeroRequested, "step %d", step)
	}
	require.Greater(t, sharedSteps, 500, "the shared-containers path is exercised")
}
