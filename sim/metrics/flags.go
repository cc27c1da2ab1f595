package metrics

import "github.com/reconsim/reconsim/internal/flagtab"

// Flags is the metrics pipeline's flag table (simulator flags: the metrics-server and kubelet
// settings the pipeline models): each flag, its default (equal to DefaultConfig's; a test of
// scenarios checks), the source of that default and the Config field it sets. scenarios
// documents and validates the flags from it; sim/cluster configures the pipeline through it
// (internal/flagtab).
var Flags = flagtab.Table[Config]{
	Component: "simulator",
	Defaults:  DefaultConfig,
	Flags: []flagtab.Flag[Config]{
		{Name: "metric-resolution", Type: flagtab.Duration, Default: "15s", Field: "MetricResolution",
			Source: "kubernetes-sigs/metrics-server --metric-resolution: 60s in cmd/metrics-server/app/options/options.go NewOptions@087ef6b3, 15s in charts/metrics-server/values.yaml defaultArgs@026af897 (docs/upstream.md#metrics-server)",
			Ptr:    func(c *Config) any { return &c.MetricResolution }},
		{Name: "housekeeping-interval", Type: flagtab.Duration, Default: "10s", Field: "HousekeepingInterval",
			Source: "kubelet pkg/kubelet/cadvisor/cadvisor_linux.go defaultHousekeepingInterval 10s, overriding cAdvisor's housekeeping_interval (docs/upstream.md#metrics-server)",
			Ptr:    func(c *Config) any { return &c.HousekeepingInterval }},
	},
}
