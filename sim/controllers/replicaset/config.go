package replicaset

import (
	"fmt"
	"time"

	"github.com/reconsim/reconsim/sim/controllers/internal/controllerutil"
)

// Upstream defaults, each named after where it comes from.
const (
	// DefaultConcurrentReplicaSetSyncs is --concurrent-replicaset-syncs
	// ([k8s:pkg/controller/replicaset/config/v1alpha1/defaults.go@4a0608cb]).
	DefaultConcurrentReplicaSetSyncs = 5
	// BurstReplicas caps the creates or deletes of one sync
	// ([k8s:pkg/controller/replicaset/replica_set.go@003e8629] BurstReplicas = 500).
	BurstReplicas = 500
	// SlowStartInitialBatchSize is the first batch of a slow start
	// ([k8s:pkg/controller/controller_utils.go] SlowStartInitialBatchSize = 1).
	SlowStartInitialBatchSize = 1
	// StatusUpdateRetries is how many times a failed status update is retried after a fresh
	// GET ([k8s:replica_set.go@003e8629] statusUpdateRetries = 1).
	StatusUpdateRetries = 1
)

// Limits on configuration values, so that a bad scenario gets an error instead of a run that
// spawns millions of processes.
const (
	maxBurst     = 100000
	maxRetries   = 100
	maxBatchSize = 100000
)

// Config is the controller's configuration: the upstream flags and constants it models.
type Config struct {
	// ConcurrentReplicaSetSyncs is --concurrent-replicaset-syncs: the number of worker
	// processes syncing ReplicaSets at the same time.
	ConcurrentReplicaSetSyncs int
	// BurstReplicas is the most pods one sync creates or deletes (upstream BurstReplicas).
	BurstReplicas int
	// ExpectationsTimeout is how long a sync waits for expected watch events before acting
	// anyway (upstream ExpectationsTimeout).
	ExpectationsTimeout time.Duration
	// SlowStartInitialBatchSize is the size of the first batch of pod creations (upstream
	// SlowStartInitialBatchSize).
	SlowStartInitialBatchSize int
	// StatusUpdateRetries is the number of GET+UpdateStatus retries after a failed status
	// update (upstream statusUpdateRetries).
	StatusUpdateRetries int
}

// DefaultConfig returns the upstream defaults.
func DefaultConfig() Config {
	return Config{
		ConcurrentReplicaSetSyncs: DefaultConcurrentReplicaSetSyncs,
		BurstReplicas:             BurstReplicas,
		ExpectationsTimeout:       controllerutil.ExpectationsTimeout,
		SlowStartInitialBatchSize: SlowStartInitialBatchSize,
		StatusUpdateRetries:       StatusUpdateRetries,
	}
}

// Validate returns an error naming the first field (by its upstream flag or constant) that is
// out of range; nil if the configuration is usable.
func (c Config) Validate() error {
	if err := controllerutil.CheckWorkers("replicaset", "concurrent-replicaset-syncs", c.ConcurrentReplicaSetSyncs); err != nil {
		return err
	}
	switch {
	case c.BurstReplicas < 1 || c.BurstReplicas > maxBurst:
		return fmt.Errorf("replicaset: burstReplicas must be in [1, %d], got %d", maxBurst, c.BurstReplicas)
	case c.ExpectationsTimeout <= 0:
		return fmt.Errorf("replicaset: expectations timeout must be positive, got %s", c.ExpectationsTimeout)
	case c.SlowStartInitialBatchSize < 1 || c.SlowStartInitialBatchSize > maxBatchSize:
		return fmt.Errorf("replicaset: slow start initial batch size must be in [1, %d], got %d", maxBatchSize, c.SlowStartInitialBatchSize)
	case c.StatusUpdateRetries < 0 || c.StatusUpdateRetries > maxRetries:
		return fmt.Errorf("replicaset: status update retries must be in [0, %d], got %d", maxRetries, c.StatusUpdateRetries)
	}
	return nil
}
