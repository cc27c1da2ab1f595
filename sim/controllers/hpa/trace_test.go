package hpa

import (
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/vtime"

	"github.com/reconsim/reconsim/sim/internal/testworld"
	"github.com/reconsim/reconsim/sim/metrics"
)

// TestTraces runs the datadriven scripts in testdata/ (regenerate with -rewrite and read the
// diff). Commands:
//
//	init [behavior=default|legacy] [replicas=N] [min=N] [max=N] [target=P] [nodes=N]
//	      [node-cpu=Q] [load=spike|surge|flap|steady] [seed=N]
//	                      build the world at time 0 (see world_test.go)
//	run until=D [every=D] advance to D, printing a sample every D (15s) and the HPA's
//	                      events as they happen
//	policy                check the rescales against the scaling policy and list them
//	conditions            the HPA's conditions now
func TestTraces(t *testing.T) {
	testworld.Walk(t, "testdata", func(t *testing.T, d *datadriven.TestData) (*world, string) {
		spec := defaultWorldSpec()
		d.MaybeScanArgs(t, "behavior", &spec.behavior)
		d.MaybeScanArgs(t, "replicas", &spec.replicas)
		d.MaybeScanArgs(t, "min", &spec.min)
		d.MaybeScanArgs(t, "max", &spec.max)
		d.MaybeScanArgs(t, "target", &spec.target)
		d.MaybeScanArgs(t, "nodes", &spec.nodes)
		d.MaybeScanArgs(t, "node-cpu", &spec.nodeCPU)
		d.MaybeScanArgs(t, "seed", &spec.seed)
		load := "spike"
		d.MaybeScanArgs(t, "load", &load)
		switch load {
		case "spike":
		case "surge":
			// 60/s, ten times that from 1m for 5 minutes.
			spec.shape = metrics.Shape{Spikes: &metrics.SpikesShape{Base: 60, Spikes: []metrics.Spike{{At: time.Minute, Duration: 5 * time.Minute, Factor: model.Ptr(10.0)}}}}
			spec.spikeEnd = 6 * time.Minute
		case "steady":
			spec.shape = metrics.Shape{Constant: &metrics.ConstantShape{Value: 100}}
			spec.spikeEnd = 0
		case "flap":
			// 100/s +- 40% every 4 minutes, around the 5-pod point.
			spec.shape = metrics.Shape{Sine: &metrics.SineShape{Base: 100, Amplitude: 40, Period: 4 * time.Minute}}
			spec.spikeEnd = 0
		default:
			t.Fatalf("%s: unknown load %q", d.Pos, load)
		}
		return newHPAWorld(t, spec), ""
	}, func(t *testing.T, w *world) testworld.Commands {
		return testworld.Commands{
			"run": func(d *datadriven.TestData) string {
				until := testworld.Arg[time.Duration](t, d, "until")
				every := 15 * time.Second
				d.MaybeScanArgs(t, "every", &every)
				var b strings.Builder
				for next := w.K.Now().Add(every); next <= vtime.FromDuration(until); next = next.Add(every) {
					w.runTo(next)
					for _, line := range w.newEvents() {
						b.WriteString(line + "\n")
					}
					b.WriteString(w.sample() + "\n")
				}
				return b.String()
			},
			"policy": func(*datadriven.TestData) string {
				w.newEvents()
				return w.checkPolicy()
			},
			"conditions": func(*datadriven.TestData) string {
				var b strings.Builder
				for _, c := range w.hpaObject().Status.Conditions {
					b.WriteString(c.Type + "=" + string(c.Status) + " " + c.Reason + ": " + c.Message + "\n")
				}
				return b.String()
			},
		}
	})
}

// TestSpikeIsDeterministic runs the spike world twice with the same seed and compares the
// kernel trace hashes and the HPA's rescales.
func TestSpikeIsDeterministic(t *testing.T) {
	run := func() (uint64, []rescale) {
		w := newHPAWorld(t, defaultWorldSpec())
		w.runTo(vtime.FromDuration(15 * time.Minute))
		w.newEvents()
		return w.K.Trace().Hash(), w.rescales
	}
	h1, r1 := run()
	h2, r2 := run()
	if h1 != h2 {
		t.Fatalf("trace hashes differ: %x vs %x", h1, h2)
	}
	if len(r1) == 0 || len(r1) != len(r2) {
		t.Fatalf("rescales differ or none: %v vs %v", r1, r2)
	}
	for i := range r1 {
		if r1[i] != r2[i] {
			t.Fatalf("rescale %d differs: %v vs %v", i, r1[i], r2[i])
		}
	}
}
