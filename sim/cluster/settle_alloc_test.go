package cluster

import (
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/reconsim/reconsim/scenarios"
)

// settledBuildScenario is scale-5k's shape (five zones of 16-CPU nodes, ReplicaSets of 500
// settled replicas, 30 pods per node) at nodes nodes.
func settledBuildScenario(t testing.TB, nodes int) (*scenarios.Scenario, int) {
	scn := loadBuiltin(t, "scale-5k")
	for i := range scn.Cluster.NodeGroups {
		scn.Cluster.NodeGroups[i].Count = nodes / len(scn.Cluster.NodeGroups)
	}
	src := &scn.Objects[0]
	src.Objects = src.Objects[:nodes*30/500]
	return scn, len(src.Objects) * 500
}

// settledBuildCost builds scn's world and reports the heap allocations (count and bytes) of
// creating its objects (createObjects: the settled ReplicaSets and their running pods), per
// settled pod.
func settledBuildCost(t testing.TB, scn *scenarios.Scenario, pods int) (allocs, bytes float64) {
	w, err := build(scn, scn.Seed, Options{})
	require.NoError(t, err)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	require.NoError(t, w.createObjects())
	runtime.ReadMemStats(&after)
	return float64(after.Mallocs-before.Mallocs) / float64(pods), float64(after.TotalAlloc-before.TotalAlloc) / float64(pods)
}

// TestSettledBuildAllocationsPerPod holds the settled build to its cost: creating a settled
// ReplicaSet's running pods (the API server's create and status write of each, the placer,
// the observer) allocates at most maxAllocs objects and maxBytes bytes per pod. It fails when
// the build path copies a pod, a template or a status per pod again. Measured with go test
// ./sim/cluster -run TestSettledBuildAllocationsPerPod -v (100 nodes, 3,000 pods): 80.7
// allocations and 8,170 bytes per pod at b3f00e4, which deep-copied the template and the
// created pod and validated every pod in full; 19.7 and 2,786 bytes since the replicas share
// one defaulted template and one running status, and the status write is a shallow copy; 13.7
// and 2,310 at 5ff6eed; 11.7 and 2,274 since the placer builds no selector per pod and the
// convergence tracker no key per status write.
func TestSettledBuildAllocationsPerPod(t *testing.T) {
	const maxAllocs, maxBytes = 14, 2800
	scn, pods := settledBuildScenario(t, 100)
	allocs, bytes := settledBuildCost(t, scn, pods)
	t.Logf("%d settled pods: %.1f allocations and %.0f bytes per pod", pods, allocs, bytes)
	require.LessOrEqual(t, allocs, float64(maxAllocs), "allocations per settled pod")
	require.LessOrEqual(t, bytes, float64(maxBytes), "bytes allocated per settled pod")
}

// BenchmarkSettledBuild creates scale-5k's settled objects on 1,000 nodes (30,000 pods) and
// reports the wall time, allocations and bytes per settled pod.
func BenchmarkSettledBuild(b *testing.B) {
	scn, pods := settledBuildScenario(b, 1000)
	var allocs, bytes float64
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		w, err := build(scn, scn.Seed, Options{})
		if err != nil {
			b.Fatal(err)
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		b.StartTimer()
		if err := w.createObjects(); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		runtime.ReadMemStats(&after)
		allocs += float64(after.Mallocs - before.Mallocs)
		bytes += float64(after.TotalAlloc - before.TotalAlloc)
	}
	n := float64(b.N) * float64(pods)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/n, "ns/pod")
	b.ReportMetric(allocs/n, "allocs/pod")
	b.ReportMetric(bytes/n, "B/pod")
}
