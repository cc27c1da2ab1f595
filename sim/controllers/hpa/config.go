package hpa

import (
	"time"

	"github.com/reconsim/reconsim/internal/bounds"
)

// Config is the HPA controller's part of kube-controller-manager's configuration
// (HPAControllerConfiguration); field names are upstream's, each the value of the flag named
// in its comment.
type Config struct {
	// HorizontalPodAutoscalerSyncPeriod is --horizontal-pod-autoscaler-sync-period: every HPA
	// is reconciled this often (the FixedItemIntervalRateLimiter interval and the HPA
	// informer's handler resync period).
	HorizontalPodAutoscalerSyncPeriod time.Duration
	// HorizontalPodAutoscalerTolerance is --horizontal-pod-autoscaler-tolerance: the usage
	// ratio tolerance in both directions, unless an HPA's behavior sets its own.
	HorizontalPodAutoscalerTolerance float64
	// HorizontalPodAutoscalerDownscaleStabilizationWindow is
	// --horizontal-pod-autoscaler-downscale-stabilization: the window of recommendations the
	// legacy path takes the maximum of, and the scale-down stabilization window of a behavior
	// that does not set one.
	HorizontalPodAutoscalerDownscaleStabilizationWindow time.Duration
	// HorizontalPodAutoscalerCPUInitializationPeriod is
	// --horizontal-pod-autoscaler-cpu-initialization-period: after a pod starts, its cpu
	// samples count only once it is Ready and a full metric window has passed since.
	HorizontalPodAutoscalerCPUInitializationPeriod time.Duration
	// HorizontalPodAutoscalerInitialReadinessDelay is
	// --horizontal-pod-autoscaler-initial-readiness-delay: readiness changes this soon after a
	// pod's start are taken as its initial readiness.
	HorizontalPodAutoscalerInitialReadinessDelay time.Duration
	// ConcurrentHorizontalPodAutoscalerSyncs is --concurrent-horizontal-pod-autoscaler-syncs:
	// the number of workers.
	ConcurrentHorizontalPodAutoscalerSyncs int
	// ConfigurableTolerance is the HPAConfigurableTolerance feature gate (KEP-4951; alpha in
	// 1.33, beta and on since 1.35, GA in 1.37): spec.behavior.scaleUp/scaleDown.tolerance
	// overrides HorizontalPodAutoscalerTolerance. Off, the API server drops the field, so the
	// controller never sees it; here the controller ignores it.
	ConfigurableTolerance bool
}

// Limits of the configuration.
const (
	// MaxPeriod bounds the sync period and the windows.
	MaxPeriod = 24 * time.Hour
	// MaxWorkers bounds the workers.
	MaxWorkers = 1000
)

// DefaultConfig returns upstream's defaults ([k8s:pkg/controller/podautoscaler/config/v1alpha1/
// defaults.go@85643c0f] RecommendedDefaultHPAControllerConfiguration; docs/upstream.md#hpa):
// sync period 15s, tolerance 0.1, downscale stabilization 5m, cpu initialization period 5m,
// initial readiness delay 30s, and 5 concurrent syncs (ConcurrentHorizontalPodAutoscalerSyncs,
// [kube-controller-manager@HEAD] config/v1alpha1/types.go).
func DefaultConfig() Config {
	return Config{
		HorizontalPodAutoscalerSyncPeriod:                   15 * time.Second,
		HorizontalPodAutoscalerTolerance:                    0.1,
		HorizontalPodAutoscalerDownscaleStabilizationWindow: 5 * time.Minute,
		HorizontalPodAutoscalerCPUInitializationPeriod:      5 * time.Minute,
		HorizontalPodAutoscalerInitialReadinessDelay:        30 * time.Second,
		ConcurrentHorizontalPodAutoscalerSyncs:              5,
		ConfigurableTolerance:                               true,
	}
}

// Validate reports the first field out of range, by its flag name: a sync period from 1ms to
// 24h, a tolerance from 0 to 1, windows and delays from 0 to 24h, 1 to 1000 workers.
func (c Config) Validate() error {
	return bounds.First("",
		bounds.In("horizontal-pod-autoscaler-sync-period", c.HorizontalPodAutoscalerSyncPeriod, time.Millisecond, MaxPeriod),
		bounds.In("horizontal-pod-autoscaler-tolerance", c.HorizontalPodAutoscalerTolerance, 0, 1),
		bounds.In("horizontal-pod-autoscaler-downscale-stabilization", c.HorizontalPodAutoscalerDownscaleStabilizationWindow, 0, MaxPeriod),
		bounds.In("horizontal-pod-autoscaler-cpu-initialization-period", c.HorizontalPodAutoscalerCPUInitializationPeriod, 0, MaxPeriod),
		bounds.In("horizontal-pod-autoscaler-initial-readiness-delay", c.HorizontalPodAutoscalerInitialReadinessDelay, 0, MaxPeriod),
		bounds.In("concurrent-horizontal-pod-autoscaler-syncs", c.ConcurrentHorizontalPodAutoscalerSyncs, 1, MaxWorkers),
	)
}
