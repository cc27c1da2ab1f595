package sim

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

// distsUnderTest are distributions of every family, clamped and not, including the kernel's
// defaults for API service times and container starts.
var distsUnderTest = []Dist{
	Constant(3 * time.Millisecond),
	{Kind: DistUniform, Min: time.Millisecond, Max: 5 * time.Millisecond},
	{Kind: DistExponential, Min: time.Millisecond, Mean: 10 * time.Millisecond, Max: time.Second},
	{Kind: DistLogNormal, Median: time.Millisecond, P99: 10 * time.Millisecond, Max: time.Second},
	{Kind: DistLogNormal, Median: 5 * time.Millisecond, P99: 50 * time.Millisecond, Max: time.Second},
	{Kind: DistLogNormal, Median: 300 * time.Millisecond, P99: 1500 * time.Millisecond, Max: 10 * time.Second},
	{Kind: DistLogNormal, Median: 7 * time.Millisecond, P99: 7 * time.Millisecond},
	{Kind: DistLogNormal, Median: 3, P99: 1234567, Min: 2},
}

// logNormalPerDraw is a log-normal draw with its parameters computed from the median and p99
// at the draw, as Dist.Sample did before Sampler kept them.
func logNormalPerDraw(d Dist, r *rand.Rand) time.Duration {
	mu := math.Log(float64(d.Median))
	sigma := (math.Log(float64(d.P99)) - mu) / z99
	v := time.Duration(math.Exp(mu + sigma*r.NormFloat64()))
	if v < d.Min {
		v = d.Min
	}
	if d.Max > 0 && v > d.Max {
		v = d.Max
	}
	return v
}

// TestSamplerDrawsAsDist: a Sampler, whose parameters are computed once, draws exactly the
// durations Dist.Sample draws from the same stream, and for a log-normal exactly those of
// the parameters computed at every draw. Trace hashes depend on every one of these bits.
func TestSamplerDrawsAsDist(t *testing.T) {
	for _, d := range distsUnderTest {
		s := d.Sampler()
		if s.Dist() != d {
			t.Fatalf("Sampler(%v).Dist() = %v", d, s.Dist())
		}
		seed := uint64(len(d.String()))
		fromDist := rand.New(rand.NewPCG(seed, 1))
		fromSampler := rand.New(rand.NewPCG(seed, 1))
		perDraw := rand.New(rand.NewPCG(seed, 1))
		for i := range 20000 {
			want := d.Sample(fromDist)
			if got := s.Sample(fromSampler); got != want {
				t.Fatalf("%v draw %d: Sampler %d ns, Dist.Sample %d ns", d, i, got, want)
			}
			if d.Kind == DistLogNormal {
				if ref := logNormalPerDraw(d, perDraw); ref != want {
					t.Fatalf("%v draw %d: %d ns, with the parameters computed at the draw %d ns", d, i, want, ref)
				}
			}
		}
	}
}

func BenchmarkDistSample(b *testing.B) {
	d := Dist{Kind: DistLogNormal, Median: 5 * time.Millisecond, P99: 50 * time.Millisecond, Max: time.Second}
	b.Run("Dist", func(b *testing.B) {
		r := rand.New(rand.NewPCG(1, 2))
		for b.Loop() {
			_ = d.Sample(r)
		}
	})
	b.Run("Sampler", func(b *testing.B) {
		r := rand.New(rand.NewPCG(1, 2))
		s := d.Sampler()
		for b.Loop() {
			_ = s.Sample(r)
		}
	})
}
