// Package hpa is the horizontal pod autoscaler controller of kube-controller-manager
// (upstream pkg/controller/podautoscaler), autoscaling/v2, against the simulated API server and
// the metrics pipeline of package metrics.
//
// What it promises, each as upstream does it (docs/upstream.md#hpa):
//
//   - Timing: every HPA is reconciled once per --horizontal-pod-autoscaler-sync-period (15s):
//     the work queue's FixedItemIntervalRateLimiter re-adds each HPA one period after it was
//     processed, the HPA handler's resync re-adds every HPA each period, and the delaying queue
//     keeps the earlier of two pending adds. A new HPA is first reconciled one period after it
//     appears.
//   - The reconcile (reconcileAutoscaler): GET the target's scale subresource; a target at zero
//     replicas with minReplicas above zero is not scaled (ScalingDisabled); a target outside
//     [minReplicas, maxReplicas] is brought inside; otherwise the desired count is the largest
//     any metric proposes (computeReplicasForMetrics: invalid metrics are skipped, but if all
//     are invalid, or some are and the rest would scale down, nothing is scaled). The count is
//     then normalized: without spec.behavior by the legacy rules (the largest recommendation of
//     the last --horizontal-pod-autoscaler-downscale-stabilization, then the bounds and a
//     scale-up limit of max(2*current, 4)); with it by the stabilization windows and the
//     Pods/Percent policies over the scale events of each policy's period, with selectPolicy
//     Max, Min or Disabled. A changed count is written with an UPDATE of the scale subresource
//     (event SuccessfulRescale "New size: %d; reason: %s"), and the status (current and desired
//     replicas, current metrics, last scale time, conditions AbleToScale, ScalingActive and
//     ScalingLimited with upstream's reasons and messages) is written when it changed.
//   - The replica calculation (ReplicaCalculator) is upstream's arithmetic to the letter:
//     integer-truncated utilization, per-direction tolerance, ignored pods (deleting or Failed),
//     unready pods (Pending; for cpu the initialization-period and initial-readiness rules),
//     missing metrics counted at max(100%, target) of the request on a scale-down and 0 on a
//     scale-up, unready pods at 0 on a scale-up, the direction-flip rule, and every metric type
//     (Resource, ContainerResource, Pods, Object, External, with Value and AverageValue
//     targets). It is a pure function of the metrics and pods it is given.
//   - Events in upstream's words: SuccessfulRescale, FailedRescale, FailedGetScale,
//     FailedComputeMetricsReplicas, FailedGetResourceMetric, FailedGetPodsMetric,
//     FailedGetObjectMetric, FailedGetExternalMetric, FailedGetContainerResourceMetric,
//     InvalidMetricSourceType, SelectorRequired, InvalidSelector, AmbiguousSelector,
//     FailedUpdateStatus.
//
// Recommendations and scale events live in the controller's memory, as upstream's do: a
// restarted controller (Stop, then a new Controller) starts without them.
//
// Not modelled: the monitor metrics, the cache of selectors per label set (the same check is
// done directly), pod-level resources and restartable init containers (the model has neither).
//
// Determinism: the controller draws no random numbers; it iterates no map where order could
// show (selectors are walked in key order).
package hpa
