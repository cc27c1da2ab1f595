package nodelifecycle

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"

	"github.com/reconsim/reconsim/sim/client"
	"github.com/reconsim/reconsim/sim/controllers/nodelifecycle/testworld"
)

// harness is one datadriven file's world with the node lifecycle controller wired in.
type harness struct {
	w  *testworld.World
	f  *client.SharedInformerFactory
	nc *Controller
}

// TestDataDriven runs testdata/*.txt. Commands beyond testworld's:
//
//	world [seed=1] [grace=50s] [startup-grace=60s] [eviction-rate=0.1] [secondary-rate=0.01] [large-cluster=50]
//	start            start the informers and the controller
//	stop             stop the controller (a controller-manager restart)
//	zones            print ZoneStates
//	limiter-stats    print EvictionLimiterStats
func TestDataDriven(t *testing.T) {
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		var h *harness
		datadriven.RunTest(t, path, func(t *testing.T, td *datadriven.TestData) string {
			if td.Cmd == "world" {
				var err error
				h, err = newHarness(t, td)
				if err != nil {
					return "error: " + err.Error() + "\n"
				}
				return "ok\n"
			}
			if h == nil {
				t.Fatalf("%s: the first command must be world", td.Pos)
			}
			switch td.Cmd {
			case "start":
				h.f.Start(h.w.K)
				h.nc.Start()
				return "ok\n"
			case "stop":
				h.nc.Stop()
				return "ok\n"
			case "zones":
				var b strings.Builder
				for _, z := range h.nc.ZoneStates() {
					fmt.Fprintf(&b, "%s %s nodes=%d not-ready=%d eviction-qps=%g queued=%d\n", z.Zone, z.State, z.Nodes, z.NotReady, z.EvictionQPS, z.Queued)
				}
				return b.String()
			case "limiter-stats":
				var b strings.Builder
				for _, s := range h.nc.EvictionLimiterStats() {
					fmt.Fprintf(&b, "%s tainted=%d waited=%d wait-total=%s max-wait=%s queued=%d swaps=%d\n",
						s.Zone, s.Tainted, s.Waited, s.WaitTotal.Round(time.Millisecond), s.MaxWait.Round(time.Millisecond), s.Queued, s.LimiterSwaps)
				}
				return b.String()
			}
			out, ok := h.w.Dispatch(td)
			if !ok {
				t.Fatalf("%s: unknown command %q", td.Pos, td.Cmd)
			}
			return out
		})
	})
}

func newHarness(t *testing.T, td *datadriven.TestData) (*harness, error) {
	var seed uint64 = 1
	td.MaybeScanArgs(t, "seed", &seed)
	cfg := DefaultConfig()
	for _, d := range []struct {
		key string
		dst *time.Duration
	}{{"grace", &cfg.NodeMonitorGracePeriod}, {"startup-grace", &cfg.NodeStartupGracePeriod}} {
		if arg, ok := td.Arg(d.key); ok {
			v, err := time.ParseDuration(arg.Vals[0])
			if err != nil {
				return nil, fmt.Errorf("%s: %v", d.key, err)
			}
			*d.dst = v
		}
	}
	for _, r := range []struct {
		key string
		dst *float32
	}{{"eviction-rate", &cfg.NodeEvictionRate}, {"secondary-rate", &cfg.SecondaryNodeEvictionRate}} {
		if arg, ok := td.Arg(r.key); ok {
			var v float64
			if _, err := fmt.Sscan(arg.Vals[0], &v); err != nil {
				return nil, fmt.Errorf("%s: %v", r.key, err)
			}
			*r.dst = float32(v)
		}
	}
	if arg, ok := td.Arg("large-cluster"); ok {
		if _, err := fmt.Sscan(arg.Vals[0], &cfg.LargeClusterSizeThreshold); err != nil {
			return nil, fmt.Errorf("large-cluster: %v", err)
		}
	}
	w, err := testworld.New(t, testworld.Options{Seed: seed, Components: []string{traceComponent, ComponentName}})
	if err != nil {
		return nil, err
	}
	c, f := w.Client("kcm-nodelifecycle")
	nc, err := New(w.K, c, f, w.Recorder(ComponentName), cfg)
	if err != nil {
		return nil, err
	}
	return &harness{w: w, f: f, nc: nc}, nil
}
