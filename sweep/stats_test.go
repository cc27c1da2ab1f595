package sweep

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reconsim/reconsim/report"
)

// TestQuantileMatchesNumpy checks Quantile against numpy.percentile's default ("linear")
// method on known data; the expected values are what numpy 1.26 prints.
func TestQuantileMatchesNumpy(t *testing.T) {
	oneToTen := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	tests := []struct {
		name string
		data []float64
		q    float64
		want float64
	}{
		{"median of even count", oneToTen, 0.5, 5.5},
		{"p90", oneToTen, 0.9, 9.1},
		{"p95", oneToTen, 0.95, 9.55},
		{"p99", oneToTen, 0.99, 9.91},
		{"p0 is the minimum", oneToTen, 0, 1},
		{"p100 is the maximum", oneToTen, 1, 10},
		{"interpolates between ranks", []float64{15, 20, 35, 40, 50}, 0.4, 29},
		{"exact rank", []float64{15, 20, 35, 40, 50}, 0.5, 35},
		{"single value", []float64{7}, 0.37, 7},
		{"ties", []float64{2, 2, 2, 3}, 0.5, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.InDelta(t, tt.want, Quantile(tt.data, tt.q), 1e-12)
		})
	}
}

func TestQuantileWithMissingValues(t *testing.T) {
	inf := math.Inf(1)
	data := []float64{1, 2, 3, inf} // one run of four without a value
	assert.Equal(t, 2.5, Quantile(data, 0.5))
	assert.True(t, math.IsInf(Quantile(data, 0.9), 1), "p90 reaches the missing run")
	assert.Equal(t, 3.0, Quantile(data, 2.0/3.0), "exactly at the last finite rank")
	assert.True(t, math.IsNaN(Quantile(nil, 0.5)))
	assert.Panics(t, func() { Quantile(data, 1.5) })
}

func TestSummarize(t *testing.T) {
	a := summarize([]float64{4, 1, 3, 2}, 0, 1)
	assert.Equal(t, 4, a.N)
	assert.Equal(t, 0, a.Missing)
	assert.Equal(t, 2.5, *a.Mean)
	assert.Equal(t, 2.5, *a.P50)
	assert.InDelta(t, 3.7, *a.P90, 1e-12)
	assert.Equal(t, 1.0, *a.Min)
	assert.Equal(t, 4.0, *a.Max)
	require.NotNil(t, a.MedianCI95.Low)
	require.NotNil(t, a.MedianCI95.High)
	assert.LessOrEqual(t, *a.MedianCI95.Low, 2.5)
	assert.GreaterOrEqual(t, *a.MedianCI95.High, 2.5)

	// Two of five runs never converged: they rank last, so p50 is still finite, p90 and
	// max are not (null), and the mean is over the three values.
	b := summarize([]float64{10, 20, 30}, 2, 1)
	assert.Equal(t, 5, b.N)
	assert.Equal(t, 2, b.Missing)
	assert.Equal(t, 20.0, *b.Mean)
	assert.Equal(t, 30.0, *b.P50)
	assert.Nil(t, b.P90)
	assert.Nil(t, b.Max)
	assert.Equal(t, 10.0, *b.Min)

	none := summarize(nil, 0, 1)
	assert.Equal(t, Aggregate{}, none)
}

func TestBootstrapMedianCIOnKnownData(t *testing.T) {
	constant := []float64{5, 5, 5, 5, 5}
	lo, hi := BootstrapMedianCI(constant, 1000, 42)
	assert.Equal(t, 5.0, lo)
	assert.Equal(t, 5.0, hi)

	data := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}
	lo1, hi1 := BootstrapMedianCI(data, 1000, 7)
	lo2, hi2 := BootstrapMedianCI(data, 1000, 7)
	assert.Equal(t, lo1, lo2, "same seed, same interval")
	assert.Equal(t, hi1, hi2)
	assert.Less(t, lo1, 6.0)
	assert.Greater(t, hi1, 6.0)
	// A bootstrap median of 11 values is one of the values; with 1000 resamples the
	// 2.5% and 97.5% quantiles lie well inside the range.
	assert.GreaterOrEqual(t, lo1, 2.0)
	assert.LessOrEqual(t, hi1, 10.0)

	nlo, nhi := BootstrapMedianCI(nil, 1000, 1)
	assert.True(t, math.IsNaN(nlo) && math.IsNaN(nhi))
}

// TestBootstrapMedianCICoverage is a property test: for samples from a distribution with a
// known median, the 95% interval contains the median in about 95% of samples.
func TestBootstrapMedianCICoverage(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	const trials, n = 300, 41
	covered := 0
	for i := range trials {
		sample := make([]float64, n)
		for j := range sample {
			sample[j] = r.ExpFloat64() // median ln 2
		}
		slices.Sort(sample)
		lo, hi := BootstrapMedianCI(sample, 1000, uint64(i))
		if lo <= math.Ln2 && math.Ln2 <= hi {
			covered++
		}
	}
	rate := float64(covered) / trials
	assert.Greater(t, rate, 0.88, "coverage %v", rate)
	assert.Less(t, rate, 0.995, "coverage %v", rate)
}

func TestSeriesAggregate(t *testing.T) {
	// 0 for 10s, then 4 for 5s, then 2 until the end at 20s.
	points := []report.Point{{T: 0, V: 0}, {T: 10, V: 4}, {T: 15, V: 2}}
	tests := []struct {
		aggregate string
		want      float64
	}{
		{"max", 4}, {"min", 0}, {"last", 2}, {"integral", 4*5 + 2*5}, {"mean", (4*5 + 2*5) / 20.0},
	}
	for _, tt := range tests {
		t.Run(tt.aggregate, func(t *testing.T) {
			v, ok := seriesAggregate(points, tt.aggregate, 20)
			require.True(t, ok)
			assert.InDelta(t, tt.want, v, 1e-12)
		})
	}
	_, ok := seriesAggregate(nil, "max", 20)
	assert.False(t, ok)
	v, ok := seriesAggregate([]report.Point{{T: 20, V: 3}}, "mean", 20)
	assert.True(t, ok)
	assert.Equal(t, 3.0, v, "an empty span has the last value as its mean")
}

func TestMetricValue(t *testing.T) {
	secs := 42.5
	res := &report.Result{
		VirtualSeconds: 100, EventsProcessed: 1234,
		Convergence:  []report.Convergence{{Name: "start"}, {Name: "crash", Seconds: &secs}, {Name: "later"}},
		Expectations: []report.ExpectationResult{{Name: "ok", Passed: true}, {Name: "bad", Passed: false}},
		Series:       []report.Series{{Name: "pods.pending", Points: []report.Point{{T: 0, V: 1}, {T: 50, V: 3}}}},
		Events:       []report.EventRecord{{Reason: "SuccessfulRescale", Count: 2}, {Reason: "Killing", Count: 1}, {Reason: "SuccessfulRescale", Count: 1}},
	}
	tests := []struct {
		metric Metric
		want   float64
		ok     bool
	}{
		{Metric{Convergence: "crash"}, 42.5, true},
		{Metric{Convergence: "later"}, 0, false}, // never converged
		{Metric{Convergence: "absent"}, 0, false},
		{Metric{Expectation: "ok"}, 1, true},
		{Metric{Expectation: "bad"}, 0, true},
		{Metric{Series: &SeriesMetric{Name: "pods.pending", Aggregate: "max"}}, 3, true},
		{Metric{Series: &SeriesMetric{Name: "nodes.ready", Aggregate: "max"}}, 0, false},
		{Metric{VirtualSeconds: true}, 100, true},
		{Metric{EventsProcessed: true}, 1234, true},
		{Metric{Events: "SuccessfulRescale"}, 3, true},
		{Metric{Events: "NodeNotReady"}, 0, true},
	}
	for _, tt := range tests {
		v, ok := tt.metric.value(res)
		assert.Equal(t, tt.ok, ok, "%+v", tt.metric)
		assert.Equal(t, tt.want, v, "%+v", tt.metric)
	}
}

func TestPlanOrderAndSample(t *testing.T) {
	spec := &Spec{
		Parameters: []Parameter{{Key: "a", Values: []string{"x", "y"}}, {Key: "b", Values: []string{"1", "2", "3"}}},
		Seeds:      []uint64{5, 6},
	}
	plan := spec.Plan()
	var got []string
	for _, p := range plan.Points {
		got = append(got, p.ID+"="+p.Values[0]+p.Values[1])
	}
	assert.Equal(t, []string{"p0=x1", "p1=x2", "p2=x3", "p3=y1", "p4=y2", "p5=y3"}, got, "the first parameter varies slowest")
	require.Len(t, plan.Runs, 12)
	assert.Equal(t, PlannedRun{Index: 3, ID: "p1-s6", Point: 1, Seed: 6}, plan.Runs[3], "seeds inside points")

	spec.Sample = &Sample{Count: 3, Seed: 11}
	a, b := spec.Plan(), spec.Plan()
	assert.Equal(t, a, b, "a sample is deterministic")
	require.Len(t, a.Points, 3)
	assert.True(t, slices.IsSortedFunc(a.Points, func(x, y Point) int { return x.Grid - y.Grid }), "sampled points keep grid order")
	spec.Sample.Seed = 12
	assert.Len(t, spec.Plan().Points, 3)

	idx := sampleIndices(1000, 50, 3)
	assert.Len(t, idx, 50)
	assert.True(t, slices.IsSorted(idx))
	assert.Len(t, slices.Compact(slices.Clone(idx)), 50, "distinct")
}

func TestParseShard(t *testing.T) {
	tests := []struct {
		in   string
		want Shard
		err  string
	}{
		{"1/3", Shard{1, 3}, ""},
		{"3/3", Shard{3, 3}, ""},
		{" 2/8 ", Shard{2, 8}, ""},
		{"0/3", Shard{}, "want i/n with 1 ≤ i ≤ n"},
		{"0/0", Shard{}, "shard 0/0: want i/n with 1 ≤ i ≤ n"},
		{"00/0", Shard{}, "want i/n with 1 ≤ i ≤ n"},
		{"4/3", Shard{}, "want i/n with 1 ≤ i ≤ n"},
		{"1-3", Shard{}, "want i/n, e.g. 2/8"},
		{"a/b", Shard{}, "want i/n, e.g. 2/8"},
	}
	for _, tt := range tests {
		got, err := ParseShard(tt.in)
		if tt.err != "" {
			assert.ErrorContains(t, err, tt.err, tt.in)
			continue
		}
		require.NoError(t, err, tt.in)
		assert.Equal(t, tt.want, got)
	}
	assert.Equal(t, "shard-2-of-5", Shard{2, 5}.Dir())
	assert.True(t, isShardDirName("shard-2-of-5"))
	assert.False(t, isShardDirName("shard-2-of-5x"))
	assert.False(t, isShardDirName("shard-02-of-5"))
}
