package features

import (
	"fmt"
	"strconv"
	"strings"
)

// The supported releases: 1.OldestMinor through 1.NewestMinor. NewestMinor is the newest
// release whose k8s.io/api the module builds against (go.mod: k8s.io/api v0.37.2), and the
// default; a test keeps the two in step.
const (
	OldestMinor  = 32
	NewestMinor  = 37
	DefaultMinor = NewestMinor
)

// Version formats a minor release as "1.<minor>".
func Version(minor int) string { return "1." + strconv.Itoa(minor) }

// DefaultVersion is Version(DefaultMinor).
var DefaultVersion = Version(DefaultMinor)

// Versions returns the supported releases, oldest first ("1.32", ...).
func Versions() []string {
	out := make([]string, 0, NewestMinor-OldestMinor+1)
	for m := OldestMinor; m <= NewestMinor; m++ {
		out = append(out, Version(m))
	}
	return out
}

// ParseVersion parses a supported "1.NN" release and returns its minor number.
func ParseVersion(s string) (int, error) {
	rest, ok := strings.CutPrefix(strings.TrimSpace(s), "1.")
	m, err := strconv.Atoi(rest)
	if !ok || err != nil || m < OldestMinor || m > NewestMinor {
		return 0, fmt.Errorf("unsupported upstream version %q (supported: %s)", s, strings.Join(Versions(), ", "))
	}
	return m, nil
}

// Name names a gate.
type Name string

// The gates. Upstream feature gates keep their upstream names; the others are behaviour
// changes upstream made without a gate, named here.
const (
	// SchedulerPopFromBackoffQ: kube-scheduler pops backoffQ when activeQ is empty, and backoff
	// expiries fall on 1s ordering windows.
	SchedulerPopFromBackoffQ Name = "SchedulerPopFromBackoffQ"
	// SchedulerFitErrorSinglePeriod: the FailedScheduling message ends the preemption sentence
	// with one period (before: "incoming pod..").
	SchedulerFitErrorSinglePeriod Name = "SchedulerFitErrorSinglePeriod"
	// TaintTolerationGenericMessage: the TaintToleration filter says "node(s) had untolerated
	// taint(s)" instead of naming the taint.
	TaintTolerationGenericMessage Name = "TaintTolerationGenericMessage"
	// KubeletPodWorkerRetryAtBackOff: a pod worker whose sync failed on a crash-loop back-off
	// retries when the back-off expires (before: after 10s, jittered to 15s).
	KubeletPodWorkerRetryAtBackOff Name = "KubeletPodWorkerRetryAtBackOff"
	// MaxUnavailableStatefulSet: a StatefulSet rolling update honours
	// rollingUpdate.maxUnavailable.
	MaxUnavailableStatefulSet Name = "MaxUnavailableStatefulSet"
	// HPAConfigurableTolerance: spec.behavior.scaleUp/scaleDown.tolerance is honoured.
	HPAConfigurableTolerance Name = "HPAConfigurableTolerance"
	// JobManagedBy: a Job whose spec.managedBy names another controller is left to it.
	JobManagedBy Name = "JobManagedBy"
	// JobPodFailureBackOffMax10m: the Job controller's pod-failure back-off is capped at 10m
	// (before: 6m, MaxJobBackOff).
	JobPodFailureBackOffMax10m Name = "JobPodFailureBackOffMax10m"
	// SidecarContainers: restartable init containers (sidecars).
	SidecarContainers Name = "SidecarContainers"
	// BalancedAllocationScoresChange: NodeResourcesBalancedAllocation scores the change in
	// balance the pod makes (not modelled).
	BalancedAllocationScoresChange Name = "BalancedAllocationScoresChange"
	// SizeBasedListCostEstimate: API Priority and Fairness costs a LIST by the bytes it loads
	// (a seat per 100 kB, at most 100 seats) instead of by its objects (a seat per 100, at
	// most 10).
	SizeBasedListCostEstimate Name = "SizeBasedListCostEstimate"
)

// Stage is a gate's default from release 1.<Minor> on (until the next stage).
type Stage struct {
	Minor int
	On    bool
	// Note says what the release did (alpha, beta, GA, a patch-release reversal) and cites it.
	Note string
	// Locked is upstream's LockToDefault: from this release the gate cannot be overridden.
	Locked bool
}

// Gate is one row of the table.
type Gate struct {
	Name Name
	// Component is the component whose behaviour it switches.
	Component string
	// Upstream is true when Name is an upstream feature gate (pkg/features/kube_features.go).
	Upstream bool
	// Modelled is false when the simulator does not model the behaviour at all; such a gate is
	// listed for completeness and cannot be overridden.
	Modelled bool
	// Stages, oldest first; before the first stage the gate is off.
	Stages []Stage
	// Ref is the KEP or pull request behind the change.
	Ref string
	// Switches says what the gate changes in the simulator, and which configuration field
	// carries it.
	Switches string
}

// DefaultFor returns the gate's default in release 1.<minor>.
func (g Gate) DefaultFor(minor int) bool { return g.stageAt(minor).On }

// stageAt returns the stage in effect in release 1.<minor>, the last that began at or before
// it; before the first stage, the zero Stage (off, not locked).
func (g Gate) stageAt(minor int) Stage {
	var cur Stage
	for _, s := range g.Stages {
		if s.Minor <= minor {
			cur = s
		}
	}
	return cur
}

// History renders the stages, for example "1.33 on (beta)".
func (g Gate) History() string {
	parts := make([]string, 0, len(g.Stages))
	for _, s := range g.Stages {
		state := "off"
		if s.On {
			state = "on"
		}
		p := Version(s.Minor) + " " + state
		if s.Note != "" {
			p += " (" + s.Note + ")"
		}
		parts = append(parts, p)
	}
	return strings.Join(parts, "; ")
}

// table is the gate table. Gate stages are read from pkg/features/kube_features.go of each
// release (k/k v1.32.0 ... v1.37.2); the PRs are the CHANGELOG-1.3x entries; see
// docs/upstream.md#versions.
var table = []Gate{
	{Name: SchedulerPopFromBackoffQ, Component: "kube-scheduler", Upstream: true, Modelled: true,
		Stages: []Stage{{Minor: 33, On: true, Note: "beta, #130772"}},
		Ref:    "KEP-5142, #130772",
		Switches: "scheduler.Config.PopFromBackoffQ: backoff expiries fall on 1s ordering windows, the backoffQ flush ticks on whole seconds, " +
			"and an idle activeQ pops the head of backoffQ (pkg/scheduler/backend/queue/scheduling_queue.go Pop)"},
	{Name: SchedulerFitErrorSinglePeriod, Component: "kube-scheduler", Modelled: true,
		Stages:   []Stage{{Minor: 34, On: true, Note: "FitError.Error trims the PostFilter message's period"}},
		Ref:      "pkg/scheduler/framework/types.go FitError.Error, k/k v1.33.0 against v1.34.0",
		Switches: "scheduler.Config.FitErrorSinglePeriod: the FailedScheduling message's preemption sentence ends in one period (off: \"...for incoming pod..\")"},
	{Name: TaintTolerationGenericMessage, Component: "kube-scheduler", Modelled: true,
		Stages:   []Stage{{Minor: 35, On: true, Note: "#134740"}},
		Ref:      "#134740",
		Switches: "scheduler.Config.TaintMessageWithoutKey: the TaintToleration filter reason is \"node(s) had untolerated taint(s)\" (off: \"node(s) had untolerated taint {key: value}\")"},
	{Name: KubeletPodWorkerRetryAtBackOff, Component: "kubelet", Modelled: true,
		Stages:   []Stage{{Minor: 35, On: true, Note: "#133066"}},
		Ref:      "#133066 (\"Propagate backoff duration for crashloop backoff\"), pkg/kubelet/pod_workers.go completeWork",
		Switches: "node.Config.RetryAtBackOffExpiry: a pod worker in CrashLoopBackOff retries at the back-off's expiry x [1, 1.5], capped at the resync interval (off: wait.Jitter(backOffPeriod 10s, 0.5), every 10-15s)"},
	{Name: MaxUnavailableStatefulSet, Component: "kube-controller-manager", Upstream: true, Modelled: true,
		Stages: []Stage{{Minor: 24, On: false, Note: "alpha"}, {Minor: 35, On: false, Note: "beta: on in 1.35.0-1.35.3 (#133153), off from 1.35.4 (#137926)"},
			{Minor: 36, On: false, Note: "#137904"}, {Minor: 37, On: true, Note: "#139466"}},
		Ref:      "KEP-961",
		Switches: "statefulset.Config.MaxUnavailableStatefulSet: a rolling update takes down up to rollingUpdate.maxUnavailable pods at once (off: one at a time from the highest ordinal)"},
	{Name: HPAConfigurableTolerance, Component: "kube-controller-manager", Upstream: true, Modelled: true,
		Stages:   []Stage{{Minor: 33, On: false, Note: "alpha, #130797"}, {Minor: 35, On: true, Note: "beta, #133128"}, {Minor: 37, On: true, Note: "GA, #140107"}},
		Ref:      "KEP-4951",
		Switches: "hpa.Config.ConfigurableTolerance: spec.behavior.scaleUp/scaleDown.tolerance overrides --horizontal-pod-autoscaler-tolerance (off: the API server drops the field, so it is ignored)"},
	{Name: JobManagedBy, Component: "kube-controller-manager", Upstream: true, Modelled: true,
		Stages:   []Stage{{Minor: 30, On: false, Note: "alpha"}, {Minor: 32, On: true, Note: "beta"}, {Minor: 35, On: true, Note: "GA, locked, #135080", Locked: true}},
		Ref:      "KEP-4368",
		Switches: "job.Config.HonourManagedBy: a Job whose spec.managedBy names another controller is skipped"},
	{Name: JobPodFailureBackOffMax10m, Component: "kube-controller-manager", Modelled: true,
		Stages:   []Stage{{Minor: 28, On: true, Note: "pkg/controller/job/backoff_utils.go MaxJobPodFailureBackOff"}},
		Ref:      "pkg/controller/job/job_controller.go MaxJobBackOff (360s) against backoff_utils.go MaxJobPodFailureBackOff (10m)",
		Switches: "job.Config.MaxPodFailureBackOff: the pod-failure back-off caps at 10m (off: 6m, the cap the Job documentation still gives)"},
	{Name: SidecarContainers, Component: "kubelet", Upstream: true, Modelled: true,
		Stages: []Stage{{Minor: 28, On: false, Note: "alpha"}, {Minor: 29, On: true, Note: "beta"}, {Minor: 33, On: true, Note: "GA, locked, #129731", Locked: true},
			{Minor: 37, On: true, Note: "gate removed, #137755", Locked: true}},
		Ref:      "KEP-753",
		Switches: "node.Config.SidecarContainers: an init container with restartPolicy Always is a sidecar, started before the app containers and stopped after them (off: it runs as a plain init container). The scheduler, the kubelet's admission and the settled placement count a sidecar's requests beside the app containers' (k8s.io/component-helpers resource PodRequests, model.AggregateContainers)"},
	{Name: BalancedAllocationScoresChange, Component: "kube-scheduler",
		Stages:   []Stage{{Minor: 36, On: true, Note: "#135573"}},
		Ref:      "#135573",
		Switches: "nothing: NodeResourcesBalancedAllocation scores (1 - std(fractions)) x 100 of the node with the pod, the formula up to 1.35, in every release"},
	{Name: SizeBasedListCostEstimate, Component: "kube-apiserver", Upstream: true, Modelled: true,
		Stages:   []Stage{{Minor: 34, On: true, Note: "beta"}},
		Ref:      "k8s.io/apiserver pkg/features/kube_features.go v0.34.0",
		Switches: "apiserver.APFConfig.SizeBasedListCost: the APF work estimator costs a LIST at a seat per 100 kB loaded (capped at 1 MB, 10 seats, from the watch cache; MaximumListSeatsLimit 100) instead of a seat per 100 objects (MaximumListSeatsLimit 10) (request/list_work_estimator.go)"},
}

// Table returns the gate table, in display order. The slice is a copy.
func Table() []Gate {
	out := make([]Gate, len(table))
	copy(out, table)
	return out
}

// Lookup returns the gate called name.
func Lookup(name Name) (Gate, bool) {
	for _, g := range table {
		if g.Name == name {
			return g, true
		}
	}
	return Gate{}, false
}

// Names returns every gate name, in table order.
func Names() []string {
	out := make([]string, len(table))
	for i, g := range table {
		out[i] = string(g.Name)
	}
	return out
}

// Override sets one gate, as one entry of --feature-gates.
type Override struct {
	Name Name
	On   bool
}

// UnknownGateError is an override naming no gate of the table.
type UnknownGateError struct{ Name string }

func (e *UnknownGateError) Error() string { return "unrecognized feature gate: " + e.Name }

// maxOverrides bounds the entries of one --feature-gates value.
const maxOverrides = 100

// ParseOverrides parses a --feature-gates value: "Name=true,Other=false" (component-base
// featuregate.Set: entries separated by commas, spaces around them ignored, the value a Go
// boolean). An unknown name is an *UnknownGateError; a gate the simulator does not model
// cannot be overridden.
func ParseOverrides(text string) ([]Override, error) {
	var out []Override
	if strings.TrimSpace(text) == "" {
		return nil, nil
	}
	entries := strings.Split(text, ",")
	if len(entries) > maxOverrides {
		return nil, fmt.Errorf("at most %d feature gates, got %d", maxOverrides, len(entries))
	}
	for _, e := range entries {
		e = strings.TrimSpace(e)
		if e == "" {
			continue
		}
		k, v, ok := strings.Cut(e, "=")
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if !ok {
			return nil, fmt.Errorf("missing bool value for %s (want Name=true or Name=false)", k)
		}
		g, found := Lookup(Name(k))
		if !found {
			return nil, &UnknownGateError{Name: k}
		}
		on, err := strconv.ParseBool(v)
		if err != nil {
			return nil, fmt.Errorf("invalid value of %s=%s, want true or false", k, v)
		}
		if !g.Modelled {
			return nil, fmt.Errorf("feature gate %s is not modelled by the simulator (it switches %s)", k, g.Switches)
		}
		out = append(out, Override{Name: g.Name, On: on})
	}
	return out, nil
}

// Set is every gate resolved for one release and its overrides.
type Set struct {
	minor int
	on    []bool // by table index
}

// For resolves every gate for release 1.<minor> (a supported one) with the overrides applied
// in order (a later entry for the same gate wins, as upstream's map does). Overriding a gate
// that is locked in that release to the other value is an error, with component-base
// featuregate's message.
func For(minor int, overrides []Override) (Set, error) {
	s := Set{minor: minor, on: make([]bool, len(table))}
	for i, g := range table {
		s.on[i] = g.DefaultFor(minor)
	}
	for _, o := range overrides {
		i := index(o.Name)
		if table[i].lockedIn(minor) && o.On != s.on[i] {
			return Set{}, fmt.Errorf("cannot set feature gate %s to %t, feature is locked to %t in %s", o.Name, o.On, s.on[i], Version(minor))
		}
		s.on[i] = o.On
	}
	return s, nil
}

// lockedIn reports whether the gate is locked to its default in release 1.<minor>.
func (g Gate) lockedIn(minor int) bool { return g.stageAt(minor).Locked }

// Default is the set of DefaultMinor without overrides.
func Default() Set {
	s, _ := For(DefaultMinor, nil)
	return s
}

// Minor returns the release the set was resolved for.
func (s Set) Minor() int { return s.minor }

// Enabled reports whether the gate is on. An unknown name is a programming error and panics.
func (s Set) Enabled(name Name) bool {
	if s.on == nil {
		return Default().Enabled(name)
	}
	return s.on[index(name)]
}

func index(name Name) int {
	for i, g := range table {
		if g.Name == name {
			return i
		}
	}
	panic("features: unknown gate " + string(name))
}
