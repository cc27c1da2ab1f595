package ttlafterfinished

import (
	"github.com/reconsim/reconsim/internal/bounds"
	"github.com/reconsim/reconsim/sim/controllers/internal/controllerutil"
)

// DefaultConcurrentTTLSyncs is --concurrent-ttl-after-finished-syncs
// ([k8s] pkg/controller/ttlafterfinished/config/v1alpha1/defaults.go).
const DefaultConcurrentTTLSyncs = 5

// Config is the controller's configuration.
type Config struct {
	// ConcurrentTTLSyncs is --concurrent-ttl-after-finished-syncs.
	ConcurrentTTLSyncs int
}

// DefaultConfig returns the upstream defaults.
func DefaultConfig() Config { return Config{ConcurrentTTLSyncs: DefaultConcurrentTTLSyncs} }

// Validate reports a configuration that is out of range.
func (c Config) Validate() error {
	return bounds.First("ttlafterfinished", controllerutil.Workers("concurrent-ttl-after-finished-syncs", c.ConcurrentTTLSyncs))
}
