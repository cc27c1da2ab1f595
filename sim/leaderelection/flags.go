package leaderelection

import (
	"time"

	"github.com/reconsim/reconsim/internal/flagtab"
)

// DefaultConfig is the election timing kube-controller-manager and kube-scheduler default to:
// lease duration 15s, renew deadline 10s, retry period 2s (k8s.io/component-base
// config/v1alpha1/defaults.go RecommendedDefaultLeaderElectionConfiguration). The lock name,
// identity and ReleaseOnCancel are the caller's.
func DefaultConfig() Config {
	return Config{LeaseDuration: 15 * time.Second, RenewDeadline: 10 * time.Second, RetryPeriod: 2 * time.Second}
}

// Flags returns the leader-election flag table of component (kube-controller-manager or
// kube-scheduler; both take component-base's --leader-elect-* flags): each flag, its default
// (equal to DefaultConfig's; a test of scenarios checks), the upstream source of that default
// and the Config field it sets (internal/flagtab).
func Flags(component string) flagtab.Table[Config] { return flags.For(component) }

var flags = flagtab.Table[Config]{
	Defaults: DefaultConfig,
	Flags: []flagtab.Flag[Config]{
		{Name: "leader-elect-lease-duration", Type: flagtab.Duration, Default: "15s", Field: "LeaseDuration",
			Source: "k8s.io/component-base config/v1alpha1/defaults.go RecommendedDefaultLeaderElectionConfiguration",
			Ptr:    func(c *Config) any { return &c.LeaseDuration }},
		{Name: "leader-elect-renew-deadline", Type: flagtab.Duration, Default: "10s", Field: "RenewDeadline",
			Source: "k8s.io/component-base config/v1alpha1/defaults.go RecommendedDefaultLeaderElectionConfiguration",
			Ptr:    func(c *Config) any { return &c.RenewDeadline }},
		{Name: "leader-elect-retry-period", Type: flagtab.Duration, Default: "2s", Field: "RetryPeriod",
			Source: "k8s.io/component-base config/v1alpha1/defaults.go RecommendedDefaultLeaderElectionConfiguration; jitter factor 1.2 in client-go tools/leaderelection/leaderelection.go",
			Ptr:    func(c *Config) any { return &c.RetryPeriod }},
	},
}

// Process is how the simulator runs a leader-elected component's processes
// (kube-controller-manager or kube-scheduler).
type Process struct {
	// LeaderElect is --leader-elect: run an election before doing any work.
	LeaderElect bool
	// Replicas is the number of processes, each a candidate (simulator setting).
	Replicas int
	// RestartDelay is how long a process that lost its lease, and exited as upstream's does,
	// takes to come back as a standby (simulator setting).
	RestartDelay time.Duration
}

// DefaultProcess is one replica with --leader-elect true (component-base's default), restarted
// 10s after it exits.
func DefaultProcess() Process {
	return Process{LeaderElect: true, Replicas: 1, RestartDelay: 10 * time.Second}
}

// ProcessFlags returns the table of component's process flags: --leader-elect and the
// simulator's replicas and restart-delay, with their defaults (equal to DefaultProcess'; a test
// of scenarios checks), sources and the Process field each sets (internal/flagtab).
func ProcessFlags(component string) flagtab.Table[Process] { return processFlags.For(component) }

var processFlags = flagtab.Table[Process]{
	Defaults: DefaultProcess,
	Flags: []flagtab.Flag[Process]{
		{Name: "leader-elect", Type: flagtab.Bool, Default: "true", Field: "LeaderElect",
			Source: "k8s.io/component-base config/v1alpha1/defaults.go RecommendedDefaultLeaderElectionConfiguration (LeaderElect true)",
			Ptr:    func(p *Process) any { return &p.LeaderElect }},
		{Name: "replicas", Type: flagtab.Int, Default: "1", Field: "Replicas",
			Source: "simulator setting (an HA control plane runs one replica per control-plane node, usually 3)",
			Ptr:    func(p *Process) any { return &p.Replicas }},
		{Name: "restart-delay", Type: flagtab.Duration, Default: "10s", Field: "RestartDelay",
			Source: "kubelet containerBackOffPeriod 10s, the first back-off of a restarted static pod (pkg/kubelet/kubelet.go)",
			Ptr:    func(p *Process) any { return &p.RestartDelay }},
	},
}
