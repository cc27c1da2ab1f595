package gc

import (
	"time"

	"github.com/reconsim/reconsim/internal/bounds"
	"github.com/reconsim/reconsim/sim/controllers/internal/controllerutil"
)

// Upstream defaults, each named after where it comes from.
const (
	// DefaultConcurrentGCSyncs is --concurrent-gc-syncs: the number of attemptToDelete workers,
	// and as many attemptToOrphan workers ([k8s:pkg/controller/garbagecollector/config/
	// v1alpha1/defaults.go] RecommendedDefaultGarbageCollectorControllerConfiguration).
	DefaultConcurrentGCSyncs = 20
	// DefaultAbsentOwnerCacheSize is the size of the LRU cache of owners known to be absent
	// (garbagecollector.go NewGarbageCollector: NewReferenceCache(500)).
	DefaultAbsentOwnerCacheSize = 500
)

// removeFinalizer's retry.RetryOnConflict uses client-go retry.DefaultBackoff
// (util/retry/util.go: Steps 4, Duration 10ms, Factor 5.0, Jitter 0.1).
const (
	conflictRetrySteps    = 4
	conflictRetryDuration = 10 * time.Millisecond
	conflictRetryFactor   = 5.0
	conflictRetryJitter   = 0.1
)

const (
	maxAbsentCacheLen = 1 << 20
)

// Config is the garbage collector's configuration: the upstream flags it models.
type Config struct {
	// EnableGarbageCollector is --enable-garbage-collector; when false, Start does nothing
	// and dependents are never collected.
	EnableGarbageCollector bool
	// ConcurrentGCSyncs is --concurrent-gc-syncs.
	ConcurrentGCSyncs int
	// AbsentOwnerCacheSize bounds the cache of owners verified to be absent.
	AbsentOwnerCacheSize int
}

// DefaultConfig returns the upstream defaults (the garbage collector enabled).
func DefaultConfig() Config {
	return Config{EnableGarbageCollector: true, ConcurrentGCSyncs: DefaultConcurrentGCSyncs, AbsentOwnerCacheSize: DefaultAbsentOwnerCacheSize}
}

// Validate returns an error naming the first field (by its upstream flag) that is out of
// range; nil if the configuration is usable.
func (c Config) Validate() error {
	return bounds.First("gc",
		controllerutil.Workers("concurrent-gc-syncs", c.ConcurrentGCSyncs),
		bounds.In("absent owner cache size", c.AbsentOwnerCacheSize, 1, maxAbsentCacheLen),
	)
}

// ClientQPSMultiplier is how much kube-controller-manager raises the garbage collector's
// client QPS over --kube-api-qps: each deletion takes two API calls, a GET and a DELETE
// ([k8s:cmd/kube-controller-manager/app/core.go] startGarbageCollectorController:
// config.QPS *= 2; the burst is not changed). Whoever builds the collector's client applies
// it.
const ClientQPSMultiplier = 2
