package nodelifecycle

import (
	"time"

	"github.com/reconsim/reconsim/internal/bounds"
)

// Fixed upstream constants (not flags).
const (
	// NodeEvictionPeriod is how often doNoExecuteTaintingPass runs
	// ([k8s:pkg/controller/nodelifecycle/scheduler/rate_limited_queue.go@18e0ba76]).
	NodeEvictionPeriod = 100 * time.Millisecond
	// EvictionRateLimiterBurst is the burst of every zone's tainting token bucket (same file).
	EvictionRateLimiterBurst = 1
	// NodeHealthUpdateRetry bounds the node status write retries of one monitor pass: upstream
	// polls every retrySleepTime for retrySleepTime*NodeHealthUpdateRetry (same file; called
	// NodeStatusUpdateRetry in older code).
	NodeHealthUpdateRetry = 5
	// retrySleepTime is the pause between node health update attempts
	// ([k8s:node_lifecycle_controller.go@003e8629]).
	retrySleepTime = 20 * time.Millisecond
	// nodeUpdateWorkerSize is the number of workers that run the per-node part of
	// monitorNodeHealth and doNoScheduleTaintingPass (same file).
	nodeUpdateWorkerSize = 8
	// podUpdateWorkerSize is the number of workers marking newly bound pods NotReady on
	// not-ready nodes (same file).
	podUpdateWorkerSize = 4
	// noExecuteRetryWait is how long a node stays at the head of a zone queue when it cannot
	// be read from the cache or has no Ready condition (upstream "retry in 50 millisecond").
	noExecuteRetryWait = 50 * time.Millisecond
)

// updateTaintBackoff is upstream pkg/controller UpdateTaintBackoff (Steps 5, Duration 100ms,
// Jitter 1.0) used by AddOrUpdateTaintOnNode / RemoveTaintOffNode through RetryOnConflict.
var updateTaintBackoff = struct {
	steps    int
	duration time.Duration
	jitter   float64
}{steps: 5, duration: 100 * time.Millisecond, jitter: 1.0}

// NodeMonitorGracePeriodV131 is the --node-monitor-grace-period default up to Kubernetes
// v1.31 ([k8s:pkg/controller/nodelifecycle/config/v1alpha1/defaults.go@0d173114]); PR #126287
// raised it to 50s in v1.32. The integrator passes it when a scenario picks upstream-version
// 1.31 or older.
const NodeMonitorGracePeriodV131 = 40 * time.Second

// Config holds the node lifecycle controller's kube-controller-manager flags. Rates and the
// threshold are float32 because upstream keeps them as float32 and compares in float32.
type Config struct {
	// NodeMonitorPeriod is --node-monitor-period: how often monitorNodeHealth runs.
	NodeMonitorPeriod time.Duration
	// NodeMonitorGracePeriod is --node-monitor-grace-period: how long a node that has posted a
	// Ready condition may go without a heartbeat (status or Lease) before it is marked Unknown.
	NodeMonitorGracePeriod time.Duration
	// NodeStartupGracePeriod is --node-startup-grace-period: the grace for a node that has
	// never posted a Ready condition.
	NodeStartupGracePeriod time.Duration
	// NodeEvictionRate is --node-eviction-rate: nodes tainted per second in a healthy zone.
	NodeEvictionRate float32
	// SecondaryNodeEvictionRate is --secondary-node-eviction-rate: nodes tainted per second in
	// a partially disrupted zone larger than LargeClusterSizeThreshold.
	SecondaryNodeEvictionRate float32
	// LargeClusterSizeThreshold is --large-cluster-size-threshold.
	LargeClusterSizeThreshold int32
	// UnhealthyZoneThreshold is --unhealthy-zone-threshold: the not-ready share (with more than
	// two not ready) at which a zone is partially disrupted.
	UnhealthyZoneThreshold float32
}

// DefaultConfig returns the upstream defaults (v1.32 and later):
//   - NodeMonitorPeriod 5s: --node-monitor-period
//     ([k8s:pkg/controller/apis/config/v1alpha1/defaults.go@025959b7]).
//   - NodeMonitorGracePeriod 50s: --node-monitor-grace-period (PR #126287, v1.32; 40s before,
//     see NodeMonitorGracePeriodV131).
//   - NodeStartupGracePeriod 60s: --node-startup-grace-period.
//   - NodeEvictionRate 0.1, SecondaryNodeEvictionRate 0.01, LargeClusterSizeThreshold 50,
//     UnhealthyZoneThreshold 0.55
//     ([k8s:cmd/kube-controller-manager/app/options/nodelifecyclecontroller.go@025f2834]).
func DefaultConfig() Config {
	return Config{
		NodeMonitorPeriod:         5 * time.Second,
		NodeMonitorGracePeriod:    50 * time.Second,
		NodeStartupGracePeriod:    60 * time.Second,
		NodeEvictionRate:          0.1,
		SecondaryNodeEvictionRate: 0.01,
		LargeClusterSizeThreshold: 50,
		UnhealthyZoneThreshold:    0.55,
	}
}

// Limits on configuration values: beyond them a run would be meaningless or the arithmetic
// would overflow.
const (
	maxPeriod       = 24 * time.Hour
	maxEvictionRate = 1e6
)

// Validate reports the first configuration value that is out of range, naming its flag.
func (c Config) Validate() error {
	return bounds.First("nodelifecycle",
		bounds.PositiveAtMost("--node-monitor-period", c.NodeMonitorPeriod, maxPeriod),
		bounds.PositiveAtMost("--node-monitor-grace-period", c.NodeMonitorGracePeriod, maxPeriod),
		bounds.PositiveAtMost("--node-startup-grace-period", c.NodeStartupGracePeriod, maxPeriod),
		bounds.In("--node-eviction-rate", c.NodeEvictionRate, 0, maxEvictionRate),
		bounds.In("--secondary-node-eviction-rate", c.SecondaryNodeEvictionRate, 0, maxEvictionRate),
		bounds.NonNegative("--large-cluster-size-threshold", c.LargeClusterSizeThreshold),
		bounds.PositiveAtMost("--unhealthy-zone-threshold", c.UnhealthyZoneThreshold, 1),
	)
}
