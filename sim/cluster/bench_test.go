package cluster

import (
	"testing"
	"time"

	"github.com/reconsim/reconsim/scenarios"
)

// benchmarkScenario runs a built-in scenario b.N times and reports events per second and
// virtual seconds per wall second. Peak memory is read with /usr/bin/time -v sim run NAME (the
// heap in use after b.N runs would count the garbage of earlier runs).
func benchmarkScenario(b *testing.B, name string) {
	benchmarkLoaded(b, loadBuiltin(&testing.T{}, name))
}

func benchmarkLoaded(b *testing.B, scn *scenarios.Scenario) {
	var events uint64
	var virtual float64
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		res, err := checkedRun(b, scn, Options{})
		if err != nil {
			b.Fatal(err)
		}
		events += res.EventsProcessed
		virtual += res.VirtualSeconds
	}
	wall := b.Elapsed().Seconds()
	b.ReportMetric(float64(events)/wall, "events/s")
	b.ReportMetric(virtual/wall, "virtual-s/wall-s")
}

func BenchmarkScenarioNodeFailure(b *testing.B)    { benchmarkScenario(b, "node-failure") }
func BenchmarkScenarioZoneOutage(b *testing.B)     { benchmarkScenario(b, "zone-outage") }
func BenchmarkScenarioThunderingHerd(b *testing.B) { benchmarkScenario(b, "thundering-herd") }

// BenchmarkIdleThunderingHerdCluster runs thundering-herd's 500 nodes and 15,000 pods for 10
// virtual minutes with no timeline: the cost of the heartbeats (Lease renewals, node status
// checks) and the controllers' periodic loops, which every run of a cluster this size pays
// before and after its faults.
func BenchmarkIdleThunderingHerdCluster(b *testing.B) {
	scn := loadBuiltin(&testing.T{}, "thundering-herd")
	scn.Timeline, scn.Expect = nil, nil
	scn.Duration = 10 * time.Minute
	scn.Stop.Quiescence = 0
	benchmarkLoaded(b, scn)
}
