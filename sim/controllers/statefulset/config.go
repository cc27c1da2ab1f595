package statefulset

import (
	"fmt"
	"time"

	"github.com/reconsim/reconsim/sim/controllers/internal/controllerutil"
)

// Upstream defaults, each named after where it comes from.
const (
	// DefaultConcurrentStatefulSetSyncs is --concurrent-statefulset-syncs
	// ([k8s:pkg/controller/statefulset/config/v1alpha1/defaults.go@7fc9c57d]
	// RecommendedDefaultStatefulSetControllerConfiguration: 5).
	DefaultConcurrentStatefulSetSyncs = 5
	// MaxBatchSize caps one slow-start batch of the Parallel policy: "realistic value for
	// maximum in-flight requests when processing in parallel mode"
	// ([k8s:pkg/controller/statefulset/stateful_set_control.go] MaxBatchSize = 500).
	MaxBatchSize = 500
	// DefaultRevisionHistoryLimit is what the API server defaults spec.revisionHistoryLimit
	// to ([k8s:pkg/apis/apps/v1/defaults.go] SetDefaults_StatefulSet: 10); the controller
	// applies it when the field is unset.
	DefaultRevisionHistoryLimit = 10
)

// Limits on configuration values, so that a bad scenario gets an error instead of a run that
// spawns millions of processes.
const (
	maxBatchSize  = 100000
	maxRetrySteps = 100
)

// Backoff is k8s.io/apimachinery wait.Backoff as client-go's retry helpers use it: Steps
// attempts, the first immediately, each later one after Duration, which is multiplied by
// Factor after every wait; every wait is stretched by up to Jitter of itself.
type Backoff struct {
	Duration time.Duration
	Factor   float64
	Jitter   float64
	Steps    int
}

// Config is the controller's configuration: the upstream flags, constants and feature gates
// it models.
type Config struct {
	// ConcurrentStatefulSetSyncs is --concurrent-statefulset-syncs: the number of worker
	// processes syncing StatefulSets at the same time.
	ConcurrentStatefulSetSyncs int
	// MaxBatchSize caps a slow-start batch of the Parallel pod management policy (upstream
	// MaxBatchSize).
	MaxBatchSize int
	// MaxUnavailableStatefulSet is the feature gate of the same name (KEP-961; alpha in 1.24,
	// beta and on by default since 1.35, [k8s:pkg/features/kube_features.go]). On, a rolling
	// update takes down up to spec.updateStrategy.rollingUpdate.maxUnavailable pods (default
	// 1) counting every unavailable pod of the set; off, it is the legacy one-at-a-time walk
	// from the highest ordinal.
	MaxUnavailableStatefulSet bool
	// StatusRetry is retry.DefaultRetry, which the status updater retries conflicts with
	// ([client-go@HEAD] util/retry/util.go: 5 steps of 10ms, factor 1, jitter 0.1;
	// stateful_set_status_updater.go UpdateStatefulSetStatus).
	StatusRetry Backoff
	// UpdateRetry is retry.DefaultBackoff, which pod and revision updates retry conflicts with
	// ([client-go@HEAD] util/retry/util.go: 4 steps of 10ms, factor 5, jitter 0.1;
	// stateful_pod_control.go UpdateStatefulPod, history.go UpdateControllerRevision).
	UpdateRetry Backoff
}

// DefaultConfig returns the upstream defaults (the 1.36-era controller: MaxUnavailableStatefulSet
// on).
func DefaultConfig() Config {
	return Config{
		ConcurrentStatefulSetSyncs: DefaultConcurrentStatefulSetSyncs,
		MaxBatchSize:               MaxBatchSize,
		MaxUnavailableStatefulSet:  true,
		StatusRetry:                Backoff{Duration: 10 * time.Millisecond, Factor: 1.0, Jitter: 0.1, Steps: 5},
		UpdateRetry:                Backoff{Duration: 10 * time.Millisecond, Factor: 5.0, Jitter: 0.1, Steps: 4},
	}
}

// Validate returns an error naming the first field (by its upstream flag or constant) that is
// out of range; nil if the configuration is usable.
func (c Config) Validate() error {
	if err := controllerutil.CheckWorkers("statefulset", "concurrent-statefulset-syncs", c.ConcurrentStatefulSetSyncs); err != nil {
		return err
	}
	switch {
	case c.MaxBatchSize < 1 || c.MaxBatchSize > maxBatchSize:
		return fmt.Errorf("statefulset: MaxBatchSize must be in [1, %d], got %d", maxBatchSize, c.MaxBatchSize)
	}
	if err := c.StatusRetry.validate("status retry"); err != nil {
		return err
	}
	return c.UpdateRetry.validate("update retry")
}

func (b Backoff) validate(name string) error {
	switch {
	case b.Steps < 1 || b.Steps > maxRetrySteps:
		return fmt.Errorf("statefulset: %s steps must be in [1, %d], got %d", name, maxRetrySteps, b.Steps)
	case b.Duration < 0:
		return fmt.Errorf("statefulset: %s duration must not be negative, got %s", name, b.Duration)
	case b.Factor < 0 || b.Factor > 100:
		return fmt.Errorf("statefulset: %s factor must be in [0, 100], got %g", name, b.Factor)
	case b.Jitter < 0 || b.Jitter > 10:
		return fmt.Errorf("statefulset: %s jitter must be in [0, 10], got %g", name, b.Jitter)
	}
	return nil
}
