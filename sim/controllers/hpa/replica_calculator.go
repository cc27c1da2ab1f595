package hpa

import (
	"context"
	"fmt"
	"math"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim/client"
	"github.com/reconsim/reconsim/sim/metrics"
	"github.com/reconsim/reconsim/vtime"
)

// This file is upstream pkg/controller/podautoscaler/replica_calculator.go (modern, with
// per-direction tolerances): how many replicas each kind of metric asks for. The arithmetic is
// upstream's to the letter, integer truncations included.

// Tolerances are the usage-ratio tolerances below and above 1 inside which a metric asks for
// no change (upstream Tolerances; both default to --horizontal-pod-autoscaler-tolerance 0.1,
// and behavior.scaleDown/scaleUp.tolerance override them per HPA).
type Tolerances struct {
	ScaleDown float64
	ScaleUp   float64
}

// String formats the tolerances as upstream does, e.g. "[down:10.0%, up:10.0%]".
func (t Tolerances) String() string {
	return fmt.Sprintf("[down:%.1f%%, up:%.1f%%]", t.ScaleDown*100., t.ScaleUp*100.)
}

// isWithin reports whether (1-down) <= ratio <= (1+up).
func (t Tolerances) isWithin(usageRatio float64) bool {
	return (1.0-t.ScaleDown) <= usageRatio && usageRatio <= (1.0+t.ScaleUp)
}

// PodLister lists pods from a cache (upstream corelisters.PodLister).
type PodLister interface {
	// ListPods returns the pods of namespace whose labels selector matches, sorted by name.
	// The pods are shared and must not be modified.
	ListPods(namespace string, selector labels.Selector) ([]*model.Pod, error)
}

// InformerPodLister lists pods from a pod informer's cache.
type InformerPodLister struct {
	Informer *client.Informer
}

// ListPods implements PodLister; it never fails.
func (l InformerPodLister) ListPods(namespace string, selector labels.Selector) ([]*model.Pod, error) {
	objs := l.Informer.ListNamespace(namespace, selector)
	out := make([]*model.Pod, 0, len(objs))
	for _, o := range objs {
		if p, ok := client.ObjectAs[*model.Pod](o); ok {
			out = append(out, p)
		}
	}
	return out, nil
}

// ReplicaCalculator computes desired replica counts from metrics (upstream ReplicaCalculator).
type ReplicaCalculator struct {
	metricsClient                 metrics.MetricsClient
	podLister                     PodLister
	cpuInitializationPeriod       time.Duration
	delayOfInitialReadinessStatus time.Duration
	// now is the clock groupPods compares pod start times with (upstream time.Now); a field so
	// that table tests can fix it.
	now func() vtime.Time
}

// NewReplicaCalculator returns a calculator reading metrics from mc and pods from pl, with the
// controller's --horizontal-pod-autoscaler-cpu-initialization-period and
// --horizontal-pod-autoscaler-initial-readiness-delay, and now as its clock.
func NewReplicaCalculator(mc metrics.MetricsClient, pl PodLister, cpuInitializationPeriod, delayOfInitialReadinessStatus time.Duration, now func() vtime.Time) *ReplicaCalculator {
	return &ReplicaCalculator{
		metricsClient:                 mc,
		podLister:                     pl,
		cpuInitializationPeriod:       cpuInitializationPeriod,
		delayOfInitialReadinessStatus: delayOfInitialReadinessStatus,
		now:                           now,
	}
}

// GetResourceReplicas returns the replica count a target utilization (percent of requests) of
// resource asks for, given the pods namespace/selector and currentReplicas, with the current
// utilization (integer percent) and raw average usage (milli-units) it saw. On error the
// counts are zero and the error says what failed (metrics, pods, requests).
//
// Pods are grouped (groupPods); ignored and unready pods' metrics are dropped. With no
// unready pod on a scale-up and no missing pod, the answer is currentReplicas inside the
// tolerance, else ceil(ratio*readyPods). Otherwise missing pods count as using
// max(100, target)% of their request on a scale-down and 0 on a scale-up, unready pods as 0 on
// a scale-up, and the ratio is recomputed: inside the tolerance, or if it flipped direction,
// the answer is currentReplicas; else ceil(newRatio*pods counted), unless that count itself
// moves against the new ratio's direction.
func (c *ReplicaCalculator) GetResourceReplicas(ctx context.Context, currentReplicas int32, targetUtilization int32, resourceName string, tolerances Tolerances, namespace string, selector labels.Selector, container string) (replicaCount int32, utilization int32, rawUtilization int64, timestamp vtime.Time, err error) {
	podMetrics, timestamp, err := c.metricsClient.GetResourceMetric(ctx, resourceName, namespace, selector, container)
	if err != nil {
		return 0, 0, 0, 0, fmt.Errorf("unable to get metrics for resource %s: %v", resourceName, err)
	}
	podList, err := c.podLister.ListPods(namespace, selector)
	if err != nil {
		return 0, 0, 0, 0, fmt.Errorf("unable to get pods while calculating replica count: %v", err)
	}
	if len(podList) == 0 {
		return 0, 0, 0, 0, fmt.Errorf("no pods returned by selector while calculating replica count")
	}

	readyPodCount, unreadyPods, missingPods, ignoredPods := groupPods(podList, podMetrics, resourceName, c.cpuInitializationPeriod, c.delayOfInitialReadinessStatus, c.now())
	removeMetricsForPods(podMetrics, ignoredPods)
	removeMetricsForPods(podMetrics, unreadyPods)
	if len(podMetrics) == 0 {
		return 0, 0, 0, 0, fmt.Errorf("did not receive metrics for targeted pods (pods might be unready)")
	}

	requests, err := calculateRequests(podList, container, resourceName)
	if err != nil {
		return 0, 0, 0, 0, err
	}

	usageRatio, utilization, rawUtilization, err := metrics.GetResourceUtilizationRatio(podMetrics, requests, targetUtilization)
	if err != nil {
		return 0, 0, 0, 0, err
	}

	scaleUpWithUnready := len(unreadyPods) > 0 && usageRatio > 1.0
	if !scaleUpWithUnready && len(missingPods) == 0 {
		if tolerances.isWithin(usageRatio) {
			return currentReplicas, utilization, rawUtilization, timestamp, nil
		}
		return int32(math.Ceil(usageRatio * float64(readyPodCount))), utilization, rawUtilization, timestamp, nil
	}

	// Scaling down, a pod without metrics counts as using its whole request, or the target
	// when the target is above 100%.
	fallbackUtilization := int64(max(100, targetUtilization))
	assumeMissingMetrics(podMetrics, missingPods, unreadyPods, usageRatio, scaleUpWithUnready,
		func(name string) int64 { return requests[name] * fallbackUtilization / 100 })

	newUsageRatio, _, _, err := metrics.GetResourceUtilizationRatio(podMetrics, requests, targetUtilization)
	if err != nil {
		return 0, utilization, rawUtilization, 0, err
	}
	if tolerances.isWithin(newUsageRatio) || (usageRatio < 1.0 && newUsageRatio > 1.0) || (usageRatio > 1.0 && newUsageRatio < 1.0) {
		// Too small a change, or the assumptions flipped the direction: stay.
		return currentReplicas, utilization, rawUtilization, timestamp, nil
	}
	newReplicas := int32(math.Ceil(newUsageRatio * float64(len(podMetrics))))
	if (newUsageRatio < 1.0 && newReplicas > currentReplicas) || (newUsageRatio > 1.0 && newReplicas < currentReplicas) {
		// The number of pods counted would move the count against the ratio: stay.
		return currentReplicas, utilization, rawUtilization, timestamp, nil
	}
	return newReplicas, utilization, rawUtilization, timestamp, nil
}

// GetRawResourceReplicas returns the replica count a target average usage (milli-units per pod)
// of resource asks for, with the average usage seen (upstream GetRawResourceReplicas; the
// plain-metric rules of calcPlainMetricReplicas).
func (c *ReplicaCalculator) GetRawResourceReplicas(ctx context.Context, currentReplicas int32, targetUsage int64, resourceName string, tolerances Tolerances, namespace string, selector labels.Selector, container string) (replicaCount int32, usage int64, timestamp vtime.Time, err error) {
	podMetrics, timestamp, err := c.metricsClient.GetResourceMetric(ctx, resourceName, namespace, selector, container)
	if err != nil {
		return 0, 0, 0, fmt.Errorf("unable to get metrics for resource %s: %v", resourceName, err)
	}
	replicaCount, usage, err = c.calcPlainMetricReplicas(podMetrics, currentReplicas, targetUsage, tolerances, namespace, selector, resourceName)
	return replicaCount, usage, timestamp, err
}

// GetMetricReplicas returns the replica count a target average value (milli-units per pod) of a
// Pods metric asks for, with the average value seen (upstream GetMetricReplicas).
func (c *ReplicaCalculator) GetMetricReplicas(ctx context.Context, currentReplicas int32, targetUsage int64, metricName string, tolerances Tolerances, namespace string, selector labels.Selector, metricSelector labels.Selector) (replicaCount int32, usage int64, timestamp vtime.Time, err error) {
	podMetrics, timestamp, err := c.metricsClient.GetRawMetric(ctx, metricName, namespace, selector, metricSelector)
	if err != nil {
		return 0, 0, 0, fmt.Errorf("unable to get metric %s: %v", metricName, err)
	}
	replicaCount, usage, err = c.calcPlainMetricReplicas(podMetrics, currentReplicas, targetUsage, tolerances, namespace, selector, "")
	return replicaCount, usage, timestamp, err
}

// calcPlainMetricReplicas is GetResourceReplicas for a per-pod average value: the average is
// the integer mean, missing pods count as using exactly the target on a scale-down and 0 on a
// scale-up, and only Pending pods are unready unless resourceName is cpu.
func (c *ReplicaCalculator) calcPlainMetricReplicas(podMetrics metrics.PodMetricsInfo, currentReplicas int32, targetUsage int64, tolerances Tolerances, namespace string, selector labels.Selector, resourceName string) (replicaCount int32, usage int64, err error) {
	podList, err := c.podLister.ListPods(namespace, selector)
	if err != nil {
		return 0, 0, fmt.Errorf("unable to get pods while calculating replica count: %v", err)
	}
	if len(podList) == 0 {
		return 0, 0, fmt.Errorf("no pods returned by selector while calculating replica count")
	}

	readyPodCount, unreadyPods, missingPods, ignoredPods := groupPods(podList, podMetrics, resourceName, c.cpuInitializationPeriod, c.delayOfInitialReadinessStatus, c.now())
	removeMetricsForPods(podMetrics, ignoredPods)
	removeMetricsForPods(podMetrics, unreadyPods)
	if len(podMetrics) == 0 {
		return 0, 0, fmt.Errorf("did not receive metrics for targeted pods (pods might be unready)")
	}

	usageRatio, usage := metrics.GetMetricUsageRatio(podMetrics, targetUsage)
	scaleUpWithUnready := len(unreadyPods) > 0 && usageRatio > 1.0
	if !scaleUpWithUnready && len(missingPods) == 0 {
		if tolerances.isWithin(usageRatio) {
			return currentReplicas, usage, nil
		}
		return int32(math.Ceil(usageRatio * float64(readyPodCount))), usage, nil
	}

	// Scaling down, a pod without metrics counts as using the target.
	assumeMissingMetrics(podMetrics, missingPods, unreadyPods, usageRatio, scaleUpWithUnready,
		func(string) int64 { return targetUsage })

	newUsageRatio, _ := metrics.GetMetricUsageRatio(podMetrics, targetUsage)
	if tolerances.isWithin(newUsageRatio) || (usageRatio < 1.0 && newUsageRatio > 1.0) || (usageRatio > 1.0 && newUsageRatio < 1.0) {
		return currentReplicas, usage, nil
	}
	newReplicas := int32(math.Ceil(newUsageRatio * float64(len(podMetrics))))
	if (newUsageRatio < 1.0 && newReplicas > currentReplicas) || (newUsageRatio > 1.0 && newReplicas < currentReplicas) {
		return currentReplicas, usage, nil
	}
	return newReplicas, usage, nil
}

// GetObjectMetricReplicas returns the replica count a target value (milli-units) of an Object
// metric asks for, with the value seen (upstream GetObjectMetricReplicas). As upstream, the
// timestamp returned is zero: the object metric's own timestamp is dropped.
func (c *ReplicaCalculator) GetObjectMetricReplicas(ctx context.Context, currentReplicas int32, targetUsage int64, metricName string, tolerances Tolerances, namespace string, objectRef *model.CrossVersionObjectReference, selector labels.Selector, metricSelector labels.Selector) (replicaCount int32, usage int64, timestamp vtime.Time, err error) {
	usage, _, err = c.metricsClient.GetObjectMetric(ctx, metricName, namespace, objectRef, metricSelector)
	if err != nil {
		return 0, 0, 0, fmt.Errorf("unable to get metric %s: %v on %s %s/%s", metricName, objectRef.Kind, namespace, objectRef.Name, err)
	}
	usageRatio := float64(usage) / float64(targetUsage)
	replicaCount, timestamp, err = c.getUsageRatioReplicaCount(currentReplicas, usageRatio, tolerances, namespace, selector)
	return replicaCount, usage, timestamp, err
}

// getUsageRatioReplicaCount is ceil(ratio * Running-and-Ready pods), or currentReplicas inside
// the tolerance; from zero replicas it is ceil(ratio), with no tolerance (scale from zero).
func (c *ReplicaCalculator) getUsageRatioReplicaCount(currentReplicas int32, usageRatio float64, tolerances Tolerances, namespace string, selector labels.Selector) (replicaCount int32, timestamp vtime.Time, err error) {
	if currentReplicas != 0 {
		if tolerances.isWithin(usageRatio) {
			return currentReplicas, timestamp, nil
		}
		readyPodCount, err := c.getReadyPodsCount(namespace, selector)
		if err != nil {
			return 0, 0, fmt.Errorf("unable to calculate ready pods: %s", err)
		}
		replicaCountFloat := usageRatio * float64(readyPodCount)
		if replicaCountFloat > math.MaxInt32 {
			return math.MaxInt32, timestamp, nil
		}
		return int32(math.Ceil(replicaCountFloat)), timestamp, nil
	}
	return int32(math.Ceil(usageRatio)), timestamp, nil
}

// GetObjectPerPodMetricReplicas returns the replica count a target average value (milli-units
// per pod) of an Object metric asks for: ceil(total/target), unless total/(target*
// statusReplicas) is inside the tolerance; the usage returned is ceil(total/statusReplicas).
func (c *ReplicaCalculator) GetObjectPerPodMetricReplicas(ctx context.Context, statusReplicas int32, targetAverageUsage int64, metricName string, tolerances Tolerances, namespace string, objectRef *model.CrossVersionObjectReference, metricSelector labels.Selector) (replicaCount int32, usage int64, timestamp vtime.Time, err error) {
	usage, timestamp, err = c.metricsClient.GetObjectMetric(ctx, metricName, namespace, objectRef, metricSelector)
	if err != nil {
		return 0, 0, 0, fmt.Errorf("unable to get metric %s: %v on %s %s/%s", metricName, objectRef.Kind, namespace, objectRef.Name, err)
	}
	replicaCount = statusReplicas
	usageRatio := float64(usage) / (float64(targetAverageUsage) * float64(replicaCount))
	if !tolerances.isWithin(usageRatio) {
		replicaCount = int32(math.Ceil(float64(usage) / float64(targetAverageUsage)))
	}
	usage = int64(math.Ceil(float64(usage) / float64(statusReplicas)))
	return replicaCount, usage, timestamp, nil
}

// getReadyPodsCount counts the pods that are Running and Ready.
func (c *ReplicaCalculator) getReadyPodsCount(namespace string, selector labels.Selector) (int64, error) {
	podList, err := c.podLister.ListPods(namespace, selector)
	if err != nil {
		return 0, fmt.Errorf("unable to get pods while calculating replica count: %v", err)
	}
	if len(podList) == 0 {
		return 0, fmt.Errorf("no pods returned by selector while calculating replica count")
	}
	var ready int64
	for _, pod := range podList {
		if pod.Status.Phase == model.PodRunning && model.IsPodReady(pod) {
			ready++
		}
	}
	return ready, nil
}

// GetExternalMetricReplicas returns the replica count a target value (milli-units) of an
// External metric asks for: the sum over the matching series, then as an Object metric.
func (c *ReplicaCalculator) GetExternalMetricReplicas(ctx context.Context, currentReplicas int32, targetUsage int64, metricName string, tolerances Tolerances, namespace string, metricSelector *metav1.LabelSelector, podSelector labels.Selector) (replicaCount int32, usage int64, timestamp vtime.Time, err error) {
	metricLabelSelector, err := metav1.LabelSelectorAsSelector(metricSelector)
	if err != nil {
		return 0, 0, 0, err
	}
	values, _, err := c.metricsClient.GetExternalMetric(ctx, metricName, namespace, metricLabelSelector)
	if err != nil {
		return 0, 0, 0, fmt.Errorf("unable to get external metric %s/%s/%+v: %s", namespace, metricName, metricSelector, err)
	}
	usage = sumCapped(values)
	usageRatio := float64(usage) / float64(targetUsage)
	replicaCount, timestamp, err = c.getUsageRatioReplicaCount(currentReplicas, usageRatio, tolerances, namespace, podSelector)
	return replicaCount, usage, timestamp, err
}

// GetExternalPerPodMetricReplicas returns the replica count a target average value
// (milli-units per pod) of an External metric asks for, as GetObjectPerPodMetricReplicas does
// with the sum over the matching series.
func (c *ReplicaCalculator) GetExternalPerPodMetricReplicas(ctx context.Context, statusReplicas int32, targetUsagePerPod int64, metricName string, tolerances Tolerances, namespace string, metricSelector *metav1.LabelSelector) (replicaCount int32, usage int64, timestamp vtime.Time, err error) {
	metricLabelSelector, err := metav1.LabelSelectorAsSelector(metricSelector)
	if err != nil {
		return 0, 0, 0, err
	}
	values, timestamp, err := c.metricsClient.GetExternalMetric(ctx, metricName, namespace, metricLabelSelector)
	if err != nil {
		return 0, 0, 0, fmt.Errorf("unable to get external metric %s/%s/%+v: %s", namespace, metricName, metricSelector, err)
	}
	usage = sumCapped(values)
	replicaCount = statusReplicas
	usageRatio := float64(usage) / (float64(targetUsagePerPod) * float64(replicaCount))
	if !tolerances.isWithin(usageRatio) {
		r := math.Ceil(float64(usage) / float64(targetUsagePerPod))
		if r > float64(math.MaxInt32) {
			replicaCount = math.MaxInt32
		} else {
			replicaCount = int32(r)
		}
	}
	if float64(usage) >= float64(math.MaxInt64) {
		usage = math.MaxInt64
	} else {
		usage = int64(math.Ceil(float64(usage) / float64(statusReplicas)))
	}
	return replicaCount, usage, timestamp, nil
}

// sumCapped sums values, stopping at MaxInt64 on overflow as upstream does.
func sumCapped(values []int64) int64 {
	var sum int64
	for _, v := range values {
		if v > 0 && sum > math.MaxInt64-v {
			return math.MaxInt64
		}
		sum += v
	}
	return sum
}

// assumeMissingMetrics fills in, in podMetrics, the usage of the pods the ratio could not
// count, against the direction of the change so that they cannot cause it (upstream
// GetResourceReplicas and GetMetricReplicas each do this): scaling down (usageRatio below 1),
// a pod without metrics uses scaleDownUsage(name); scaling up (above 1), a pod without metrics
// is idle, and so, with scaleUpWithUnready, is every unready pod.
func assumeMissingMetrics(podMetrics metrics.PodMetricsInfo, missingPods, unreadyPods []string, usageRatio float64, scaleUpWithUnready bool, scaleDownUsage func(name string) int64) {
	switch {
	case usageRatio < 1.0:
		for _, name := range missingPods {
			podMetrics[name] = metrics.PodMetric{Value: scaleDownUsage(name)}
		}
	case usageRatio > 1.0:
		for _, name := range missingPods {
			podMetrics[name] = metrics.PodMetric{Value: 0}
		}
	}
	if scaleUpWithUnready {
		for _, name := range unreadyPods {
			podMetrics[name] = metrics.PodMetric{Value: 0}
		}
	}
}

// groupPods sorts pods into ready (counted), unready, missing and ignored, each list in pod
// order (upstream groupPods):
//   - deleting or Failed pods are ignored;
//   - Pending pods are unready;
//   - pods without a metric are missing;
//   - for cpu only: a pod with no Ready condition or no start time is unready; within
//     cpuInitializationPeriod of its start, it is unready if not Ready or if its metric's
//     timestamp is earlier than one metric window after its last readiness transition; after
//     that period, it is unready only if not Ready and it never became Ready (its readiness
//     last changed within delayOfInitialReadinessStatus of its start).
func groupPods(pods []*model.Pod, podMetrics metrics.PodMetricsInfo, resourceName string, cpuInitializationPeriod, delayOfInitialReadinessStatus time.Duration, now vtime.Time) (readyPodCount int, unreadyPods, missingPods, ignoredPods []string) {
	for _, pod := range pods {
		if pod.DeletionTimestamp != nil || pod.Status.Phase == model.PodFailed {
			ignoredPods = append(ignoredPods, pod.Name)
			continue
		}
		if pod.Status.Phase == model.PodPending {
			unreadyPods = append(unreadyPods, pod.Name)
			continue
		}
		metric, found := podMetrics[pod.Name]
		if !found {
			missingPods = append(missingPods, pod.Name)
			continue
		}
		if resourceName == model.ResourceCPU {
			var unready bool
			condition := model.GetPodReadyCondition(pod)
			if condition == nil || pod.Status.StartTime == nil {
				unready = true
			} else if pod.Status.StartTime.Add(cpuInitializationPeriod).After(now) {
				unready = condition.Status == model.ConditionFalse || metric.Timestamp.Before(condition.LastTransitionTime.Add(metric.Window))
			} else {
				unready = condition.Status == model.ConditionFalse && pod.Status.StartTime.Add(delayOfInitialReadinessStatus).After(condition.LastTransitionTime)
			}
			if unready {
				unreadyPods = append(unreadyPods, pod.Name)
				continue
			}
		}
		readyPodCount++
	}
	return readyPodCount, unreadyPods, missingPods, ignoredPods
}

// calculateRequests returns every pod's request of resourceName in milli-units: the named
// container's, or the sum over its containers (upstream calculatePodRequestsFromContainers; the
// model has neither restartable init containers nor pod-level resources). A container
// without the request, or a pod without the named container, is an error.
func calculateRequests(pods []*model.Pod, container string, resourceName string) (map[string]int64, error) {
	requests := make(map[string]int64, len(pods))
	for _, pod := range pods {
		var request int64
		found := false
		for _, c := range pod.Spec.Containers {
			if container != "" && container != c.Name {
				continue
			}
			q, ok := c.Resources.Requests[resourceName]
			if !ok {
				return nil, fmt.Errorf("missing request for %s in container %s of Pod %s", resourceName, c.Name, pod.Name)
			}
			request += q.MilliValue()
			if container != "" {
				found = true
				break
			}
		}
		if container != "" && !found {
			return nil, fmt.Errorf("container %s not found in Pod %s", container, pod.Name)
		}
		requests[pod.Name] = request
	}
	return requests, nil
}

func removeMetricsForPods(podMetrics metrics.PodMetricsInfo, pods []string) {
	for _, name := range pods {
		delete(podMetrics, name)
	}
}
