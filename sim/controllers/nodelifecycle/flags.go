package nodelifecycle

import "github.com/reconsim/reconsim/internal/flagtab"

// Flags is this component's flag table (kube-controller-manager flags): each upstream flag it
// honours, its default (equal to DefaultConfig's; a test of scenarios checks), the upstream
// source of that default and the Config field it sets. scenarios documents and validates the
// flags from it; sim/cluster configures the component through it (internal/flagtab).
var Flags = flagtab.Table[Config]{
	Component: "kube-controller-manager",
	Defaults:  DefaultConfig,
	Flags: []flagtab.Flag[Config]{
		{Name: "node-monitor-period", Type: flagtab.Duration, Default: "5s", Field: "NodeMonitorPeriod",
			Source: "[k8s:pkg/controller/apis/config/v1alpha1/defaults.go@025959b7] SetDefaults_KubeCloudSharedConfiguration",
			Ptr:    func(c *Config) any { return &c.NodeMonitorPeriod }},
		{Name: "node-monitor-grace-period", Type: flagtab.Duration, Default: "50s", Field: "NodeMonitorGracePeriod",
			Source: "kubernetes/kubernetes PR #126287 (50s from v1.32)",
			Ptr:    func(c *Config) any { return &c.NodeMonitorGracePeriod }},
		{Name: "node-startup-grace-period", Type: flagtab.Duration, Default: "60s", Field: "NodeStartupGracePeriod",
			Source: "[k8s:pkg/controller/nodelifecycle/config/v1alpha1/defaults.go@0d173114] RecommendedDefaultNodeLifecycleControllerConfiguration",
			Ptr:    func(c *Config) any { return &c.NodeStartupGracePeriod }},
		{Name: "node-eviction-rate", Type: flagtab.Float, Default: "0.1", Field: "NodeEvictionRate",
			Source: "[k8s:cmd/kube-controller-manager/app/options/nodelifecyclecontroller.go@025f2834]",
			Ptr:    func(c *Config) any { return &c.NodeEvictionRate }},
		{Name: "secondary-node-eviction-rate", Type: flagtab.Float, Default: "0.01", Field: "SecondaryNodeEvictionRate",
			Source: "[k8s:cmd/kube-controller-manager/app/options/nodelifecyclecontroller.go@025f2834]",
			Ptr:    func(c *Config) any { return &c.SecondaryNodeEvictionRate }},
		{Name: "large-cluster-size-threshold", Type: flagtab.Int, Default: "50", Field: "LargeClusterSizeThreshold",
			Source: "[k8s:cmd/kube-controller-manager/app/options/nodelifecyclecontroller.go@025f2834]",
			Ptr:    func(c *Config) any { return &c.LargeClusterSizeThreshold }},
		{Name: "unhealthy-zone-threshold", Type: flagtab.Float, Default: "0.55", Field: "UnhealthyZoneThreshold",
			Source: "[k8s:cmd/kube-controller-manager/app/options/nodelifecyclecontroller.go@025f2834]",
			Ptr:    func(c *Config) any { return &c.UnhealthyZoneThreshold }},
	},
}
