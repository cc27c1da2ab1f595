package node

import (
	"fmt"
	"testing"
	"time"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim"
	"github.com/reconsim/reconsim/vtime"
)

// BenchmarkKubeletFullNode runs one kubelet with 110 pods (a full node), half of them with a
// readiness probe, through pod startup and 10 virtual minutes of steady state: lease and node
// status heartbeats, probes and the status manager's periodic checks.
func BenchmarkKubeletFullNode(b *testing.B) {
	var events uint64
	var virtual time.Duration
	for i := 0; i < b.N; i++ {
		w := newWorld(b, uint64(i+1))
		w.K.Trace().SetWriter(nil)
		w.addNode("n1", model.ResourceList{model.ResourceCPU: mustQuantity(b, "64")}, DefaultConfig(), false).Start()
		for j := 0; j < 110; j++ {
			ps := podSpec{name: fmt.Sprintf("p%03d", j), node: "n1", cpu: "100m"}
			if j%2 == 0 {
				ps.readiness = &model.Probe{PeriodSeconds: 10}
				ps.annotations = map[string]string{AnnotationReadyAfter: "5s"}
			}
			w.createPod(ps)
		}
		start := w.K.EventsProcessed()
		out := w.K.Run(sim.Limits{MaxTime: vtime.FromDuration(10 * time.Minute)})
		if out.Reason == sim.StopError {
			b.Fatal(out.Err)
		}
		events += w.K.EventsProcessed() - start
		virtual += 10 * time.Minute
	}
	b.ReportMetric(float64(events)/float64(b.N), "events/op")
	b.ReportMetric(virtual.Seconds()/b.Elapsed().Seconds(), "virtual-s/wall-s")
}

// BenchmarkKubeletSettledNode runs one kubelet that adopts 110 settled Running pods (a full
// node after a settled start, half of them with a readiness probe) through one virtual hour
// of steady state: lease and node status heartbeats, probes and the status manager's periodic
// checks, with nothing to write. The setup is not timed.
func BenchmarkKubeletSettledNode(b *testing.B) {
	var events uint64
	var virtual time.Duration
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		w := newWorld(b, uint64(i+1))
		w.K.Trace().SetWriter(nil)
		kl := w.addNode("n1", model.ResourceList{model.ResourceCPU: mustQuantity(b, "64")}, DefaultConfig(), true)
		for j := 0; j < 110; j++ {
			ps := podSpec{name: fmt.Sprintf("p%03d", j), node: "n1", cpu: "100m", running: true}
			if j%2 == 0 {
				ps.readiness = &model.Probe{PeriodSeconds: 10}
			}
			w.createPod(ps)
		}
		kl.Start()
		b.StartTimer()
		start := w.K.EventsProcessed()
		out := w.K.Run(sim.Limits{MaxTime: vtime.FromDuration(time.Hour)})
		if out.Reason == sim.StopError {
			b.Fatal(out.Err)
		}
		events += w.K.EventsProcessed() - start
		virtual += time.Hour
	}
	b.ReportMetric(float64(events)/float64(b.N), "events/op")
	b.ReportMetric(virtual.Seconds()/b.Elapsed().Seconds(), "virtual-s/wall-s")
}
