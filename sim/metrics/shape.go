package metrics

import (
	"fmt"
	"math"
	"sort"
	"time"

	"github.com/reconsim/reconsim/model"
)

// Field paths are written as the manifest decoder writes them (package model).
var (
	childPath = model.ChildPath
	indexPath = model.IndexPath
)

// Limits of a load shape, checked by Validate, so that evaluating a valid shape is cheap and
// never overflows.
const (
	// MaxLoadValue bounds every load value (units per second).
	MaxLoadValue = 1e12
	// MaxShapeTime bounds every time in a shape: the longest scenario (30 days).
	MaxShapeTime = 30 * 24 * time.Hour
	// MaxSteps and MaxSpikes bound the lists of those names.
	MaxSteps  = 100_000
	MaxSpikes = 10_000
	// MinSinePeriod is the shortest sine period.
	MinSinePeriod = time.Second
)

// FieldError is one problem with a load specification: Path is the field path in JSON names
// (for example "shape.steps[2].at"), so a loader can point at the position it was written.
type FieldError struct {
	Path    string
	Message string
}

func (e *FieldError) Error() string { return e.Path + ": " + e.Message }

func fieldErr(path, format string, args ...any) *FieldError {
	return &FieldError{Path: path, Message: fmt.Sprintf(format, args...)}
}

// Shape is offered load over virtual time, in units per second (requests per second, queue
// messages per second, ...): a tagged union of which exactly one member is set. Times are
// durations since the start of the run. Before its first defined time a shape holds its first
// value and after its last one its last value, so every shape is defined at every instant.
type Shape struct {
	Constant *ConstantShape `json:"constant,omitempty"`
	Steps    *StepsShape    `json:"steps,omitempty"`
	Ramp     *RampShape     `json:"ramp,omitempty"`
	Sine     *SineShape     `json:"sine,omitempty"`
	Spikes   *SpikesShape   `json:"spikes,omitempty"`
	Series   *SeriesShape   `json:"series,omitempty"`
}

// ConstantShape is the same load at every instant.
type ConstantShape struct {
	Value float64 `json:"value"`
}

// StepsShape is Initial until the first step, then each step's Value from its At on.
type StepsShape struct {
	Initial float64 `json:"initial"`
	Steps   []Step  `json:"steps"`
}

// Step sets the load to Value at At (strictly after the previous step).
type Step struct {
	At    time.Duration `json:"at"`
	Value float64       `json:"value"`
}

// RampShape is From until Start, then a straight line to To over Duration, then To.
type RampShape struct {
	From     float64       `json:"from"`
	To       float64       `json:"to"`
	Start    time.Duration `json:"start"`
	Duration time.Duration `json:"duration"`
}

// SineShape is Base + Amplitude*sin(2π(t-Phase)/Period). Amplitude may not exceed Base, so the
// load never goes below zero.
type SineShape struct {
	Base      float64       `json:"base"`
	Amplitude float64       `json:"amplitude"`
	Period    time.Duration `json:"period"`
	Phase     time.Duration `json:"phase,omitempty"`
}

// SpikesShape is Base with rectangular spikes: during [At, At+Duration) of each spike the load
// is the spike's Value, or Base*Factor. Spikes are in time order and do not overlap.
type SpikesShape struct {
	Base   float64 `json:"base"`
	Spikes []Spike `json:"spikes"`
}

// Spike is one spike; exactly one of Factor and Value is set.
type Spike struct {
	At       time.Duration `json:"at"`
	Duration time.Duration `json:"duration"`
	Factor   *float64      `json:"factor,omitempty"`
	Value    *float64      `json:"value,omitempty"`
}

// SeriesShape is a recorded series, linearly interpolated between its points. The points are
// written inline or read from File (a CSV file of "seconds,value" lines, see ParseSeriesCSV;
// the scenario loader resolves the path and fills Points with ReadSeriesFile).
type SeriesShape struct {
	File   string        `json:"file,omitempty"`
	Points []SeriesPoint `json:"points,omitempty"`
}

// SeriesPoint is one recorded value: a Step's data, interpolated linearly to the next point
// instead of held.
type SeriesPoint = Step

// Kind names the member that is set ("constant", "steps", "ramp", "sine", "spikes",
// "series"), or "" when none or more than one is.
func (s *Shape) Kind() string {
	kinds := s.kinds()
	if len(kinds) != 1 {
		return ""
	}
	return kinds[0]
}

func (s *Shape) kinds() []string {
	var k []string
	if s.Constant != nil {
		k = append(k, "constant")
	}
	if s.Steps != nil {
		k = append(k, "steps")
	}
	if s.Ramp != nil {
		k = append(k, "ramp")
	}
	if s.Sine != nil {
		k = append(k, "sine")
	}
	if s.Spikes != nil {
		k = append(k, "spikes")
	}
	if s.Series != nil {
		k = append(k, "series")
	}
	return k
}

func checkValue(path string, v float64) *FieldError {
	if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 || v > MaxLoadValue {
		return fieldErr(path, "must be a number from 0 to %g, got %g", float64(MaxLoadValue), v)
	}
	return nil
}

func checkTime(path string, d time.Duration) *FieldError {
	if d < 0 || d > MaxShapeTime {
		return fieldErr(path, "must be from 0s to %s, got %s", MaxShapeTime, d)
	}
	return nil
}

// checkDuration checks the length of a ramp or spike: longer than 0s, at most MaxShapeTime.
func checkDuration(path string, d time.Duration) *FieldError {
	if d <= 0 || d > MaxShapeTime {
		return fieldErr(path, "must be longer than 0s and at most %s, got %s", MaxShapeTime, d)
	}
	return nil
}

// tooMany is the error of a list at path that has n items (nouns: "steps"), more than max.
func tooMany(path, nouns string, n, max int) *FieldError {
	return fieldErr(path, "has %d %s; at most %d are allowed", n, nouns, max)
}

// checkPoints checks the steps or series points listed under path (noun names one, "step"):
// at most max of them, each a value in [0, MaxLoadValue] at a time in [0, MaxShapeTime], in
// strictly increasing time.
func checkPoints(path, noun string, points []Step, max int) []*FieldError {
	if len(points) > max {
		return []*FieldError{tooMany(path, noun+"s", len(points), max)}
	}
	var errs []*FieldError
	for i, pt := range points {
		ip := indexPath(path, i)
		errs = appendErr(errs, checkTime(childPath(ip, "at"), pt.At))
		errs = appendErr(errs, checkValue(childPath(ip, "value"), pt.Value))
		if i > 0 && pt.At <= points[i-1].At {
			errs = append(errs, fieldErr(childPath(ip, "at"), "must be after the previous %s's at (%s), got %s", noun, points[i-1].At, pt.At))
		}
	}
	return errs
}

func appendErr(errs []*FieldError, e *FieldError) []*FieldError {
	if e != nil {
		errs = append(errs, e)
	}
	return errs
}

// Validate reports every problem with the shape, with paths under path. A valid shape has
// exactly one member set, finite values in [0, MaxLoadValue], times in [0, MaxShapeTime],
// steps and series points in strictly increasing time, spikes in order without overlap, a
// ramp and spikes of positive duration, a sine of period at least MinSinePeriod whose
// amplitude does not exceed its base, and a series with at least one point.
func (s *Shape) Validate(path string) []*FieldError {
	kinds := s.kinds()
	switch len(kinds) {
	case 0:
		return []*FieldError{fieldErr(path, "needs one of constant, steps, ramp, sine, spikes or series")}
	case 1:
	default:
		return []*FieldError{fieldErr(path, "sets %v; exactly one shape may be set", kinds)}
	}
	var errs []*FieldError
	switch {
	case s.Constant != nil:
		errs = appendErr(errs, checkValue(childPath(path, "constant.value"), s.Constant.Value))
	case s.Steps != nil:
		p := childPath(path, "steps")
		errs = appendErr(errs, checkValue(childPath(p, "initial"), s.Steps.Initial))
		errs = append(errs, checkPoints(childPath(p, "steps"), "step", s.Steps.Steps, MaxSteps)...)
	case s.Ramp != nil:
		p := childPath(path, "ramp")
		errs = appendErr(errs, checkValue(childPath(p, "from"), s.Ramp.From))
		errs = appendErr(errs, checkValue(childPath(p, "to"), s.Ramp.To))
		errs = appendErr(errs, checkTime(childPath(p, "start"), s.Ramp.Start))
		errs = appendErr(errs, checkDuration(childPath(p, "duration"), s.Ramp.Duration))
	case s.Sine != nil:
		p := childPath(path, "sine")
		errs = appendErr(errs, checkValue(childPath(p, "base"), s.Sine.Base))
		errs = appendErr(errs, checkValue(childPath(p, "amplitude"), s.Sine.Amplitude))
		if s.Sine.Amplitude > s.Sine.Base {
			errs = append(errs, fieldErr(childPath(p, "amplitude"), "must not exceed base (%g), or the load would go below zero; got %g", s.Sine.Base, s.Sine.Amplitude))
		}
		if s.Sine.Period < MinSinePeriod || s.Sine.Period > MaxShapeTime {
			errs = append(errs, fieldErr(childPath(p, "period"), "must be from %s to %s, got %s", MinSinePeriod, MaxShapeTime, s.Sine.Period))
		}
		errs = appendErr(errs, checkTime(childPath(p, "phase"), s.Sine.Phase))
	case s.Spikes != nil:
		p := childPath(path, "spikes")
		errs = appendErr(errs, checkValue(childPath(p, "base"), s.Spikes.Base))
		if len(s.Spikes.Spikes) > MaxSpikes {
			errs = append(errs, tooMany(childPath(p, "spikes"), "spikes", len(s.Spikes.Spikes), MaxSpikes))
			break
		}
		for i, sp := range s.Spikes.Spikes {
			ip := indexPath(childPath(p, "spikes"), i)
			errs = appendErr(errs, checkTime(childPath(ip, "at"), sp.At))
			errs = appendErr(errs, checkDuration(childPath(ip, "duration"), sp.Duration))
			switch {
			case (sp.Factor == nil) == (sp.Value == nil):
				errs = append(errs, fieldErr(ip, "needs exactly one of factor and value"))
			case sp.Factor != nil:
				errs = appendErr(errs, checkValue(childPath(ip, "factor"), *sp.Factor))
				if *sp.Factor >= 0 && s.Spikes.Base**sp.Factor > MaxLoadValue {
					errs = append(errs, fieldErr(childPath(ip, "factor"), "makes the load %g, more than %g", s.Spikes.Base**sp.Factor, float64(MaxLoadValue)))
				}
			default:
				errs = appendErr(errs, checkValue(childPath(ip, "value"), *sp.Value))
			}
			if i > 0 {
				prev := s.Spikes.Spikes[i-1]
				if sp.At < prev.At+prev.Duration {
					errs = append(errs, fieldErr(childPath(ip, "at"), "must not be before the end of the previous spike (%s), got %s", prev.At+prev.Duration, sp.At))
				}
			}
		}
	case s.Series != nil:
		p := childPath(path, "series")
		if len(s.Series.Points) == 0 {
			if s.Series.File != "" {
				errs = append(errs, fieldErr(childPath(p, "file"), "the file %q has not been read (ReadSeriesFile)", s.Series.File))
			} else {
				errs = append(errs, fieldErr(p, "needs points, written inline or read from file"))
			}
			break
		}
		errs = append(errs, checkPoints(childPath(p, "points"), "point", s.Series.Points, MaxSeriesPoints)...)
	}
	return errs
}

// curve is a compiled shape: the load at an instant and its integral over an interval, both
// in seconds since the start of the run.
type curve interface {
	at(t float64) float64
	// integral returns the load integrated over [a, b] (load units), for a <= b.
	integral(a, b float64) float64
}

func seconds(d time.Duration) float64 { return d.Seconds() }

// compile turns a valid shape into a curve. It panics on an invalid shape (a programming
// error: callers validate first).
func (s *Shape) compile() curve {
	switch {
	case s.Constant != nil:
		return &pwl{times: []float64{0}, values: []float64{s.Constant.Value}}
	case s.Steps != nil:
		c := &pwl{times: []float64{0}, values: []float64{s.Steps.Initial}}
		prev := s.Steps.Initial
		for _, st := range s.Steps.Steps {
			// A step is a jump: two points at the same instant.
			c.add(seconds(st.At), prev)
			c.add(seconds(st.At), st.Value)
			prev = st.Value
		}
		return c
	case s.Ramp != nil:
		r := s.Ramp
		return &pwl{times: []float64{seconds(r.Start), seconds(r.Start + r.Duration)}, values: []float64{r.From, r.To}}
	case s.Sine != nil:
		return &sine{base: s.Sine.Base, amplitude: s.Sine.Amplitude, period: seconds(s.Sine.Period), phase: seconds(s.Sine.Phase)}
	case s.Spikes != nil:
		base := s.Spikes.Base
		c := &pwl{times: []float64{0}, values: []float64{base}}
		for _, sp := range s.Spikes.Spikes {
			v := base
			if sp.Factor != nil {
				v = base * *sp.Factor
			} else {
				v = *sp.Value
			}
			start, end := seconds(sp.At), seconds(sp.At+sp.Duration)
			c.add(start, base)
			c.add(start, v)
			c.add(end, v)
			c.add(end, base)
		}
		return c
	case s.Series != nil:
		c := &pwl{}
		for _, pt := range s.Series.Points {
			c.add(seconds(pt.At), pt.Value)
		}
		return c
	}
	panic("metrics: compiling a shape with no member set")
}

// pwl is a piecewise-linear function through (times[i], values[i]), constant before the first
// point and after the last. Times never decrease; two points at the same time are a jump, and
// the function is right-continuous there (the later point's value holds from that instant).
type pwl struct {
	times, values []float64
}

func (c *pwl) add(t, v float64) {
	c.times = append(c.times, t)
	c.values = append(c.values, v)
}

// last returns the index of the last point at or before t, or -1 if t is before every point.
func (c *pwl) last(t float64) int {
	return sort.Search(len(c.times), func(i int) bool { return c.times[i] > t }) - 1
}

// lerp evaluates segment i (from point i to point i+1, of positive length) at t.
func (c *pwl) lerp(i int, t float64) float64 {
	t0, t1 := c.times[i], c.times[i+1]
	return c.values[i] + (c.values[i+1]-c.values[i])*(t-t0)/(t1-t0)
}

func (c *pwl) at(t float64) float64 {
	n := len(c.times)
	i := c.last(t)
	switch {
	case i < 0:
		return c.values[0]
	case i == n-1:
		return c.values[n-1]
	}
	return c.lerp(i, t)
}

func (c *pwl) integral(a, b float64) float64 {
	if b <= a {
		return 0
	}
	n := len(c.times)
	first, lastT := c.times[0], c.times[n-1]
	sum := 0.0
	if a < first {
		sum += c.values[0] * (math.Min(b, first) - a)
	}
	if b > lastT {
		sum += c.values[n-1] * (b - math.Max(a, lastT))
	}
	// The first segment that ends after a.
	i := sort.Search(n-1, func(i int) bool { return c.times[i+1] > a })
	for ; i < n-1 && c.times[i] < b; i++ {
		t0, t1 := c.times[i], c.times[i+1]
		if t1 <= t0 {
			continue
		}
		x, y := math.Max(a, t0), math.Min(b, t1)
		if y <= x {
			continue
		}
		sum += (y - x) * (c.lerp(i, x) + c.lerp(i, y)) / 2
	}
	return sum
}

// sine is base + amplitude*sin(2π(t-phase)/period).
type sine struct {
	base, amplitude, period, phase float64
}

func (c *sine) at(t float64) float64 {
	return c.base + c.amplitude*math.Sin(2*math.Pi*(t-c.phase)/c.period)
}

func (c *sine) integral(a, b float64) float64 {
	if b <= a {
		return 0
	}
	w := 2 * math.Pi / c.period
	return c.base*(b-a) + c.amplitude/w*(math.Cos(w*(a-c.phase))-math.Cos(w*(b-c.phase)))
}

// switchedCurve follows before until the switch time, then after, whose own time 0 is the
// switch: what a load action does to a load from the moment it runs.
type switchedCurve struct {
	before, after curve
	switchAt      float64
}

func (c switchedCurve) at(t float64) float64 {
	if t < c.switchAt {
		return c.before.at(t)
	}
	return c.after.at(t - c.switchAt)
}

func (c switchedCurve) integral(a, b float64) float64 {
	switch {
	case b <= c.switchAt:
		return c.before.integral(a, b)
	case a >= c.switchAt:
		return c.after.integral(a-c.switchAt, b-c.switchAt)
	default:
		return c.before.integral(a, c.switchAt) + c.after.integral(0, b-c.switchAt)
	}
}
