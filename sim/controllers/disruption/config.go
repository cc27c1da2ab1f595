package disruption

import (
	"time"

	"github.com/reconsim/reconsim/internal/bounds"
)

// Upstream constants, each named after where it comes from. The disruption controller has no
// command-line flags of its own: kube-controller-manager runs it with these constants.
const (
	// DeletionTimeout is how long an entry stays in status.disruptedPods without the pod
	// being seen with a deletionTimestamp: past it, the eviction is assumed not to have
	// happened and the pod counts as healthy again
	// ([k8s:pkg/controller/disruption/disruption.go@003e8629] DeletionTimeout = 2 * time.Minute).
	DeletionTimeout = 2 * time.Minute
	// StalePodDisruptionTimeout is how long a pod may carry a DisruptionTarget=True condition
	// without being deleted before the controller resets it to False
	// ([k8s:disruption.go@003e8629] stalePodDisruptionTimeout = 2 * time.Minute).
	StalePodDisruptionTimeout = 2 * time.Minute
)

// maxTimeout bounds the configurable timeouts so that a bad scenario gets an error instead of a
// controller that never cleans up.
const maxTimeout = 24 * time.Hour

// Config is the controller's configuration: the upstream constants it models, settable so that
// scenarios and tests can shorten them.
type Config struct {
	// DeletionTimeout is upstream DeletionTimeout: how long an approved eviction is assumed
	// to be in flight.
	DeletionTimeout time.Duration
	// StalePodDisruptionTimeout is upstream stalePodDisruptionTimeout: how long a
	// DisruptionTarget=True condition on a pod that is not being deleted is left alone.
	StalePodDisruptionTimeout time.Duration
}

// DefaultConfig returns the upstream constants.
func DefaultConfig() Config {
	return Config{DeletionTimeout: DeletionTimeout, StalePodDisruptionTimeout: StalePodDisruptionTimeout}
}

// Validate returns an error naming the first field that is out of range; nil if the
// configuration is usable.
func (c Config) Validate() error {
	return bounds.First("disruption",
		bounds.PositiveAtMost("DeletionTimeout", c.DeletionTimeout, maxTimeout),
		bounds.PositiveAtMost("stalePodDisruptionTimeout", c.StalePodDisruptionTimeout, maxTimeout),
	)
}
