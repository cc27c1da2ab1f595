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
func Flags(component string) flagtab.Table[Config] {
	return flagtab.Table[Config]{
		Component: component,
		Defaults:  DefaultConfig,
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
}
