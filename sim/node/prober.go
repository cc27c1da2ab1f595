package node

import (
	"github.com/reconsim/reconsim/model"
)

// probeType says which probe a worker runs (pkg/kubelet/prober/prober_manager.go probeType).
type probeType int

const (
	probeReadiness probeType = iota
	probeLiveness
	probeStartup
)

// String is the name upstream uses in events ("Readiness probe failed: ...").
func (t probeType) String() string {
	switch t {
	case probeReadiness:
		return "Readiness"
	case probeLiveness:
		return "Liveness"
	default:
		return "Startup"
	}
}

// probeResult is pkg/kubelet/prober/results.Result.
type probeResult int

const (
	resultUnknown probeResult = iota
	resultSuccess
	resultFailure
)

func (r probeResult) String() string {
	switch r {
	case resultSuccess:
		return "Success"
	case resultFailure:
		return "Failure"
	default:
		return "Unknown"
	}
}

// probeSpec is a probe with SetDefaults_Probe applied to whatever the pod left zero
// (timeoutSeconds 1, periodSeconds 10, successThreshold 1, failureThreshold 3; upstream
// pkg/apis/core/v1/defaults.go SetDefaults_Probe, and docs/upstream.md#kubelet). The API server defaults probes on create; defaulting again here keeps a pod
// written straight into a store usable.
func probeSpec(p *model.Probe) model.Probe {
	s := *p
	if s.TimeoutSeconds <= 0 {
		s.TimeoutSeconds = model.DefaultProbeTimeoutSeconds
	}
	if s.PeriodSeconds <= 0 {
		s.PeriodSeconds = model.DefaultProbePeriodSeconds
	}
	if s.SuccessThreshold <= 0 {
		s.SuccessThreshold = model.DefaultProbeSuccessThreshold
	}
	if s.FailureThreshold <= 0 {
		s.FailureThreshold = model.DefaultProbeFailureThreshold
	}
	if s.InitialDelaySeconds < 0 {
		s.InitialDelaySeconds = 0
	}
	return s
}

// probeState is the state one prober worker keeps (pkg/kubelet/prober/worker.go), without
// the goroutine: which container instance it follows, the result it last published for that
// instance, and the run of identical raw results that the thresholds are counted on.
type probeState struct {
	typ  probeType
	spec model.Probe

	// containerID is the container instance the published result belongs to; 0 is none.
	containerID uint64
	// result is what the results manager holds for containerID.
	result probeResult

	// lastResult and resultRun count consecutive identical raw results. Upstream keeps them
	// across container instances; only a liveness or startup failure clears the run.
	lastResult probeResult
	resultRun  int
	// onHold stops probing after a liveness or startup failure until a new container appears.
	onHold bool
}

func newProbeState(typ probeType, p *model.Probe) *probeState {
	return &probeState{typ: typ, spec: probeSpec(p)}
}

// initialValue is the result a worker publishes for a new container: readiness starts as
// Failure, liveness as Success, startup as Unknown (worker.go newWorker).
func (s *probeState) initialValue() probeResult {
	switch s.typ {
	case probeReadiness:
		return resultFailure
	case probeLiveness:
		return resultSuccess
	default:
		return resultUnknown
	}
}

// get returns the published result for container instance id, and whether there is one
// (results manager Get).
func (s *probeState) get(id uint64) (probeResult, bool) {
	if id == 0 || id != s.containerID {
		return resultUnknown, false
	}
	return s.result, true
}

// set publishes r for the current container and reports whether the published value changed
// (results manager Set sends an update only on a change).
func (s *probeState) set(r probeResult) bool {
	changed := s.result != r
	s.result = r
	return changed
}

// follow switches the worker to container instance id if it is a new one: the initial value
// is published for it and probing resumes (worker.go doProbe). It reports whether the
// published value for the container changed, which for a new container is always true.
func (s *probeState) follow(id uint64) bool {
	if id == s.containerID {
		return false
	}
	s.containerID = id
	s.result = s.initialValue()
	s.onHold = false
	return true
}

// record applies one raw probe outcome with the threshold rule of worker.go doProbe: the
// published result changes only after failureThreshold consecutive failures or
// successThreshold consecutive successes. It reports whether the published result changed.
func (s *probeState) record(raw probeResult) bool {
	if s.lastResult == raw {
		s.resultRun++
	} else {
		s.lastResult = raw
		s.resultRun = 1
	}
	if (raw == resultFailure && s.resultRun < int(s.spec.FailureThreshold)) ||
		(raw == resultSuccess && s.resultRun < int(s.spec.SuccessThreshold)) {
		return false
	}
	changed := s.set(raw)
	if (s.typ == probeLiveness || s.typ == probeStartup) && raw == resultFailure {
		// The container will be restarted; probing pauses until its successor appears.
		s.onHold = true
		s.resultRun = 0
	}
	return changed
}
