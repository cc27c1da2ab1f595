package node

import (
	"fmt"
	"time"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/vtime"
)

// containerProbes are the probe workers of one container (prober_manager.go AddPod: one
// worker per probe the container declares).
type containerProbes struct {
	readiness *probeRunner
	liveness  *probeRunner
	startup   *probeRunner
}

func (cp *containerProbes) all() [3]*probeRunner {
	return [3]*probeRunner{cp.readiness, cp.liveness, cp.startup}
}

func newContainerProbes(w *podWorker, idx int, c *model.Container) containerProbes {
	var cp containerProbes
	if c.ReadinessProbe != nil {
		cp.readiness = &probeRunner{w: w, idx: idx, st: newProbeState(probeReadiness, c.ReadinessProbe)}
	}
	if c.LivenessProbe != nil {
		cp.liveness = &probeRunner{w: w, idx: idx, st: newProbeState(probeLiveness, c.LivenessProbe)}
	}
	if c.StartupProbe != nil {
		cp.startup = &probeRunner{w: w, idx: idx, st: newProbeState(probeStartup, c.StartupProbe)}
	}
	return cp
}

func (cp *containerProbes) start() {
	for _, r := range cp.all() {
		if r != nil {
			r.start()
		}
	}
}

func (cp *containerProbes) stop() {
	for _, r := range cp.all() {
		if r != nil {
			r.stop()
		}
	}
}

// probeRunner is the timing half of a prober worker (pkg/kubelet/prober/worker.go run): a
// first probe when it starts (after a random fraction of the period if the kubelet started
// less than a period ago), then one every period, plus manual runs the status generation
// triggers for a running container that is not ready yet. It runs on kernel events, not a
// process: a probe is instantaneous here.
type probeRunner struct {
	w   *podWorker
	idx int
	st  *probeState

	// gen tags scheduled ticks; stopping bumps it so that pending ticks do nothing.
	gen           uint64
	stopped       bool
	manualPending bool
}

// Fire args: the generation shifted left, the low bit set for a manual run.
const manualBit = 1

func (r *probeRunner) period() time.Duration {
	return time.Duration(r.st.spec.PeriodSeconds) * time.Second
}

func (r *probeRunner) start() {
	kl := r.w.kl
	r.stopped = false
	r.gen++
	first := kl.k.Now()
	if period := r.period(); kl.k.Now().Sub(kl.startedAt) < period {
		first = first.Add(time.Duration(kl.rand.Float64() * float64(period)))
	}
	r.schedule(first, false)
}

func (r *probeRunner) stop() {
	r.stopped = true
	r.gen++
}

// schedule arranges a probe at at. A tick holds off quiescence while the probe can still
// change the container's result (see mayChange); otherwise it is periodic background work.
func (r *probeRunner) schedule(at vtime.Time, manual bool) {
	arg := r.gen << 1
	if manual {
		arg |= manualBit
	}
	r.w.kl.k.Schedule(at, r, arg, r.mayChange())
}

// trigger asks for a probe run now (worker.go manualTriggerCh, a buffer of one).
func (r *probeRunner) trigger() {
	if r.stopped || r.manualPending {
		return
	}
	r.manualPending = true
	r.schedule(r.w.kl.k.Now(), true)
}

// mayChange reports whether a probe could still change the published result: the container
// runs, the result is not yet Success, and the behaviour lets the probe succeed one day (or,
// for a startup probe, fail it into a restart); or the application will hang, which fails a
// liveness probe and a ready container's readiness probe.
func (r *probeRunner) mayChange() bool {
	w := r.w
	v := w.view[r.idx]
	if !v.running {
		return false
	}
	res, ok := r.st.get(v.id)
	if r.st.typ == probeLiveness {
		return w.beh.hangs && !(ok && res == resultFailure)
	}
	if ok && res == resultSuccess {
		return w.beh.hangs
	}
	return r.st.typ == probeStartup || !w.beh.neverReady
}

// Fire runs one probe; it implements sim.Handler.
func (r *probeRunner) Fire(arg uint64) {
	if r.stopped || arg>>1 != r.gen {
		return
	}
	manual := arg&manualBit != 0
	if manual {
		r.manualPending = false
	}
	keepGoing := r.doProbe()
	if !keepGoing {
		r.stop()
		return
	}
	if !manual {
		r.schedule(r.w.kl.k.Now().Add(r.period()), false)
	}
}

// doProbe is worker.go doProbe against the kubelet's view of the container; it reports
// whether the worker should keep probing.
func (r *probeRunner) doProbe() bool {
	w := r.w
	kl := w.kl
	if kl.stalled() || w.removed {
		// A hung kubelet probes nothing; the ticker keeps its rhythm.
		return true
	}
	if w.lastStatus == nil {
		return true
	}
	if isTerminalPhase(w.lastStatus.Phase) {
		return false
	}
	v := w.view[r.idx]
	if v.id == 0 {
		return true
	}
	// A new container gets the initial result; the status already shows a new container as
	// neither started nor ready, so there is nothing to publish.
	r.st.follow(v.id)
	if r.st.onHold {
		return true
	}
	if !v.running {
		if r.st.set(resultFailure) {
			r.published()
		}
		return !v.terminated || w.pod.Spec.RestartPolicy != model.RestartPolicyNever
	}
	if w.pod.DeletionTimestamp != nil && r.st.typ != probeReadiness {
		// worker.go doProbe: a pod being deleted stops its liveness and startup probes,
		// leaving Success.
		if r.st.set(resultSuccess) {
			r.published()
		}
		return false
	}
	now := kl.k.Now()
	if int32(now.Sub(v.startedAt)/time.Second) < r.st.spec.InitialDelaySeconds {
		return true
	}
	started := w.containerStarted(r.idx)
	if started == (r.st.typ == probeStartup) {
		// Startup probes stop once the container started; the others wait for it.
		return true
	}
	raw, output := r.outcome(now)
	if raw == resultFailure {
		kl.rec.Eventf(w.pod, model.EventTypeWarning, eventUnhealthy, "%s probe failed: %s", r.st.typ, output)
	}
	if r.st.record(raw) {
		r.published()
	}
	return true
}

// outcome is the simulated probe: it succeeds once the behaviour says the application is
// healthy, on the container instance the kubelet believes is running. A liveness probe
// fails only when the application hangs (hang-after); ready-after and never-ready are about
// readiness and startup.
func (r *probeRunner) outcome(now vtime.Time) (probeResult, string) {
	w := r.w
	cr := w.rt.containers[r.idx]
	v := w.view[r.idx]
	switch {
	case !cr.running || cr.id != v.id:
		return resultFailure, "container is not running"
	case w.beh.hung(now.Sub(cr.startedAt)):
		return resultFailure, fmt.Sprintf("simulated failure (%s %s passed)", AnnotationHangAfter, w.beh.hangAfter)
	case r.st.typ == probeLiveness:
		return resultSuccess, ""
	case w.beh.neverReady:
		return resultFailure, fmt.Sprintf("simulated failure (%s)", AnnotationNeverReady)
	case !w.beh.healthy(now.Sub(cr.startedAt)):
		return resultFailure, fmt.Sprintf("simulated failure (%s %s not reached)", AnnotationReadyAfter, w.beh.readyAfter)
	}
	return resultSuccess, ""
}

// published reacts to a change of the published result (kubelet.go syncLoopIteration):
// readiness goes into the pod status (SetContainerReadiness); a startup change, and a liveness
// failure, make the pod worker sync (it restarts a container that failed its liveness or
// startup probe, and reports started).
func (r *probeRunner) published() {
	w := r.w
	res, _ := r.st.get(w.view[r.idx].id)
	w.kl.emit("probe", w.object(), 0, fmt.Sprintf("container=%s %s=%s", w.rt.containers[r.idx].name, r.st.typ, res))
	switch r.st.typ {
	case probeReadiness:
		w.readinessChanged(r.idx)
	case probeStartup:
		w.wake()
	case probeLiveness:
		if res == resultFailure {
			w.wake()
		}
	}
}
