package cronjob

import (
	"github.com/reconsim/reconsim/internal/bounds"
	"github.com/reconsim/reconsim/sim/controllers/internal/controllerutil"
)

// DefaultConcurrentCronJobSyncs is --concurrent-cron-job-syncs
// ([k8s] pkg/controller/cronjob/config/v1alpha1/defaults.go).
const DefaultConcurrentCronJobSyncs = 5

// Config is the controller's configuration.
type Config struct {
	// ConcurrentCronJobSyncs is --concurrent-cron-job-syncs.
	ConcurrentCronJobSyncs int
}

// DefaultConfig returns the upstream defaults.
func DefaultConfig() Config { return Config{ConcurrentCronJobSyncs: DefaultConcurrentCronJobSyncs} }

// Validate reports a configuration that is out of range.
func (c Config) Validate() error {
	return bounds.First("cronjob", controllerutil.Workers("concurrent-cron-job-syncs", c.ConcurrentCronJobSyncs))
}
