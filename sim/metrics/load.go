package metrics

import (
	"cmp"
	"math"
	"math/rand/v2"
	"path/filepath"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/reconsim/reconsim/model"
)

// Defaults and limits of a load specification.
const (
	// DefaultNamespace is the target namespace of a load that names none.
	DefaultNamespace = "default"
	// DefaultMetricName is the custom and external metric name a load is served under when
	// it names none.
	DefaultMetricName = "requests_per_second"
	// DefaultNoiseInterval is how long one noise draw holds when a noise spec names no
	// interval: one metric-resolution period.
	DefaultNoiseInterval = 15 * time.Second
	// MinNoiseInterval bounds how often noise is drawn.
	MinNoiseInterval = time.Second
	// MaxNoiseStddev bounds the relative noise.
	MaxNoiseStddev = 1.0
	// MaxLoads bounds the loads of one world.
	MaxLoads = 1000
)

// Bounds of the usage model's quantities, so that no product of them overflows.
var (
	maxCPU    = resource.MustParse("100k")
	maxMemory = resource.MustParse("1Pi")
)

// LoadSpec is the offered load on one workload and how it turns into per-pod usage. It is
// written in scenario files; its JSON names are the YAML keys.
type LoadSpec struct {
	// Name names the load in results and its noise stream; it defaults to the target's name
	// and is unique among the loads of a world.
	Name string `json:"name,omitempty"`
	// Target is the workload whose pods serve the load: the pods its selector matches.
	Target WorkloadRef `json:"target"`
	// Shape is the offered load over time, in units per second.
	Shape Shape `json:"shape"`
	// Noise, when set, multiplies the load by a random factor.
	Noise *NoiseSpec `json:"noise,omitempty"`
	// Usage turns the load a pod serves into the pod's cpu and memory usage.
	Usage UsageModel `json:"usage"`
	// Metric is the name the load is served under as a custom metric (Pods: each pod's share
	// of the load; Object: the whole load, describing the target or one of Objects) and as an
	// external metric (the whole load). It defaults to DefaultMetricName.
	Metric string `json:"metric,omitempty"`
	// MetricLabels are the labels of the load's metric series, which the metric selectors of
	// HPA Pods, Object and External metrics match.
	MetricLabels map[string]string `json:"metricLabels,omitempty"`
	// Objects are further objects in the target's namespace whose Object metric is this load
	// (a Service or an Ingress in front of the workload).
	Objects []ObjectRef `json:"objects,omitempty"`
}

// WorkloadRef names a scalable workload: a Deployment, ReplicaSet or StatefulSet.
type WorkloadRef struct {
	Kind      string `json:"kind"`
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name"`
}

// ObjectRef names an object in the load's namespace (autoscaling/v2 describedObject without
// the API version, which custom metrics adapters ignore for matching).
type ObjectRef struct {
	Kind string `json:"kind"`
	Name string `json:"name"`
}

// NoiseSpec is multiplicative noise on the offered load: during each Interval (aligned to the
// start of the run) the load is multiplied by max(0, 1+Stddev*N), N a standard normal draw
// from the load's own random stream, so the same seed gives the same noise.
type NoiseSpec struct {
	Stddev   float64       `json:"stddev"`
	Interval time.Duration `json:"interval,omitempty"`
}

// UsageModel turns load into usage. Load is divided equally among the target's Ready pods
// (the endpoints a load balancer sends to); a pod serving s units per second uses
// BaseCPU + s*CPUPerUnit of cpu and BaseMemory + s*MemoryPerUnit of memory. A running pod that
// is not Ready serves nothing and uses the base amounts; a pod whose containers do not all run
// uses nothing. A container cpu limit caps the pod's usage (averaged over each kubelet sampling
// interval), as CFS throttling does; a memory limit caps its memory.
type UsageModel struct {
	CPUPerUnit    resource.Quantity `json:"cpuPerUnit"`
	BaseCPU       resource.Quantity `json:"baseCPU,omitempty"`
	MemoryPerUnit resource.Quantity `json:"memoryPerUnit,omitempty"`
	BaseMemory    resource.Quantity `json:"baseMemory,omitempty"`
}

// SetDefaults fills the defaults: namespace "default", name the target's name, metric
// DefaultMetricName, noise interval DefaultNoiseInterval.
func (l *LoadSpec) SetDefaults() {
	l.Target.Namespace = cmp.Or(l.Target.Namespace, DefaultNamespace)
	l.Name = cmp.Or(l.Name, l.Target.Name)
	l.Metric = cmp.Or(l.Metric, DefaultMetricName)
	if l.Noise != nil && l.Noise.Interval == 0 {
		l.Noise.Interval = DefaultNoiseInterval
	}
}

// ResolveFiles reads the series file of a series shape that names one and has no points yet,
// relative to dir unless the path is absolute (the scenario loader passes the scenario file's
// directory). Errors are ReadSeriesFile's, naming the file and line.
func (l *LoadSpec) ResolveFiles(dir string) error {
	s := l.Shape.Series
	if s == nil || s.File == "" || len(s.Points) > 0 {
		return nil
	}
	path := s.File
	if !filepath.IsAbs(path) {
		path = filepath.Join(dir, path)
	}
	pts, err := ReadSeriesFile(path)
	if err != nil {
		return err
	}
	s.Points = pts
	return nil
}

var targetKinds = []model.Kind{model.KindDeployment, model.KindReplicaSet, model.KindStatefulSet}

func isTargetKind(k string) bool {
	for _, t := range targetKinds {
		if string(t) == k {
			return true
		}
	}
	return false
}

func checkQuantity(path string, q resource.Quantity, limit resource.Quantity) *FieldError {
	if q.Sign() < 0 || q.Cmp(limit) > 0 {
		return fieldErr(path, "must be from 0 to %s, got %s", limit.String(), q.String())
	}
	return nil
}

// Validate reports every problem of a defaulted load spec, with paths under path: a target of
// kind Deployment, ReplicaSet or StatefulSet with a name; a valid shape; noise with stddev in
// [0, 1] and an interval of at least 1s; usage quantities from 0 to 100k cores and 1Pi bytes; a
// metric name; object references with kind and name.
func (l *LoadSpec) Validate(path string) []*FieldError {
	var errs []*FieldError
	tp := childPath(path, "target")
	if !isTargetKind(l.Target.Kind) {
		errs = append(errs, fieldErr(childPath(tp, "kind"), "must be Deployment, ReplicaSet or StatefulSet, got %q", l.Target.Kind))
	}
	if l.Target.Name == "" {
		errs = append(errs, fieldErr(childPath(tp, "name"), "is required"))
	}
	if l.Name == "" {
		errs = append(errs, fieldErr(childPath(path, "name"), "is required (it defaults to the target's name)"))
	}
	errs = append(errs, l.Shape.Validate(childPath(path, "shape"))...)
	if n := l.Noise; n != nil {
		np := childPath(path, "noise")
		if math.IsNaN(n.Stddev) || n.Stddev < 0 || n.Stddev > MaxNoiseStddev {
			errs = append(errs, fieldErr(childPath(np, "stddev"), "must be from 0 to %g, got %g", MaxNoiseStddev, n.Stddev))
		}
		if n.Interval < MinNoiseInterval || n.Interval > MaxShapeTime {
			errs = append(errs, fieldErr(childPath(np, "interval"), "must be from %s to %s, got %s", MinNoiseInterval, MaxShapeTime, n.Interval))
		}
	}
	up := childPath(path, "usage")
	errs = appendErr(errs, checkQuantity(childPath(up, "cpuPerUnit"), l.Usage.CPUPerUnit, maxCPU))
	errs = appendErr(errs, checkQuantity(childPath(up, "baseCPU"), l.Usage.BaseCPU, maxCPU))
	errs = appendErr(errs, checkQuantity(childPath(up, "memoryPerUnit"), l.Usage.MemoryPerUnit, maxMemory))
	errs = appendErr(errs, checkQuantity(childPath(up, "baseMemory"), l.Usage.BaseMemory, maxMemory))
	if l.Metric == "" {
		errs = append(errs, fieldErr(childPath(path, "metric"), "is required (it defaults to %q)", DefaultMetricName))
	}
	for k := range l.MetricLabels { //detlint:ordered only checks each key; problems are sorted by the caller's path
		if k == "" {
			errs = append(errs, fieldErr(childPath(path, "metricLabels"), "has an empty label name"))
		}
	}
	for i, o := range l.Objects {
		op := indexPath(childPath(path, "objects"), i)
		if o.Kind == "" {
			errs = append(errs, fieldErr(childPath(op, "kind"), "is required"))
		}
		if o.Name == "" {
			errs = append(errs, fieldErr(childPath(op, "name"), "is required"))
		}
	}
	return errs
}

// ValidateLoads defaults nothing; it validates every (defaulted) spec, at path "<path>[i]",
// and checks that names are unique and that no workload carries two loads. At most MaxLoads
// loads are allowed.
func ValidateLoads(specs []LoadSpec, path string) []*FieldError {
	if len(specs) > MaxLoads {
		return []*FieldError{fieldErr(path, "has %d loads; at most %d are allowed", len(specs), MaxLoads)}
	}
	var errs []*FieldError
	names := map[string]int{}
	targets := map[WorkloadRef]int{}
	for i := range specs {
		ip := indexPath(path, i)
		errs = append(errs, specs[i].Validate(ip)...)
		if j, ok := names[specs[i].Name]; ok {
			errs = append(errs, fieldErr(childPath(ip, "name"), "%q is also the name of %s", specs[i].Name, indexPath(path, j)))
		} else {
			names[specs[i].Name] = i
		}
		if j, ok := targets[specs[i].Target]; ok {
			errs = append(errs, fieldErr(childPath(ip, "target"), "%s %s/%s already carries the load %s", specs[i].Target.Kind, specs[i].Target.Namespace, specs[i].Target.Name, indexPath(path, j)))
		} else {
			targets[specs[i].Target] = i
		}
	}
	return errs
}

// Offered is a load's offered load over time, noise included: a pure function of the spec
// and the random stream it was built with.
type Offered struct {
	c        curve
	stddev   float64
	interval float64
	rng      *rand.Rand
	factors  []float64
}

// NewOffered compiles a validated spec's shape and noise. rng is the load's own stream (the
// kernel's Rand("metrics/load/<name>")); it is used only when the spec has noise, and draws
// happen in interval order whatever order the load is asked for, so results depend only on
// the seed.
func NewOffered(spec *LoadSpec, rng *rand.Rand) *Offered {
	o := &Offered{c: spec.Shape.compile()}
	if spec.Noise != nil && spec.Noise.Stddev > 0 {
		o.stddev = spec.Noise.Stddev
		o.interval = spec.Noise.Interval.Seconds()
		o.rng = rng
	}
	return o
}

// factor returns the noise factor of interval k.
func (o *Offered) factor(k int) float64 {
	for len(o.factors) <= k {
		o.factors = append(o.factors, math.Max(0, 1+o.stddev*o.rng.NormFloat64()))
	}
	return o.factors[k]
}

// At returns the offered load (units per second) at t, a duration since the start of the run.
func (o *Offered) At(t time.Duration) float64 {
	s := t.Seconds()
	v := o.c.at(s)
	if o.rng != nil {
		v *= o.factor(int(s / o.interval))
	}
	return v
}

// Integral returns the offered load integrated over [a, b] (units); 0 when b <= a.
func (o *Offered) Integral(a, b time.Duration) float64 {
	return o.integral(a.Seconds(), b.Seconds())
}

func (o *Offered) integral(a, b float64) float64 {
	if b <= a {
		return 0
	}
	if o.rng == nil {
		return o.c.integral(a, b)
	}
	sum := 0.0
	for k := int(a / o.interval); float64(k)*o.interval < b; k++ {
		lo := math.Max(a, float64(k)*o.interval)
		hi := math.Min(b, float64(k+1)*o.interval)
		if hi > lo {
			sum += o.factor(k) * o.c.integral(lo, hi)
		}
	}
	return sum
}
