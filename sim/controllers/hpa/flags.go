package hpa

import "github.com/reconsim/reconsim/internal/flagtab"

// Flags is this component's flag table (kube-controller-manager flags): each upstream flag it
// honours, its default (equal to DefaultConfig's; a test of scenarios checks), the upstream
// source of that default and the Config field it sets. scenarios documents and validates the
// flags from it; sim/cluster configures the component through it (internal/flagtab).
var Flags = flagtab.Table[Config]{
	Component: "kube-controller-manager",
	Defaults:  DefaultConfig,
	Flags: []flagtab.Flag[Config]{
		{Name: "horizontal-pod-autoscaler-sync-period", Type: flagtab.Duration, Default: "15s", Field: "HorizontalPodAutoscalerSyncPeriod",
			Source: "[k8s:pkg/controller/podautoscaler/config/v1alpha1/defaults.go@85643c0f]",
			Ptr:    func(c *Config) any { return &c.HorizontalPodAutoscalerSyncPeriod }},
		{Name: "horizontal-pod-autoscaler-tolerance", Type: flagtab.Float, Default: "0.1", Field: "HorizontalPodAutoscalerTolerance",
			Source: "[k8s:pkg/controller/podautoscaler/config/v1alpha1/defaults.go@85643c0f]",
			Ptr:    func(c *Config) any { return &c.HorizontalPodAutoscalerTolerance }},
		{Name: "horizontal-pod-autoscaler-downscale-stabilization", Type: flagtab.Duration, Default: "5m", Field: "HorizontalPodAutoscalerDownscaleStabilizationWindow",
			Source: "[k8s:pkg/controller/podautoscaler/config/v1alpha1/defaults.go@85643c0f]",
			Ptr:    func(c *Config) any { return &c.HorizontalPodAutoscalerDownscaleStabilizationWindow }},
		{Name: "horizontal-pod-autoscaler-cpu-initialization-period", Type: flagtab.Duration, Default: "5m", Field: "HorizontalPodAutoscalerCPUInitializationPeriod",
			Source: "[k8s:pkg/controller/podautoscaler/config/v1alpha1/defaults.go@85643c0f]",
			Ptr:    func(c *Config) any { return &c.HorizontalPodAutoscalerCPUInitializationPeriod }},
		{Name: "horizontal-pod-autoscaler-initial-readiness-delay", Type: flagtab.Duration, Default: "30s", Field: "HorizontalPodAutoscalerInitialReadinessDelay",
			Source: "[k8s:pkg/controller/podautoscaler/config/v1alpha1/defaults.go@85643c0f]",
			Ptr:    func(c *Config) any { return &c.HorizontalPodAutoscalerInitialReadinessDelay }},
		{Name: "concurrent-horizontal-pod-autoscaler-syncs", Type: flagtab.Int, Default: "5", Field: "ConcurrentHorizontalPodAutoscalerSyncs",
			Source: "[k8s:pkg/controller/podautoscaler/config/v1alpha1/defaults.go@85643c0f]",
			Ptr:    func(c *Config) any { return &c.ConcurrentHorizontalPodAutoscalerSyncs }},
	},
}
