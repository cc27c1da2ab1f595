package ttlafterfinished

import "github.com/reconsim/reconsim/internal/flagtab"

// Flags is this component's flag table (kube-controller-manager flags): each upstream flag it
// honours, its default (equal to DefaultConfig's; a test of scenarios checks), the upstream
// source of that default and the Config field it sets. scenarios documents and validates the
// flags from it; sim/cluster configures the component through it (internal/flagtab).
var Flags = flagtab.Table[Config]{
	Component: "kube-controller-manager",
	Defaults:  DefaultConfig,
	Flags: []flagtab.Flag[Config]{
		{Name: "concurrent-ttl-after-finished-syncs", Type: flagtab.Int, Default: "5", Field: "ConcurrentTTLSyncs",
			Source: "[k8s] pkg/controller/ttlafterfinished/config/v1alpha1/defaults.go (ConcurrentTTLSyncs 5)",
			Ptr:    func(c *Config) any { return &c.ConcurrentTTLSyncs }},
	},
}
