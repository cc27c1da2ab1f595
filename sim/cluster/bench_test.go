package cluster

import (
	"context"
	"runtime"
	"testing"
)

// benchmarkScenario runs a built-in scenario b.N times and reports events per second, virtual
// seconds per wall second and the heap in use at the end of a run (peak memory of the
// process is best read with /usr/bin/time -v sim run NAME).
func benchmarkScenario(b *testing.B, name string) {
	scn := loadBuiltin(&testing.T{}, name)
	var events uint64
	var virtual float64
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		res, err := Run(context.Background(), scn, Options{})
		if err != nil {
			b.Fatal(err)
		}
		events += res.EventsProcessed
		virtual += res.VirtualSeconds
	}
	wall := b.Elapsed().Seconds()
	b.ReportMetric(float64(events)/wall, "events/s")
	b.ReportMetric(virtual/wall, "virtual-s/wall-s")
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	b.ReportMetric(float64(ms.HeapInuse)/(1<<20), "heap-MiB")
}

func BenchmarkScenarioNodeFailure(b *testing.B)    { benchmarkScenario(b, "node-failure") }
func BenchmarkScenarioZoneOutage(b *testing.B)     { benchmarkScenario(b, "zone-outage") }
func BenchmarkScenarioThunderingHerd(b *testing.B) { benchmarkScenario(b, "thundering-herd") }
