package kubecontrollermanager

import "github.com/reconsim/reconsim/internal/flagtab"

// Flags is the table of kube-controller-manager's generic flags: each flag, its default (equal
// to DefaultOptions'; a test of scenarios checks), the upstream source of that default and the
// Options field it sets. scenarios documents and validates the flags from it; sim/cluster
// builds the controllers' clients and informers through it (internal/flagtab).
var Flags = flagtab.Table[Options]{
	Component: "kube-controller-manager",
	Defaults:  DefaultOptions,
	Flags: []flagtab.Flag[Options]{
		{Name: "kube-api-qps", Type: flagtab.Float, Default: "20", Field: "KubeAPIQPS",
			Source: "[k8s:pkg/controller/apis/config/v1alpha1/defaults.go@025959b7]; flag in [controller-manager@HEAD] options/generic.go L62-63",
			Ptr:    func(o *Options) any { return &o.KubeAPIQPS }},
		{Name: "kube-api-burst", Type: flagtab.Int, Default: "30", Field: "KubeAPIBurst",
			Source: "[k8s:pkg/controller/apis/config/v1alpha1/defaults.go@025959b7]; flag in [controller-manager@HEAD] options/generic.go L62-63",
			Ptr:    func(o *Options) any { return &o.KubeAPIBurst }},
		{Name: "min-resync-period", Type: flagtab.Duration, Default: "12h", Field: "MinResyncPeriod",
			Source: "[controller-manager@HEAD] config/v1alpha1/defaults.go; [k8s:pkg/controller/apis/config/v1alpha1/defaults.go@025959b7]",
			Ptr:    func(o *Options) any { return &o.MinResyncPeriod }},
	},
}
