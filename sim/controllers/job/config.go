package job

import (
	"fmt"
	"time"

	"github.com/reconsim/reconsim/internal/bounds"
	"github.com/reconsim/reconsim/sim/controllers/internal/controllerutil"
)

// Upstream defaults and constants ([k8s] pkg/controller/job/job_controller.go package vars,
// pkg/controller/job/config/v1alpha1/defaults.go).
const (
	// DefaultConcurrentJobSyncs is --concurrent-job-syncs.
	DefaultConcurrentJobSyncs = 5
	// SyncJobBatchPeriod batches the syncs that pod events and status-only Job updates trigger
	// (syncJobBatchPeriod = 1s).
	SyncJobBatchPeriod = time.Second
	// DefaultJobAPIBackOff and MaxJobAPIBackOff are the work queue's per-item exponential
	// limiter for sync errors (DefaultJobApiBackOff = 1s, MaxJobApiBackOff = 1m).
	DefaultJobAPIBackOff = time.Second
	MaxJobAPIBackOff     = time.Minute
	// DefaultJobPodFailureBackOff is the first delay before a failed pod is replaced; it
	// doubles with each failure since the last success (backoff_utils.go).
	DefaultJobPodFailureBackOff = 10 * time.Second
	// MaxJobPodFailureBackOff caps the pod-failure back-off in current releases
	// (MaxJobPodFailureBackOff = 10 * time.Minute).
	MaxJobPodFailureBackOff = 10 * time.Minute
	// LegacyMaxJobBackOff is the cap of older releases (MaxJobBackOff = 360 * time.Second, used
	// through the work queue's limiter), still the number the Job documentation gives ("capped
	// at six minutes").
	LegacyMaxJobBackOff = 6 * time.Minute
	// MaxUncountedPods caps status.uncountedTerminatedPods and the finalizer removals of one
	// sync (MaxUncountedPods = 500).
	MaxUncountedPods = 500
	// MaxPodCreateDeletePerSync caps the pods one sync creates or deletes
	// (MaxPodCreateDeletePerSync = 500).
	MaxPodCreateDeletePerSync = 500
	// SlowStartInitialBatchSize is the first batch of pod creations
	// ([k8s] pkg/controller/controller_utils.go SlowStartInitialBatchSize = 1).
	SlowStartInitialBatchSize = 1
)

// backOffCapSinceMinor is the first minor release whose Job controller caps the pod-failure
// back-off at MaxJobPodFailureBackOff (10m) instead of LegacyMaxJobBackOff (6m): the release
// that moved the back-off to backoff_utils.go's in-memory store. The stored upstream sources
// show both constants but not the release of the change; 1.28 is the simulator's reading of it,
// and every supported release (1.32-1.37) is on the 10m side; the integrator switches the cap
// with the gate JobPodFailureBackOffMax10m (sim/features).
const backOffCapSinceMinor = 28

// managedBySinceMinor is the first minor release where spec.managedBy is honoured by default:
// JobManagedBy is alpha (off) in 1.30-1.31 and beta (on) from 1.32 (pkg/features/kube_features.go).
const managedBySinceMinor = 32

// Config is the controller's configuration: the upstream flags and constants it models, and
// the feature gates that depend on the upstream version.
type Config struct {
	// ConcurrentJobSyncs is --concurrent-job-syncs.
	ConcurrentJobSyncs int
	// PodFailureBackOff and MaxPodFailureBackOff are the pod-failure back-off's first delay
	// and cap.
	PodFailureBackOff, MaxPodFailureBackOff time.Duration
	// HonourManagedBy is the JobManagedBy gate: a Job whose spec.managedBy names another
	// controller is skipped.
	HonourManagedBy bool
	// ExpectationsTimeout is upstream ExpectationsTimeout.
	ExpectationsTimeout time.Duration
}

// DefaultConfig returns the defaults of the simulator's default upstream version.
func DefaultConfig() Config { return ConfigFor(32) }

// ConfigFor returns the defaults for upstream minor version minor (1.<minor>): the
// version-gated pod-failure back-off cap and the JobManagedBy gate.
func ConfigFor(minor int) Config {
	c := Config{
		ConcurrentJobSyncs:   DefaultConcurrentJobSyncs,
		PodFailureBackOff:    DefaultJobPodFailureBackOff,
		MaxPodFailureBackOff: MaxJobPodFailureBackOff,
		HonourManagedBy:      minor >= managedBySinceMinor,
		ExpectationsTimeout:  controllerutil.ExpectationsTimeout,
	}
	if minor < backOffCapSinceMinor {
		c.MaxPodFailureBackOff = LegacyMaxJobBackOff
	}
	return c
}

// Validate returns an error naming the first field that is out of range.
func (c Config) Validate() error {
	if err := bounds.First("job",
		controllerutil.Workers("concurrent-job-syncs", c.ConcurrentJobSyncs),
		bounds.Positive("pod failure back-off", c.PodFailureBackOff),
		bounds.Positive("expectations timeout", c.ExpectationsTimeout),
	); err != nil {
		return err
	}
	if c.MaxPodFailureBackOff < c.PodFailureBackOff {
		return fmt.Errorf("job: pod failure back-off must not be above its cap, got %s and %s", c.PodFailureBackOff, c.MaxPodFailureBackOff)
	}
	return nil
}
