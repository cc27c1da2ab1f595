package metrics

import (
	"context"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/labels"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/vtime"
)

// PodMetric is one pod's value of a metric (upstream podautoscaler/metrics PodMetric): Value
// is in milli-units (milli-cores for cpu, milli-bytes for memory, milli-units for custom
// metrics), measured over Window and reported at Timestamp.
type PodMetric struct {
	Timestamp vtime.Time
	Window    time.Duration
	Value     int64
}

// PodMetricsInfo maps pod names to their metric (upstream PodMetricsInfo). Sums over it are
// integer sums, so the order of iteration cannot change them.
type PodMetricsInfo map[string]PodMetric

// MetricsClient is how the HPA controller reads metrics, mirroring upstream
// pkg/controller/podautoscaler/metrics/interfaces.go MetricsClient. Every method takes a
// context carrying the calling simulated process, so an implementation may block; the
// in-process Server answers at once. Errors say what could not be found, in upstream's words
// where upstream has words for it.
type MetricsClient interface {
	// GetResourceMetric returns the metric of resource ("cpu" or "memory") of every pod in
	// namespace matching selector, summed over the pod's containers, or of the named
	// container only when container is not empty; and the timestamp of the first pod's metric.
	// A pod with a container that has no value for resource is left out. It fails when no pod
	// has metrics.
	GetResourceMetric(ctx context.Context, resource string, namespace string, selector labels.Selector, container string) (PodMetricsInfo, vtime.Time, error)
	// GetRawMetric returns the custom (Pods) metric metricName of every pod in namespace
	// matching selector whose metric series matches metricSelector. It fails when no pod has
	// the metric.
	GetRawMetric(ctx context.Context, metricName string, namespace string, selector labels.Selector, metricSelector labels.Selector) (PodMetricsInfo, vtime.Time, error)
	// GetObjectMetric returns the custom metric metricName describing the object objectRef in
	// namespace, in milli-units. It fails when there is no such metric.
	GetObjectMetric(ctx context.Context, metricName string, namespace string, objectRef *model.CrossVersionObjectReference, metricSelector labels.Selector) (int64, vtime.Time, error)
	// GetExternalMetric returns the values of every series of the external metric metricName
	// in namespace matching selector, in milli-units. It fails when no series matches.
	GetExternalMetric(ctx context.Context, metricName string, namespace string, selector labels.Selector) ([]int64, vtime.Time, error)
}

// GetResourceUtilizationRatio is upstream metrics/utilization.go GetResourceUtilizationRatio:
// the utilization is the sum of the metrics of the pods that have a request, times 100,
// divided by the sum of their requests, truncated to an integer; the ratio is that integer
// over targetUtilization; the raw average is the metrics' sum over the number of such pods
// (integer division). Metrics of pods without a request are extraneous and skipped. It fails
// when no metric matches a known request.
func GetResourceUtilizationRatio(metrics PodMetricsInfo, requests map[string]int64, targetUtilization int32) (utilizationRatio float64, currentUtilization int32, rawAverageValue int64, err error) {
	var metricsTotal, requestsTotal int64
	numEntries := 0
	for podName, metric := range metrics { //detlint:ordered integer sums are commutative
		request, ok := requests[podName]
		if !ok {
			continue
		}
		metricsTotal += metric.Value
		requestsTotal += request
		numEntries++
	}
	if requestsTotal == 0 {
		return 0, 0, 0, fmt.Errorf("no metrics returned matched known pods")
	}
	currentUtilization = int32((metricsTotal * 100) / requestsTotal)
	return float64(currentUtilization) / float64(targetUtilization), currentUtilization, metricsTotal / int64(numEntries), nil
}

// GetMetricUsageRatio is upstream metrics/utilization.go GetMetricUsageRatio: the average of
// the metrics (integer division) and its ratio to targetUsage. Empty metrics give 0, 0 (the
// callers never pass them; upstream would divide by zero).
func GetMetricUsageRatio(metrics PodMetricsInfo, targetUsage int64) (usageRatio float64, currentUsage int64) {
	if len(metrics) == 0 {
		return 0, 0
	}
	var metricsTotal int64
	for _, metric := range metrics { //detlint:ordered integer sums are commutative
		metricsTotal += metric.Value
	}
	currentUsage = metricsTotal / int64(len(metrics))
	return float64(currentUsage) / float64(targetUsage), currentUsage
}
