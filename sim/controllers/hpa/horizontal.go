package hpa

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim"
	"github.com/reconsim/reconsim/sim/client"
	"github.com/reconsim/reconsim/sim/client/record"
	"github.com/reconsim/reconsim/sim/client/workqueue"
	"github.com/reconsim/reconsim/sim/controllers/internal/controllerutil"
	"github.com/reconsim/reconsim/sim/metrics"
	"github.com/reconsim/reconsim/vtime"
)

// This file is upstream pkg/controller/podautoscaler/horizontal.go: the queue, the reconcile
// of one HPA, the metric computations and the status.

// Component is the controller's event source and trace component (upstream
// EventSource{Component: "horizontal-pod-autoscaler"}).
const Component = "horizontal-pod-autoscaler"

// errSpec marks errors caused by the HPA's spec (upstream errSpec).
var errSpec = errors.New("")

// timestampedRecommendation is one unstabilized recommendation.
type timestampedRecommendation struct {
	recommendation int32
	timestamp      vtime.Time
}

// timestampedScaleEvent is one rescale: replicaChange is its size (never negative); an
// outdated event may be overwritten.
type timestampedScaleEvent struct {
	replicaChange int32
	timestamp     vtime.Time
	outdated      bool
}

// Stats are the controller's counters.
type Stats struct {
	// Reconciles counts reconcileKey calls; ReconcileErrors those that returned an error.
	Reconciles, ReconcileErrors uint64
	// ScaleUps and ScaleDowns count successful scale updates; RescaleErrors failed ones.
	ScaleUps, ScaleDowns, RescaleErrors uint64
	// StatusUpdates counts status writes; StatusUpdateErrors failed ones.
	StatusUpdates, StatusUpdateErrors uint64
	// Queue is the work queue's metrics.
	Queue workqueue.Stats
}

// Controller is the horizontal pod autoscaler controller (upstream HorizontalController).
type Controller struct {
	k        *sim.Kernel
	client   *client.Client
	recorder record.Recorder
	cfg      Config

	hpaInformer *client.Informer
	podInformer *client.Informer
	podLister   PodLister

	queue       *workqueue.RateLimiting[string]
	replicaCalc *ReplicaCalculator

	// Latest unstabilized recommendations and rescales of each HPA, by key.
	recommendations map[string][]timestampedRecommendation
	scaleUpEvents   map[string][]timestampedScaleEvent
	scaleDownEvents map[string][]timestampedScaleEvent

	// hpaSelectors holds each known HPA's pod selector (labels.Nothing until its first
	// reconcile), to find pods that two HPAs claim (upstream hpaSelectors).
	hpaSelectors map[string]labels.Selector

	main    *sim.Proc
	workers []*sim.Proc
	resync  *sim.Timer
	stopped bool
	stats   Stats
}

// New builds the controller on the shared informers of f (HorizontalPodAutoscalers and Pods),
// reading metrics from mc, and returns it stopped; the caller starts f and calls Start. It
// returns an error if cfg is invalid or mc is nil.
func New(k *sim.Kernel, c *client.Client, f *client.SharedInformerFactory, rec record.Recorder, mc metrics.MetricsClient, cfg Config) (*Controller, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if mc == nil {
		return nil, errors.New("hpa: a metrics client is required")
	}
	a := &Controller{
		k:               k,
		client:          c,
		recorder:        rec,
		cfg:             cfg,
		hpaInformer:     f.For(model.KindHorizontalPodAutoscaler),
		podInformer:     f.For(model.KindPod),
		recommendations: map[string][]timestampedRecommendation{},
		scaleUpEvents:   map[string][]timestampedScaleEvent{},
		scaleDownEvents: map[string][]timestampedScaleEvent{},
		hpaSelectors:    map[string]labels.Selector{},
		// NewDefaultHPARateLimiter(resyncPeriod) is a FixedItemIntervalRateLimiter: every
		// AddRateLimited waits exactly one sync period ([k8s:pkg/controller/podautoscaler/
		// rate_limiters.go@a1c83702]; docs/upstream.md#workqueue).
		queue: workqueue.NewRateLimiting[string](k, "horizontalpodautoscaler",
			workqueue.NewFixedItemIntervalRateLimiter[string](cfg.HorizontalPodAutoscalerSyncPeriod)),
	}
	a.podLister = InformerPodLister{Informer: a.podInformer}
	a.replicaCalc = NewReplicaCalculator(mc, a.podLister, cfg.HorizontalPodAutoscalerCPUInitializationPeriod, cfg.HorizontalPodAutoscalerInitialReadinessDelay, k.Now)
	a.hpaInformer.AddEventHandler(client.EventHandlerFuncs{
		AddFunc:    func(obj model.Object, _ bool) { a.enqueueHPA(obj) },
		UpdateFunc: func(_, cur model.Object) { a.enqueueHPA(cur) },
		DeleteFunc: a.deleteHPA,
	})
	return a, nil
}

// Start spawns the controller: it waits for the HPA and Pod caches, then starts
// ConcurrentHorizontalPodAutoscalerSyncs workers (upstream Run), and arms the HPA handler's
// resync: upstream registers its handlers with AddEventHandlerWithResyncPeriod(resyncPeriod),
// so every HPA is re-enqueued (rate-limited) every sync period. Start after Stop does nothing.
func (a *Controller) Start() {
	if a.main != nil || a.stopped {
		return
	}
	a.main = a.k.Spawn(Component, func(p *sim.Proc) {
		a.hpaInformer.WaitForSync(p)
		a.podInformer.WaitForSync(p)
		a.k.Emit(Component, "started", "", 0, "workers="+strconv.Itoa(a.cfg.ConcurrentHorizontalPodAutoscalerSyncs))
		for i := 0; i < a.cfg.ConcurrentHorizontalPodAutoscalerSyncs; i++ {
			a.workers = append(a.workers, a.k.Spawn(fmt.Sprintf("%s/worker-%d", Component, i), a.worker))
		}
		a.resync = a.k.Every(a.cfg.HorizontalPodAutoscalerSyncPeriod, func() {
			for _, obj := range a.hpaInformer.List(nil) {
				a.enqueueHPA(obj)
			}
		})
	})
}

// Stop shuts the queue down and kills the controller's processes (a controller-manager
// restart); a reconcile in progress is abandoned where it blocks. A stopped controller is not
// started again: a restarted controller is a new Controller, with empty recommendations.
func (a *Controller) Stop() {
	if a.stopped {
		return
	}
	a.stopped = true
	a.queue.ShutDown()
	if a.resync != nil {
		a.resync.Stop()
	}
	if a.main != nil {
		a.main.Kill()
	}
	for _, w := range a.workers {
		w.Kill()
	}
}

// Stats returns the controller's counters now.
func (a *Controller) Stats() Stats {
	s := a.stats
	s.Queue = a.queue.Stats()
	return s
}

// enqueueHPA adds the HPA with the rate limiter's delay: a request already waiting is kept
// (dedup), so each HPA is processed about once per sync period. A new HPA gets a selector
// entry that selects nothing until its first reconcile.
func (a *Controller) enqueueHPA(obj model.Object) {
	key := model.Key(obj)
	a.queue.AddRateLimited(key)
	if _, ok := a.hpaSelectors[key]; !ok {
		a.hpaSelectors[key] = labels.Nothing()
	}
}

func (a *Controller) deleteHPA(obj any) {
	o, ok := client.ObjectOf(obj)
	if !ok {
		return
	}
	key := model.Key(o)
	a.queue.Forget(key)
	delete(a.hpaSelectors, key)
}

func (a *Controller) worker(p *sim.Proc) {
	for a.processNextWorkItem(p) {
	}
}

// processNextWorkItem reconciles one HPA and, unless it was deleted, enqueues it again after
// one sync period whatever the outcome (upstream: the re-add covers a resync that raced with
// the processing of the same key).
func (a *Controller) processNextWorkItem(p *sim.Proc) bool {
	key, quit := a.queue.Get(p)
	if quit {
		return false
	}
	defer a.queue.Done(key)
	deleted, err := a.reconcileKey(p, key)
	a.stats.Reconciles++
	if err != nil {
		a.stats.ReconcileErrors++
		a.k.Emit(Component, "reconcile-error", "HorizontalPodAutoscaler "+key, 0, err.Error())
	}
	if !deleted {
		a.queue.AddRateLimited(key)
	}
	return true
}

// reconcileKey reconciles the HPA named by key; a deleted HPA's recommendations and scale
// events are dropped and deleted is true.
func (a *Controller) reconcileKey(ctx context.Context, key string) (deleted bool, err error) {
	hpa, ok := controllerutil.Lister[*model.HorizontalPodAutoscaler]{Informer: a.hpaInformer}.GetByKey(key)
	if !ok {
		delete(a.recommendations, key)
		delete(a.scaleUpEvents, key)
		delete(a.scaleDownEvents, key)
		return true, nil
	}
	return false, a.reconcileAutoscaler(ctx, hpa, key)
}

// scaleKindFor maps the scale target's group and kind to a kind with a scale subresource
// (upstream's RESTMapper lookup), with the mapper's error for any other.
func scaleKindFor(group, kind string) (model.Kind, error) {
	for _, k := range []model.Kind{model.KindDeployment, model.KindReplicaSet, model.KindStatefulSet} {
		if string(k) != kind {
			continue
		}
		ki, _ := model.LookupKind(k)
		if g, _, _ := strings.Cut(ki.APIVersion, "/"); g == group {
			return k, nil
		}
	}
	return "", fmt.Errorf("no matches for kind %q in group %q", kind, group)
}

// reconcileAutoscaler is one HPA's reconcile (upstream reconcileAutoscaler): read the scale,
// compute the desired count from the metrics (or clamp to the bounds), normalize it with the
// legacy rules or the behavior, write the scale if it changed, and write the status if it
// changed. It returns an error when it could not get the scale, compute replicas, rescale or
// write the status; an error from some metrics while others worked is returned after scaling.
func (a *Controller) reconcileAutoscaler(ctx context.Context, hpaShared *model.HorizontalPodAutoscaler, key string) (retErr error) {
	hpa := hpaShared.DeepCopy()
	// The API server defaults stored objects; an object made without it is defaulted the same
	// way here, so a behavior always has both rules.
	model.SetDefaults(hpa)
	hpaStatusOriginal := hpaShared.DeepCopy().Status
	reference := fmt.Sprintf("%s/%s/%s", hpa.Spec.ScaleTargetRef.Kind, hpa.Namespace, hpa.Spec.ScaleTargetRef.Name)

	failGetScale := func(err error) {
		a.recorder.Eventf(hpa, model.EventTypeWarning, "FailedGetScale", "%s", err.Error())
		a.setCondition(hpa, model.AbleToScale, model.ConditionFalse, "FailedGetScale", "the HPA controller was unable to get the target's current scale: %v", err)
		_ = a.updateStatusIfNeeded(ctx, &hpaStatusOriginal, hpa)
	}
	targetGV, err := schema.ParseGroupVersion(hpa.Spec.ScaleTargetRef.APIVersion)
	if err != nil {
		failGetScale(err)
		return fmt.Errorf("invalid API version in scale target reference: %v%w", err, errSpec)
	}
	kind, err := scaleKindFor(targetGV.Group, hpa.Spec.ScaleTargetRef.Kind)
	if err != nil {
		failGetScale(err)
		return fmt.Errorf("unable to determine resource for scale target reference: %v", err)
	}
	scale, err := a.client.GetScale(ctx, kind, hpa.Namespace, hpa.Spec.ScaleTargetRef.Name)
	if err != nil {
		failGetScale(err)
		return fmt.Errorf("failed to query scale subresource for %s: %v", reference, err)
	}
	a.setCondition(hpa, model.AbleToScale, model.ConditionTrue, "SucceededGetScale", "the HPA controller was able to get the target's current scale")
	currentReplicas := scale.Spec.Replicas
	a.recordInitialRecommendation(currentReplicas, key)

	var (
		metricStatuses  []model.MetricStatus
		desiredReplicas int32
		rescaleReason   string
		metricName      string
	)
	minReplicas := int32(1)
	if hpa.Spec.MinReplicas != nil {
		minReplicas = *hpa.Spec.MinReplicas
	}
	rescale := true
	switch {
	case currentReplicas == 0 && minReplicas != 0:
		// Autoscaling is disabled for a target scaled to zero by hand.
		desiredReplicas = 0
		rescale = false
		a.setCondition(hpa, model.ScalingActive, model.ConditionFalse, "ScalingDisabled", "scaling is disabled since the replica count of the target is zero")
	case currentReplicas > hpa.Spec.MaxReplicas:
		rescaleReason = "Current number of replicas above Spec.MaxReplicas"
		desiredReplicas = hpa.Spec.MaxReplicas
	case currentReplicas < minReplicas:
		rescaleReason = "Current number of replicas below Spec.MinReplicas"
		desiredReplicas = minReplicas
	default:
		var metricDesiredReplicas int32
		metricDesiredReplicas, metricName, metricStatuses, _, err = a.computeReplicasForMetrics(ctx, hpa, scale, hpa.Spec.Metrics)
		if err != nil && metricDesiredReplicas == -1 {
			a.setCurrentReplicasAndMetricsInStatus(hpa, currentReplicas, metricStatuses)
			_ = a.updateStatusIfNeeded(ctx, &hpaStatusOriginal, hpa)
			a.recorder.Eventf(hpa, model.EventTypeWarning, "FailedComputeMetricsReplicas", "%s", err.Error())
			return fmt.Errorf("failed to compute desired number of replicas based on listed metrics for %s: %v", reference, err)
		}
		if err != nil {
			// Some metrics work: scale on them, and report the others' error at the end.
			retErr = err
		}
		rescaleMetric := ""
		if metricDesiredReplicas > desiredReplicas {
			desiredReplicas = metricDesiredReplicas
			rescaleMetric = metricName
		}
		if desiredReplicas > currentReplicas {
			rescaleReason = fmt.Sprintf("%s above target", rescaleMetric)
		}
		if desiredReplicas < currentReplicas {
			rescaleReason = "All metrics below target"
		}
		if hpa.Spec.Behavior == nil {
			desiredReplicas = a.normalizeDesiredReplicas(hpa, key, currentReplicas, desiredReplicas, minReplicas)
		} else {
			desiredReplicas = a.normalizeDesiredReplicasWithBehaviors(hpa, key, currentReplicas, desiredReplicas, minReplicas)
		}
		rescale = desiredReplicas != currentReplicas
	}

	if rescale {
		scale.Spec.Replicas = desiredReplicas
		if _, err := a.client.UpdateScale(ctx, kind, hpa.Namespace, hpa.Spec.ScaleTargetRef.Name, scale); err != nil {
			a.stats.RescaleErrors++
			a.recorder.Eventf(hpa, model.EventTypeWarning, "FailedRescale", "New size: %d; reason: %s; error: %v", desiredReplicas, rescaleReason, err.Error())
			a.setCondition(hpa, model.AbleToScale, model.ConditionFalse, "FailedUpdateScale", "the HPA controller was unable to update the target scale: %v", err)
			a.setCurrentReplicasAndMetricsInStatus(hpa, currentReplicas, metricStatuses)
			_ = a.updateStatusIfNeeded(ctx, &hpaStatusOriginal, hpa)
			return fmt.Errorf("failed to rescale %s: %v", reference, err)
		}
		a.setCondition(hpa, model.AbleToScale, model.ConditionTrue, "SucceededRescale", "the HPA controller was able to update the target scale to %d", desiredReplicas)
		a.recorder.Eventf(hpa, model.EventTypeNormal, "SuccessfulRescale", "New size: %d; reason: %s", desiredReplicas, rescaleReason)
		a.storeScaleEvent(hpa.Spec.Behavior, key, currentReplicas, desiredReplicas)
		if desiredReplicas > currentReplicas {
			a.stats.ScaleUps++
		} else {
			a.stats.ScaleDowns++
		}
		a.k.Emit(Component, "rescale", "HorizontalPodAutoscaler "+key, 0, fmt.Sprintf("%d->%d reason=%q", currentReplicas, desiredReplicas, rescaleReason))
	} else {
		desiredReplicas = currentReplicas
	}

	a.setStatus(hpa, currentReplicas, desiredReplicas, metricStatuses, rescale)
	if err := a.updateStatusIfNeeded(ctx, &hpaStatusOriginal, hpa); err != nil {
		return err
	}
	return retErr
}

// computeReplicasForMetrics returns the largest replica count the metrics propose, the
// metric that proposed it and every metric's status (upstream computeReplicasForMetrics).
// Invalid metrics are skipped; if all are invalid, or some are and the valid ones would scale
// down, it returns -1 and an error, and sets ScalingActive from the first invalid metric's
// condition. Otherwise ScalingActive is True (ValidMetricFound) and the error, if any, reports
// the invalid metrics.
func (a *Controller) computeReplicasForMetrics(ctx context.Context, hpa *model.HorizontalPodAutoscaler, scale *model.Scale, metricSpecs []model.MetricSpec) (replicas int32, metric string, statuses []model.MetricStatus, timestamp vtime.Time, err error) {
	selector, err := a.validateAndParseSelector(hpa, scale.Status.Selector)
	if err != nil {
		return -1, "", nil, 0, err
	}
	specReplicas := scale.Spec.Replicas
	statusReplicas := scale.Status.Replicas
	statuses = make([]model.MetricStatus, len(metricSpecs))

	invalidMetricsCount := 0
	var invalidMetricError error
	var invalidMetricCondition model.HorizontalPodAutoscalerCondition
	for i, metricSpec := range metricSpecs {
		replicaCountProposal, metricNameProposal, timestampProposal, condition, err := a.computeReplicasForMetric(ctx, hpa, metricSpec, specReplicas, statusReplicas, selector, &statuses[i])
		if err != nil {
			if invalidMetricsCount <= 0 {
				invalidMetricCondition = condition
				invalidMetricError = err
			}
			invalidMetricsCount++
			continue
		}
		if replicas == 0 || replicaCountProposal > replicas {
			timestamp = timestampProposal
			replicas = replicaCountProposal
			metric = metricNameProposal
		}
	}
	if invalidMetricError != nil {
		invalidMetricError = fmt.Errorf("invalid metrics (%v invalid out of %v), first error is: %v", invalidMetricsCount, len(metricSpecs), invalidMetricError)
	}
	if invalidMetricsCount >= len(metricSpecs) || (invalidMetricsCount > 0 && replicas < specReplicas) {
		a.setCondition(hpa, invalidMetricCondition.Type, invalidMetricCondition.Status, invalidMetricCondition.Reason, "%s", invalidMetricCondition.Message)
		return -1, "", statuses, 0, invalidMetricError
	}
	a.setCondition(hpa, model.ScalingActive, model.ConditionTrue, "ValidMetricFound", "the HPA was able to successfully calculate a replica count from %s", metric)
	return replicas, metric, statuses, timestamp, invalidMetricError
}

// validateAndParseSelector checks the target's selector: present, parseable, and its pods
// claimed by no other HPA. On failure it records an event, sets ScalingActive False and
// returns the error.
func (a *Controller) validateAndParseSelector(hpa *model.HorizontalPodAutoscaler, selector string) (labels.Selector, error) {
	if selector == "" {
		errMsg := "selector is required"
		a.recorder.Eventf(hpa, model.EventTypeWarning, "SelectorRequired", "%s", errMsg)
		a.setCondition(hpa, model.ScalingActive, model.ConditionFalse, "InvalidSelector", "the HPA target's scale is missing a selector")
		return nil, errors.New(errMsg)
	}
	parsed, err := labels.Parse(selector)
	if err != nil {
		errMsg := fmt.Sprintf("couldn't convert selector into a corresponding internal selector object: %v", err)
		a.recorder.Eventf(hpa, model.EventTypeWarning, "InvalidSelector", "%s", errMsg)
		a.setCondition(hpa, model.ScalingActive, model.ConditionFalse, "InvalidSelector", "%s", errMsg)
		return nil, errors.New(errMsg)
	}
	key := model.Key(hpa)
	if _, ok := a.hpaSelectors[key]; ok {
		a.hpaSelectors[key] = parsed
	}
	pods, err := a.podLister.ListPods(hpa.Namespace, parsed)
	if err != nil {
		return nil, err
	}
	if selecting := a.hpasControllingPods(pods); len(selecting) > 1 {
		errMsg := fmt.Sprintf("pods by selector %v are controlled by multiple HPAs: [%s]", selector, strings.Join(selecting, " "))
		a.recorder.Eventf(hpa, model.EventTypeWarning, "AmbiguousSelector", "%s", errMsg)
		a.setCondition(hpa, model.ScalingActive, model.ConditionFalse, "AmbiguousSelector", "%s", errMsg)
		return nil, errors.New(errMsg)
	}
	return parsed, nil
}

// hpasControllingPods returns the keys of the HPAs (in the pods' namespaces) whose selector
// matches any of pods, sorted.
func (a *Controller) hpasControllingPods(pods []*model.Pod) []string {
	if len(pods) == 0 {
		return nil
	}
	keys := make([]string, 0, len(a.hpaSelectors))
	for key := range a.hpaSelectors { //detlint:ordered keys are sorted below
		keys = append(keys, key)
	}
	slices.Sort(keys)
	var out []string
	for _, key := range keys {
		namespace, _, _ := strings.Cut(key, "/")
		sel := a.hpaSelectors[key]
		for _, pod := range pods {
			if pod.Namespace == namespace && sel.Matches(labels.Set(pod.Labels)) {
				out = append(out, key)
				break
			}
		}
	}
	return out
}

// tolerancesForHpa returns the controller's tolerance in both directions, overridden by the
// behavior's per-direction tolerance where set and the HPAConfigurableTolerance gate is on
// (Config.ConfigurableTolerance: alpha in 1.33, beta and on by default since 1.35,
// [k8s] pkg/features/kube_features.go; upstream tolerancesForHpa).
func (a *Controller) tolerancesForHpa(hpa *model.HorizontalPodAutoscaler) Tolerances {
	t := Tolerances{ScaleDown: a.cfg.HorizontalPodAutoscalerTolerance, ScaleUp: a.cfg.HorizontalPodAutoscalerTolerance}
	if b := hpa.Spec.Behavior; b != nil && a.cfg.ConfigurableTolerance {
		if b.ScaleDown != nil && b.ScaleDown.Tolerance != nil {
			t.ScaleDown = b.ScaleDown.Tolerance.AsApproximateFloat64()
		}
		if b.ScaleUp != nil && b.ScaleUp.Tolerance != nil {
			t.ScaleUp = b.ScaleUp.Tolerance.AsApproximateFloat64()
		}
	}
	return t
}

// computeReplicasForMetric computes one metric's proposal and status (upstream
// computeReplicasForMetric); on error the condition is what ScalingActive should say.
func (a *Controller) computeReplicasForMetric(ctx context.Context, hpa *model.HorizontalPodAutoscaler, spec model.MetricSpec, specReplicas, statusReplicas int32, selector labels.Selector, status *model.MetricStatus) (replicaCountProposal int32, metricNameProposal string, timestampProposal vtime.Time, condition model.HorizontalPodAutoscalerCondition, err error) {
	tolerances := a.tolerancesForHpa(hpa)
	switch spec.Type {
	case model.ObjectMetricSourceType:
		if spec.Object == nil {
			break
		}
		metricSelector, err := metav1.LabelSelectorAsSelector(spec.Object.Metric.Selector)
		if err != nil {
			condition := a.getUnableComputeReplicaCountCondition(hpa, "FailedGetObjectMetric", err)
			return 0, "", 0, condition, fmt.Errorf("failed to get object metric value: %v", err)
		}
		replicaCountProposal, timestampProposal, metricNameProposal, condition, err = a.computeStatusForObjectMetric(ctx, specReplicas, statusReplicas, spec, hpa, selector, status, metricSelector, tolerances)
		if err != nil {
			return 0, "", 0, condition, fmt.Errorf("failed to get object metric value: %v", err)
		}
		return replicaCountProposal, metricNameProposal, timestampProposal, model.HorizontalPodAutoscalerCondition{}, nil
	case model.PodsMetricSourceType:
		if spec.Pods == nil {
			break
		}
		metricSelector, err := metav1.LabelSelectorAsSelector(spec.Pods.Metric.Selector)
		if err != nil {
			condition := a.getUnableComputeReplicaCountCondition(hpa, "FailedGetPodsMetric", err)
			return 0, "", 0, condition, fmt.Errorf("failed to get pods metric value: %v", err)
		}
		replicaCountProposal, timestampProposal, metricNameProposal, condition, err = a.computeStatusForPodsMetric(ctx, specReplicas, spec, hpa, selector, status, metricSelector, tolerances)
		if err != nil {
			return 0, "", 0, condition, fmt.Errorf("failed to get pods metric value: %v", err)
		}
		return replicaCountProposal, metricNameProposal, timestampProposal, model.HorizontalPodAutoscalerCondition{}, nil
	case model.ResourceMetricSourceType:
		if spec.Resource == nil {
			break
		}
		replicaCountProposal, timestampProposal, metricNameProposal, condition, err = a.computeStatusForResourceMetric(ctx, specReplicas, spec, hpa, selector, status, tolerances)
		if err != nil {
			return 0, "", 0, condition, fmt.Errorf("failed to get %s resource metric value: %v", spec.Resource.Name, err)
		}
		return replicaCountProposal, metricNameProposal, timestampProposal, model.HorizontalPodAutoscalerCondition{}, nil
	case model.ContainerResourceMetricSourceType:
		if spec.ContainerResource == nil {
			break
		}
		replicaCountProposal, timestampProposal, metricNameProposal, condition, err = a.computeStatusForContainerResourceMetric(ctx, specReplicas, spec, hpa, selector, status, tolerances)
		if err != nil {
			return 0, "", 0, condition, fmt.Errorf("failed to get %s container metric value: %v", spec.ContainerResource.Container, err)
		}
		return replicaCountProposal, metricNameProposal, timestampProposal, model.HorizontalPodAutoscalerCondition{}, nil
	case model.ExternalMetricSourceType:
		if spec.External == nil {
			break
		}
		replicaCountProposal, timestampProposal, metricNameProposal, condition, err = a.computeStatusForExternalMetric(ctx, specReplicas, statusReplicas, spec, hpa, selector, status, tolerances)
		if err != nil {
			return 0, "", 0, condition, fmt.Errorf("failed to get %s external metric value: %v", spec.External.Metric.Name, err)
		}
		return replicaCountProposal, metricNameProposal, timestampProposal, model.HorizontalPodAutoscalerCondition{}, nil
	}
	// API validation filters these out; a spec built without it can still carry one.
	switch spec.Type {
	case model.ObjectMetricSourceType, model.PodsMetricSourceType, model.ResourceMetricSourceType, model.ContainerResourceMetricSourceType, model.ExternalMetricSourceType:
		err = fmt.Errorf("metric source type %q without its %s member%w", spec.Type, strings.ToLower(spec.Type[:1])+spec.Type[1:], errSpec)
	default:
		err = fmt.Errorf("unknown metric source type %q%w", spec.Type, errSpec)
	}
	condition = a.getUnableComputeReplicaCountCondition(hpa, "InvalidMetricSourceType", err)
	return 0, "", 0, condition, err
}

// computeStatusForResourceMetricGeneric proposes a count for a resource target: an average
// value (milli-units per pod) or an average utilization (percent of requests).
func (a *Controller) computeStatusForResourceMetricGeneric(ctx context.Context, currentReplicas int32, target model.MetricTarget, resourceName, namespace, container string, selector labels.Selector, sourceType string, tolerances Tolerances) (replicaCountProposal int32, metricStatus *model.MetricValueStatus, timestampProposal vtime.Time, metricNameProposal string, err error) {
	if target.AverageValue != nil {
		replicaCountProposal, rawProposal, timestampProposal, err := a.replicaCalc.GetRawResourceReplicas(ctx, currentReplicas, target.AverageValue.MilliValue(), resourceName, tolerances, namespace, selector, container)
		if err != nil {
			return 0, nil, 0, "", fmt.Errorf("failed to get %s usage: %v", resourceName, err)
		}
		return replicaCountProposal, &model.MetricValueStatus{AverageValue: resource.NewMilliQuantity(rawProposal, resource.DecimalSI)}, timestampProposal, fmt.Sprintf("%s resource", resourceName), nil
	}
	if target.AverageUtilization == nil {
		return 0, nil, 0, "", errors.New("invalid resource metric source: neither an average utilization target nor an average value (usage) target was set")
	}
	replicaCountProposal, percentageProposal, rawProposal, timestampProposal, err := a.replicaCalc.GetResourceReplicas(ctx, currentReplicas, *target.AverageUtilization, resourceName, tolerances, namespace, selector, container)
	if err != nil {
		return 0, nil, 0, "", fmt.Errorf("failed to get %s utilization: %v", resourceName, err)
	}
	metricNameProposal = fmt.Sprintf("%s resource utilization (percentage of request)", resourceName)
	if sourceType == model.ContainerResourceMetricSourceType {
		metricNameProposal = fmt.Sprintf("%s container resource utilization (percentage of request)", resourceName)
	}
	status := &model.MetricValueStatus{
		AverageUtilization: &percentageProposal,
		AverageValue:       resource.NewMilliQuantity(rawProposal, resource.DecimalSI),
	}
	return replicaCountProposal, status, timestampProposal, metricNameProposal, nil
}

func (a *Controller) computeStatusForResourceMetric(ctx context.Context, currentReplicas int32, metricSpec model.MetricSpec, hpa *model.HorizontalPodAutoscaler, selector labels.Selector, status *model.MetricStatus, tolerances Tolerances) (int32, vtime.Time, string, model.HorizontalPodAutoscalerCondition, error) {
	replicas, valueStatus, timestamp, name, err := a.computeStatusForResourceMetricGeneric(ctx, currentReplicas, metricSpec.Resource.Target, metricSpec.Resource.Name, hpa.Namespace, "", selector, model.ResourceMetricSourceType, tolerances)
	if err != nil {
		return replicas, timestamp, name, a.getUnableComputeReplicaCountCondition(hpa, "FailedGetResourceMetric", err), err
	}
	*status = model.MetricStatus{
		Type:     model.ResourceMetricSourceType,
		Resource: &model.ResourceMetricStatus{Name: metricSpec.Resource.Name, Current: *valueStatus},
	}
	return replicas, timestamp, name, model.HorizontalPodAutoscalerCondition{}, nil
}

func (a *Controller) computeStatusForContainerResourceMetric(ctx context.Context, currentReplicas int32, metricSpec model.MetricSpec, hpa *model.HorizontalPodAutoscaler, selector labels.Selector, status *model.MetricStatus, tolerances Tolerances) (int32, vtime.Time, string, model.HorizontalPodAutoscalerCondition, error) {
	cr := metricSpec.ContainerResource
	replicas, valueStatus, timestamp, name, err := a.computeStatusForResourceMetricGeneric(ctx, currentReplicas, cr.Target, cr.Name, hpa.Namespace, cr.Container, selector, model.ContainerResourceMetricSourceType, tolerances)
	if err != nil {
		return replicas, timestamp, name, a.getUnableComputeReplicaCountCondition(hpa, "FailedGetContainerResourceMetric", err), err
	}
	*status = model.MetricStatus{
		Type:              model.ContainerResourceMetricSourceType,
		ContainerResource: &model.ContainerResourceMetricStatus{Name: cr.Name, Container: cr.Container, Current: *valueStatus},
	}
	return replicas, timestamp, name, model.HorizontalPodAutoscalerCondition{}, nil
}

func (a *Controller) computeStatusForPodsMetric(ctx context.Context, currentReplicas int32, metricSpec model.MetricSpec, hpa *model.HorizontalPodAutoscaler, selector labels.Selector, status *model.MetricStatus, metricSelector labels.Selector, tolerances Tolerances) (int32, vtime.Time, string, model.HorizontalPodAutoscalerCondition, error) {
	if metricSpec.Pods.Target.AverageValue == nil {
		err := errors.New("invalid pods metric source: an average value target was not set")
		return 0, 0, "", a.getUnableComputeReplicaCountCondition(hpa, "FailedGetPodsMetric", err), err
	}
	replicas, usage, timestamp, err := a.replicaCalc.GetMetricReplicas(ctx, currentReplicas, metricSpec.Pods.Target.AverageValue.MilliValue(), metricSpec.Pods.Metric.Name, tolerances, hpa.Namespace, selector, metricSelector)
	if err != nil {
		return 0, timestamp, "", a.getUnableComputeReplicaCountCondition(hpa, "FailedGetPodsMetric", err), err
	}
	*status = model.MetricStatus{
		Type: model.PodsMetricSourceType,
		Pods: &model.PodsMetricStatus{
			Metric:  model.MetricIdentifier{Name: metricSpec.Pods.Metric.Name, Selector: metricSpec.Pods.Metric.Selector},
			Current: model.MetricValueStatus{AverageValue: resource.NewMilliQuantity(usage, resource.DecimalSI)},
		},
	}
	return replicas, timestamp, fmt.Sprintf("pods metric %s", metricSpec.Pods.Metric.Name), model.HorizontalPodAutoscalerCondition{}, nil
}

func (a *Controller) computeStatusForObjectMetric(ctx context.Context, specReplicas, statusReplicas int32, metricSpec model.MetricSpec, hpa *model.HorizontalPodAutoscaler, selector labels.Selector, status *model.MetricStatus, metricSelector labels.Selector, tolerances Tolerances) (int32, vtime.Time, string, model.HorizontalPodAutoscalerCondition, error) {
	obj := metricSpec.Object
	identifier := model.MetricIdentifier{Name: obj.Metric.Name, Selector: obj.Metric.Selector}
	switch {
	case obj.Target.Type == model.ValueMetricType && obj.Target.Value != nil:
		replicas, usage, timestamp, err := a.replicaCalc.GetObjectMetricReplicas(ctx, specReplicas, obj.Target.Value.MilliValue(), obj.Metric.Name, tolerances, hpa.Namespace, &obj.DescribedObject, selector, metricSelector)
		if err != nil {
			return 0, timestamp, "", a.getUnableComputeReplicaCountCondition(hpa, "FailedGetObjectMetric", err), err
		}
		*status = model.MetricStatus{
			Type: model.ObjectMetricSourceType,
			Object: &model.ObjectMetricStatus{
				DescribedObject: obj.DescribedObject,
				Metric:          identifier,
				Current:         model.MetricValueStatus{Value: resource.NewMilliQuantity(usage, resource.DecimalSI)},
			},
		}
		return replicas, timestamp, fmt.Sprintf("%s metric %s", obj.DescribedObject.Kind, obj.Metric.Name), model.HorizontalPodAutoscalerCondition{}, nil
	case obj.Target.Type == model.AverageValueMetricType && obj.Target.AverageValue != nil:
		replicas, usage, timestamp, err := a.replicaCalc.GetObjectPerPodMetricReplicas(ctx, statusReplicas, obj.Target.AverageValue.MilliValue(), obj.Metric.Name, tolerances, hpa.Namespace, &obj.DescribedObject, metricSelector)
		if err != nil {
			return 0, 0, "", a.getUnableComputeReplicaCountCondition(hpa, "FailedGetObjectMetric", err), fmt.Errorf("failed to get %s object metric: %v", obj.Metric.Name, err)
		}
		*status = model.MetricStatus{
			Type: model.ObjectMetricSourceType,
			Object: &model.ObjectMetricStatus{
				Metric:  identifier,
				Current: model.MetricValueStatus{AverageValue: resource.NewMilliQuantity(usage, resource.DecimalSI)},
			},
		}
		return replicas, timestamp, fmt.Sprintf("external metric %s(%+v)", obj.Metric.Name, obj.Metric.Selector), model.HorizontalPodAutoscalerCondition{}, nil
	}
	err := errors.New("invalid object metric source: neither a value target nor an average value target was set")
	return 0, 0, "", a.getUnableComputeReplicaCountCondition(hpa, "FailedGetObjectMetric", err), err
}

func (a *Controller) computeStatusForExternalMetric(ctx context.Context, specReplicas, statusReplicas int32, metricSpec model.MetricSpec, hpa *model.HorizontalPodAutoscaler, selector labels.Selector, status *model.MetricStatus, tolerances Tolerances) (int32, vtime.Time, string, model.HorizontalPodAutoscalerCondition, error) {
	ext := metricSpec.External
	identifier := model.MetricIdentifier{Name: ext.Metric.Name, Selector: ext.Metric.Selector}
	name := fmt.Sprintf("external metric %s(%+v)", ext.Metric.Name, ext.Metric.Selector)
	if ext.Target.AverageValue != nil {
		replicas, usage, timestamp, err := a.replicaCalc.GetExternalPerPodMetricReplicas(ctx, statusReplicas, ext.Target.AverageValue.MilliValue(), ext.Metric.Name, tolerances, hpa.Namespace, ext.Metric.Selector)
		if err != nil {
			return 0, 0, "", a.getUnableComputeReplicaCountCondition(hpa, "FailedGetExternalMetric", err), fmt.Errorf("failed to get %s external metric: %v", ext.Metric.Name, err)
		}
		*status = model.MetricStatus{
			Type: model.ExternalMetricSourceType,
			External: &model.ExternalMetricStatus{
				Metric:  identifier,
				Current: model.MetricValueStatus{AverageValue: resource.NewMilliQuantity(usage, resource.DecimalSI)},
			},
		}
		return replicas, timestamp, name, model.HorizontalPodAutoscalerCondition{}, nil
	}
	if ext.Target.Value != nil {
		replicas, usage, timestamp, err := a.replicaCalc.GetExternalMetricReplicas(ctx, specReplicas, ext.Target.Value.MilliValue(), ext.Metric.Name, tolerances, hpa.Namespace, ext.Metric.Selector, selector)
		if err != nil {
			return 0, 0, "", a.getUnableComputeReplicaCountCondition(hpa, "FailedGetExternalMetric", err), fmt.Errorf("failed to get external metric %s: %v", ext.Metric.Name, err)
		}
		*status = model.MetricStatus{
			Type: model.ExternalMetricSourceType,
			External: &model.ExternalMetricStatus{
				Metric:  identifier,
				Current: model.MetricValueStatus{Value: resource.NewMilliQuantity(usage, resource.DecimalSI)},
			},
		}
		return replicas, timestamp, name, model.HorizontalPodAutoscalerCondition{}, nil
	}
	err := errors.New("invalid external metric source: neither a value target nor an average value target was set")
	return 0, 0, "", a.getUnableComputeReplicaCountCondition(hpa, "FailedGetExternalMetric", err), err
}

// getUnableComputeReplicaCountCondition records a Warning event with reason and returns the
// ScalingActive False condition saying why.
func (a *Controller) getUnableComputeReplicaCountCondition(hpa *model.HorizontalPodAutoscaler, reason string, err error) model.HorizontalPodAutoscalerCondition {
	a.recorder.Eventf(hpa, model.EventTypeWarning, reason, "%s", err.Error())
	return model.HorizontalPodAutoscalerCondition{
		Type:    model.ScalingActive,
		Status:  model.ConditionFalse,
		Reason:  reason,
		Message: fmt.Sprintf("the HPA was unable to compute the replica count: %v", err),
	}
}

// recordInitialRecommendation seeds an HPA's recommendations with the current count.
func (a *Controller) recordInitialRecommendation(currentReplicas int32, key string) {
	if a.recommendations[key] == nil {
		a.recommendations[key] = []timestampedRecommendation{{currentReplicas, a.k.Now()}}
	}
}

// setCurrentReplicasAndMetricsInStatus keeps the desired count and sets the rest.
func (a *Controller) setCurrentReplicasAndMetricsInStatus(hpa *model.HorizontalPodAutoscaler, currentReplicas int32, metricStatuses []model.MetricStatus) {
	a.setStatus(hpa, currentReplicas, hpa.Status.DesiredReplicas, metricStatuses, false)
}

// setStatus rebuilds the status: counts, metrics, the conditions set so far, and the last
// scale time (now, on a rescale).
func (a *Controller) setStatus(hpa *model.HorizontalPodAutoscaler, currentReplicas, desiredReplicas int32, metricStatuses []model.MetricStatus, rescale bool) {
	hpa.Status = model.HorizontalPodAutoscalerStatus{
		CurrentReplicas: currentReplicas,
		DesiredReplicas: desiredReplicas,
		LastScaleTime:   hpa.Status.LastScaleTime,
		CurrentMetrics:  metricStatuses,
		Conditions:      hpa.Status.Conditions,
	}
	if rescale {
		now := a.k.Now()
		hpa.Status.LastScaleTime = &now
	}
}

// updateStatusIfNeeded writes the status when it differs from oldStatus (semantic equality);
// a failed write records FailedUpdateStatus and is returned.
func (a *Controller) updateStatusIfNeeded(ctx context.Context, oldStatus *model.HorizontalPodAutoscalerStatus, newHPA *model.HorizontalPodAutoscaler) error {
	if apiequality.Semantic.DeepEqual(oldStatus, &newHPA.Status) {
		return nil
	}
	if _, err := a.client.UpdateStatus(ctx, newHPA); err != nil {
		a.stats.StatusUpdateErrors++
		a.recorder.Eventf(newHPA, model.EventTypeWarning, "FailedUpdateStatus", "%s", err.Error())
		return fmt.Errorf("failed to update status for %s: %v", newHPA.Name, err)
	}
	a.stats.StatusUpdates++
	return nil
}

// setCondition sets the condition of conditionType (adding it if absent); its transition time
// moves only when the status changes.
func (a *Controller) setCondition(hpa *model.HorizontalPodAutoscaler, conditionType string, status model.ConditionStatus, reason, message string, args ...any) {
	var existing *model.HorizontalPodAutoscalerCondition
	for i := range hpa.Status.Conditions {
		if hpa.Status.Conditions[i].Type == conditionType {
			existing = &hpa.Status.Conditions[i]
			break
		}
	}
	if existing == nil {
		hpa.Status.Conditions = append(hpa.Status.Conditions, model.HorizontalPodAutoscalerCondition{Type: conditionType})
		existing = &hpa.Status.Conditions[len(hpa.Status.Conditions)-1]
	}
	if existing.Status != status {
		existing.LastTransitionTime = a.k.Now()
	}
	existing.Status = status
	existing.Reason = reason
	existing.Message = fmt.Sprintf(message, args...)
}
