package kubeapiserver

import "github.com/reconsim/reconsim/internal/flagtab"

// Flags is kube-apiserver's flag table: each upstream flag the simulator honours, its default
// (equal to DefaultOptions'; a test of scenarios checks), the upstream source of that default
// and the Options field it sets. scenarios documents and validates the flags from it;
// sim/cluster configures the API server through it (internal/flagtab).
var Flags = flagtab.Table[Options]{
	Component: "kube-apiserver",
	Defaults:  DefaultOptions,
	Flags: []flagtab.Flag[Options]{
		{Name: "max-requests-inflight", Type: flagtab.Int, Default: "400", Field: "MaxRequestsInflight",
			Source: "[apiserver@HEAD] pkg/server/config.go L451-454",
			Ptr:    func(o *Options) any { return &o.MaxRequestsInflight }},
		{Name: "max-mutating-requests-inflight", Type: flagtab.Int, Default: "200", Field: "MaxMutatingRequestsInflight",
			Source: "[apiserver@HEAD] pkg/server/config.go L451-454",
			Ptr:    func(o *Options) any { return &o.MaxMutatingRequestsInflight }},
		{Name: "event-ttl", Type: flagtab.Duration, Default: "1h", Field: "EventTTL",
			Source: "[k8s:pkg/controlplane/apiserver/options/options.go] EventTTL",
			Ptr:    func(o *Options) any { return &o.EventTTL }},
		{Name: "enable-priority-and-fairness", Type: flagtab.Bool, Default: "true", Field: "EnablePriorityAndFairness",
			Source: "[apiserver@HEAD] pkg/server/options/feature.go NewFeatureOptions (EnablePriorityAndFairness: true; GA in 1.29, KEP-1040)",
			Ptr:    func(o *Options) any { return &o.EnablePriorityAndFairness }},
		{Name: "request-timeout", Type: flagtab.Duration, Default: "60s", Field: "RequestTimeout",
			Source: "[apiserver@HEAD] pkg/server/config.go NewConfig (RequestTimeout: 60s); the APF queue wait is a quarter of it, at most 1m (pkg/server/filters/priority-and-fairness.go getRequestWaitContext)",
			Ptr:    func(o *Options) any { return &o.RequestTimeout }},
		{Name: "enable-admission-plugins", Type: flagtab.String, Default: "", Field: "EnableAdmissionPlugins",
			Source: "[k8s] pkg/kubeapiserver/options/plugins.go (DefaultOffAdmissionPlugins; AllOrderedPlugins gives the order)",
			Ptr:    func(o *Options) any { return &o.EnableAdmissionPlugins }},
		{Name: "disable-admission-plugins", Type: flagtab.String, Default: "", Field: "DisableAdmissionPlugins",
			Source: "[k8s] pkg/kubeapiserver/options/plugins.go",
			Ptr:    func(o *Options) any { return &o.DisableAdmissionPlugins }},
		{Name: "default-not-ready-toleration-seconds", Type: flagtab.Int, Default: "300", Field: "DefaultNotReadyTolerationSeconds",
			Source: "[k8s:plugin/pkg/admission/defaulttolerationseconds/admission.go@012b085a]",
			Ptr:    func(o *Options) any { return &o.DefaultNotReadyTolerationSeconds }},
		{Name: "default-unreachable-toleration-seconds", Type: flagtab.Int, Default: "300", Field: "DefaultUnreachableTolerationSeconds",
			Source: "[k8s:plugin/pkg/admission/defaulttolerationseconds/admission.go@012b085a]",
			Ptr:    func(o *Options) any { return &o.DefaultUnreachableTolerationSeconds }},
	},
}

// SimulatorFlags is the table of the simulator's knobs of the API server (simulator flags):
// latency distributions that are not upstream settings, with the reason for each default.
var SimulatorFlags = flagtab.Table[Options]{
	Component: "simulator",
	Defaults:  DefaultOptions,
	Flags: []flagtab.Flag[Options]{
		{Name: "watch-delay", Type: flagtab.Dist, Default: "lognormal(median=2ms,p99=20ms,max=1s)", Field: "WatchDelay",
			Source: "simulator default (not upstream)",
			Ptr:    func(o *Options) any { return &o.WatchDelay }},
		{Name: "api-service-time-get", Type: flagtab.Dist, Default: "lognormal(median=1ms,p99=10ms,max=1s)", Field: "ServiceTimeGet",
			Source: "simulator default (not upstream; well inside the 1s read SLO, docs/upstream.md#slos)",
			Ptr:    func(o *Options) any { return &o.ServiceTimeGet }},
		{Name: "api-service-time-list", Type: flagtab.Dist, Default: "lognormal(median=10ms,p99=100ms,max=5s)", Field: "ServiceTimeList",
			Source: "simulator default (not upstream; well inside the 30s list SLO, docs/upstream.md#slos)",
			Ptr:    func(o *Options) any { return &o.ServiceTimeList }},
		{Name: "api-service-time-mutating", Type: flagtab.Dist, Default: "lognormal(median=5ms,p99=50ms,max=1s)", Field: "ServiceTimeMutating",
			Source: "simulator default (not upstream; well inside the 1s mutating SLO, docs/upstream.md#slos)",
			Ptr:    func(o *Options) any { return &o.ServiceTimeMutating }},
	},
}
