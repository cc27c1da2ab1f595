package kubeapiserver

import (
	"time"

	"github.com/reconsim/reconsim/sim"
)

// Options are kube-apiserver's flags a scenario can set (Flags) and the simulator's knobs of
// the API server (SimulatorFlags).
type Options struct {
	// MaxRequestsInflight and MaxMutatingRequestsInflight are --max-requests-inflight and
	// --max-mutating-requests-inflight: the max-in-flight filter's limits, and the seats API
	// Priority and Fairness shares out.
	MaxRequestsInflight         int
	MaxMutatingRequestsInflight int
	// EventTTL is --event-ttl: how long an Event is kept after its last write.
	EventTTL time.Duration
	// EnablePriorityAndFairness is --enable-priority-and-fairness.
	EnablePriorityAndFairness bool
	// RequestTimeout is --request-timeout; APF's queue wait is a quarter of it, at most 1m.
	RequestTimeout time.Duration
	// EnableAdmissionPlugins and DisableAdmissionPlugins are the comma-separated
	// --enable-admission-plugins and --disable-admission-plugins.
	EnableAdmissionPlugins  string
	DisableAdmissionPlugins string
	// DefaultNotReadyTolerationSeconds and DefaultUnreachableTolerationSeconds are the
	// DefaultTolerationSeconds admission plugin's --default-not-ready-toleration-seconds and
	// --default-unreachable-toleration-seconds.
	DefaultNotReadyTolerationSeconds    int64
	DefaultUnreachableTolerationSeconds int64

	// WatchDelay is the delay between a committed write and its delivery to each watcher
	// (simulator knob).
	WatchDelay sim.Dist
	// ServiceTimeGet, ServiceTimeList and ServiceTimeMutating are how long a get, a list, and
	// a create, update, patch or delete hold their in-flight seat (simulator knobs).
	ServiceTimeGet      sim.Dist
	ServiceTimeList     sim.Dist
	ServiceTimeMutating sim.Dist
}

// DefaultOptions returns the defaults of the upstream release the simulator follows (see
// Flags for the sources) and the simulator's latency defaults (SimulatorFlags).
func DefaultOptions() Options {
	ms := time.Millisecond
	return Options{
		MaxRequestsInflight:                 400,
		MaxMutatingRequestsInflight:         200,
		EventTTL:                            time.Hour,
		EnablePriorityAndFairness:           true,
		RequestTimeout:                      time.Minute,
		DefaultNotReadyTolerationSeconds:    300,
		DefaultUnreachableTolerationSeconds: 300,
		WatchDelay:                          sim.Dist{Kind: sim.DistLogNormal, Median: 2 * ms, P99: 20 * ms, Max: time.Second},
		ServiceTimeGet:                      sim.Dist{Kind: sim.DistLogNormal, Median: ms, P99: 10 * ms, Max: time.Second},
		ServiceTimeList:                     sim.Dist{Kind: sim.DistLogNormal, Median: 10 * ms, P99: 100 * ms, Max: 5 * time.Second},
		ServiceTimeMutating:                 sim.Dist{Kind: sim.DistLogNormal, Median: 5 * ms, P99: 50 * ms, Max: time.Second},
	}
}
