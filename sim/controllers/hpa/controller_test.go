package hpa

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim"
	"github.com/reconsim/reconsim/sim/apiserver"
	"github.com/reconsim/reconsim/sim/client"
	"github.com/reconsim/reconsim/sim/client/record"
	"github.com/reconsim/reconsim/vtime"
)

// cworld is the API server and the HPA controller alone, with fixed metrics: a ReplicaSet
// "web" (nobody creates its pods; the test creates Running, Ready pods directly) and HPAs the
// test writes. The first reconcile of an HPA created at time t comes at t+15s.
type cworld struct {
	t     *testing.T
	k     *sim.Kernel
	store *apiserver.Store
	sink  *record.FakeSink
	hpa   *Controller
}

// The world starts at 10m so that the pods, Ready since 0, are past the cpu initialization
// period; fake metrics are stamped 10m (more than a 1m window after the readiness transition).
const cworldStart = 10 * time.Minute

func newCWorld(t *testing.T, mc *fakeMetrics, rsReplicas int32, podLevels []int64) *cworld {
	k := sim.New(1)
	k.After(cworldStart, func() {})
	k.Run(sim.Limits{})
	srv := apiserver.NewServer(k, apiserver.DefaultConfig())
	w := &cworld{t: t, k: k, store: srv.Store(), sink: &record.FakeSink{}}
	mc.timestamp = vtime.FromDuration(cworldStart)
	_, err := w.store.Create(&model.Namespace{ObjectMeta: model.ObjectMeta{Name: testNamespace}})
	require.NoError(t, err)
	_, err = w.store.Create(&model.ReplicaSet{
		ObjectMeta: model.ObjectMeta{Name: "web", Namespace: testNamespace},
		Spec: model.ReplicaSetSpec{
			Replicas: model.Ptr(rsReplicas),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"name": "test-pod"}},
			Template: model.PodTemplateSpec{
				ObjectMeta: model.ObjectMeta{Labels: map[string]string{"name": "test-pod"}},
				Spec:       model.PodSpec{Containers: []model.Container{{Name: "app", Image: "web:1"}}},
			},
		},
	})
	require.NoError(t, err)
	for i := range podLevels {
		w.readyPod(fmt.Sprintf("test-pod-%d", i))
		levels := make([]int64, numContainersPerPod)
		for c := range levels {
			levels[c] = podLevels[i]
		}
		mc.containers[fmt.Sprintf("test-pod-%d", i)] = levels
	}
	c := client.New(srv, Component, client.Config{QPS: 20, Burst: 30})
	f := client.NewSharedInformerFactory(c, 0)
	w.hpa, err = New(k, c, f, record.New(k, w.sink, Component, ""), mc, DefaultConfig())
	require.NoError(t, err)
	f.Start(k)
	w.hpa.Start()
	return w
}

// readyPod creates a pod of web with two containers requesting 1 cpu each, Running and Ready
// since time 0.
func (w *cworld) readyPod(name string) {
	var ctrs []model.Container
	for c := 0; c < numContainersPerPod; c++ {
		ctrs = append(ctrs, model.Container{Name: fmt.Sprintf("container%d", c+1), Image: "web:1",
			Resources: model.ResourceRequirements{Requests: model.ResourceList{model.ResourceCPU: resource.MustParse("1")}}})
	}
	obj, err := w.store.Create(&model.Pod{
		ObjectMeta: model.ObjectMeta{Name: name, Namespace: testNamespace, Labels: map[string]string{"name": "test-pod"}},
		Spec:       model.PodSpec{Containers: ctrs},
	})
	require.NoError(w.t, err)
	p := obj.(*model.Pod).DeepCopy()
	p.Spec.NodeName = "node-0"
	obj, err = w.store.Update(p)
	require.NoError(w.t, err)
	p = obj.(*model.Pod).DeepCopy()
	p.Status.Phase = model.PodRunning
	p.Status.StartTime = model.Ptr(vtime.Time(0))
	p.Status.Conditions = []model.PodCondition{{Type: model.PodReady, Status: model.ConditionTrue}}
	_, err = w.store.UpdateStatus(p)
	require.NoError(w.t, err)
}

func cpuUtilization(target int32) model.MetricSpec {
	return model.MetricSpec{Type: model.ResourceMetricSourceType, Resource: &model.ResourceMetricSource{
		Name: model.ResourceCPU, Target: model.MetricTarget{Type: model.UtilizationMetricType, AverageUtilization: model.Ptr(target)}}}
}

func externalValue(name string, target string) model.MetricSpec {
	q := resource.MustParse(target)
	return model.MetricSpec{Type: model.ExternalMetricSourceType, External: &model.ExternalMetricSource{
		Metric: model.MetricIdentifier{Name: name}, Target: model.MetricTarget{Type: model.ValueMetricType, Value: &q}}}
}

func (w *cworld) createHPA(name string, mutate func(*model.HorizontalPodAutoscaler)) {
	h := &model.HorizontalPodAutoscaler{
		ObjectMeta: model.ObjectMeta{Name: name, Namespace: testNamespace},
		Spec: model.HorizontalPodAutoscalerSpec{
			ScaleTargetRef: model.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "web"},
			MinReplicas:    model.Ptr(int32(1)),
			MaxReplicas:    10,
			Metrics:        []model.MetricSpec{cpuUtilization(30)},
		},
	}
	if mutate != nil {
		mutate(h)
	}
	_, err := w.store.Create(h)
	require.NoError(w.t, err)
}

func (w *cworld) runFor(d time.Duration) {
	out := w.k.Run(sim.Limits{MaxTime: w.k.Now().Add(d)})
	require.NotEqual(w.t, sim.StopError, out.Reason, "%v", out.Err)
}

func (w *cworld) events() []string {
	var out []string
	for _, ev := range w.sink.Events {
		out = append(out, ev.InvolvedObject.Name+" "+ev.Type+" "+ev.Reason+": "+ev.Message)
	}
	return out
}

func (w *cworld) hpaObj(name string) *model.HorizontalPodAutoscaler {
	obj, err := w.store.Get(model.KindHorizontalPodAutoscaler, testNamespace, name)
	require.NoError(w.t, err)
	return obj.(*model.HorizontalPodAutoscaler)
}

func (w *cworld) conditions(name string) []string {
	var out []string
	for _, c := range w.hpaObj(name).Status.Conditions {
		out = append(out, c.Type+"="+string(c.Status)+" "+c.Reason+": "+c.Message)
	}
	return out
}

func (w *cworld) replicas() int32 {
	obj, err := w.store.Get(model.KindReplicaSet, testNamespace, "web")
	require.NoError(w.t, err)
	return *obj.(*model.ReplicaSet).Spec.Replicas
}

func TestReconcileAutoscaler(t *testing.T) {
	const validMetric = "ScalingActive=True ValidMetricFound: the HPA was able to successfully calculate a replica count from cpu resource utilization (percentage of request)"
	for _, tc := range []struct {
		name       string
		rsReplicas int32
		levels     []int64
		metricsErr error
		external   []int64
		mutate     func(*model.HorizontalPodAutoscaler)
		wantScale  int32
		events     []string
		conditions []string
	}{
		{
			// Upstream vector #1 through the controller: 3 pods at 50% of a 30% target -> 5.
			name: "scale up", rsReplicas: 3, levels: []int64{300, 500, 700}, wantScale: 5,
			events: []string{"h Normal SuccessfulRescale: New size: 5; reason: cpu resource utilization (percentage of request) above target"},
			conditions: []string{
				"AbleToScale=True SucceededRescale: the HPA controller was able to update the target scale to 5",
				validMetric,
				"ScalingLimited=False DesiredWithinRange: the desired count is within the acceptable range",
			},
		},
		{
			// 3 pods at 200% of a 30% target want ceil(6.67*3) = 20; the legacy limit is
			// max(2*3, 4) = 6.
			name: "legacy scale-up limit", rsReplicas: 3, levels: []int64{1000, 1000, 1000}, wantScale: 6,
			mutate: func(h *model.HorizontalPodAutoscaler) { h.Spec.MaxReplicas = 30 },
			events: []string{"h Normal SuccessfulRescale: New size: 6; reason: cpu resource utilization (percentage of request) above target"},
			conditions: []string{
				"AbleToScale=True SucceededRescale: the HPA controller was able to update the target scale to 6",
				validMetric,
				"ScalingLimited=True ScaleUpLimit: the desired replica count is increasing faster than the maximum scale rate",
			},
		},
		{
			name: "above maxReplicas", rsReplicas: 12, levels: []int64{300}, wantScale: 10,
			events:     []string{"h Normal SuccessfulRescale: New size: 10; reason: Current number of replicas above Spec.MaxReplicas"},
			conditions: []string{"AbleToScale=True SucceededRescale: the HPA controller was able to update the target scale to 10"},
		},
		{
			name: "below minReplicas", rsReplicas: 1, levels: []int64{300}, wantScale: 2,
			mutate:     func(h *model.HorizontalPodAutoscaler) { h.Spec.MinReplicas = model.Ptr(int32(2)) },
			events:     []string{"h Normal SuccessfulRescale: New size: 2; reason: Current number of replicas below Spec.MinReplicas"},
			conditions: []string{"AbleToScale=True SucceededRescale: the HPA controller was able to update the target scale to 2"},
		},
		{
			name: "target scaled to zero", rsReplicas: 0, wantScale: 0,
			conditions: []string{
				"AbleToScale=True SucceededGetScale: the HPA controller was able to get the target's current scale",
				"ScalingActive=False ScalingDisabled: scaling is disabled since the replica count of the target is zero",
			},
		},
		{
			name: "missing target", rsReplicas: 3, levels: []int64{300, 500, 700}, wantScale: 3,
			mutate:     func(h *model.HorizontalPodAutoscaler) { h.Spec.ScaleTargetRef.Name = "nope" },
			events:     []string{`h Warning FailedGetScale: replicasets.apps "nope" not found`},
			conditions: []string{`AbleToScale=False FailedGetScale: the HPA controller was unable to get the target's current scale: replicasets.apps "nope" not found`},
		},
		{
			name: "kind without a scale subresource", rsReplicas: 3, levels: []int64{300, 500, 700}, wantScale: 3,
			mutate: func(h *model.HorizontalPodAutoscaler) {
				h.Spec.ScaleTargetRef = model.CrossVersionObjectReference{APIVersion: "batch/v1", Kind: "CronJob", Name: "web"}
			},
			events:     []string{`h Warning FailedGetScale: no matches for kind "CronJob" in group "batch"`},
			conditions: []string{`AbleToScale=False FailedGetScale: the HPA controller was unable to get the target's current scale: no matches for kind "CronJob" in group "batch"`},
		},
		{
			name: "metrics unavailable", rsReplicas: 3, levels: []int64{300, 500, 700}, metricsErr: fmt.Errorf("boom"), wantScale: 3,
			events: []string{
				"h Warning FailedGetResourceMetric: failed to get cpu utilization: unable to get metrics for resource cpu: boom",
				"h Warning FailedComputeMetricsReplicas: invalid metrics (1 invalid out of 1), first error is: failed to get cpu resource metric value: failed to get cpu utilization: unable to get metrics for resource cpu: boom",
			},
			conditions: []string{
				"AbleToScale=True SucceededGetScale: the HPA controller was able to get the target's current scale",
				"ScalingActive=False FailedGetResourceMetric: the HPA was unable to compute the replica count: failed to get cpu utilization: unable to get metrics for resource cpu: boom",
			},
		},
		{
			// cpu says down (28% of 50% over 5 pods -> 3) but the external metric is missing:
			// no scale-down on partial metrics.
			name: "invalid metric blocks a scale-down", rsReplicas: 5, levels: []int64{100, 300, 500, 250, 250}, wantScale: 5,
			mutate: func(h *model.HorizontalPodAutoscaler) {
				h.Spec.Metrics = []model.MetricSpec{cpuUtilization(50), externalValue("queue", "10")}
			},
			events: []string{
				"h Warning FailedGetExternalMetric: unable to get external metric test-namespace/queue/nil: no metrics returned from external metrics API",
				"h Warning FailedComputeMetricsReplicas: invalid metrics (1 invalid out of 2), first error is: failed to get queue external metric value: failed to get external metric queue: unable to get external metric test-namespace/queue/nil: no metrics returned from external metrics API",
			},
			conditions: []string{
				"AbleToScale=True SucceededGetScale: the HPA controller was able to get the target's current scale",
				"ScalingActive=False FailedGetExternalMetric: the HPA was unable to compute the replica count: unable to get external metric test-namespace/queue/nil: no metrics returned from external metrics API",
			},
		},
		{
			// cpu says up (50% of 30% -> 5) and the external metric is missing: scale up on cpu.
			name: "invalid metric does not block a scale-up", rsReplicas: 3, levels: []int64{300, 500, 700}, wantScale: 5,
			mutate: func(h *model.HorizontalPodAutoscaler) {
				h.Spec.Metrics = []model.MetricSpec{cpuUtilization(30), externalValue("queue", "10")}
			},
			events: []string{
				"h Warning FailedGetExternalMetric: unable to get external metric test-namespace/queue/nil: no metrics returned from external metrics API",
				"h Normal SuccessfulRescale: New size: 5; reason: cpu resource utilization (percentage of request) above target",
			},
			conditions: []string{"AbleToScale=True SucceededRescale: the HPA controller was able to update the target scale to 5", validMetric},
		},
		{
			// The max over metrics: cpu wants 5, the external metric 8600/1000 over 3 ready pods:
			// ceil(8.6*3) = 26, capped by the legacy limit max(6, 4) = 6.
			name: "max over metrics", rsReplicas: 3, levels: []int64{300, 500, 700}, external: []int64{8600}, wantScale: 6,
			mutate: func(h *model.HorizontalPodAutoscaler) {
				h.Spec.MaxReplicas = 30
				h.Spec.Metrics = []model.MetricSpec{cpuUtilization(30), externalValue("queue", "1")}
			},
			events: []string{"h Normal SuccessfulRescale: New size: 6; reason: external metric queue(nil) above target"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mc := &fakeMetrics{containers: map[string][]int64{}, raw: map[string]int64{}, err: tc.metricsErr, external: tc.external}
			w := newCWorld(t, mc, tc.rsReplicas, tc.levels)
			w.createHPA("h", tc.mutate)
			// One reconcile: 15s after the HPA appears.
			w.runFor(20 * time.Second)
			assert.Equal(t, tc.wantScale, w.replicas(), "scale")
			assert.Equal(t, tc.events, w.events())
			for _, c := range tc.conditions {
				assert.Contains(t, w.conditions("h"), c)
			}
			h := w.hpaObj("h")
			if tc.wantScale != tc.rsReplicas {
				require.NotNil(t, h.Status.LastScaleTime)
				assert.Equal(t, tc.wantScale, h.Status.DesiredReplicas)
				assert.Equal(t, tc.rsReplicas, h.Status.CurrentReplicas)
			} else {
				assert.Nil(t, h.Status.LastScaleTime)
			}
		})
	}
}

// The status carries the metric as seen: 50% and an average of 1 core (1000m) per pod.
func TestStatusCurrentMetrics(t *testing.T) {
	mc := &fakeMetrics{containers: map[string][]int64{}, raw: map[string]int64{}}
	w := newCWorld(t, mc, 3, []int64{300, 500, 700})
	w.createHPA("h", nil)
	w.runFor(20 * time.Second)
	h := w.hpaObj("h")
	require.Len(t, h.Status.CurrentMetrics, 1)
	m := h.Status.CurrentMetrics[0]
	require.NotNil(t, m.Resource)
	assert.Equal(t, model.ResourceMetricSourceType, m.Type)
	assert.Equal(t, int32(50), *m.Resource.Current.AverageUtilization)
	assert.Equal(t, int64(1000), m.Resource.Current.AverageValue.MilliValue())
	assert.Equal(t, uint64(1), w.hpa.Stats().ScaleUps)
}

// Two HPAs on the same pods: once both have been reconciled, each sees the other's selector.
func TestAmbiguousSelector(t *testing.T) {
	mc := &fakeMetrics{containers: map[string][]int64{}, raw: map[string]int64{}}
	w := newCWorld(t, mc, 3, []int64{300, 300, 300})
	w.createHPA("a", func(h *model.HorizontalPodAutoscaler) { h.Spec.Metrics = []model.MetricSpec{cpuUtilization(30)} })
	w.createHPA("b", func(h *model.HorizontalPodAutoscaler) { h.Spec.Metrics = []model.MetricSpec{cpuUtilization(30)} })
	w.runFor(35 * time.Second)
	want := "ScalingActive=False AmbiguousSelector: pods by selector name=test-pod are controlled by multiple HPAs: [test-namespace/a test-namespace/b]"
	assert.Contains(t, w.conditions("a"), want)
	assert.Contains(t, w.conditions("b"), want)
}

// An HPA is reconciled once per sync period, and a deleted HPA's state is dropped.
func TestSyncPeriodAndDelete(t *testing.T) {
	mc := &fakeMetrics{containers: map[string][]int64{}, raw: map[string]int64{}}
	w := newCWorld(t, mc, 3, []int64{300, 300, 300})
	w.createHPA("h", nil)
	w.runFor(2*time.Minute + time.Second)
	// Created at 10m; reconciles at ~10m15s, 10m30s, ... 12m: 8 of them.
	assert.InDelta(t, 8, w.hpa.Stats().Reconciles, 1)
	require.NotEmpty(t, w.hpa.recommendations["test-namespace/h"])
	_, err := w.store.Delete(model.KindHorizontalPodAutoscaler, testNamespace, "h", model.DeleteOptions{})
	require.NoError(t, err)
	w.runFor(time.Minute)
	assert.Empty(t, w.hpa.recommendations["test-namespace/h"])
	before := w.hpa.Stats().Reconciles
	w.runFor(time.Minute)
	assert.Equal(t, before, w.hpa.Stats().Reconciles, "no reconciles after deletion")
}

func TestNewRejectsBadConfig(t *testing.T) {
	k := sim.New(1)
	srv := apiserver.NewServer(k, apiserver.DefaultConfig())
	c := client.New(srv, Component, client.Config{})
	f := client.NewSharedInformerFactory(c, 0)
	_, err := New(k, c, f, record.New(k, nil, Component, ""), nil, DefaultConfig())
	assert.EqualError(t, err, "hpa: a metrics client is required")
	cfg := DefaultConfig()
	cfg.HorizontalPodAutoscalerSyncPeriod = 0
	_, err = New(k, c, f, record.New(k, nil, Component, ""), &fakeMetrics{}, cfg)
	assert.EqualError(t, err, "horizontal-pod-autoscaler-sync-period must be in [1ms, 24h0m0s], got 0s")
}

// The API rejects a metric without its member; a spec built without validation still gets a
// clear condition, not a panic.
func TestMetricWithoutMember(t *testing.T) {
	a, k := testController(t)
	sink := &record.FakeSink{}
	a.recorder = record.New(k, sink, Component, "")
	h := &model.HorizontalPodAutoscaler{ObjectMeta: model.ObjectMeta{Name: "h", Namespace: testNamespace}}
	var status model.MetricStatus
	_, _, _, cond, err := a.computeReplicasForMetric(context.Background(), h, model.MetricSpec{Type: model.PodsMetricSourceType}, 3, 3, labels.Everything(), &status)
	require.Error(t, err)
	assert.Equal(t, `metric source type "Pods" without its pods member`, err.Error())
	assert.Equal(t, "InvalidMetricSourceType", cond.Reason)
	assert.Equal(t, []string{"Warning InvalidMetricSourceType"}, sink.Reasons())
	_, _, _, _, err = a.computeReplicasForMetric(context.Background(), h, model.MetricSpec{Type: "Bogus"}, 3, 3, labels.Everything(), &status)
	assert.EqualError(t, err, `unknown metric source type "Bogus"`)
}
