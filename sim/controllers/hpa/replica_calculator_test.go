package hpa

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim/metrics"
	"github.com/reconsim/reconsim/vtime"
)

// The harness follows upstream replica_calculator_test.go (docs/upstream.md#hpa-test-vectors, "HPA test
// vectors"): every pod has numContainersPerPod containers; requests and levels are per
// container, so a pod requests and uses twice the figure; metrics are 1 minute windows taken
// now; the cpu initialization period is 2 minutes and the initial readiness delay 10s; a pod
// is Running and Ready with its readiness transition at its start time, which is 0 unless given
// (hot: started now; cool: three minutes ago).
const (
	numContainersPerPod                             = 2
	testingCPUInitializationPeriod                  = 2 * time.Minute
	testingDelayOfInitialReadinessStatus            = 10 * time.Second
	testingMetricWindow                             = time.Minute
	testNamespace                                   = "test-namespace"
	testNow                              vtime.Time = vtime.Time(time.Hour)
	hot                                             = testNow
	cool                                            = testNow - vtime.Time(3*time.Minute)
)

var defaultTolerances = Tolerances{ScaleDown: 0.1, ScaleUp: 0.1}

var testSelector = labels.SelectorFromSet(labels.Set{"name": "test-pod"})

// fakeMetrics is a MetricsClient over fixed values.
type fakeMetrics struct {
	containers map[string][]int64 // per pod, per container milli-units (resource metrics)
	raw        map[string]int64   // Pods metric per pod
	object     *int64
	external   []int64
	err        error
	timestamp  vtime.Time
}

func (f *fakeMetrics) GetResourceMetric(_ context.Context, _ string, _ string, _ labels.Selector, container string) (metrics.PodMetricsInfo, vtime.Time, error) {
	if f.err != nil {
		return nil, 0, f.err
	}
	if len(f.containers) == 0 {
		return nil, 0, errors.New("no metrics returned from resource metrics API")
	}
	res := metrics.PodMetricsInfo{}
	for pod, levels := range f.containers {
		var v int64
		for i, l := range levels {
			if container == "" || container == fmt.Sprintf("container%d", i+1) {
				v += l
			}
		}
		res[pod] = metrics.PodMetric{Timestamp: f.timestamp, Window: testingMetricWindow, Value: v}
	}
	return res, f.timestamp, nil
}

func (f *fakeMetrics) GetRawMetric(_ context.Context, _ string, _ string, _ labels.Selector, _ labels.Selector) (metrics.PodMetricsInfo, vtime.Time, error) {
	if f.err != nil {
		return nil, 0, f.err
	}
	res := metrics.PodMetricsInfo{}
	for pod, v := range f.raw {
		res[pod] = metrics.PodMetric{Timestamp: f.timestamp, Window: testingMetricWindow, Value: v}
	}
	return res, f.timestamp, nil
}

func (f *fakeMetrics) GetObjectMetric(_ context.Context, _ string, _ string, _ *model.CrossVersionObjectReference, _ labels.Selector) (int64, vtime.Time, error) {
	if f.err != nil || f.object == nil {
		return 0, 0, errors.New("no object metric")
	}
	return *f.object, f.timestamp, nil
}

func (f *fakeMetrics) GetExternalMetric(_ context.Context, _ string, _ string, _ labels.Selector) ([]int64, vtime.Time, error) {
	if f.err != nil || len(f.external) == 0 {
		return nil, 0, errors.New("no metrics returned from external metrics API")
	}
	return append([]int64(nil), f.external...), f.timestamp, nil
}

// staticPods is a PodLister over a fixed list.
type staticPods []*model.Pod

func (s staticPods) ListPods(string, labels.Selector) ([]*model.Pod, error) { return s, nil }

type resourceInfo struct {
	name      string   // "cpu" unless set
	requests  []string // per container; one entry applies to every pod
	levels    []int64  // per container, per pod; pods past the end have no metrics
	container string   // a ContainerResource metric of this container

	targetUtilization int32
	targetValue       int64 // an AverageValue target (milli-units per pod)

	expectedUtilization int32
	expectedValue       int64
}

type metricInfo struct {
	kind          string  // pods, object, objectPerPod, external, externalPerPod
	levels        []int64 // pods: per pod; object: one value; external: one per series
	target        int64
	expectedUsage int64
}

type calcCase struct {
	name             string
	currentReplicas  int32
	podPhase         []string
	podReadiness     []model.ConditionStatus
	podStartTime     []vtime.Time
	podDeletion      []bool
	tolerances       *Tolerances
	resource         *resourceInfo
	metric           *metricInfo
	expectedReplicas int32
	expectedErr      string
}

func (tc *calcCase) pods() staticPods {
	n := int(tc.currentReplicas)
	if tc.podPhase != nil {
		n = len(tc.podPhase)
	}
	var pods staticPods
	for i := 0; i < n; i++ {
		phase := model.PodRunning
		if tc.podPhase != nil {
			phase = tc.podPhase[i]
		}
		ready := model.ConditionTrue
		if i < len(tc.podReadiness) {
			ready = tc.podReadiness[i]
		}
		start := vtime.Time(0)
		if i < len(tc.podStartTime) {
			start = tc.podStartTime[i]
		}
		pod := &model.Pod{
			ObjectMeta: model.ObjectMeta{Name: fmt.Sprintf("test-pod-%d", i), Namespace: testNamespace, Labels: map[string]string{"name": "test-pod"}},
			Status: model.PodStatus{
				Phase:      phase,
				StartTime:  model.Ptr(start),
				Conditions: []model.PodCondition{{Type: model.PodReady, Status: ready, LastTransitionTime: start}},
			},
		}
		if i < len(tc.podDeletion) && tc.podDeletion[i] {
			pod.DeletionTimestamp = model.Ptr(testNow - vtime.Time(time.Second))
		}
		for c := 0; c < numContainersPerPod; c++ {
			ctr := model.Container{Name: fmt.Sprintf("container%d", c+1)}
			if tc.resource != nil && len(tc.resource.requests) > 0 {
				req := tc.resource.requests[0]
				if len(tc.resource.requests) > 1 {
					req = tc.resource.requests[i]
				}
				name := tc.resource.name
				if name == "" {
					name = model.ResourceCPU
				}
				ctr.Resources.Requests = model.ResourceList{name: resource.MustParse(req)}
			}
			pod.Spec.Containers = append(pod.Spec.Containers, ctr)
		}
		pods = append(pods, pod)
	}
	return pods
}

func (tc *calcCase) metricsClient() *fakeMetrics {
	f := &fakeMetrics{timestamp: testNow, containers: map[string][]int64{}, raw: map[string]int64{}}
	if r := tc.resource; r != nil {
		for i, l := range r.levels {
			levels := make([]int64, numContainersPerPod)
			for c := range levels {
				levels[c] = l
			}
			f.containers[fmt.Sprintf("test-pod-%d", i)] = levels
		}
	}
	if m := tc.metric; m != nil {
		switch m.kind {
		case "pods":
			for i, l := range m.levels {
				f.raw[fmt.Sprintf("test-pod-%d", i)] = l
			}
		case "object", "objectPerPod":
			f.object = model.Ptr(m.levels[0])
		case "external", "externalPerPod":
			f.external = m.levels
		}
	}
	return f
}

func (tc *calcCase) run(t *testing.T) {
	t.Helper()
	calc := NewReplicaCalculator(tc.metricsClient(), tc.pods(), testingCPUInitializationPeriod, testingDelayOfInitialReadinessStatus, func() vtime.Time { return testNow })
	tol := defaultTolerances
	if tc.tolerances != nil {
		tol = *tc.tolerances
	}
	ctx := context.Background()
	ref := &model.CrossVersionObjectReference{Kind: "Deployment", Name: "some-deployment", APIVersion: "apps/v1"}
	var (
		replicas int32
		usage    int64
		util     int32
		err      error
	)
	switch {
	case tc.resource != nil && tc.resource.targetValue > 0:
		name := tc.resource.name
		if name == "" {
			name = model.ResourceCPU
		}
		replicas, usage, _, err = calc.GetRawResourceReplicas(ctx, tc.currentReplicas, tc.resource.targetValue, name, tol, testNamespace, testSelector, tc.resource.container)
	case tc.resource != nil:
		name := tc.resource.name
		if name == "" {
			name = model.ResourceCPU
		}
		replicas, util, usage, _, err = calc.GetResourceReplicas(ctx, tc.currentReplicas, tc.resource.targetUtilization, name, tol, testNamespace, testSelector, tc.resource.container)
	case tc.metric.kind == "pods":
		replicas, usage, _, err = calc.GetMetricReplicas(ctx, tc.currentReplicas, tc.metric.target, "qps", tol, testNamespace, testSelector, labels.Everything())
	case tc.metric.kind == "object":
		replicas, usage, _, err = calc.GetObjectMetricReplicas(ctx, tc.currentReplicas, tc.metric.target, "qps", tol, testNamespace, ref, testSelector, labels.Everything())
	case tc.metric.kind == "objectPerPod":
		replicas, usage, _, err = calc.GetObjectPerPodMetricReplicas(ctx, tc.currentReplicas, tc.metric.target, "qps", tol, testNamespace, ref, labels.Everything())
	case tc.metric.kind == "external":
		replicas, usage, _, err = calc.GetExternalMetricReplicas(ctx, tc.currentReplicas, tc.metric.target, "qps", tol, testNamespace, &metav1.LabelSelector{MatchLabels: map[string]string{"label": "value"}}, testSelector)
	case tc.metric.kind == "externalPerPod":
		replicas, usage, _, err = calc.GetExternalPerPodMetricReplicas(ctx, tc.currentReplicas, tc.metric.target, "qps", tol, testNamespace, &metav1.LabelSelector{MatchLabels: map[string]string{"label": "value"}})
	default:
		t.Fatalf("bad test case %q", tc.name)
	}
	if tc.expectedErr != "" {
		require.Error(t, err)
		assert.Contains(t, err.Error(), tc.expectedErr)
		return
	}
	require.NoError(t, err)
	assert.Equal(t, tc.expectedReplicas, replicas, "replicas")
	if tc.resource != nil {
		if tc.resource.targetValue == 0 {
			assert.Equal(t, tc.resource.expectedUtilization, util, "utilization")
		}
		assert.Equal(t, tc.resource.expectedValue, usage, "raw value")
	} else {
		assert.Equal(t, tc.metric.expectedUsage, usage, "usage")
	}
}

func TestReplicaCalculator(t *testing.T) {
	f, tr := model.ConditionFalse, model.ConditionTrue
	for _, tc := range []calcCase{
		{
			// Upstream vector #1. Requests 2x1000m per pod = 6000m; usage 2x(300+500+700) =
			// 3000m; utilization 3000*100/6000 = 50; ratio 50/30 = 1.667; ceil(1.667*3) = 5.
			// Raw average 3000/3 = 1000.
			name: "upstream #1 ScaleUp", currentReplicas: 3, expectedReplicas: 5,
			resource: &resourceInfo{requests: []string{"1.0"}, levels: []int64{300, 500, 700}, targetUtilization: 30, expectedUtilization: 50, expectedValue: 1000},
		},
		{
			// Pod 0 is not Ready and never was (transition at its start, within 10s): unready.
			// Ready pods: 2x(500+700) = 2400m of 4000m = 60%; ratio 2 > 1 with an unready pod,
			// so it counts as 0: 2400*100/6000 = 40; 40/30 = 1.333; ceil(1.333*3) = 4.
			name: "scale up, unready pod counts as idle", currentReplicas: 3, expectedReplicas: 4,
			podReadiness: []model.ConditionStatus{f, tr, tr},
			resource:     &resourceInfo{requests: []string{"1.0"}, levels: []int64{300, 500, 700}, targetUtilization: 30, expectedUtilization: 60, expectedValue: 1200},
		},
		{
			// Pod 0 started now (hot): inside the 2m cpu initialization period its sample (taken
			// now) is less than one 1m window after its readiness transition (now), so it is
			// unready. As above: 60% seen, 4 replicas.
			name: "scale up, hot cpu pod counts as idle", currentReplicas: 3, expectedReplicas: 4,
			podStartTime: []vtime.Time{hot, cool, cool},
			resource:     &resourceInfo{requests: []string{"1.0"}, levels: []int64{300, 500, 700}, targetUtilization: 30, expectedUtilization: 60, expectedValue: 1200},
		},
		{
			// Pods 0 and 2 unready (not Ready; pod 2 also hot). Ready pod 1: 1000/2000 = 50%,
			// ratio 1.667 > 1 with unready pods; counting them as 0: 1000*100/6000 = 16 (16.67
			// truncated); 16/30 = 0.533 < 1: the direction flipped, so stay at 3.
			name: "direction flip with unready pods", currentReplicas: 3, expectedReplicas: 3,
			podReadiness: []model.ConditionStatus{f, tr, f}, podStartTime: []vtime.Time{hot, cool, hot},
			resource: &resourceInfo{requests: []string{"1.0"}, levels: []int64{300, 500, 700}, targetUtilization: 30, expectedUtilization: 50, expectedValue: 1000},
		},
		{
			// Upstream vector #13. Usage 2x(100+300+500+250+250) = 2800m of 10000m = 28%;
			// 28/50 = 0.56; ceil(0.56*5) = ceil(2.8) = 3. Raw 2800/5 = 560.
			name: "upstream #13 ScaleDown", currentReplicas: 5, expectedReplicas: 3,
			resource: &resourceInfo{requests: []string{"1.0"}, levels: []int64{100, 300, 500, 250, 250}, targetUtilization: 50, expectedUtilization: 28, expectedValue: 560},
		},
		{
			// Pods 3 and 4 never became Ready: dropped. 2x(100+300+500) = 1800m of 6000m = 30%;
			// 30/50 = 0.6 (scale-down: unready pods do not count); ceil(0.6*3) = ceil(1.8) = 2.
			// Raw 1800/3 = 600.
			name: "scale down ignores unready pods", currentReplicas: 5, expectedReplicas: 2,
			podReadiness: []model.ConditionStatus{tr, tr, tr, f, f},
			resource:     &resourceInfo{requests: []string{"1.0"}, levels: []int64{100, 300, 500, 250, 250}, targetUtilization: 50, expectedUtilization: 30, expectedValue: 600},
		},
		{
			// Pods 3 and 4 are being deleted: ignored. Same arithmetic as above: 2.
			name: "scale down ignores deleting pods", currentReplicas: 5, expectedReplicas: 2,
			podDeletion: []bool{false, false, false, true, true},
			resource:    &resourceInfo{requests: []string{"1.0"}, levels: []int64{100, 300, 500, 250, 250}, targetUtilization: 50, expectedUtilization: 30, expectedValue: 600},
		},
		{
			// Pods 2 and 3 Failed: ignored. 2x(500+700) = 2400m of 4000m = 60%; 60/30 = 2;
			// ceil(2*2) = 4 (no unready or missing pod, so the ready count is used).
			name: "scale up ignores failed pods", currentReplicas: 2, expectedReplicas: 4,
			podPhase: []string{model.PodRunning, model.PodRunning, model.PodFailed, model.PodFailed},
			resource: &resourceInfo{requests: []string{"1.0"}, levels: []int64{500, 700, 100, 100}, targetUtilization: 30, expectedUtilization: 60, expectedValue: 1200},
		},
		{
			// Upstream vector #21. Requests 2x(900+1000+1100) = 6000m; usage 2x(1010+1030+1020)
			// = 6120m; 612000/6000 = 102%; 1.02 is within [0.9, 1.1]: stay at 3.
			name: "upstream #21 Tolerance", currentReplicas: 3, expectedReplicas: 3,
			resource: &resourceInfo{requests: []string{"0.9", "1.0", "1.1"}, levels: []int64{1010, 1030, 1020}, targetUtilization: 100, expectedUtilization: 102, expectedValue: 2040},
		},
		{
			// 2x1150x3 = 6900m of 6000m = 115%: above the default 10% tolerance, ceil(1.15*3) =
			// ceil(3.45) = 4.
			name: "outside the default tolerance", currentReplicas: 3, expectedReplicas: 4,
			resource: &resourceInfo{requests: []string{"1.0"}, levels: []int64{1150, 1150, 1150}, targetUtilization: 100, expectedUtilization: 115, expectedValue: 2300},
		},
		{
			// The same 115% with a 20% scale-up tolerance: 1.15 <= 1.2, stay at 3.
			name: "inside a larger scale-up tolerance", currentReplicas: 3, expectedReplicas: 3,
			tolerances: &Tolerances{ScaleDown: 0.1, ScaleUp: 0.2},
			resource:   &resourceInfo{requests: []string{"1.0"}, levels: []int64{1150, 1150, 1150}, targetUtilization: 100, expectedUtilization: 115, expectedValue: 2300},
		},
		{
			// 2x800x5 = 8000m of 10000m = 80%: with a 25% scale-down tolerance 0.8 >= 0.75 is
			// inside it, so stay at 5.
			name: "inside a larger scale-down tolerance", currentReplicas: 5, expectedReplicas: 5,
			tolerances: &Tolerances{ScaleDown: 0.25, ScaleUp: 0.1},
			resource:   &resourceInfo{requests: []string{"1.0"}, levels: []int64{800, 800, 800, 800, 800}, targetUtilization: 100, expectedUtilization: 80, expectedValue: 1600},
		},
		{
			// As above with the default tolerance: ceil(0.8*5) = 4.
			name: "outside the default scale-down tolerance", currentReplicas: 5, expectedReplicas: 4,
			resource: &resourceInfo{requests: []string{"1.0"}, levels: []int64{800, 800, 800, 800, 800}, targetUtilization: 100, expectedUtilization: 80, expectedValue: 1600},
		},
		{
			// Upstream vector #25. Pods 2 and 3 have no metrics. Seen: 2x(400+95) = 990m of
			// 4000m = 24% (24.75 truncated), raw 990/2 = 495. Scale-down: the missing pods count
			// at 100% of their 2000m: (990+4000)*100/8000 = 62; 0.62; ceil(0.62*4) = ceil(2.48) = 3.
			name: "upstream #25 MissingMetrics (scale down)", currentReplicas: 4, expectedReplicas: 3,
			resource: &resourceInfo{requests: []string{"1.0"}, levels: []int64{400, 95}, targetUtilization: 100, expectedUtilization: 24, expectedValue: 495},
		},
		{
			// Missing pods on a scale-down with a target above 100% count at the target:
			// seen 2x(100+100) = 400m of 4000m = 10%; missing at 2000*150/100 = 3000m each:
			// (400+6000)*100/8000 = 80; 80/150 = 0.533; ceil(0.533*4) = ceil(2.13) = 3. (At
			// 100% of the request it would be 55%, 0.367, ceil(1.47) = 2.)
			name: "missing metrics down, target above 100%", currentReplicas: 4, expectedReplicas: 3,
			resource: &resourceInfo{requests: []string{"1.0"}, levels: []int64{100, 100}, targetUtilization: 150, expectedUtilization: 10, expectedValue: 200},
		},
		{
			// Missing pods on a scale-up count as 0: seen 2x(1500+1500) = 6000m of 4000m = 150%;
			// with the two missing pods: 6000*100/8000 = 75; 75/50 = 1.5; ceil(1.5*4) = 6.
			name: "missing metrics up", currentReplicas: 4, expectedReplicas: 6,
			resource: &resourceInfo{requests: []string{"1.0"}, levels: []int64{1500, 1500}, targetUtilization: 50, expectedUtilization: 150, expectedValue: 3000},
		},
		{
			// Seen 2x(1150+1150) = 4600m of 4000m = 115%, ratio 1.15 > 1; the missing pods at 0:
			// 4600*100/8000 = 57; 0.57 < 1: the direction flipped, so stay at 4.
			name: "direction flip with missing metrics", currentReplicas: 4, expectedReplicas: 4,
			resource: &resourceInfo{requests: []string{"1.0"}, levels: []int64{1150, 1150}, targetUtilization: 100, expectedUtilization: 115, expectedValue: 2300},
		},
		{
			// 8 pods: 0-3 with metrics, 4 missing, 5-7 deleting (ignored). Seen 2x1500x4 =
			// 12000m of 8000m = 150%; missing at 0: 12000*100/10000 = 120; 1.2;
			// ceil(1.2*5) = 6 < 8 current although the ratio says up: stay at 8.
			name: "new count against the ratio's direction", currentReplicas: 8, expectedReplicas: 8,
			podDeletion: []bool{false, false, false, false, false, true, true, true},
			resource:    &resourceInfo{requests: []string{"1.0"}, levels: []int64{1500, 1500, 1500, 1500}, targetUtilization: 100, expectedUtilization: 150, expectedValue: 3000},
		},
		{
			// Average value target: raw average 2x(300+500+700)/3 = 1000m; 1000/500 = 2;
			// ceil(2*3) = 6.
			name: "raw resource average value", currentReplicas: 3, expectedReplicas: 6,
			resource: &resourceInfo{requests: []string{"1.0"}, levels: []int64{300, 500, 700}, targetValue: 500, expectedValue: 1000},
		},
		{
			// One container's utilization: container2 uses 300+500+700 = 1500m of 3000m = 50%;
			// 50/30 = 1.667; ceil(5.0) = 5; raw 1500/3 = 500.
			name: "container resource", currentReplicas: 3, expectedReplicas: 5,
			resource: &resourceInfo{requests: []string{"1.0"}, levels: []int64{300, 500, 700}, container: "container2", targetUtilization: 30, expectedUtilization: 50, expectedValue: 500},
		},
		{
			// Memory: not-Ready pods are not unready for anything but cpu, so pod 0 counts.
			// 2x(300+500+700) = 3000 of 6000 = 50%; 50/30; ceil(5.0) = 5.
			name: "memory ignores readiness", currentReplicas: 3, expectedReplicas: 5,
			podReadiness: []model.ConditionStatus{f, tr, tr},
			resource:     &resourceInfo{name: model.ResourceMemory, requests: []string{"1"}, levels: []int64{300, 500, 700}, targetUtilization: 30, expectedUtilization: 50, expectedValue: 1000},
		},
		{
			// Upstream vector #6: Pods metric, average (20000+10000+30000)/3 = 20000;
			// 20000/15000 = 1.333; ceil(1.333*3) = 4.
			name: "upstream #6 ScaleUpCM (Pods metric)", currentReplicas: 3, expectedReplicas: 4,
			metric: &metricInfo{kind: "pods", levels: []int64{20000, 10000, 30000}, target: 15000, expectedUsage: 20000},
		},
		{
			// Pods metric, missing on a scale-down count at the target: seen (5000+5000)/2 =
			// 5000, 0.333; with pods 2, 3 at 15000: 40000/4 = 10000; 0.667; ceil(2.67) = 3.
			name: "Pods metric, missing metrics down", currentReplicas: 4, expectedReplicas: 3,
			metric: &metricInfo{kind: "pods", levels: []int64{5000, 5000}, target: 15000, expectedUsage: 5000},
		},
		{
			// Pods metric, a Pending pod is unready: seen (30000+30000)/2 = 30000, ratio 2 with
			// an unready pod, which counts as 0: 60000/3 = 20000; 1.333; ceil(4.0) = 4.
			name: "Pods metric, pending pod on a scale-up", currentReplicas: 3, expectedReplicas: 4,
			podPhase: []string{model.PodPending, model.PodRunning, model.PodRunning},
			metric:   &metricInfo{kind: "pods", levels: []int64{0, 30000, 30000}, target: 15000, expectedUsage: 30000},
		},
		{
			// Object value: 20000/15000 = 1.333; 3 Running and Ready pods; ceil(4.0) = 4.
			name: "Object metric", currentReplicas: 3, expectedReplicas: 4,
			metric: &metricInfo{kind: "object", levels: []int64{20000}, target: 15000, expectedUsage: 20000},
		},
		{
			// Only Running and Ready pods count: pod 0 not Ready, so ceil(1.333*2) =
			// ceil(2.67) = 3.
			name: "Object metric counts ready pods", currentReplicas: 3, expectedReplicas: 3,
			podReadiness: []model.ConditionStatus{f, tr, tr},
			metric:       &metricInfo{kind: "object", levels: []int64{20000}, target: 15000, expectedUsage: 20000},
		},
		{
			// From zero replicas: ceil(ratio) = ceil(1.333) = 2, no tolerance.
			name: "Object metric from zero", currentReplicas: 0, expectedReplicas: 2,
			podPhase: []string{},
			metric:   &metricInfo{kind: "object", levels: []int64{20000}, target: 15000, expectedUsage: 20000},
		},
		{
			// Object per pod: 20000/(5000*3) = 1.333 outside the tolerance: ceil(20000/5000) =
			// 4; usage ceil(20000/3) = 6667.
			name: "Object metric, average value target", currentReplicas: 3, expectedReplicas: 4,
			metric: &metricInfo{kind: "objectPerPod", levels: []int64{20000}, target: 5000, expectedUsage: 6667},
		},
		{
			// Object per pod inside the tolerance: 15500/(5000*3) = 1.033: stay at 3; usage
			// ceil(15500/3) = 5167.
			name: "Object metric, average value within tolerance", currentReplicas: 3, expectedReplicas: 3,
			metric: &metricInfo{kind: "objectPerPod", levels: []int64{15500}, target: 5000, expectedUsage: 5167},
		},
		{
			// External value, two series summed: 4000+4600 = 8600; 8600/4400 = 1.955; one ready
			// pod; ceil(1.955) = 2.
			name: "External metric", currentReplicas: 1, expectedReplicas: 2,
			metric: &metricInfo{kind: "external", levels: []int64{4000, 4600}, target: 4400, expectedUsage: 8600},
		},
		{
			// External scale-down: 8600/14334 = 0.6; ceil(0.6*5) = 3.
			name: "External metric, scale down", currentReplicas: 5, expectedReplicas: 3,
			metric: &metricInfo{kind: "external", levels: []int64{8600}, target: 14334, expectedUsage: 8600},
		},
		{
			// External per pod: 8600/(2150*3) = 1.333: ceil(8600/2150) = 4; usage
			// ceil(8600/3) = 2867.
			name: "External metric, average value target", currentReplicas: 3, expectedReplicas: 4,
			metric: &metricInfo{kind: "externalPerPod", levels: []int64{8600}, target: 2150, expectedUsage: 2867},
		},
		{
			name: "no pods", currentReplicas: 0, podPhase: []string{},
			resource:    &resourceInfo{requests: []string{"1.0"}, levels: []int64{300}, targetUtilization: 30},
			expectedErr: "no pods returned by selector while calculating replica count",
		},
		{
			name: "all pods unready", currentReplicas: 2,
			podReadiness: []model.ConditionStatus{f, f},
			resource:     &resourceInfo{requests: []string{"1.0"}, levels: []int64{300, 300}, targetUtilization: 30},
			expectedErr:  "did not receive metrics for targeted pods (pods might be unready)",
		},
		{
			name: "missing request", currentReplicas: 2,
			resource:    &resourceInfo{levels: []int64{300, 300}, targetUtilization: 30},
			expectedErr: "missing request for cpu in container container1 of Pod test-pod-0",
		},
	} {
		t.Run(tc.name, tc.run)
	}
}

func TestReplicaCalculatorMetricsError(t *testing.T) {
	tc := calcCase{currentReplicas: 1, resource: &resourceInfo{requests: []string{"1"}, levels: []int64{1}, targetUtilization: 50}}
	mc := tc.metricsClient()
	mc.err = errors.New("boom")
	calc := NewReplicaCalculator(mc, tc.pods(), time.Minute, time.Second, func() vtime.Time { return testNow })
	_, _, _, _, err := calc.GetResourceReplicas(context.Background(), 1, 50, model.ResourceCPU, defaultTolerances, testNamespace, testSelector, "")
	require.EqualError(t, err, "unable to get metrics for resource cpu: boom")
}

// TestGroupPods checks each readiness rule of groupPods with the default flags (5m cpu
// initialization period, 30s initial readiness delay) at now = 1h.
func TestGroupPods(t *testing.T) {
	now := vtime.Time(time.Hour)
	at := func(d time.Duration) *vtime.Time { return model.Ptr(now.Add(d)) }
	type podCase struct {
		name      string
		phase     string
		deleting  bool
		start     *vtime.Time
		ready     *model.PodCondition
		noMetric  bool
		resource  string
		wantGroup string // ready, unready, missing, ignored
	}
	cond := func(s model.ConditionStatus, transition time.Duration) *model.PodCondition {
		return &model.PodCondition{Type: model.PodReady, Status: s, LastTransitionTime: now.Add(transition)}
	}
	// Metrics are taken now over a 1m window.
	for _, tc := range []podCase{
		{name: "deleting", deleting: true, start: at(-time.Hour), ready: cond(model.ConditionTrue, -time.Hour), wantGroup: "ignored"},
		{name: "failed", phase: model.PodFailed, start: at(-time.Hour), wantGroup: "ignored"},
		{name: "pending", phase: model.PodPending, wantGroup: "unready"},
		{name: "no metric", start: at(-time.Hour), ready: cond(model.ConditionTrue, -time.Hour), noMetric: true, wantGroup: "missing"},
		{name: "no ready condition", start: at(-time.Hour), wantGroup: "unready"},
		{name: "no start time", ready: cond(model.ConditionTrue, -time.Hour), wantGroup: "unready"},
		// Started 2m ago (inside 5m): ready 30s ago, so the 1m sample (ending now) does not
		// end a full window after the transition: unready.
		{name: "init period, sample too early", start: at(-2 * time.Minute), ready: cond(model.ConditionTrue, -30*time.Second), wantGroup: "unready"},
		// Ready 90s ago: now >= transition + 1m window: counts.
		{name: "init period, sample after a window", start: at(-2 * time.Minute), ready: cond(model.ConditionTrue, -90*time.Second), wantGroup: "ready"},
		{name: "init period, not ready", start: at(-2 * time.Minute), ready: cond(model.ConditionFalse, -2*time.Minute), wantGroup: "unready"},
		// Started 10m ago (past 5m), not Ready since 20s after its start: it never became
		// Ready (start + 30s > transition): unready.
		{name: "after init, never ready", start: at(-10 * time.Minute), ready: cond(model.ConditionFalse, -10*time.Minute+20*time.Second), wantGroup: "unready"},
		// Not Ready since 1m ago, long after start + 30s: it was Ready before, counts.
		{name: "after init, became unready later", start: at(-10 * time.Minute), ready: cond(model.ConditionFalse, -time.Minute), wantGroup: "ready"},
		{name: "after init, ready", start: at(-10 * time.Minute), ready: cond(model.ConditionTrue, -9*time.Minute), wantGroup: "ready"},
		{name: "memory ignores readiness", resource: model.ResourceMemory, start: at(-2 * time.Minute), ready: cond(model.ConditionFalse, -time.Minute), wantGroup: "ready"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pod := &model.Pod{ObjectMeta: model.ObjectMeta{Name: "p"}, Status: model.PodStatus{Phase: model.PodRunning, StartTime: tc.start}}
			if tc.phase != "" {
				pod.Status.Phase = tc.phase
			}
			if tc.deleting {
				pod.DeletionTimestamp = at(-time.Second)
			}
			if tc.ready != nil {
				pod.Status.Conditions = []model.PodCondition{*tc.ready}
			}
			pm := metrics.PodMetricsInfo{}
			if !tc.noMetric {
				pm["p"] = metrics.PodMetric{Timestamp: now, Window: time.Minute, Value: 100}
			}
			res := tc.resource
			if res == "" {
				res = model.ResourceCPU
			}
			ready, unready, missing, ignored := groupPods([]*model.Pod{pod}, pm, res, 5*time.Minute, 30*time.Second, now)
			got := map[string]int{"ready": ready, "unready": len(unready), "missing": len(missing), "ignored": len(ignored)}
			for group, n := range got {
				want := 0
				if group == tc.wantGroup {
					want = 1
				}
				assert.Equal(t, want, n, group)
			}
		})
	}
}

func TestTolerancesString(t *testing.T) {
	assert.Equal(t, "[down:10.0%, up:25.0%]", Tolerances{ScaleDown: 0.1, ScaleUp: 0.25}.String())
	assert.True(t, Tolerances{0.1, 0.1}.isWithin(0.95))
	assert.False(t, Tolerances{0.1, 0.1}.isWithin(1.2))
}
