package node

import "github.com/reconsim/reconsim/internal/flagtab"

// Flags is this component's flag table (kubelet flags): each upstream flag it honours, and
// the simulator's kubelet latency knobs (image-pull, container-start), with its default (equal
// to DefaultConfig's; a test of scenarios checks), the source of that default and the Config
// field it sets. scenarios documents and validates the flags from it; sim/cluster configures
// the component through it (internal/flagtab).
var Flags = flagtab.Table[Config]{
	Component: "kubelet",
	Defaults:  DefaultConfig,
	Flags: []flagtab.Flag[Config]{
		{Name: "kube-api-qps", Type: flagtab.Float, Default: "50", Field: "KubeAPIQPS",
			Source: "[kubelet-cfg@HEAD] config/v1beta1/types.go",
			Ptr:    func(c *Config) any { return &c.KubeAPIQPS }},
		{Name: "kube-api-burst", Type: flagtab.Int, Default: "100", Field: "KubeAPIBurst",
			Source: "[kubelet-cfg@HEAD] config/v1beta1/types.go",
			Ptr:    func(c *Config) any { return &c.KubeAPIBurst }},
		{Name: "node-status-update-frequency", Type: flagtab.Duration, Default: "10s", Field: "NodeStatusUpdateFrequency",
			Source: "[kubelet-cfg@HEAD] config/v1beta1/types.go; [k8s:pkg/kubelet/kubelet.go@000d9543]",
			Ptr:    func(c *Config) any { return &c.NodeStatusUpdateFrequency }},
		{Name: "node-status-report-frequency", Type: flagtab.Duration, Default: "5m", Field: "NodeStatusReportFrequency",
			Source: "[kubelet-cfg@HEAD] config/v1beta1/types.go",
			Ptr:    func(c *Config) any { return &c.NodeStatusReportFrequency }},
		{Name: "node-lease-duration-seconds", Type: flagtab.Int, Default: "40", Field: "NodeLeaseDurationSeconds",
			Source: "[kubelet-cfg@HEAD] config/v1beta1/types.go",
			Ptr:    func(c *Config) any { return &c.NodeLeaseDurationSeconds }},
		{Name: "max-pods", Type: flagtab.Int, Default: "110", Field: "MaxPods",
			Source: "[kubelet-cfg@HEAD] config/v1beta1/types.go",
			Ptr:    func(c *Config) any { return &c.MaxPods }},
		{Name: "event-qps", Type: flagtab.Float, Default: "50", Field: "EventRecordQPS",
			Source: "[kubelet-cfg@HEAD] config/v1beta1/types.go",
			Ptr:    func(c *Config) any { return &c.EventRecordQPS }},
		{Name: "event-burst", Type: flagtab.Int, Default: "100", Field: "EventBurst",
			Source: "[kubelet-cfg@HEAD] config/v1beta1/types.go",
			Ptr:    func(c *Config) any { return &c.EventBurst }},
		{Name: "image-pull", Type: flagtab.Dist, Default: "lognormal(median=1s,p99=5s,max=60s)", Field: "ImagePull",
			Source: "simulator default (not upstream; image pulls are outside the pod startup SLO, docs/upstream.md#slos)",
			Ptr:    func(c *Config) any { return &c.ImagePull }},
		{Name: "container-start", Type: flagtab.Dist, Default: "lognormal(median=300ms,p99=1500ms,max=10s)", Field: "ContainerStart",
			Source: "simulator default (not upstream; chosen inside the 5s pod startup SLO, docs/upstream.md#slos)",
			Ptr:    func(c *Config) any { return &c.ContainerStart }},
	},
}
