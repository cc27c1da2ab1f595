package deployment

import (
	"github.com/reconsim/reconsim/internal/bounds"
	"github.com/reconsim/reconsim/sim/controllers/internal/controllerutil"
)

// Upstream defaults, each named after where it comes from.
const (
	// DefaultConcurrentDeploymentSyncs is --concurrent-deployment-syncs
	// ([k8s:pkg/controller/deployment/config/v1alpha1/defaults.go@2821f161]).
	DefaultConcurrentDeploymentSyncs = 5
	// MaxRetries is how many times a failing Deployment is requeued with backoff before it is
	// dropped from the queue until its next change or resync; with the default controller rate
	// limiter the waits are 5ms, 10ms, ... 82s (upstream deployment_controller.go maxRetries).
	MaxRetries = 15
)

// Config is the controller's configuration: the upstream flags it models.
type Config struct {
	// ConcurrentDeploymentSyncs is --concurrent-deployment-syncs: the number of worker
	// processes syncing Deployments at the same time.
	ConcurrentDeploymentSyncs int
}

// DefaultConfig returns the upstream defaults.
func DefaultConfig() Config {
	return Config{ConcurrentDeploymentSyncs: DefaultConcurrentDeploymentSyncs}
}

// Validate returns an error naming the flag that is out of range, or nil.
func (c Config) Validate() error {
	return bounds.First("deployment", controllerutil.Workers("concurrent-deployment-syncs", c.ConcurrentDeploymentSyncs))
}
