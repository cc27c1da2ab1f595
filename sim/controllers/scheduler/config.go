package scheduler

import (
	"fmt"
	"time"

	"github.com/reconsim/reconsim/internal/bounds"
	"github.com/reconsim/reconsim/sim"
	"github.com/reconsim/reconsim/vtime"
)

// DefaultSchedulerName is v1.DefaultSchedulerName ([api@HEAD] core/v1/types.go): the
// spec.schedulerName the apiserver defaults pods to, and the profile name of kube-scheduler.
const DefaultSchedulerName = "default-scheduler"

// Config is kube-scheduler's configuration, by the upstream field and flag names
// (KubeSchedulerConfiguration v1, [kube-scheduler-cfg@HEAD] config/v1/types.go), plus the
// simulator's knobs for how long the scheduler's own work takes.
type Config struct {
	// SchedulerName is the profile's schedulerName: the scheduler handles only pods whose
	// spec.schedulerName equals it (an empty spec.schedulerName counts as
	// DefaultSchedulerName, as the apiserver would have defaulted it).
	SchedulerName string

	// PodInitialBackoffSeconds is podInitialBackoffSeconds: the backoff after the first failed
	// attempt. Default 1 ([k8s:pkg/scheduler/apis/config/v1/defaults.go@00fe7a37]).
	PodInitialBackoffSeconds int64
	// PodMaxBackoffSeconds is podMaxBackoffSeconds: the cap of the doubling backoff. Default 10
	// (same file).
	PodMaxBackoffSeconds int64
	// PodMaxInUnschedulablePodsDuration is how long a pod may sit in unschedulablePods before
	// flushUnschedulablePodsLeftover moves it back (DefaultPodMaxInUnschedulablePodsDuration =
	// 5m in pkg/scheduler/backend/queue/scheduling_queue.go; the old flag
	// --pod-max-in-unschedulable-pods-duration).
	PodMaxInUnschedulablePodsDuration time.Duration
	// UnschedulableFlushPeriod is how often flushUnschedulablePodsLeftover runs: 30s, hard-coded
	// in PriorityQueue.Run (scheduling_queue.go, wait.Until(..., 30*time.Second)).
	UnschedulableFlushPeriod time.Duration
	// BackoffFlushPeriod is how often flushBackoffQCompleted runs: 1s, hard-coded in
	// PriorityQueue.Run (older wait.Until(..., 1s); newer a ticker aligned to
	// backoffQOrderingWindowDuration = 1s in backend/queue/backoff_queue.go).
	BackoffFlushPeriod time.Duration
	// PopFromBackoffQ is the SchedulerPopFromBackoffQ feature gate (KEP-5142, beta and on by
	// default since v1.33): backoff expiries are truncated to 1s ordering windows, the backoffQ
	// flush ticks on whole seconds, and when activeQ is empty Pop takes the head of the
	// (non-error) backoffQ instead of idling.
	PopFromBackoffQ bool
	// FitErrorSinglePeriod is the simulator's gate SchedulerFitErrorSinglePeriod (sim/features;
	// on since v1.34): the FailedScheduling message's preemption sentence ends in one period,
	// where releases up to v1.33 printed two (framework/types.go FitError.Error).
	FitErrorSinglePeriod bool
	// TaintMessageWithoutKey is the simulator's gate TaintTolerationGenericMessage (sim/features;
	// on since v1.35, #134740): the TaintToleration filter reason is "node(s) had untolerated
	// taint(s)"; off, it names the first untolerated taint as releases up to v1.34 did.
	TaintMessageWithoutKey bool
	// PercentageOfNodesToScore is percentageOfNodesToScore: 0 means the adaptive formula of
	// numFeasibleNodesToFind (50 - nodes/125 percent, at least 5%). Default 0
	// ([kube-scheduler-cfg@HEAD] config/v1/types.go).
	PercentageOfNodesToScore int32

	// KubeAPIQPS and KubeAPIBurst are clientConnection.qps/burst (--kube-api-qps,
	// --kube-api-burst): 50 and 100 for kube-scheduler (SetDefaults_KubeSchedulerConfiguration,
	// pkg/scheduler/apis/config/v1/defaults.go). The integrator builds the scheduler's client
	// with them; the scheduler itself only reports them.
	KubeAPIQPS   float64
	KubeAPIBurst int

	// CycleBase is a simulator knob, not an upstream setting: the time one scheduling cycle
	// takes for a pod regardless of the cluster size (queue pop, PreFilter, PreScore, assume).
	// Default constant 1ms.
	CycleBase sim.Dist
	// CyclePerNode is a simulator knob: the extra cycle time for every node the cycle ran the
	// filters on (and scored, when it is feasible). Default 5µs, which with the adaptive
	// numFeasibleNodesToFind puts a 5000-node cluster near 3.5ms a pod, the order of
	// scheduler_perf's scheduling_algorithm_duration.
	CyclePerNode time.Duration
	// BindRetries is a simulator knob: how many times the binder re-reads an unbound pod and
	// retries after a resourceVersion conflict on the update that stands for the binding
	// subresource (the real binding subresource does not conflict on resourceVersion). Default
	// 5, as client-go retry.DefaultRetry.Steps.
	BindRetries int
}

// DefaultConfig returns the upstream defaults of the newest supported release (see each field;
// the integrator sets the gated fields from sim/features for the declared release).
func DefaultConfig() Config {
	return Config{
		SchedulerName:                     DefaultSchedulerName,
		PodInitialBackoffSeconds:          1,
		PodMaxBackoffSeconds:              10,
		PodMaxInUnschedulablePodsDuration: 5 * time.Minute,
		UnschedulableFlushPeriod:          30 * time.Second,
		BackoffFlushPeriod:                time.Second,
		PopFromBackoffQ:                   true,
		FitErrorSinglePeriod:              true,
		TaintMessageWithoutKey:            true,
		PercentageOfNodesToScore:          0,
		KubeAPIQPS:                        50,
		KubeAPIBurst:                      100,
		CycleBase:                         sim.Constant(time.Millisecond),
		CyclePerNode:                      5 * time.Microsecond,
		BindRetries:                       5,
	}
}

// Limits on configuration values, so that a typo cannot stall or overflow a run.
const (
	maxBackoffSeconds = 24 * 3600
	maxFlushPeriod    = 24 * time.Hour
	maxCyclePerNode   = time.Second
	maxBindRetries    = 100
)

// Validate reports the first problem in c, naming the field; nil if c is usable.
func (c Config) Validate() error {
	if c.SchedulerName == "" {
		return fmt.Errorf("schedulerName must not be empty")
	}
	return bounds.First("",
		bounds.In("podInitialBackoffSeconds", c.PodInitialBackoffSeconds, 1, maxBackoffSeconds),
		// upstream ValidateKubeSchedulerConfiguration: max must not be below initial.
		bounds.In("podMaxBackoffSeconds", c.PodMaxBackoffSeconds, c.PodInitialBackoffSeconds, maxBackoffSeconds),
		bounds.PositiveAtMost("podMaxInUnschedulablePodsDuration", c.PodMaxInUnschedulablePodsDuration, maxFlushPeriod),
		bounds.PositiveAtMost("unschedulable flush period", c.UnschedulableFlushPeriod, maxFlushPeriod),
		bounds.PositiveAtMost("backoff flush period", c.BackoffFlushPeriod, maxFlushPeriod),
		// upstream validation: percentageOfNodesToScore must be in [0, 100].
		bounds.In("percentageOfNodesToScore", c.PercentageOfNodesToScore, 0, 100),
		bounds.NonNegative("kube-api-qps", c.KubeAPIQPS),
		bounds.NonNegative("kube-api-burst", c.KubeAPIBurst),
		bounds.In("cycle time per node", c.CyclePerNode, 0, maxCyclePerNode),
		bounds.In("bind retries", c.BindRetries, 0, maxBindRetries),
		wrap("cycle base time", c.CycleBase.Validate()),
	)
}

// wrap prefixes err, if any, with what.
func wrap(what string, err error) error {
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}

// podInitialBackoff and podMaxBackoff convert the seconds fields to durations.
func (c Config) podInitialBackoff() time.Duration { return vtime.SecondsOf(c.PodInitialBackoffSeconds) }
func (c Config) podMaxBackoff() time.Duration     { return vtime.SecondsOf(c.PodMaxBackoffSeconds) }
