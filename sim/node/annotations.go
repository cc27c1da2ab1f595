package node

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/reconsim/reconsim/sim"
)

// Pod annotations that script how the simulated containers of a pod behave. They are a
// simulator extension (see the package documentation); every container of the pod behaves
// the same way.
const (
	// AnnotationReadyAfter is how long after each container start its readiness (and
	// startup) probe starts succeeding, as a Go duration ("20s"). Default 0.
	AnnotationReadyAfter = "sim.reconsim.dev/ready-after"
	// AnnotationNeverReady set to "true" makes readiness and startup probes fail forever.
	AnnotationNeverReady = "sim.reconsim.dev/never-ready"
	// AnnotationCrashAfter makes each container instance exit with code 1 this long after it
	// started.
	AnnotationCrashAfter = "sim.reconsim.dev/crash-after"
	// AnnotationExitAfter makes each container instance exit this long after it started, with
	// the code in AnnotationExitCode (default 0). With crash-after too, the earlier one wins.
	// A range "20s..40s" draws the run time of each instance uniformly from it, and a
	// distribution as the simulator's latency flags take it ("lognormal(median=30s,p99=2m)",
	// see sim.ParseDist) draws from that, from the kubelet's runtime stream, so run-to-completion
	// pods of a Job do not all finish together.
	AnnotationExitAfter = "sim.reconsim.dev/exit-after"
	// AnnotationExitCode is the exit code for exit-after, an integer in [0, 255].
	AnnotationExitCode = "sim.reconsim.dev/exit-code"
	// AnnotationExitCodeProbability is the probability, in [0, 1], that an instance that exits
	// by exit-after exits with exit-code; otherwise it exits with 0. Default 1. It makes a
	// flaky batch workload: "0.3" fails about three runs in ten.
	AnnotationExitCodeProbability = "sim.reconsim.dev/exit-code-probability"
	// AnnotationTerminationSeconds is how long a container takes to exit after SIGTERM, as a
	// Go duration ("5s") or a number of seconds ("5"). Default 1s. The grace period caps it:
	// at the deadline the container is killed (SIGKILL, exit code 137).
	AnnotationTerminationSeconds = "sim.reconsim.dev/termination-seconds"
	// AnnotationHangAfter makes each container instance hang this long after it started: it
	// keeps running, but from then on its liveness, readiness and startup probes fail, so a
	// liveness probe restarts it (a deadlocked application). It ignores SIGTERM: a kill ends
	// at the grace period's SIGKILL (exit code 137). Default: never.
	AnnotationHangAfter = "sim.reconsim.dev/hang-after"
	// AnnotationImagePullFail set to "true" makes every pull of the pod's images fail
	// (ErrImagePull, then ImagePullBackOff): a tag that does not exist, or a registry that
	// refuses the node. An image already on the node is not pulled, so it still starts.
	AnnotationImagePullFail = "sim.reconsim.dev/image-pull-fail"
	// AnnotationInitDuration is how long each run of a (non-restartable) init container takes
	// before it exits, as a Go duration. Default 1s. The other behaviour annotations are about
	// the app and do not apply to init containers; sidecars follow them like the app.
	AnnotationInitDuration = "sim.reconsim.dev/init-duration"
	// AnnotationInitExitCode is the exit code of every init container run, an integer in
	// [0, 255]. Default 0; anything else fails the init container, which is restarted with
	// back-off (restartPolicy Always or OnFailure) or fails the pod (Never).
	AnnotationInitExitCode = "sim.reconsim.dev/init-exit-code"
)

// Defaults and limits for the behaviour annotations.
const (
	defaultTerminationDelay = time.Second
	defaultInitDuration     = time.Second
	// maxAnnotationDuration bounds every duration annotation (30 days), so that a typo
	// cannot schedule an event past any sensible run.
	maxAnnotationDuration = 30 * 24 * time.Hour
)

// behaviour is what a pod's annotations say about its containers.
type behaviour struct {
	readyAfter       time.Duration
	neverReady       bool
	crashAfter       time.Duration
	crashes          bool // crashAfter is set
	exitAfter        time.Duration
	exitAfterMax     time.Duration // > exitAfter when exit-after is a range
	exitDist         *sim.Dist     // exit-after as a distribution ("lognormal(...)"), sampled per instance
	exits            bool          // exitAfter is set
	exitCode         int32
	exitCodeProb     float64 // probability of exitCode rather than 0
	terminationDelay time.Duration
	hangAfter        time.Duration
	hangs            bool // hangAfter is set
	imagePullFails   bool
	initDuration     time.Duration
	initExitCode     int32
}

// annotationError is one annotation that was ignored, and why.
type annotationError struct {
	key, value, reason string
}

func (e annotationError) Error() string {
	return fmt.Sprintf("ignoring annotation %s=%q: %s", e.key, e.value, e.reason)
}

// defaultBehaviour is a pod's behaviour without annotations. Pod workers share it; nothing
// may change it.
var defaultBehaviour = behaviour{terminationDelay: defaultTerminationDelay, exitCodeProb: 1, initDuration: defaultInitDuration}

// parseBehaviour reads the behaviour annotations. An invalid value is treated as absent and
// reported in the returned errors (sorted by key); parseBehaviour never fails as a whole.
func parseBehaviour(annotations map[string]string) (behaviour, []annotationError) {
	b := defaultBehaviour
	var errs []annotationError
	bad := func(key, reason string) {
		errs = append(errs, annotationError{key: key, value: annotations[key], reason: reason})
	}
	duration := func(key string, seconds bool) (time.Duration, bool) {
		v, ok := annotations[key]
		if !ok {
			return 0, false
		}
		d, err := parseAnnotationDuration(v, seconds)
		if err != nil {
			bad(key, err.Error())
			return 0, false
		}
		return d, true
	}
	if d, ok := duration(AnnotationReadyAfter, false); ok {
		b.readyAfter = d
	}
	boolean := func(key string, dst *bool) {
		if v, ok := annotations[key]; ok {
			on, err := strconv.ParseBool(strings.TrimSpace(v))
			if err != nil {
				bad(key, `want "true" or "false"`)
			} else {
				*dst = on
			}
		}
	}
	boolean(AnnotationNeverReady, &b.neverReady)
	boolean(AnnotationImagePullFail, &b.imagePullFails)
	if d, ok := duration(AnnotationHangAfter, false); ok {
		b.hangAfter, b.hangs = d, true
	}
	if d, ok := duration(AnnotationCrashAfter, false); ok {
		b.crashAfter, b.crashes = d, true
	}
	if v, ok := annotations[AnnotationExitAfter]; ok && strings.Contains(v, "(") {
		d, err := sim.ParseDist(v)
		if err != nil {
			bad(AnnotationExitAfter, err.Error())
		} else {
			b.exitDist, b.exits = &d, true
		}
	} else if ok {
		lo, hi, isRange := strings.Cut(v, "..")
		dlo, err := parseAnnotationDuration(lo, false)
		dhi := dlo
		if err == nil && isRange {
			dhi, err = parseAnnotationDuration(hi, false)
			if err == nil && dhi < dlo {
				err = fmt.Errorf("the range %s..%s is empty", dlo, dhi)
			}
		}
		if err != nil {
			bad(AnnotationExitAfter, err.Error()+` (or a range such as "20s..40s")`)
		} else {
			b.exitAfter, b.exitAfterMax, b.exits = dlo, dhi, true
		}
	}
	if v, ok := annotations[AnnotationExitCodeProbability]; ok {
		p, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil || p < 0 || p > 1 {
			bad(AnnotationExitCodeProbability, "want a probability in [0, 1]")
		} else {
			b.exitCodeProb = p
		}
	}
	exitCode := func(key string, dst *int32) {
		if v, ok := annotations[key]; ok {
			code, err := strconv.ParseInt(strings.TrimSpace(v), 10, 32)
			switch {
			case err != nil:
				bad(key, "want an integer")
			case code < 0 || code > 255:
				bad(key, "exit codes are in [0, 255]")
			default:
				*dst = int32(code)
			}
		}
	}
	exitCode(AnnotationExitCode, &b.exitCode)
	exitCode(AnnotationInitExitCode, &b.initExitCode)
	if d, ok := duration(AnnotationInitDuration, false); ok {
		b.initDuration = d
	}
	if d, ok := duration(AnnotationTerminationSeconds, true); ok {
		b.terminationDelay = d
	}
	sort.Slice(errs, func(i, j int) bool { return errs[i].key < errs[j].key })
	return b, errs
}

// parseAnnotationDuration reads a non-negative Go duration; with seconds, a bare number is
// also accepted as seconds.
func parseAnnotationDuration(v string, seconds bool) (time.Duration, error) {
	v = strings.TrimSpace(v)
	var d time.Duration
	if f, err := strconv.ParseFloat(v, 64); err == nil && seconds {
		if f < 0 || f > maxAnnotationDuration.Seconds() {
			return 0, fmt.Errorf("must be in [0, %s]", maxAnnotationDuration)
		}
		d = time.Duration(f * float64(time.Second))
	} else {
		parsed, err := time.ParseDuration(v)
		if err != nil {
			if seconds {
				return 0, fmt.Errorf(`want a duration such as "5s" or a number of seconds`)
			}
			return 0, fmt.Errorf(`want a duration such as "20s"`)
		}
		d = parsed
	}
	if d < 0 || d > maxAnnotationDuration {
		return 0, fmt.Errorf("must be in [0, %s]", maxAnnotationDuration)
	}
	return d, nil
}

// exitAfterStart returns when a container instance exits by itself, measured from its start,
// with which code; ok is false if it runs until stopped. A range of exit-after, and an
// exit-code probability below 1, draw from r (one draw each, and only when they apply).
func (b behaviour) exitAfterStart(r *rand.Rand) (after time.Duration, code int32, ok bool) {
	exitAfter := b.exitAfter
	switch {
	case b.exits && b.exitDist != nil:
		exitAfter = min(b.exitDist.Sample(r), maxAnnotationDuration)
	case b.exits && b.exitAfterMax > b.exitAfter:
		exitAfter += time.Duration(r.Int64N(int64(b.exitAfterMax-b.exitAfter) + 1))
	}
	switch {
	case b.crashes && (!b.exits || b.crashAfter <= exitAfter):
		return b.crashAfter, 1, true
	case b.exits:
		code := b.exitCode
		if b.exitCodeProb < 1 && r.Float64() >= b.exitCodeProb {
			code = 0
		}
		return exitAfter, code, true
	}
	return 0, 0, false
}

// healthy reports whether a readiness or startup probe succeeds sinceStart after the
// container started.
func (b behaviour) healthy(sinceStart time.Duration) bool {
	return !b.neverReady && sinceStart >= b.readyAfter && !b.hung(sinceStart)
}

// hung reports whether the application hangs sinceStart after the container started: every
// probe fails from then on.
func (b behaviour) hung(sinceStart time.Duration) bool {
	return b.hangs && sinceStart >= b.hangAfter
}
