package metrics

import (
	"context"
	"fmt"
	"math"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/vtime"
)

// PodMetrics is metrics.k8s.io/v1beta1 PodMetrics: a pod's usage measured over Window, up to
// Timestamp.
type PodMetrics struct {
	Namespace  string
	Name       string
	Labels     map[string]string
	Timestamp  vtime.Time
	Window     time.Duration
	Containers []ContainerMetrics
}

// ContainerMetrics is one container's usage: "cpu" in nano-cores (a quantity of scale -9, as
// metrics-server builds it) and "memory" in bytes.
type ContainerMetrics struct {
	Name  string
	Usage model.ResourceList
}

var _ MetricsClient = (*Server)(nil)

// ListPodMetrics serves the resource metrics API's pod list: the metrics of every pod in
// namespace (all namespaces if empty) whose labels selector matches (nil: all) and that has
// two stored points, sorted by namespace and name. A pod's cpu is the rate between its points,
// truncated to whole nano-cores (metrics-server resourceUsage), split among its containers in
// proportion to their cpu requests; memory is the latest working set, split likewise.
func (s *Server) ListPodMetrics(namespace string, selector labels.Selector) []PodMetrics {
	var objs []model.Object
	if namespace == "" {
		objs = s.podInformer.List(selector)
	} else {
		objs = s.podInformer.ListNamespace(namespace, selector)
	}
	var out []PodMetrics
	for _, obj := range objs {
		ps := s.pods[model.Key(obj)]
		if ps == nil {
			continue
		}
		cpuNano, _, memory, ts, window, ok := s.scraped(ps).window()
		if !ok {
			continue
		}
		pm := PodMetrics{Namespace: ps.pod.Namespace, Name: ps.pod.Name, Labels: obj.Meta().Labels, Timestamp: ts, Window: window}
		for _, c := range ps.containers {
			pm.Containers = append(pm.Containers, ContainerMetrics{
				Name: c.name,
				Usage: model.ResourceList{
					model.ResourceCPU:    *resource.NewScaledQuantity(int64(cpuNano*c.cpuFrac), resource.Nano),
					model.ResourceMemory: *resource.NewQuantity(int64(memory*c.memFrac), resource.BinarySI),
				},
			})
		}
		out = append(out, pm)
	}
	return out
}

// GetResourceMetric implements MetricsClient over ListPodMetrics, as upstream's
// resourceMetricsClient does: values are milli-values (Quantity.MilliValue, rounding up), a pod
// missing the resource in a container is left out, and a container name that some pod lacks is
// an error.
func (s *Server) GetResourceMetric(_ context.Context, resourceName string, namespace string, selector labels.Selector, container string) (PodMetricsInfo, vtime.Time, error) {
	items := s.ListPodMetrics(namespace, selector)
	if len(items) == 0 {
		return nil, 0, fmt.Errorf("no metrics returned from resource metrics API")
	}
	res := make(PodMetricsInfo, len(items))
	for _, m := range items {
		if container != "" {
			found := false
			for _, c := range m.Containers {
				if c.Name != container {
					continue
				}
				found = true
				if q, ok := c.Usage[resourceName]; ok {
					res[m.Name] = PodMetric{Timestamp: m.Timestamp, Window: m.Window, Value: q.MilliValue()}
				}
				break
			}
			if !found {
				return nil, 0, fmt.Errorf("failed to get container metrics: container %s not present in metrics for pod %s/%s", container, m.Namespace, m.Name)
			}
			continue
		}
		var sum int64
		missing := len(m.Containers) == 0
		for _, c := range m.Containers {
			q, ok := c.Usage[resourceName]
			if !ok {
				missing = true
				break
			}
			sum += q.MilliValue()
		}
		if !missing {
			res[m.Name] = PodMetric{Timestamp: m.Timestamp, Window: m.Window, Value: sum}
		}
	}
	return res, items[0].Timestamp, nil
}

func (l *load) metricMatches(metricName, namespace string, metricSelector labels.Selector) bool {
	if l.spec.Metric != metricName || l.spec.Target.Namespace != namespace {
		return false
	}
	return metricSelector == nil || metricSelector.Matches(labels.Set(l.spec.MetricLabels))
}

// milli converts a rate to milli-units, rounded to the nearest.
func milli(v float64) int64 {
	if v <= 0 || math.IsNaN(v) {
		return 0
	}
	if v >= math.MaxInt64/1000 {
		return math.MaxInt64
	}
	return int64(math.Round(v * 1000))
}

// GetRawMetric implements MetricsClient as a custom metrics adapter would serve a Pods metric:
// each pod in namespace matching selector, whose load is served under metricName with labels
// metricSelector matches, reports the load it served per second between its two stored points
// (the same window as its cpu). It fails when no pod has the metric.
func (s *Server) GetRawMetric(_ context.Context, metricName string, namespace string, selector labels.Selector, metricSelector labels.Selector) (PodMetricsInfo, vtime.Time, error) {
	res := PodMetricsInfo{}
	var first vtime.Time
	for _, obj := range s.podInformer.ListNamespace(namespace, selector) {
		ps := s.pods[model.Key(obj)]
		if ps == nil || ps.load == nil || !ps.load.metricMatches(metricName, namespace, metricSelector) {
			continue
		}
		_, rate, _, ts, window, ok := s.scraped(ps).window()
		if !ok {
			continue
		}
		if len(res) == 0 {
			first = ts
		}
		res[ps.pod.Name] = PodMetric{Timestamp: ts, Window: window, Value: milli(rate)}
	}
	if len(res) == 0 {
		return nil, 0, fmt.Errorf("no metrics returned from custom metrics API")
	}
	return res, first, nil
}

// offeredRate is the offered load averaged over the last scrape interval.
func (l *load) offeredRate() (float64, vtime.Time, bool) {
	if !l.scrapeLast.ok || !l.scrapePrev.ok || l.scrapeLast.at <= l.scrapePrev.at {
		return 0, 0, false
	}
	return (l.scrapeLast.cum - l.scrapePrev.cum) / l.scrapeLast.at.Sub(l.scrapePrev.at).Seconds(), l.scrapeLast.at, true
}

// GetObjectMetric implements MetricsClient for an Object metric: the load served under
// metricName whose target, or one of whose Objects, is objectRef (by kind and name) reports its
// offered load per second averaged over the last scrape interval. It fails when no load
// matches or it has not been scraped twice yet.
func (s *Server) GetObjectMetric(_ context.Context, metricName string, namespace string, objectRef *model.CrossVersionObjectReference, metricSelector labels.Selector) (int64, vtime.Time, error) {
	if objectRef == nil {
		return 0, 0, fmt.Errorf("unable to fetch metrics from custom metrics API: no object reference")
	}
	for _, l := range s.loads {
		if !l.metricMatches(metricName, namespace, metricSelector) || !l.describes(objectRef) {
			continue
		}
		rate, ts, ok := l.offeredRate()
		if !ok {
			return 0, 0, fmt.Errorf("unable to fetch metrics from custom metrics API: no value yet for the metric %s for %s %s/%s", metricName, objectRef.Kind, namespace, objectRef.Name)
		}
		return milli(rate), ts, nil
	}
	return 0, 0, fmt.Errorf("unable to fetch metrics from custom metrics API: the server could not find the metric %s for %s %s/%s", metricName, objectRef.Kind, namespace, objectRef.Name)
}

func (l *load) describes(ref *model.CrossVersionObjectReference) bool {
	if ref.Kind == l.spec.Target.Kind && ref.Name == l.spec.Target.Name {
		return true
	}
	for _, o := range l.spec.Objects {
		if o.Kind == ref.Kind && o.Name == ref.Name {
			return true
		}
	}
	return false
}

// GetExternalMetric implements MetricsClient for an External metric: every load in namespace
// served under metricName whose labels selector matches is one series, valued at its offered
// load per second averaged over the last scrape interval. It fails when no series has a value.
func (s *Server) GetExternalMetric(_ context.Context, metricName string, namespace string, selector labels.Selector) ([]int64, vtime.Time, error) {
	var values []int64
	var ts vtime.Time
	for _, l := range s.loads {
		if !l.metricMatches(metricName, namespace, selector) {
			continue
		}
		rate, at, ok := l.offeredRate()
		if !ok {
			continue
		}
		values = append(values, milli(rate))
		ts = at
	}
	if len(values) == 0 {
		return nil, 0, fmt.Errorf("no metrics returned from external metrics API")
	}
	return values, ts, nil
}

// LoadStatus is a load's state at one instant, for results and plots.
type LoadStatus struct {
	Name string `json:"name"`
	// Offered is the offered load now (units per second, noise included); Served is the part
	// that reaches a Ready pod (all of it, or none when no pod is Ready).
	Offered float64 `json:"offered"`
	Served  float64 `json:"served"`
	// OfferedTotal and DroppedTotal are the load offered since the start and the part of it
	// that found no Ready pod (units).
	OfferedTotal float64 `json:"offeredTotal"`
	DroppedTotal float64 `json:"droppedTotal"`
	// ReadyPods serve the load; RunningPods have every container running.
	ReadyPods   int `json:"readyPods"`
	RunningPods int `json:"runningPods"`
	// UsageCPUMillis is the pods' true cpu usage now, before any limit (milli-cores).
	UsageCPUMillis float64 `json:"usageCPUMillis"`
	// MetricPods is how many of the target's pods the resource metrics API reports;
	// MetricCPUMillis is their summed cpu as the HPA reads it and MetricCPURequestMillis the
	// sum of their requests. CPUUtilization is the HPA's integer utilization over them (percent,
	// truncated), or -1 when no pod with a cpu request has metrics.
	MetricPods             int   `json:"metricPods"`
	MetricCPUMillis        int64 `json:"metricCPUMillis"`
	MetricCPURequestMillis int64 `json:"metricCPURequestMillis"`
	CPUUtilization         int32 `json:"cpuUtilization"`
}

// Status returns every load's state now, in the order of Loads.
func (s *Server) Status() []LoadStatus {
	now := s.k.Now()
	out := make([]LoadStatus, len(s.loads))
	for i, l := range s.loads {
		l.advance(now)
		st := LoadStatus{
			Name:           l.spec.Name,
			Offered:        l.offered.At(now.Duration()),
			OfferedTotal:   l.offeredCum,
			DroppedTotal:   l.droppedCum,
			ReadyPods:      l.ready,
			CPUUtilization: -1,
		}
		if l.ready > 0 {
			st.Served = st.Offered
		}
		out[i] = st
	}
	index := map[*load]int{}
	for i, l := range s.loads {
		index[l] = i
	}
	// Pods in key order, so that the float sums are bit-for-bit reproducible.
	for _, obj := range s.podInformer.List(nil) {
		ps := s.pods[model.Key(obj)]
		if ps == nil || ps.load == nil {
			continue
		}
		st := &out[index[ps.load]]
		if ps.running {
			st.RunningPods++
		}
		if ps.running && ps.start <= now {
			st.UsageCPUMillis += 1000 * ps.load.baseCPUCores
			if ps.serving {
				st.UsageCPUMillis += 1000 * ps.load.cpuPerUnitCores * st.Offered / float64(ps.load.ready)
			}
		}
		cpuNano, _, _, _, _, ok := s.scraped(ps).window()
		if !ok || ps.cpuRequestMill < 0 {
			continue
		}
		st.MetricPods++
		for _, c := range ps.containers {
			q := resource.NewScaledQuantity(int64(cpuNano*c.cpuFrac), resource.Nano)
			st.MetricCPUMillis += q.MilliValue()
		}
		st.MetricCPURequestMillis += ps.cpuRequestMill
	}
	for i := range out {
		if out[i].MetricCPURequestMillis > 0 {
			out[i].CPUUtilization = int32(out[i].MetricCPUMillis * 100 / out[i].MetricCPURequestMillis)
		}
	}
	return out
}
