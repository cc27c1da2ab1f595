package explore

import (
	"context"
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/reconsim/reconsim/scenarios"
	"github.com/reconsim/reconsim/sim/cluster"
)

// nodeFailureExplore is the built-in node-failure (3 nodes, a ReplicaSet of 6, worker-0
// crashes at 60s) with an explore: section: one or two more crashes, partitions or kubelet
// stalls, healed or not, anywhere in the first 5 minutes, and every built-in invariant.
const nodeFailureExplore = `
explore:
  faults: {min: 1, max: 2}
  window: {from: 0s, to: 5m}
  actions:
  - {action: node-crash, nodes: {zone: zone-a}, heal: {min: 30s, max: 5m}}
  - {action: node-partition, nodes: {zone: zone-a}, heal: {min: 30s, max: 5m}}
  - {action: kubelet-stall, nodes: {zone: zone-a}, for: {min: 5s, max: 2m}}
  invariants: [pod-bound-once, node-within-allocatable, resource-versions-grow, statefulset-ordinal-once, pdb-respected, no-lost-update, converges]
`

// BenchmarkExploreNodeFailure measures random explore runs per minute of wall time on a
// node-failure-sized scenario, with two workers (the 2 cores the target is for),
// invariant checking included; rendering and parsing each run's scenario is part of a run.
func BenchmarkExploreNodeFailure(b *testing.B) {
	// The garbage collector's target sim itself runs with.
	defer debug.SetGCPercent(debug.SetGCPercent(cluster.GCPercent))
	_, data, _, err := scenarios.Resolve("node-failure")
	require.NoError(b, err)
	data = append(data, nodeFailureExplore...)
	s, err := Prepare(context.Background(), "node-failure-explore.yaml", data, "", Options{Runs: b.N, Seed: 1, Jobs: 2})
	require.NoError(b, err)
	b.ResetTimer()
	runs, err := s.Execute(context.Background())
	require.NoError(b, err)
	b.StopTimer()
	require.Len(b, runs, b.N+1)
	b.ReportMetric(float64(b.N)/b.Elapsed().Minutes(), "runs/min")
}
