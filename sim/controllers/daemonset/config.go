package daemonset

import (
	"fmt"
	"time"

	"github.com/reconsim/reconsim/internal/bounds"
	"github.com/reconsim/reconsim/sim/controllers/internal/controllerutil"
)

// Upstream defaults, each named after where it comes from.
const (
	// DefaultConcurrentDaemonSetSyncs is --concurrent-daemonset-syncs
	// ([k8s:pkg/controller/daemon/config/v1alpha1/defaults.go@9d2a8fb7]
	// RecommendedDefaultDaemonSetControllerConfiguration: 2).
	DefaultConcurrentDaemonSetSyncs = 2
	// BurstReplicas caps the creations and the deletions of one sync: "the value of 250 is
	// chosen b/c values that are too high can cause registry DoS issues"
	// ([k8s:pkg/controller/daemon/daemon_controller.go] BurstReplicas = 250).
	BurstReplicas = 250
	// SlowStartInitialBatchSize is the first batch of pod creations
	// ([k8s:pkg/controller/controller_utils.go] SlowStartInitialBatchSize = 1).
	SlowStartInitialBatchSize = 1
	// StatusUpdateRetries is how many times a failed status write is retried after a fresh GET
	// (daemon_controller.go StatusUpdateRetries = 1).
	StatusUpdateRetries = 1
	// FailedPodsBackoffInitial and FailedPodsBackoffMax bound the back-off between deletions of
	// a failed daemon pod on one node (cmd/kube-controller-manager/app/apps.go
	// startDaemonSetController: flowcontrol.NewBackOff(1*time.Second, 15*time.Minute)).
	FailedPodsBackoffInitial = time.Second
	FailedPodsBackoffMax     = 15 * time.Minute
	// BackoffGCInterval is how often expired back-off entries are dropped
	// (daemon_controller.go BackoffGCInterval = 1 * time.Minute).
	BackoffGCInterval = time.Minute
	// DefaultRevisionHistoryLimit is what the API server defaults spec.revisionHistoryLimit to
	// ([k8s:pkg/apis/apps/v1/defaults.go] SetDefaults_DaemonSet: 10); the controller applies it
	// when the field is unset.
	DefaultRevisionHistoryLimit = 10
)

// Limits on configuration values, so that a bad scenario gets an error instead of a run that
// spawns millions of processes.
const (
	maxBurst   = 100000
	maxRetries = 100
)

// Config is the controller's configuration: the upstream flags and constants it models.
type Config struct {
	// ConcurrentDaemonSetSyncs is --concurrent-daemonset-syncs: the number of worker
	// processes syncing DaemonSets at the same time.
	ConcurrentDaemonSetSyncs int
	// BurstReplicas caps the creations and the deletions of one sync (upstream BurstReplicas).
	BurstReplicas int
	// SlowStartInitialBatchSize is the first batch of pod creations.
	SlowStartInitialBatchSize int
	// StatusUpdateRetries is the number of GET+UpdateStatus retries after a failed status
	// write.
	StatusUpdateRetries int
	// ExpectationsTimeout is how long unobserved creations and deletions hold a DaemonSet.
	ExpectationsTimeout time.Duration
	// FailedPodsBackoffInitial and FailedPodsBackoffMax are the failed-pod back-off bounds.
	FailedPodsBackoffInitial, FailedPodsBackoffMax time.Duration
	// BackoffGCInterval is the period of the failed-pod back-off garbage collection.
	BackoffGCInterval time.Duration
}

// DefaultConfig returns the upstream defaults.
func DefaultConfig() Config {
	return Config{
		ConcurrentDaemonSetSyncs:  DefaultConcurrentDaemonSetSyncs,
		BurstReplicas:             BurstReplicas,
		SlowStartInitialBatchSize: SlowStartInitialBatchSize,
		StatusUpdateRetries:       StatusUpdateRetries,
		ExpectationsTimeout:       controllerutil.ExpectationsTimeout,
		FailedPodsBackoffInitial:  FailedPodsBackoffInitial,
		FailedPodsBackoffMax:      FailedPodsBackoffMax,
		BackoffGCInterval:         BackoffGCInterval,
	}
}

// Validate returns an error naming the first field (by its upstream flag or constant) that is
// out of range; nil if the configuration is usable.
func (c Config) Validate() error {
	if err := bounds.First("daemonset",
		controllerutil.Workers("concurrent-daemonset-syncs", c.ConcurrentDaemonSetSyncs),
		bounds.In("burstReplicas", c.BurstReplicas, 1, maxBurst),
		bounds.In("slow start initial batch size", c.SlowStartInitialBatchSize, 1, maxBurst),
		bounds.In("status update retries", c.StatusUpdateRetries, 0, maxRetries),
		bounds.Positive("expectations timeout", c.ExpectationsTimeout),
		bounds.Positive("failed pods back-off initial", c.FailedPodsBackoffInitial),
		bounds.Positive("back-off GC interval", c.BackoffGCInterval),
	); err != nil {
		return err
	}
	if c.FailedPodsBackoffMax < c.FailedPodsBackoffInitial {
		return fmt.Errorf("daemonset: failed pods back-off must satisfy 0 < initial (%s) <= max (%s)", c.FailedPodsBackoffInitial, c.FailedPodsBackoffMax)
	}
	return nil
}
