package explore

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
)

// TestRenderTrace renders fault lists as the timeline entries of a run's scenario (and of a
// reproducer): testdata/render.txt. Each `render seed=N [drop=I,...]` command takes one fault
// per input line, in JSON, and prints the rendered scenario's seed and everything from objects: on. Regenerate
// with -rewrite.
func TestRenderTrace(t *testing.T) {
	const base = `apiVersion: reconsim.dev/v1alpha1
kind: Scenario
name: render
seed: 1
duration: 10m
cluster:
  nodeGroups:
  - {name: worker, count: 2, capacity: {cpu: "4", memory: 16Gi}}
objects:
- manifest: {apiVersion: v1, kind: Namespace, metadata: {name: a}}
- manifest: {apiVersion: v1, kind: Namespace, metadata: {name: b}}
explore:
  actions:
  - {action: node-crash, nodes: {names: [worker-0]}}
`
	src, err := newSource("render.yaml", []byte(base), "")
	if err != nil {
		t.Fatal(err)
	}
	datadriven.RunTest(t, "testdata/render.txt", func(t *testing.T, d *datadriven.TestData) string {
		if d.Cmd != "render" {
			d.Fatalf(t, "unknown command %q", d.Cmd)
		}
		var v variant
		for _, a := range d.CmdArgs {
			switch a.Key {
			case "seed":
				n, err := strconv.ParseUint(a.Vals[0], 10, 64)
				if err != nil {
					d.Fatalf(t, "seed: %v", err)
				}
				v.seed = n
			case "drop":
				for _, s := range a.Vals {
					i, err := strconv.Atoi(s)
					if err != nil {
						d.Fatalf(t, "drop: %v", err)
					}
					v.dropped = append(v.dropped, i)
				}
			}
		}
		for _, line := range strings.Split(strings.TrimSpace(d.Input), "\n") {
			if line == "" {
				continue
			}
			var f Fault
			if err := json.Unmarshal([]byte(line), &f); err != nil {
				d.Fatalf(t, "%s: %v", line, err)
			}
			v.faults = append(v.faults, f)
		}
		out, err := src.render(v)
		if err != nil {
			return "error: " + err.Error() + "\n"
		}
		// The pinned seed, then everything from objects: on.
		s := string(out)
		var seed string
		for _, line := range strings.Split(s, "\n") {
			if strings.HasPrefix(line, "seed:") {
				seed = line + "\n"
			}
		}
		if i := strings.Index(s, "\nobjects:"); i >= 0 {
			s = s[i+1:]
		}
		return seed + s
	})
}
