package timeline

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"

	"github.com/reconsim/reconsim/sim/controllers/nodelifecycle"
	"github.com/reconsim/reconsim/sim/controllers/nodelifecycle/testworld"
	"github.com/reconsim/reconsim/sim/controllers/tainteviction"
)

type harness struct {
	w  *testworld.World
	nc *nodelifecycle.Controller
	tc *tainteviction.Controller
}

// newHarness builds the world the init command describes and starts both controllers on it
// (startControllers).
func newHarness(t *testing.T, td *datadriven.TestData) (*harness, error) {
	var seed uint64 = 1
	td.MaybeScanArgs(t, "seed", &seed)
	cfg := nodelifecycle.DefaultConfig()
	if arg, ok := td.Arg("grace"); ok {
		d, err := time.ParseDuration(arg.Vals[0])
		if err != nil {
			return nil, err
		}
		cfg.NodeMonitorGracePeriod = d
	}
	admissionOff := false
	if arg, ok := td.Arg("admission"); ok {
		admissionOff = arg.Vals[0] == "off"
	}
	w, err := testworld.New(t, testworld.Options{
		Seed:                            seed,
		DisableDefaultTolerationSeconds: admissionOff,
		Components:                      []string{"nodelifecycle", "tainteviction", nodelifecycle.ComponentName, tainteviction.ComponentName},
	})
	if err != nil {
		return nil, err
	}
	return startControllers(w, cfg)
}

// startControllers wires both controllers into w with their own clients and informer
// factories, as kube-controller-manager runs them (the node lifecycle controller with cfg),
// and starts them.
func startControllers(w *testworld.World, cfg nodelifecycle.Config) (*harness, error) {
	nlc, nlf := w.Client("kcm-nodelifecycle")
	nc, err := nodelifecycle.New(w.K, nlc, nlf, w.Recorder(nodelifecycle.ComponentName), cfg)
	if err != nil {
		return nil, err
	}
	tec, tef := w.Client("kcm-tainteviction")
	tc := tainteviction.New(w.K, tec, tef, w.Recorder(tainteviction.ComponentName), tainteviction.DefaultConfig())
	nlf.Start(w.K)
	tef.Start(w.K)
	nc.Start()
	tc.Start()
	return &harness{w: w, nc: nc, tc: tc}, nil
}

// TestTimeline runs testdata/*.txt. Commands beyond testworld's:
//
//	world [seed=1] [grace=50s] [admission=off]   a fresh world with both controllers running
//	zones                                        the node lifecycle controller's zone states
func TestTimeline(t *testing.T) {
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		var h *harness
		datadriven.RunTest(t, path, func(t *testing.T, td *datadriven.TestData) string {
			switch {
			case td.Cmd == "world":
				var err error
				if h, err = newHarness(t, td); err != nil {
					return "error: " + err.Error() + "\n"
				}
				return "ok\n"
			case h == nil:
				t.Fatalf("%s: the first command must be world", td.Pos)
			case td.Cmd == "zones":
				var b strings.Builder
				for _, z := range h.nc.ZoneStates() {
					fmt.Fprintf(&b, "%s %s nodes=%d not-ready=%d eviction-qps=%g\n", z.Zone, z.State, z.Nodes, z.NotReady, z.EvictionQPS)
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
