package scheduler

import "github.com/reconsim/reconsim/internal/flagtab"

// Flags is this component's flag table (kube-scheduler flags): each upstream flag it
// honours, its default (equal to DefaultConfig's; a test of scenarios checks), the upstream
// source of that default and the Config field it sets. scenarios documents and validates the
// flags from it; sim/cluster configures the component through it (internal/flagtab).
var Flags = flagtab.Table[Config]{
	Component: "kube-scheduler",
	Defaults:  DefaultConfig,
	Flags: []flagtab.Flag[Config]{
		{Name: "kube-api-qps", Type: flagtab.Float, Default: "50", Field: "KubeAPIQPS",
			Source: "[k8s:pkg/scheduler/apis/config/v1/defaults.go@00fe7a37]",
			Ptr:    func(c *Config) any { return &c.KubeAPIQPS }},
		{Name: "kube-api-burst", Type: flagtab.Int, Default: "100", Field: "KubeAPIBurst",
			Source: "[k8s:pkg/scheduler/apis/config/v1/defaults.go@00fe7a37]",
			Ptr:    func(c *Config) any { return &c.KubeAPIBurst }},
		{Name: "pod-initial-backoff-seconds", Type: flagtab.Int, Default: "1", Field: "PodInitialBackoffSeconds",
			Source: "[k8s:pkg/scheduler/apis/config/v1/defaults.go@00fe7a37]; [kube-scheduler-cfg@HEAD] config/v1/types.go",
			Ptr:    func(c *Config) any { return &c.PodInitialBackoffSeconds }},
		{Name: "pod-max-backoff-seconds", Type: flagtab.Int, Default: "10", Field: "PodMaxBackoffSeconds",
			Source: "[k8s:pkg/scheduler/apis/config/v1/defaults.go@00fe7a37]; [kube-scheduler-cfg@HEAD] config/v1/types.go",
			Ptr:    func(c *Config) any { return &c.PodMaxBackoffSeconds }},
	},
}
