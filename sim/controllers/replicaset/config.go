package replicaset

import (
	"time"

	"github.com/reconsim/reconsim/internal/bounds"
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
	return bounds.First("replicaset",
		controllerutil.Workers("concurrent-replicaset-syncs", c.ConcurrentReplicaSetSyncs),
		bounds.In("burstReplicas", c.BurstReplicas, 1, maxBurst),
		bounds.Positive("expectations timeout", c.ExpectationsTimeout),
		bounds.In("slow start initial batch size", c.SlowStartInitialBatchSize, 1, maxBatchSize),
		bounds.In("status update retries", c.StatusUpdateRetries, 0, maxRetries),
	)
}
