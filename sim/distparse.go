package sim

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// MaxDistDuration bounds every distribution parameter: nothing the simulator models waits
// longer than a year.
const MaxDistDuration = 365 * 24 * time.Hour

// DistKeys are the parameter names of a distribution, in canonical order.
var DistKeys = []string{"value", "mean", "median", "p99", "min", "max"}

// UnknownDistParamError is a distribution parameter ParseDist does not know; callers add a
// did-you-mean.
type UnknownDistParamError struct{ Param string }

func (e *UnknownDistParamError) Error() string {
	return fmt.Sprintf("unknown distribution parameter %q (want one of %s)", e.Param, strings.Join(DistKeys, ", "))
}

// ParseDuration is time.ParseDuration with a clearer message for a number without a unit.
func ParseDuration(text string) (time.Duration, error) {
	t := strings.TrimSpace(text)
	d, err := time.ParseDuration(t)
	if err != nil {
		if _, nerr := strconv.ParseFloat(t, 64); nerr == nil {
			return 0, fmt.Errorf("duration %q has no unit; write for example %ss or %sms", text, t, t)
		}
		return 0, fmt.Errorf("want a duration such as 30s, 5m or 1h30m, got %q", text)
	}
	return d, nil
}

// ParseDist parses a distribution written on one line: a plain duration ("5ms", a constant),
// "constant(5ms)", "uniform(1ms..5ms)", or "kind(key=value,...)" with kind constant, uniform,
// exponential or lognormal and keys value, mean, median, p99, min, max (durations). It
// returns an error saying what is wrong, including sim.Dist.Validate's parameter checks.
func ParseDist(text string) (Dist, error) {
	t := strings.TrimSpace(text)
	open := strings.IndexByte(t, '(')
	if open < 0 {
		d, err := ParseDuration(t)
		if err != nil {
			return Dist{}, fmt.Errorf("want a distribution such as 5ms, uniform(1ms..5ms) or lognormal(median=2ms,p99=20ms), got %q", text)
		}
		return CheckDist(Constant(d))
	}
	if !strings.HasSuffix(t, ")") {
		return Dist{}, fmt.Errorf("distribution %q lacks its closing parenthesis", text)
	}
	kind := DistKind(strings.TrimSpace(t[:open]))
	body := strings.TrimSpace(t[open+1 : len(t)-1])
	d := Dist{Kind: kind}
	switch kind {
	case DistConstant, DistUniform, DistExponential, DistLogNormal:
	default:
		return Dist{}, fmt.Errorf("unknown distribution kind %q (want constant, uniform, exponential or lognormal)", kind)
	}
	if kind == DistConstant && !strings.Contains(body, "=") {
		v, err := ParseDuration(body)
		if err != nil {
			return Dist{}, err
		}
		d.Value = v
		return CheckDist(d)
	}
	if kind == DistUniform && strings.Contains(body, "..") && !strings.Contains(body, "=") {
		lo, hi, _ := strings.Cut(body, "..")
		min, err := ParseDuration(lo)
		if err != nil {
			return Dist{}, err
		}
		max, err := ParseDuration(hi)
		if err != nil {
			return Dist{}, err
		}
		d.Min, d.Max = min, max
		return CheckDist(d)
	}
	seen := map[string]bool{}
	for _, part := range strings.Split(body, ",") {
		k, val, ok := strings.Cut(part, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" {
			return Dist{}, fmt.Errorf("distribution parameter %q is not key=value", strings.TrimSpace(part))
		}
		if seen[k] {
			return Dist{}, fmt.Errorf("distribution parameter %s is given twice", k)
		}
		seen[k] = true
		dur, err := ParseDuration(val)
		if err != nil {
			return Dist{}, fmt.Errorf("distribution parameter %s: %v", k, err)
		}
		switch k {
		case "value":
			d.Value = dur
		case "min":
			d.Min = dur
		case "max":
			d.Max = dur
		case "mean":
			d.Mean = dur
		case "median":
			d.Median = dur
		case "p99":
			d.P99 = dur
		default:
			return Dist{}, &UnknownDistParamError{Param: k}
		}
	}
	return CheckDist(d)
}

// CheckDist validates d (Dist.Validate) and bounds its parameters by MaxDistDuration.
func CheckDist(d Dist) (Dist, error) {
	if err := d.Validate(); err != nil {
		return Dist{}, err
	}
	for _, v := range []time.Duration{d.Value, d.Min, d.Max, d.Mean, d.Median, d.P99} {
		if v > MaxDistDuration {
			return Dist{}, fmt.Errorf("distribution parameter %s is longer than %s", v, MaxDistDuration)
		}
	}
	return d, nil
}
