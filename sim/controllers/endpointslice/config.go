package endpointslice

import (
	"fmt"
	"time"
)

// Upstream defaults and constants, each named after where it comes from.
const (
	// DefaultConcurrentServiceEndpointSyncs is --concurrent-service-endpoint-syncs
	// ([k8s:pkg/controller/endpointslice/config/v1alpha1/defaults.go@7fc9c57d]).
	DefaultConcurrentServiceEndpointSyncs = 5
	// DefaultMaxEndpointsPerSlice is --max-endpoints-per-slice (same file).
	DefaultMaxEndpointsPerSlice = 100
	// DefaultEndpointUpdatesBatchPeriod is --endpointslice-updates-batch-period: pod changes
	// are processed at once by default
	// ([k8s:cmd/kube-controller-manager/app/options/endpointslicecontroller.go@4a0608cb]; the
	// flag has no default of its own, so the zero duration applies).
	DefaultEndpointUpdatesBatchPeriod = time.Duration(0)

	// ControllerName is the value of the endpointslice.kubernetes.io/managed-by label on the
	// slices this controller manages ([k8s:pkg/controller/endpointslice/endpointslice_controller.go@9e8be126]
	// controllerName).
	ControllerName = "endpointslice-controller.k8s.io"

	// maxRetries is how many times a failing Service is retried before it is dropped from the
	// queue (endpointslice_controller.go maxRetries = 15).
	maxRetries = 15
	// endpointSliceChangeMinSyncDelay is the least delay before a Service is synced after one
	// of its EndpointSlices changed unexpectedly (endpointSliceChangeMinSyncDelay = 1s).
	endpointSliceChangeMinSyncDelay = time.Second
	// defaultSyncBackOff and maxSyncBackOff bound the per-Service retry backoff
	// (defaultSyncBackOff = 1s, maxSyncBackOff = 1000s).
	defaultSyncBackOff = time.Second
	maxSyncBackOff     = 1000 * time.Second
	// retryBucketQPS and retryBucketBurst are the overall retry token bucket of the Service
	// queue (rate.NewLimiter(rate.Limit(10), 100)).
	retryBucketQPS   = 10
	retryBucketBurst = 100
)

// Limits from upstream's option validation
// ([k8s:cmd/kube-controller-manager/app/options/endpointslicecontroller.go@4a0608cb]), and one
// of our own for the batch period.
const (
	minConcurrentServiceEndpointSyncs = 1
	maxConcurrentServiceEndpointSyncs = 50
	minMaxEndpointsPerSlice           = 1
	maxMaxEndpointsPerSlice           = 1000
	maxBatchPeriod                    = time.Hour
)

// Config is the controller's configuration: the upstream flags it models, and one simulator
// knob.
type Config struct {
	// ConcurrentServiceEndpointSyncs is --concurrent-service-endpoint-syncs: the number of
	// worker processes syncing Services at the same time.
	ConcurrentServiceEndpointSyncs int
	// MaxEndpointsPerSlice is --max-endpoints-per-slice.
	MaxEndpointsPerSlice int32
	// EndpointUpdatesBatchPeriod is --endpointslice-updates-batch-period: every sync a pod
	// change asks for is delayed by it, so that changes arriving within the period share one
	// sync (the queue keeps the earliest ready time of a waiting key).
	EndpointUpdatesBatchPeriod time.Duration
	// PodNameAddressFallback is a simulator knob, not an upstream flag. Upstream leaves a pod
	// without status.podIP out of its Service's endpoints. The simulated kubelet assigns pod
	// IPs, but actors played by tests or scenarios may not; with the fallback on, a pod that is
	// bound to a node but has no IP gets its name as its address instead of being left out.
	PodNameAddressFallback bool
}

// DefaultConfig returns the upstream defaults, with PodNameAddressFallback off (upstream
// behaviour).
func DefaultConfig() Config {
	return Config{
		ConcurrentServiceEndpointSyncs: DefaultConcurrentServiceEndpointSyncs,
		MaxEndpointsPerSlice:           DefaultMaxEndpointsPerSlice,
		EndpointUpdatesBatchPeriod:     DefaultEndpointUpdatesBatchPeriod,
	}
}

// Validate returns an error naming the first flag that is out of range, in upstream's words;
// nil if the configuration is usable.
func (c Config) Validate() error {
	switch {
	case c.ConcurrentServiceEndpointSyncs < minConcurrentServiceEndpointSyncs:
		return fmt.Errorf("concurrent-service-endpoint-syncs must not be less than %d, but got %d", minConcurrentServiceEndpointSyncs, c.ConcurrentServiceEndpointSyncs)
	case c.ConcurrentServiceEndpointSyncs > maxConcurrentServiceEndpointSyncs:
		return fmt.Errorf("concurrent-service-endpoint-syncs must not be more than %d, but got %d", maxConcurrentServiceEndpointSyncs, c.ConcurrentServiceEndpointSyncs)
	case c.MaxEndpointsPerSlice < minMaxEndpointsPerSlice:
		return fmt.Errorf("max-endpoints-per-slice must not be less than %d, but got %d", minMaxEndpointsPerSlice, c.MaxEndpointsPerSlice)
	case c.MaxEndpointsPerSlice > maxMaxEndpointsPerSlice:
		return fmt.Errorf("max-endpoints-per-slice must not be more than %d, but got %d", maxMaxEndpointsPerSlice, c.MaxEndpointsPerSlice)
	case c.EndpointUpdatesBatchPeriod < 0 || c.EndpointUpdatesBatchPeriod > maxBatchPeriod:
		return fmt.Errorf("endpointslice-updates-batch-period must be in [0, %s], got %s", maxBatchPeriod, c.EndpointUpdatesBatchPeriod)
	}
	return nil
}
