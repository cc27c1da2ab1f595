package tainteviction

import (
	"fmt"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"

	"github.com/reconsim/reconsim/sim/client"
	"github.com/reconsim/reconsim/sim/controllers/nodelifecycle/testworld"
)

// TestDataDriven runs testdata/*.txt: the test taints nodes itself (no node lifecycle
// controller) and watches what this controller does. Commands beyond testworld's:
//
//	world [seed=1] [admission=off]   a fresh world (admission=off: no DefaultTolerationSeconds)
//	start                            start the informers and the controller
//	stop                             stop the controller (a controller-manager restart)
//	scheduled                        the pending evictions and when they are due
//	stats                            the controller's counters
func TestDataDriven(t *testing.T) {
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		var w *testworld.World
		var f *client.SharedInformerFactory
		var tc *Controller
		datadriven.RunTest(t, path, func(t *testing.T, td *datadriven.TestData) string {
			if td.Cmd == "world" {
				var seed uint64 = 1
				td.MaybeScanArgs(t, "seed", &seed)
				var err error
				w, err = testworld.New(t, testworld.Options{
					Seed:                            seed,
					Components:                      []string{traceComponent, ComponentName},
					DisableDefaultTolerationSeconds: td.HasArg("admission") && td.CmdArgs[0].Vals[0] == "off",
				})
				if err != nil {
					return "error: " + err.Error() + "\n"
				}
				var c *client.Client
				c, f = w.Client("kcm-tainteviction")
				tc = New(w.K, c, f, w.Recorder(ComponentName), DefaultConfig())
				return "ok\n"
			}
			if w == nil {
				t.Fatalf("%s: the first command must be world", td.Pos)
			}
			switch td.Cmd {
			case "start":
				f.Start(w.K)
				tc.Start()
				return "ok\n"
			case "stop":
				tc.Stop()
				return "ok\n"
			case "scheduled":
				var b strings.Builder
				for _, pod := range tc.pods.List() {
					if at, ok := tc.ScheduledEviction(pod.Namespace, pod.Name); ok {
						fmt.Fprintf(&b, "%s/%s at=%.3f\n", pod.Namespace, pod.Name, at.Seconds())
					}
				}
				if b.Len() == 0 {
					return "none\n"
				}
				return b.String()
			case "stats":
				s := tc.Stats()
				return fmt.Sprintf("scheduled=%d immediate=%d cancelled=%d deleted=%d delete-failures=%d pending=%d\n",
					s.Scheduled, s.Immediate, s.Cancelled, s.Deleted, s.DeleteFailures, s.Pending)
			}
			out, ok := w.Dispatch(td)
			if !ok {
				t.Fatalf("%s: unknown command %q", td.Pos, td.Cmd)
			}
			return out
		})
	})
}
