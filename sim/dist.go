package sim

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"
)

// DistKind names a latency distribution family.
type DistKind string

// The distribution families. Scenario files use these names.
const (
	DistConstant    DistKind = "constant"    // always Value
	DistUniform     DistKind = "uniform"     // uniform in [Min, Max]
	DistExponential DistKind = "exponential" // Min + exponential with mean Mean-Min
	DistLogNormal   DistKind = "lognormal"   // log-normal with median Median and 99th percentile P99
)

// Dist is a distribution of durations, used for every modelled latency (API service time, watch
// delay, image pull, container start). Every sample is clamped to [Min, Max] when Max > 0, so a
// heavy tail can never produce an unbounded wait.
type Dist struct {
	Kind   DistKind      `json:"kind"`
	Value  time.Duration `json:"value,omitempty"`
	Min    time.Duration `json:"min,omitempty"`
	Max    time.Duration `json:"max,omitempty"`
	Mean   time.Duration `json:"mean,omitempty"`
	Median time.Duration `json:"median,omitempty"`
	P99    time.Duration `json:"p99,omitempty"`
}

// Constant returns a distribution that always yields d.
func Constant(d time.Duration) Dist { return Dist{Kind: DistConstant, Value: d} }

// Validate reports a parameter problem, naming the parameter; nil if the distribution is usable.
func (d Dist) Validate() error {
	neg := func(name string, v time.Duration) error {
		if v < 0 {
			return fmt.Errorf("%s must not be negative, got %s", name, v)
		}
		return nil
	}
	for _, c := range []struct {
		n string
		v time.Duration
	}{{"value", d.Value}, {"min", d.Min}, {"max", d.Max}, {"mean", d.Mean}, {"median", d.Median}, {"p99", d.P99}} {
		if err := neg(c.n, c.v); err != nil {
			return err
		}
	}
	if d.Max > 0 && d.Min > d.Max {
		return fmt.Errorf("min (%s) is greater than max (%s)", d.Min, d.Max)
	}
	switch d.Kind {
	case DistConstant, "":
	case DistUniform:
		if d.Max == 0 {
			return fmt.Errorf("uniform needs max")
		}
	case DistExponential:
		if d.Mean <= d.Min {
			return fmt.Errorf("exponential needs mean (%s) greater than min (%s)", d.Mean, d.Min)
		}
	case DistLogNormal:
		if d.Median <= 0 || d.P99 < d.Median {
			return fmt.Errorf("lognormal needs median > 0 and p99 >= median (got median %s, p99 %s)", d.Median, d.P99)
		}
	default:
		return fmt.Errorf("unknown distribution kind %q (want constant, uniform, exponential or lognormal)", d.Kind)
	}
	return nil
}

// z99 is the standard normal quantile at 0.99, used to turn a p99 into a log-normal sigma.
const z99 = 2.3263478740408408

// Sample draws one duration from r. A constant distribution draws nothing from r; callers that
// want draws elsewhere to stay put when one latency changes family keep one stream per latency.
// It computes a log-normal's parameters on every draw; a caller that draws often keeps a
// Sampler, which computes them once.
func (d Dist) Sample(r *rand.Rand) time.Duration {
	var mu, sigma float64
	if d.Kind == DistLogNormal {
		mu, sigma = d.logNormal()
	}
	return d.draw(r, mu, sigma)
}

// logNormal returns a log-normal's parameters: the logarithm of its median (in nanoseconds),
// and its standard deviation in log space, from its p99.
func (d *Dist) logNormal() (mu, sigma float64) {
	mu = math.Log(float64(d.Median))
	return mu, (math.Log(float64(d.P99)) - mu) / z99
}

// draw is Sample given a log-normal's parameters (logNormal; unused by the other families).
func (d *Dist) draw(r *rand.Rand, mu, sigma float64) time.Duration {
	var v time.Duration
	switch d.Kind {
	case DistConstant, "":
		v = d.Value
	case DistUniform:
		v = d.Min + time.Duration(r.Int64N(int64(d.Max-d.Min)+1))
	case DistExponential:
		v = d.Min + time.Duration(r.ExpFloat64()*float64(d.Mean-d.Min))
	case DistLogNormal:
		v = time.Duration(math.Exp(mu + sigma*r.NormFloat64()))
	}
	if v < d.Min {
		v = d.Min
	}
	if d.Max > 0 && v > d.Max {
		v = d.Max
	}
	return v
}

// Sampler draws from a Dist with the parameters of its family computed once rather than on
// every draw (for a log-normal, two logarithms a draw). Its draws are those of Dist.Sample,
// bit for bit: the same expressions of the same values, only evaluated earlier.
type Sampler struct {
	dist      Dist
	mu, sigma float64 // a log-normal's parameters (Dist.logNormal)
}

// Sampler returns a sampler of d. It does not follow later changes of d.
func (d Dist) Sampler() Sampler {
	s := Sampler{dist: d}
	if d.Kind == DistLogNormal {
		s.mu, s.sigma = d.logNormal()
	}
	return s
}

// Dist is the distribution s draws from.
func (s *Sampler) Dist() Dist { return s.dist }

// Sample draws one duration from r, as Dist.Sample does.
func (s *Sampler) Sample(r *rand.Rand) time.Duration { return s.dist.draw(r, s.mu, s.sigma) }

// String describes the distribution compactly, e.g. "lognormal(median=2s,p99=8s)".
func (d Dist) String() string {
	switch d.Kind {
	case DistUniform:
		return fmt.Sprintf("uniform(%s..%s)", d.Min, d.Max)
	case DistExponential:
		return fmt.Sprintf("exponential(min=%s,mean=%s)", d.Min, d.Mean)
	case DistLogNormal:
		return fmt.Sprintf("lognormal(median=%s,p99=%s)", d.Median, d.P99)
	default:
		return fmt.Sprintf("constant(%s)", d.Value)
	}
}
