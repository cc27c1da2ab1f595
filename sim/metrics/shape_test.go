package metrics

import (
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim"
)

func f64(v float64) *float64 { return &v }

const sec = time.Second

// Each shape's value and integral at hand-computed points.
func TestShapeValuesAndIntegrals(t *testing.T) {
	type point struct {
		at   time.Duration
		want float64
	}
	type area struct {
		from, to time.Duration
		want     float64
	}
	for _, tc := range []struct {
		name   string
		shape  Shape
		points []point
		areas  []area
	}{
		{
			name:   "constant",
			shape:  Shape{Constant: &ConstantShape{Value: 100}},
			points: []point{{0, 100}, {time.Hour, 100}},
			// 100/s for 15s = 1500.
			areas: []area{{0, 15 * sec, 1500}, {10 * sec, 10 * sec, 0}},
		},
		{
			name:  "steps",
			shape: Shape{Steps: &StepsShape{Initial: 10, Steps: []Step{{At: 10 * sec, Value: 30}, {At: 20 * sec, Value: 0}}}},
			// A step holds from its instant on.
			points: []point{{0, 10}, {9 * sec, 10}, {10 * sec, 30}, {19 * sec, 30}, {20 * sec, 0}, {time.Hour, 0}},
			// [5,25]: 10*5 + 30*10 + 0*5 = 350.
			areas: []area{{5 * sec, 25 * sec, 350}, {0, 10 * sec, 100}},
		},
		{
			name:  "ramp",
			shape: Shape{Ramp: &RampShape{From: 100, To: 300, Start: 60 * sec, Duration: 120 * sec}},
			// Halfway (t=120s) the ramp is at 200.
			points: []point{{0, 100}, {60 * sec, 100}, {120 * sec, 200}, {180 * sec, 300}, {time.Hour, 300}},
			// [0,60]: 6000; [60,180]: the trapezoid (100+300)/2*120 = 24000; [180,240]: 18000.
			areas: []area{{0, 240 * sec, 48000}, {90 * sec, 150 * sec, 60 * 200}},
		},
		{
			name:  "sine",
			shape: Shape{Sine: &SineShape{Base: 100, Amplitude: 50, Period: 60 * sec}},
			// A quarter period in: the peak; three quarters: the trough.
			points: []point{{0, 100}, {15 * sec, 150}, {45 * sec, 50}},
			// A whole period integrates to base*period = 6000; the first half to
			// 100*30 + 50*60/π = 3000 + 954.93.
			areas: []area{{0, 60 * sec, 6000}, {0, 30 * sec, 3000 + 3000/math.Pi}},
		},
		{
			name: "spikes",
			shape: Shape{Spikes: &SpikesShape{Base: 100, Spikes: []Spike{
				{At: 60 * sec, Duration: 300 * sec, Factor: f64(3)},
				{At: 600 * sec, Duration: 10 * sec, Value: f64(1000)},
			}}},
			points: []point{{59 * sec, 100}, {60 * sec, 300}, {359 * sec, 300}, {360 * sec, 100}, {605 * sec, 1000}, {610 * sec, 100}},
			// [0,400]: 100*60 + 300*300 + 100*40 = 100000.
			areas: []area{{0, 400 * sec, 100000}, {600 * sec, 610 * sec, 10000}},
		},
		{
			name:  "series",
			shape: Shape{Series: &SeriesShape{Points: []SeriesPoint{{At: 10 * sec, Value: 0}, {At: 20 * sec, Value: 100}, {At: 30 * sec, Value: 50}}}},
			// Before the first point its value; linear in between; after the last its value.
			points: []point{{0, 0}, {15 * sec, 50}, {25 * sec, 75}, {time.Hour, 50}},
			// [10,20]: 500; [20,30]: 750; [30,40]: 500.
			areas: []area{{0, 40 * sec, 1750}, {15 * sec, 25 * sec, (50+100)/2.0*5 + (100+75)/2.0*5}},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Empty(t, tc.shape.Validate("shape"))
			o := NewOffered(&LoadSpec{Shape: tc.shape}, nil)
			for _, p := range tc.points {
				assert.InDelta(t, p.want, o.At(p.at), 1e-9, "at %s", p.at)
			}
			for _, a := range tc.areas {
				assert.InDelta(t, a.want, o.Integral(a.from, a.to), 1e-6, "integral %s..%s", a.from, a.to)
			}
		})
	}
}

// Property: for random shapes, the closed-form integral is additive and agrees with a fine
// midpoint sum of At (away from the shapes' jumps, which the sum cannot resolve exactly).
func TestIntegralMatchesRiemannSum(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 200; i++ {
		var shape Shape
		switch i % 4 {
		case 0:
			var pts []SeriesPoint
			at := time.Duration(0)
			for j := 0; j < 1+r.IntN(8); j++ {
				at += time.Duration(1+r.IntN(30)) * sec
				pts = append(pts, SeriesPoint{At: at, Value: float64(r.IntN(500))})
			}
			shape.Series = &SeriesShape{Points: pts}
		case 1:
			shape.Ramp = &RampShape{From: float64(r.IntN(100)), To: float64(r.IntN(100)), Start: time.Duration(r.IntN(60)) * sec, Duration: time.Duration(1+r.IntN(60)) * sec}
		case 2:
			base := float64(50 + r.IntN(100))
			shape.Sine = &SineShape{Base: base, Amplitude: base * r.Float64(), Period: time.Duration(10+r.IntN(100)) * sec, Phase: time.Duration(r.IntN(30)) * sec}
		default:
			var steps []Step
			at := time.Duration(0)
			for j := 0; j < 1+r.IntN(5); j++ {
				at += time.Duration(1+r.IntN(20)) * sec
				steps = append(steps, Step{At: at, Value: float64(r.IntN(200))})
			}
			shape.Steps = &StepsShape{Initial: float64(r.IntN(200)), Steps: steps}
		}
		require.Empty(t, shape.Validate(""), "case %d", i)
		o := NewOffered(&LoadSpec{Shape: shape}, nil)
		a := time.Duration(r.IntN(100)) * sec
		b := a + time.Duration(1+r.IntN(100))*sec
		c := b + time.Duration(1+r.IntN(100))*sec
		whole := o.Integral(a, c)
		assert.InDelta(t, whole, o.Integral(a, b)+o.Integral(b, c), 1e-6*math.Max(1, whole), "additivity, case %d", i)
		// Midpoint sum with 1ms steps; the steps shape's jumps sit on whole seconds, between
		// midpoints, so the sum is exact up to rounding for it too.
		step := time.Millisecond
		sum := 0.0
		for t0 := a; t0 < c; t0 += step {
			sum += o.At(t0+step/2) * step.Seconds()
		}
		assert.InDelta(t, whole, sum, 1e-3*math.Max(1, whole), "riemann, case %d (%s)", i, shape.Kind())
	}
}

func TestNoiseIsSeededAndOrderFree(t *testing.T) {
	spec := &LoadSpec{Shape: Shape{Constant: &ConstantShape{Value: 100}}, Noise: &NoiseSpec{Stddev: 0.2, Interval: 15 * sec}}
	a := NewOffered(spec, sim.NewRand(7, "metrics/load/web"))
	b := NewOffered(spec, sim.NewRand(7, "metrics/load/web"))
	// Ask b in reverse order: the draws are made in interval order anyway.
	times := []time.Duration{0, 20 * sec, 40 * sec, 100 * sec, 300 * sec}
	var fromB []float64
	for i := len(times) - 1; i >= 0; i-- {
		fromB = append([]float64{b.At(times[i])}, fromB...)
	}
	varied := false
	for i, at := range times {
		assert.Equal(t, a.At(at), fromB[i], "at %s", at)
		if a.At(at) != 100 {
			varied = true
		}
	}
	assert.True(t, varied, "noise changed nothing")
	// Within one interval the factor is constant: the integral over it is factor*100*15.
	assert.InDelta(t, a.At(16*sec)*15, a.Integral(15*sec, 30*sec), 1e-9)
	c := NewOffered(spec, sim.NewRand(8, "metrics/load/web"))
	assert.NotEqual(t, a.At(0), c.At(0), "another seed gives other noise")
}

func TestShapeValidation(t *testing.T) {
	for _, tc := range []struct {
		name  string
		shape Shape
		want  []string
	}{
		{"none", Shape{}, []string{"shape: needs one of constant, steps, ramp, sine, spikes or series"}},
		{"two", Shape{Constant: &ConstantShape{}, Ramp: &RampShape{}}, []string{"shape: sets [constant ramp]; exactly one shape may be set"}},
		{"negative", Shape{Constant: &ConstantShape{Value: -1}}, []string{"shape.constant.value: must be a number from 0 to 1e+12, got -1"}},
		{"NaN", Shape{Constant: &ConstantShape{Value: math.NaN()}}, []string{"shape.constant.value: must be a number from 0 to 1e+12, got NaN"}},
		{"steps out of order", Shape{Steps: &StepsShape{Steps: []Step{{At: 10 * sec}, {At: 10 * sec}}}},
			[]string{"shape.steps.steps[1].at: must be after the previous step's at (10s), got 10s"}},
		{"ramp without duration", Shape{Ramp: &RampShape{}}, []string{"shape.ramp.duration: must be longer than 0s and at most 720h0m0s, got 0s"}},
		{"sine below zero", Shape{Sine: &SineShape{Base: 10, Amplitude: 20, Period: time.Minute}},
			[]string{"shape.sine.amplitude: must not exceed base (10), or the load would go below zero; got 20"}},
		{"sine period", Shape{Sine: &SineShape{Base: 10, Period: time.Millisecond}}, []string{"shape.sine.period: must be from 1s to 720h0m0s, got 1ms"}},
		{"spike with both", Shape{Spikes: &SpikesShape{Base: 1, Spikes: []Spike{{At: 0, Duration: sec, Factor: f64(2), Value: f64(3)}}}},
			[]string{"shape.spikes.spikes[0]: needs exactly one of factor and value"}},
		{"overlapping spikes", Shape{Spikes: &SpikesShape{Base: 1, Spikes: []Spike{{At: 0, Duration: 10 * sec, Factor: f64(2)}, {At: 5 * sec, Duration: sec, Factor: f64(2)}}}},
			[]string{"shape.spikes.spikes[1].at: must not be before the end of the previous spike (10s), got 5s"}},
		{"unread series file", Shape{Series: &SeriesShape{File: "load.csv"}}, []string{`shape.series.file: the file "load.csv" has not been read (ReadSeriesFile)`}},
		{"late time", Shape{Series: &SeriesShape{Points: []SeriesPoint{{At: 31 * 24 * time.Hour}}}},
			[]string{"shape.series.points[0].at: must be from 0s to 720h0m0s, got 744h0m0s"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, e := range tc.shape.Validate("shape") {
				got = append(got, e.Error())
			}
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestParseSeriesCSV(t *testing.T) {
	good := "# recorded 2026-01-01\nseconds, rps\n0,100\n\n 30 , 150.5\n60,120\n"
	pts, err := ParseSeriesCSV(strings.NewReader(good), "load.csv")
	require.NoError(t, err)
	assert.Equal(t, []SeriesPoint{{0, 100}, {30 * sec, 150.5}, {60 * sec, 120}}, pts)

	for _, tc := range []struct {
		name, in, want string
	}{
		{"three fields", "0,1\n1,2,3\n", "load.csv:2: want 2 fields (seconds,value), got 3"},
		{"bad time", "0,1\nsoon,2\n", `load.csv:2: time "soon" is not a number of seconds`},
		{"bad value", "0,lots\n", `load.csv:1: value "lots" is not a number`},
		{"negative value", "0,-5\n", "load.csv:1: value -5 is outside 0..1e+12"},
		{"negative time", "-1,5\n", "load.csv:1: time -1 is outside 0..2.592e+06 seconds"},
		{"not increasing", "0,1\n# x\n0,2\n", "load.csv:3: time 0 is not after the previous point's (0s)"},
		{"empty", "# nothing\n", "load.csv: no points (want lines of seconds,value)"},
		{"header only", "t,v\n", "load.csv: no points (want lines of seconds,value)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseSeriesCSV(strings.NewReader(tc.in), "load.csv")
			require.Error(t, err)
			assert.Equal(t, tc.want, err.Error())
		})
	}

	// Every problem is reported, each with its line.
	_, err = ParseSeriesCSV(strings.NewReader("0,1\nx,1\n5,y\n"), "f")
	require.Error(t, err)
	assert.Equal(t, "f:2: time \"x\" is not a number of seconds\nf:3: value \"y\" is not a number", err.Error())
}

func TestLoadSpecValidation(t *testing.T) {
	spec := LoadSpec{Target: WorkloadRef{Kind: "Deployment", Name: "web"}, Shape: Shape{Constant: &ConstantShape{Value: 1}}}
	spec.SetDefaults()
	assert.Equal(t, "default", spec.Target.Namespace)
	assert.Equal(t, "web", spec.Name)
	assert.Equal(t, DefaultMetricName, spec.Metric)
	assert.Empty(t, spec.Validate("loads[0]"))

	bad := spec
	bad.Target.Kind = "DaemonSet"
	bad.Noise = &NoiseSpec{Stddev: 2, Interval: time.Millisecond}
	bad.Usage.BaseCPU.Set(-1)
	bad.Objects = []ObjectRef{{Name: "svc"}}
	var got []string
	for _, e := range bad.Validate("loads[0]") {
		got = append(got, e.Error())
	}
	assert.Equal(t, []string{
		`loads[0].target.kind: must be Deployment, ReplicaSet or StatefulSet, got "DaemonSet"`,
		"loads[0].noise.stddev: must be from 0 to 1, got 2",
		"loads[0].noise.interval: must be from 1s to 720h0m0s, got 1ms",
		"loads[0].usage.baseCPU: must be from 0 to 100k, got -1",
		"loads[0].objects[0].kind: is required",
	}, got)

	dup := []LoadSpec{spec, spec}
	got = nil
	for _, e := range ValidateLoads(dup, "loads") {
		got = append(got, e.Error())
	}
	assert.Equal(t, []string{
		`loads[1].name: "web" is also the name of loads[0]`,
		"loads[1].target: Deployment default/web already carries the load loads[0]",
	}, got)
}

// The scenario loader decodes a load with model.DecodeNode (JSON names, durations as "5m",
// quantities as "10m"), strictly: every field of LoadSpec must decode that way.
func TestLoadSpecDecodesFromYAML(t *testing.T) {
	const doc = `
name: web
target: {kind: Deployment, name: web}
shape:
  spikes:
    base: 100
    spikes:
    - {at: 2m, duration: 5m, factor: 3}
noise: {stddev: 0.05}
usage: {cpuPerUnit: 10m, baseCPU: 20m, memoryPerUnit: 1Mi, baseMemory: 64Mi}
metric: rps
metricLabels: {queue: web}
objects: [{kind: Service, name: web}]
`
	var node yaml.Node
	require.NoError(t, yaml.Unmarshal([]byte(doc), &node))
	var spec LoadSpec
	warnings, errs := model.DecodeNode(node.Content[0], &spec, model.DecodeOptions{File: "s.yaml", Strict: true})
	require.Empty(t, errs)
	require.Empty(t, warnings)
	spec.SetDefaults()
	require.Empty(t, spec.Validate("loads[0]"))
	assert.Equal(t, 2*time.Minute, spec.Shape.Spikes.Spikes[0].At)
	assert.Equal(t, 3.0, *spec.Shape.Spikes.Spikes[0].Factor)
	assert.Equal(t, int64(10), spec.Usage.CPUPerUnit.MilliValue())
	assert.Equal(t, DefaultNoiseInterval, spec.Noise.Interval)
	assert.Equal(t, "default", spec.Target.Namespace)
}

func TestResolveFiles(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "rps.csv"), []byte("seconds,rps\n0,10\n60,20\n"), 0o644))
	spec := LoadSpec{Shape: Shape{Series: &SeriesShape{File: "rps.csv"}}}
	require.NoError(t, spec.ResolveFiles(dir))
	assert.Equal(t, []SeriesPoint{{0, 10}, {time.Minute, 20}}, spec.Shape.Series.Points)
	missing := LoadSpec{Shape: Shape{Series: &SeriesShape{File: "nope.csv"}}}
	assert.ErrorContains(t, missing.ResolveFiles(dir), "nope.csv")
}
