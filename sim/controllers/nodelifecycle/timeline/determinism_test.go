package timeline

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim/controllers/nodelifecycle"
	"github.com/reconsim/reconsim/sim/controllers/nodelifecycle/testworld"
	"github.com/reconsim/reconsim/vtime"
)

// failureRun builds three zones of nodes with pods, silences a whole zone and part of
// another, runs 15 minutes and returns the trace hash, the number of trace lines and the
// number of Kubernetes Events.
func failureRun(t testing.TB, seed uint64, nodesPerZone int) (uint64, uint64, int) {
	w, err := testworld.New(t, testworld.Options{Seed: seed})
	require.NoError(t, err)
	for _, zone := range []string{"a", "b", "c"} {
		for i := 0; i < nodesPerZone; i++ {
			name := fmt.Sprintf("%s-%03d", zone, i)
			require.NoError(t, w.AddNode(name, zone, "r", model.ConditionTrue, nil, true))
			require.NoError(t, w.AddPod("default", "pod-"+name, name, nil, 30))
		}
	}
	_, err = startControllers(w, nodelifecycle.DefaultConfig())
	require.NoError(t, err)
	require.NoError(t, w.RunUntil(vtime.FromDuration(30*time.Second)))
	for i := 0; i < nodesPerZone; i++ {
		require.NoError(t, w.StopKubelet(fmt.Sprintf("a-%03d", i)))
		if i%3 == 0 {
			require.NoError(t, w.StopKubelet(fmt.Sprintf("b-%03d", i)))
		}
	}
	require.NoError(t, w.RunUntil(vtime.FromDuration(15*time.Minute)))
	return w.K.Trace().Hash(), w.K.Trace().Lines(), len(w.Sink.Events)
}

// TestDeterministic runs the same failure twice per seed and expects byte-identical traces,
// and a different seed to still give the same story (the controllers draw randomness only for
// conflict backoff, which this run does not hit).
func TestDeterministic(t *testing.T) {
	h1, lines1, events1 := failureRun(t, 7, 12)
	h2, lines2, events2 := failureRun(t, 7, 12)
	require.Equal(t, h1, h2, "same seed, same trace")
	require.Equal(t, lines1, lines2)
	require.Equal(t, events1, events2)
	require.Greater(t, events1, 3*12, "the run must have done something")
}

// BenchmarkNodeFailure1000 measures a 1000-node cluster (3 zones) over 15 virtual minutes in
// which one zone's kubelets go silent: heartbeats, monitor passes, tainting and evictions.
func BenchmarkNodeFailure1000(b *testing.B) {
	for i := 0; i < b.N; i++ {
		start := time.Now()
		_, lines, events := failureRun(b, 1, 334)
		b.ReportMetric(float64(lines), "trace-lines")
		b.ReportMetric(float64(events), "k8s-events")
		b.ReportMetric((15*time.Minute).Seconds()/time.Since(start).Seconds(), "virtual-s/wall-s")
	}
}
