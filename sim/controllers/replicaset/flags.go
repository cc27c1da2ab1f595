package replicaset

import "github.com/reconsim/reconsim/internal/flagtab"

// Flags is this component's flag table (kube-controller-manager flags): each upstream flag it
// honours, its default (equal to DefaultConfig's; a test of scenarios checks), the upstream
// source of that default and the Config field it sets. scenarios documents and validates the
// flags from it; sim/cluster configures the component through it (internal/flagtab).
var Flags = flagtab.Table[Config]{
	Component: "kube-controller-manager",
	Defaults:  DefaultConfig,
	Flags: []flagtab.Flag[Config]{
		{Name: "concurrent-replicaset-syncs", Type: flagtab.Int, Default: "5", Field: "ConcurrentReplicaSetSyncs",
			Source: "[k8s:pkg/controller/replicaset/config/v1alpha1/defaults.go@4a0608cb]",
			Ptr:    func(c *Config) any { return &c.ConcurrentReplicaSetSyncs }},
	},
}
