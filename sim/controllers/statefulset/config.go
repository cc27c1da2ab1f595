package statefulset

import (
	"time"

	"github.com/reconsim/reconsim/internal/bounds"
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
	return bounds.First("statefulset",
		controllerutil.Workers("concurrent-statefulset-syncs", c.ConcurrentStatefulSetSyncs),
		bounds.In("MaxBatchSize", c.MaxBatchSize, 1, maxBatchSize),
		c.StatusRetry.validate("status retry"),
		c.UpdateRetry.validate("update retry"),
	)
}

func (b Backoff) validate(name string) error {
	return bounds.First("",
		bounds.In(name+" steps", b.Steps, 1, maxRetrySteps),
		bounds.NonNegative(name+" duration", b.Duration),
		bounds.In(name+" factor", b.Factor, 0, 100),
		bounds.In(name+" jitter", b.Jitter, 0, 10),
	)
}
