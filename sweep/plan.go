package sweep

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/reconsim/reconsim/scenarios"
)

// Plan is a sweep's run list in canonical order.
type Plan struct {
	// Points are the grid points that run, in grid order.
	Points []Point
	// Runs are the runs: for each point in order, one per seed in the order of Spec.Seeds.
	Runs []PlannedRun
}

// Point is one grid point: one value of each parameter.
type Point struct {
	// Grid is the point's index in the full grid, in which the first parameter varies
	// slowest and each parameter's values keep their order.
	Grid int
	// ID is "p" and Grid, zero-padded to the width of the largest grid index.
	ID string
	// Values holds the value of each of Spec.Parameters, in order.
	Values []string
}

// PlannedRun is one run of the sweep: a grid point and a seed.
type PlannedRun struct {
	// Index is the run's position in Plan.Runs; shards split the list by it.
	Index int
	// ID is the point's ID and the seed: "p03-s7". It names the run's directory.
	ID string
	// Point is the index of the run's point in Plan.Points.
	Point int
	Seed  uint64
}

// sampleStream is the PCG stream of the grid sample ("sweep-sm"); the sample's seed is
// the other half of the PCG state.
const sampleStream = 0x73776565702d736d

// Plan expands the spec into its run list. Without a sample every grid point runs; with
// one, Sample.Count distinct grid indices are drawn (Floyd's algorithm) from a PCG stream
// seeded with Sample.Seed and run in grid order, so the sample is the same on every machine.
// The spec must be valid (Parse checked the sizes).
func (s *Spec) Plan() *Plan {
	grid := gridSize(s.Parameters)
	var indices []int
	if s.Sample != nil && s.Sample.Count < grid {
		indices = sampleIndices(grid, s.Sample.Count, s.Sample.Seed)
	} else {
		indices = make([]int, grid)
		for i := range indices {
			indices[i] = i
		}
	}
	width := len(strconv.Itoa(max(grid-1, 0)))
	plan := &Plan{Points: make([]Point, len(indices)), Runs: make([]PlannedRun, 0, len(indices)*len(s.Seeds))}
	for pi, g := range indices {
		values := make([]string, len(s.Parameters))
		rest := g
		for i := len(s.Parameters) - 1; i >= 0; i-- {
			n := len(s.Parameters[i].Values)
			values[i] = s.Parameters[i].Values[rest%n]
			rest /= n
		}
		pt := Point{Grid: g, ID: fmt.Sprintf("p%0*d", width, g), Values: values}
		plan.Points[pi] = pt
		for _, seed := range s.Seeds {
			plan.Runs = append(plan.Runs, PlannedRun{Index: len(plan.Runs), ID: pt.ID + "-s" + strconv.FormatUint(seed, 10), Point: pi, Seed: seed})
		}
	}
	return plan
}

// sampleIndices draws k distinct integers from [0, n) and returns them sorted.
func sampleIndices(n, k int, seed uint64) []int {
	r := rand.New(rand.NewPCG(seed, sampleStream))
	chosen := make(map[int]bool, k)
	out := make([]int, 0, k)
	for j := n - k; j < n; j++ {
		t := r.IntN(j + 1)
		if chosen[t] {
			t = j
		}
		chosen[t] = true
		out = append(out, t)
	}
	slices.Sort(out)
	return out
}

// overrides returns a point's values as --set overrides, in parameter order.
func (s *Spec) overrides(values []string) []scenarios.Override {
	out := make([]scenarios.Override, len(s.Parameters))
	for i, p := range s.Parameters {
		out[i] = scenarios.Override{Key: p.Key, Value: values[i]}
	}
	return out
}

// pointLabel writes a point as "key=value, key=value", or "all runs" without parameters.
func (s *Spec) pointLabel(values []string) string {
	if len(s.Parameters) == 0 {
		return "all runs"
	}
	parts := make([]string, len(s.Parameters))
	for i, p := range s.Parameters {
		parts[i] = p.Key + "=" + values[i]
	}
	return strings.Join(parts, ", ")
}

// shortKey drops the component from a --set key.
func shortKey(key string) string {
	if i := strings.LastIndexByte(key, '.'); i >= 0 && !strings.HasPrefix(key, "stop.") {
		return key[i+1:]
	}
	return key
}

// ParamValue is one parameter's value at a point.
type ParamValue struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

func (s *Spec) paramValues(values []string) []ParamValue {
	out := make([]ParamValue, len(s.Parameters))
	for i, p := range s.Parameters {
		out[i] = ParamValue{Key: p.Key, Value: values[i]}
	}
	return out
}

// formatNumber writes v in its shortest exact form.
func formatNumber(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// formatDuration writes a duration compactly, as scenarios do: 50s, 5m, 1h30m, 1.5s, 300ms.
var formatDuration = scenarios.FormatDuration

// formatIn writes a value in a unit for people: seconds as a duration rounded to the
// millisecond, other numbers with up to 4 significant digits.
func formatIn(unit string, v float64) string {
	switch {
	case math.IsInf(v, 1):
		return "∞"
	case math.IsNaN(v):
		return "-"
	case unit == "seconds" && math.Abs(v) < 1e9:
		return formatDuration(time.Duration(math.Round(v*1e3)) * time.Millisecond)
	case v == math.Trunc(v) && math.Abs(v) < 1e15:
		return strconv.FormatInt(int64(v), 10)
	}
	return strconv.FormatFloat(v, 'g', 4, 64)
}
