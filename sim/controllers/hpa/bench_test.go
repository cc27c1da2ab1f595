package hpa

import (
	"testing"
	"time"

	"github.com/reconsim/reconsim/vtime"
)

// BenchmarkSpikeWorld runs the hpa-spike world (4 kubelets, the scheduler, the ReplicaSet
// controller, the metrics pipeline and the HPA) for 15 virtual minutes.
func BenchmarkSpikeWorld(b *testing.B) {
	var events uint64
	var virtual time.Duration
	for i := 0; i < b.N; i++ {
		w := newHPAWorld(b, defaultWorldSpec())
		w.runTo(vtime.FromDuration(15 * time.Minute))
		events += w.K.EventsProcessed()
		virtual += w.K.Now().Duration()
	}
	b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
	b.ReportMetric(virtual.Seconds()/b.Elapsed().Seconds(), "virtual-s/s")
}
