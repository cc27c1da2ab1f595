package cluster

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"testing"
	"time"

	"github.com/reconsim/reconsim/report"
	"github.com/reconsim/reconsim/scenarios"
	"github.com/reconsim/reconsim/vtime"
)

// atSimGCPercent runs the rest of b at the garbage collector's target sim runs at (GCPercent),
// unless the environment sets GOGC, as sim does: every benchmark here measures what sim does.
func atSimGCPercent(b *testing.B) {
	if os.Getenv("GOGC") != "" {
		return
	}
	old := debug.SetGCPercent(GCPercent)
	b.Cleanup(func() { debug.SetGCPercent(old) })
}

// benchmarkScenario runs a built-in scenario b.N times and reports events per second and
// virtual seconds per wall second. The benchmarks run as `sim run` does (atSimGCPercent),
// without the tests' ownership check (its deep copy per write would be measured too). Peak memory is read with /usr/bin/time -v sim run NAME (the
// heap in use after b.N runs would count the garbage of earlier runs).
func benchmarkScenario(b *testing.B, name string) {
	benchmarkLoaded(b, loadBuiltin(b, name))
}

func benchmarkLoaded(b *testing.B, scn *scenarios.Scenario) {
	atSimGCPercent(b)
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
}

func BenchmarkScenarioNodeFailure(b *testing.B)    { benchmarkScenario(b, "node-failure") }
func BenchmarkScenarioZoneOutage(b *testing.B)     { benchmarkScenario(b, "zone-outage") }
func BenchmarkScenarioThunderingHerd(b *testing.B) { benchmarkScenario(b, "thundering-herd") }

// BenchmarkIdleThunderingHerdCluster runs thundering-herd's 500 nodes and 15,000 pods with no
// timeline: the cost of the heartbeats (Lease renewals, node status checks) and the
// controllers' periodic loops, which every run of a cluster this size pays before and after
// its faults. ns/event is wall time per kernel event, events/run the timed events. Two
// windows, each 10 virtual minutes long:
//
//   - from=build times from the end of the build (the world, its settled objects and the
//     start of its components), so it includes the start-up: the informers' first lists of
//     15,000 pods and the components' first syncs, most of the window's allocations;
//   - from=1m times the steady state: it starts the timer at virtual minute 1, once every
//     informer has synced and the start-up has settled, and runs 10 more minutes.
func BenchmarkIdleThunderingHerdCluster(b *testing.B) {
	atSimGCPercent(b)
	scn := loadBuiltin(b, "thundering-herd")
	scn.Timeline, scn.Expect = nil, nil
	scn.Stop.Quiescence = 0
	b.Run("from=build", func(b *testing.B) {
		scn.Duration = 10 * time.Minute
		b.ReportAllocs()
		var events uint64
		for i := 0; i < b.N; i++ {
			events += runTimed(b, scn, Options{}, 0).events
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(events), "ns/event")
		b.ReportMetric(float64(events)/float64(b.N), "events/run")
	})
	b.Run("from=1m", func(b *testing.B) {
		const warmUp = time.Minute
		scn.Duration = warmUp + 10*time.Minute
		b.ReportAllocs()
		var events uint64
		for i := 0; i < b.N; i++ {
			events += runTimed(b, scn, Options{}, vtime.FromDuration(warmUp)).events
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(events), "ns/event")
		b.ReportMetric(float64(events)/float64(b.N), "events/run")
	})
}

// timedRun is what runTimed measured: the run's events, without those before the timer started.
type timedRun struct {
	*report.Result
	events uint64
}

// runTimed runs scn with the benchmark's timer on only from the end of the build (the seam
// Options.built), or from virtual time from when it is not zero (the seam Options.warmed), to
// Run's return. Allocations are counted the same way (testing.B counts them while its timer
// runs).
func runTimed(b *testing.B, scn *scenarios.Scenario, opts Options, from vtime.Time) timedRun {
	started := false
	var before uint64
	start := func(events uint64) {
		started, before = true, events
		b.StartTimer()
	}
	if from == 0 {
		opts.built = start
	} else {
		opts.warmAt, opts.warmed = from, start
	}
	b.StopTimer()
	res, err := Run(context.Background(), scn, opts)
	b.StopTimer()
	if err != nil {
		b.Fatal(err)
	}
	if !started {
		b.Fatalf("the run ended before the timer was to start (virtual %s)", from.Duration())
	}
	b.StartTimer()
	return timedRun{Result: res, events: res.EventsProcessed - before}
}

// The scale benchmarks run the slow built-ins (scenarios.SlowBuiltins) whole: minutes and
// gigabytes each, so make bench runs them once (-benchtime 1x); peak memory is read with
// /usr/bin/time -v sim run scale-5k.
func BenchmarkScale5k(b *testing.B)  { benchmarkScenario(b, "scale-5k") }
func BenchmarkScale10k(b *testing.B) { benchmarkScenario(b, "scale-10k") }

// BenchmarkScale5kHeap runs scale-5k and reports what its world holds at the end of the
// simulation, after a collection (live-MiB, heap-objects), and what the run allocated
// (alloc-MiB, allocs): figures that do not depend on the machine's load or the collector's
// timing, unlike peak RSS. Run it alone, once: go test ./sim/cluster -run '^$' -bench
// '^BenchmarkScale5kHeap$' -benchtime 1x.
func BenchmarkScale5kHeap(b *testing.B) {
	scn := loadBuiltin(b, "scale-5k")
	for i := 0; i < b.N; i++ {
		runtime.GC()
		var before, end runtime.MemStats
		runtime.ReadMemStats(&before)
		_, err := Run(context.Background(), scn, Options{simulated: func() {
			runtime.GC()
			runtime.ReadMemStats(&end)
		}})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(end.HeapAlloc)/(1<<20), "live-MiB")
		b.ReportMetric(float64(end.HeapObjects), "heap-objects")
		b.ReportMetric(float64(end.TotalAlloc-before.TotalAlloc)/(1<<20), "alloc-MiB")
		b.ReportMetric(float64(end.Mallocs-before.Mallocs), "allocs")
	}
}

// BenchmarkGrowth runs scale-5k's shape (five zones of 16-CPU nodes, 30 settled pods per node
// as ReplicaSets of 500, zone-a crashing at 60s, 10 virtual minutes) at 1,000, 2,000 and
// 5,000 nodes and reports the wall time per kernel event (ns/event): per-event cost at 5k
// over that at 1k is how far the simulator is from scaling linearly in events.
func BenchmarkGrowth(b *testing.B) {
	atSimGCPercent(b)
	for _, nodes := range []int{1000, 2000, 5000} {
		b.Run(fmt.Sprintf("nodes=%d", nodes), func(b *testing.B) {
			scn := loadBuiltin(b, "scale-5k")
			for i := range scn.Cluster.NodeGroups {
				scn.Cluster.NodeGroups[i].Count = nodes / len(scn.Cluster.NodeGroups)
			}
			// 30 pods per node, 500 per ReplicaSet: the first nodes*30/500 copies.
			src := &scn.Objects[0]
			src.Objects = src.Objects[:nodes*30/500]
			var events uint64
			for i := 0; i < b.N; i++ {
				res, err := Run(context.Background(), scn, Options{})
				if err != nil {
					b.Fatal(err)
				}
				events += res.EventsProcessed
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(events), "ns/event")
			b.ReportMetric(float64(events)/float64(b.N), "events/run")
		})
	}
}

// leaseChainScenario is 200 empty nodes whose kubelets post their status once an hour: what
// is left is the Lease renewal of every node (every node-lease-duration-seconds × 0.25: 10s at
// upstream's 40) and what every kubelet and controller does periodically whatever the leases
// do (the status managers' 10s checks, the node lifecycle controller's monitor pass every 5s).
// node-monitor-grace-period is an hour so that a node whose lease is renewed rarely stays
// Ready: the monitor pass does the same work whatever the renew interval.
const leaseChainScenario = `apiVersion: reconsim.dev/v1alpha1
kind: Scenario
name: lease-chain
duration: 30m
stop: {quiescence: 0s}
components:
  kubelet:
    node-status-update-frequency: 1h
    node-status-report-frequency: 1h
    node-lease-duration-seconds: %d
  kube-controller-manager:
    node-monitor-grace-period: 1h
cluster:
  nodeGroups:
  - {name: n, count: 200, zone: zone-a, capacity: {cpu: "16", memory: 64Gi}}
`

// BenchmarkLeaseRenewalChain isolates the chain a Lease renewal sets off: the kubelet's timer,
// its Update through the client's throttle and API Priority and Fairness, the store's commit
// and watch history, the watch deliveries to the node lifecycle controller's and the garbage
// collector's informers, and their handlers. Each iteration runs 30 virtual minutes of 200
// nodes twice, timed without the build (runTimed): renewing every 10s (lease duration 40s,
// upstream's default) and every 100s (400s), the runs otherwise alike. The renewals are
// counted in the trace. It reports
//
//   - ns/renewal and events/renewal: what the renewals add, (run at 10s - run at 100s) over
//     (renewals at 10s - renewals at 100s): the chain alone;
//   - whole-ns/renewal and whole-events/renewal: the run at 10s over its renewals, with the
//     periodic work that does not depend on the leases (about half its events) counted in.
func BenchmarkLeaseRenewalChain(b *testing.B) {
	atSimGCPercent(b)
	parse := func(leaseDurationSeconds int) *scenarios.Scenario {
		scn, _, err := scenarios.Parse("lease-chain.yaml", []byte(fmt.Sprintf(leaseChainScenario, leaseDurationSeconds)), "")
		if err != nil {
			b.Fatal(err)
		}
		return scn
	}
	renewing, sparse := parse(40), parse(400)
	type total struct {
		wall             time.Duration
		renewals, events uint64
	}
	run := func(scn *scenarios.Scenario, t *total) {
		trace := &lineCounter{needle: []byte(" lease-renew ")}
		before := b.Elapsed()
		res := runTimed(b, scn, Options{Trace: trace}, 0)
		t.wall += b.Elapsed() - before
		t.renewals += trace.count
		t.events += res.events
	}
	var often, rarely total
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		run(renewing, &often)
		run(sparse, &rarely)
	}
	if often.renewals <= rarely.renewals {
		b.Fatalf("%d renewals every 10s, %d every 100s: the runs do not differ in renewals", often.renewals, rarely.renewals)
	}
	added := float64(often.renewals - rarely.renewals)
	b.ReportMetric(float64((often.wall-rarely.wall).Nanoseconds())/added, "ns/renewal")
	b.ReportMetric((float64(often.events)-float64(rarely.events))/added, "events/renewal")
	b.ReportMetric(float64(often.wall.Nanoseconds())/float64(often.renewals), "whole-ns/renewal")
	b.ReportMetric(float64(often.events)/float64(often.renewals), "whole-events/renewal")
}

// lineCounter is a trace writer that counts the occurrences of needle.
type lineCounter struct {
	needle []byte
	count  uint64
}

func (w *lineCounter) Write(p []byte) (int, error) {
	w.count += uint64(bytes.Count(p, w.needle))
	return len(p), nil
}
