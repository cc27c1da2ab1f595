package scenarios

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/reconsim/reconsim/internal/flagtab"
	"github.com/reconsim/reconsim/sim"
	"github.com/reconsim/reconsim/sim/controllers/scheduler"
	"github.com/reconsim/reconsim/sim/features"
	"github.com/reconsim/reconsim/sim/gitops"
	"github.com/reconsim/reconsim/sim/kubeapiserver"
	"github.com/reconsim/reconsim/sim/leaderelection"
)

// FlagType is the type of a component flag's value, that of the components' flag tables:
// flagtab.Duration (with a unit, "50s"), Int, Float, Bool (true/false), String or Dist (see
// ParseDist), written as on the command line.
type FlagType = flagtab.Type

// The components a scenario can configure under `components:`.
const (
	ComponentAPIServer         = "kube-apiserver"
	ComponentControllerManager = "kube-controller-manager"
	ComponentScheduler         = "kube-scheduler"
	ComponentKubelet           = "kubelet"
	ComponentSimulator         = "simulator"
	// ComponentGitOpsAgent is a GitOps agent (Argo CD's application controller, or Flux's
	// kustomize-controller): off unless the scenario sets one of its flags.
	ComponentGitOpsAgent = "gitops-agent"
)

// Components in the order docs and listings show them.
var componentNames = []string{ComponentAPIServer, ComponentControllerManager, ComponentScheduler, ComponentKubelet, ComponentSimulator, ComponentGitOpsAgent}

// DefaultUpstreamVersion is the Kubernetes minor version whose defaults and feature gates the
// simulator follows unless a scenario sets simulator.upstream-version: the newest release
// whose k8s.io/api the module uses (sim/features).
var DefaultUpstreamVersion = features.DefaultVersion

// SupportedUpstreamVersions are the values simulator.upstream-version accepts, oldest first.
var SupportedUpstreamVersions = features.Versions()

// Flag describes one setting a scenario can override: an upstream component flag (by its
// upstream name) or a simulator knob (component "simulator", or Simulator set).
type Flag struct {
	Component string
	// Name is the upstream command-line flag name, without dashes.
	Name string
	Type FlagType
	// Default is the default for DefaultUpstreamVersion, written as on the command line.
	Default string
	// OlderDefaults lists defaults that differ in earlier upstream versions.
	OlderDefaults []VersionDefault
	// DefaultFollows names a flag of the same component whose explicit setting becomes this
	// flag's default when this flag is not set (kubelet: nodeStatusReportFrequency follows an
	// explicitly set nodeStatusUpdateFrequency).
	DefaultFollows string
	// ConfigField is the field of the component's configuration file that holds the same
	// setting, when upstream has one (kubelet and kube-scheduler are configured that way).
	ConfigField string
	// Simulator is true for knobs that are not upstream settings (latency distributions).
	Simulator bool
	// Source cites where the default comes from (upstream file, function or flag at a release; docs/upstream.md has the facts).
	Source string
	// Help says what the setting does in the simulator.
	Help string
	// Field is the Go field the flag sets, from the component's flag table ("node.Config.MaxPods");
	// empty for the scenario's own settings (simulator.upstream-version, feature-gates,
	// gitops-agent.enabled).
	Field string

	check func(v flagValue) error
}

// Key returns "component.name", the form --set and `sim explain` use.
func (f Flag) Key() string { return f.Component + "." + f.Name }

// VersionDefault is a default that applies to upstream versions before Before.
type VersionDefault struct {
	Before  string
	Default string
	Source  string
}

// value checks, shared by several flags.
func positive(v flagValue) error {
	if v.num() <= 0 {
		return fmt.Errorf("must be greater than 0, got %s", v.text)
	}
	return nil
}

func nonNegative(v flagValue) error {
	if v.num() < 0 {
		return fmt.Errorf("must not be negative, got %s", v.text)
	}
	return nil
}

func fraction(v flagValue) error {
	if v.f <= 0 || v.f > 1 {
		return fmt.Errorf("must be in (0, 1], got %s", v.text)
	}
	return nil
}

func supportedVersion(v flagValue) error {
	_, err := features.ParseVersion(v.s)
	return err
}

// featureGates checks a --feature-gates value against the gate table (sim/features), with a
// did-you-mean for an unknown gate.
func featureGates(v flagValue) error {
	_, err := features.ParseOverrides(v.s)
	var u *features.UnknownGateError
	if errors.As(err, &u) {
		hint := "`sim explain simulator.upstream-version` lists the gates"
		if s := closest(u.Name, features.Names()); s != "" {
			hint = fmt.Sprintf("did you mean %q?", s)
		}
		return fmt.Errorf("%v; %s", err, hint)
	}
	return err
}

// AdmissionPlugins are the admission plugins the simulated API server models, by their upstream
// names, in upstream's order (AllOrderedPlugins, [k8s] pkg/kubeapiserver/options/plugins.go);
// all are on by default, as upstream's are.
var AdmissionPlugins = []string{"NamespaceLifecycle", "TaintNodesByCondition", "Priority", "DefaultTolerationSeconds"}

// maxAdmissionPlugins bounds the entries of an admission plugin list.
const maxAdmissionPlugins = 100

// splitList splits a comma-separated flag value, dropping empty entries and spaces.
func splitList(s string) []string {
	var out []string
	for _, e := range strings.Split(s, ",") {
		if e = strings.TrimSpace(e); e != "" {
			out = append(out, e)
		}
	}
	return out
}

// admissionPluginList checks a list of modelled admission plugins; disabling refuses
// NamespaceLifecycle, which the simulated API server always runs.
func admissionPluginList(disabling bool) func(v flagValue) error {
	return func(v flagValue) error {
		names := splitList(v.s)
		if len(names) > maxAdmissionPlugins {
			return fmt.Errorf("at most %d plugins, got %d", maxAdmissionPlugins, len(names))
		}
		for _, n := range names {
			if !slices.Contains(AdmissionPlugins, n) {
				msg := fmt.Sprintf("%q is not an admission plugin the simulator models (%s)", n, strings.Join(AdmissionPlugins, ", "))
				if s := closest(n, AdmissionPlugins); s != "" {
					msg += fmt.Sprintf("; did you mean %q?", s)
				}
				return fmt.Errorf("%s", msg)
			}
			if disabling && n == "NamespaceLifecycle" {
				return fmt.Errorf("NamespaceLifecycle cannot be disabled in the simulator")
			}
		}
		return nil
	}
}

// AdmissionPluginEnabled reports whether the simulated API server runs the admission plugin
// (one of AdmissionPlugins): every one is on unless kube-apiserver.disable-admission-plugins
// names it.
func (c *Components) AdmissionPluginEnabled(name string) bool {
	return !slices.Contains(splitList(c.apiServerOptions().DisableAdmissionPlugins), name)
}

// apiServerOptions are kube-apiserver's flags as the scenario sets them.
func (c *Components) apiServerOptions() kubeapiserver.Options {
	o := kubeapiserver.DefaultOptions()
	Configure(c, kubeapiserver.Flags, &o)
	return o
}

// oneOf returns a check that the value is one of values.
func oneOf(values ...string) func(v flagValue) error {
	return func(v flagValue) error {
		if !slices.Contains(values, v.s) {
			return fmt.Errorf("want one of %s, got %q", strings.Join(values, ", "), v.s)
		}
		return nil
	}
}

// argocdVersion checks an Argo CD "MAJOR.MINOR" version.
func argocdVersion(v flagValue) error {
	if _, _, ok := gitops.ParseArgoCDVersion(v.s); !ok {
		return fmt.Errorf("want an Argo CD version such as 2.13, 2.14 or 3.0, got %q", v.s)
	}
	return nil
}

// GitOpsAgent reports whether the scenario runs the GitOps agent: enabled is true, or it is
// not set and some other gitops-agent flag is.
func (c *Components) GitOpsAgent() bool {
	if c.IsSet(ComponentGitOpsAgent, "enabled") {
		return c.Bool(ComponentGitOpsAgent, "enabled")
	}
	if c == nil {
		return false
	}
	for k := range c.set { //detlint:ordered any match answers
		if k.component == ComponentGitOpsAgent {
			return true
		}
	}
	return false
}

// maxReplicas bounds replicas of a control-plane component.
const maxReplicas = 9

func replicaCount(v flagValue) error {
	if v.i < 1 || v.i > maxReplicas {
		return fmt.Errorf("must be between 1 and %d, got %s", maxReplicas, v.text)
	}
	return nil
}

// maxFlagInt bounds integer flags: upstream declares them int32.
const maxFlagInt = math.MaxInt32

// maxFlagDuration bounds duration flags and distribution parameters; nothing the simulator
// models waits longer than a year.
const maxFlagDuration = 365 * 24 * time.Hour

// flags is the registry. Sources use the tags of docs/upstream.md#sources
// (copied into docs/scenario.md by the generator). An entry without a Type takes its type,
// default and source from the component's flag table (componentTables).
var flags = withTables(slices.Concat(
	ofComponent(ComponentAPIServer, []Flag{
		{Name: "max-requests-inflight", check: positive,
			Help: "Maximum number of non-mutating requests in flight; past it the API server answers 429."},
		{Name: "max-mutating-requests-inflight", check: positive,
			Help: "Maximum number of mutating requests in flight; past it the API server answers 429."},
		{Name: "event-ttl", check: positive,
			Help: "How long the API server keeps an Event after its last write."},
		{Name: "enable-priority-and-fairness",
			Help: "API Priority and Fairness: requests are classified by FlowSchemas into priority levels that share max-requests-inflight + max-mutating-requests-inflight seats (with borrowing), queued fairly per flow, " +
				"costed in seats by the work estimator, and answered 429 only when their queue is full or they waited a quarter of request-timeout. " +
				"The bootstrap configuration, with the scenario's own FlowSchema and PriorityLevelConfiguration objects (sim explain FlowSchema). false: the max-in-flight filter (429 at once past either limit)."},
		{Name: "request-timeout", check: positive,
			Help: "Request timeout; with priority and fairness a request waits in its queue at most a quarter of it (and at most 1m) before a 429."},
		{Name: "enable-admission-plugins", check: admissionPluginList(false),
			Help: "Admission plugins to enable in addition to the default-on ones (comma-separated). The modelled plugins, all on by default as upstream's, in upstream's order: " +
				"NamespaceLifecycle (objects only in existing, non-terminating namespaces), TaintNodesByCondition (a new Node gets node.kubernetes.io/not-ready:NoSchedule, which the node lifecycle controller removes once it is Ready), " +
				"Priority (pods get spec.priority and preemptionPolicy from their PriorityClass, the global default, or 0; an unknown class is Forbidden; system-cluster-critical and system-node-critical always exist), " +
				"DefaultTolerationSeconds (pods tolerate not-ready and unreachable NoExecute for 300s). Other upstream plugins are not modelled."},
		{Name: "disable-admission-plugins", check: admissionPluginList(true),
			Help: "Default-on admission plugins to turn off (comma-separated): TaintNodesByCondition, Priority or DefaultTolerationSeconds (NamespaceLifecycle cannot be turned off here)."},
		{Name: "default-not-ready-toleration-seconds", check: nonNegative,
			Help: "tolerationSeconds of the node.kubernetes.io/not-ready:NoExecute toleration the DefaultTolerationSeconds admission plugin adds to pods that lack one."},
		{Name: "default-unreachable-toleration-seconds", check: nonNegative,
			Help: "tolerationSeconds of the node.kubernetes.io/unreachable:NoExecute toleration the DefaultTolerationSeconds admission plugin adds to pods that lack one."},
	}),
	ofComponent(ComponentControllerManager, []Flag{
		{Name: "kube-api-qps", check: positive,
			Help: "Client-side rate limit (token bucket refill, requests per second) of the controller manager's API client."},
		{Name: "kube-api-burst", check: positive,
			Help: "Client-side burst (token bucket size) of the controller manager's API client."},
		{Name: "node-monitor-period", check: positive,
			Help: "How often the node lifecycle controller checks node health (monitorNodeHealth)."},
		{Name: "node-monitor-grace-period", check: positive,
			OlderDefaults: []VersionDefault{{Before: "1.32", Default: "40s", Source: "[k8s:pkg/controller/nodelifecycle/config/v1alpha1/defaults.go@0d173114]"}},
			Help:          "How long a node may go without a status update or lease renewal before the node lifecycle controller marks it Ready=Unknown and taints it unreachable."},
		{Name: "node-startup-grace-period", check: positive,
			Help: "Grace period used instead of node-monitor-grace-period for a node that has never posted a Ready condition."},
		{Name: "node-eviction-rate", check: nonNegative,
			Help: "Nodes per second that get NoExecute taints in a healthy zone (token bucket, burst 1)."},
		{Name: "secondary-node-eviction-rate", check: nonNegative,
			Help: "Tainting rate in a partially disrupted zone; 0 when the zone is not larger than large-cluster-size-threshold."},
		{Name: "large-cluster-size-threshold", check: nonNegative,
			Help: "Zone size above which a partially disrupted zone keeps tainting at secondary-node-eviction-rate instead of stopping."},
		{Name: "unhealthy-zone-threshold", check: fraction,
			Help: "Fraction of not-ready nodes (at least 3) at which a zone counts as partially disrupted."},
		{Name: "concurrent-replicaset-syncs", check: positive,
			Help: "Number of ReplicaSet controller workers syncing concurrently."},
		{Name: "concurrent-deployment-syncs", check: positive,
			Help: "Number of Deployment controller workers syncing concurrently."},
		{Name: "concurrent-statefulset-syncs", check: positive,
			Help: "Number of StatefulSet controller workers syncing concurrently."},
		{Name: "concurrent-daemonset-syncs", check: positive,
			Help: "Number of DaemonSet controller workers syncing concurrently."},
		{Name: "concurrent-job-syncs", check: positive,
			Help: "Number of Job controller workers. The Job controller's pod-failure back-off (10s doubling, capped at 10m; 6m with the JobPodFailureBackOffMax10m gate off) follows simulator.feature-gates (sim/controllers/job)."},
		{Name: "concurrent-cron-job-syncs", check: positive,
			Help: "Number of CronJob controller workers. Schedules run on the virtual clock, t=0 being 2026-01-01T00:00:00Z, in UTC unless spec.timeZone says otherwise."},
		{Name: "concurrent-ttl-after-finished-syncs", check: positive,
			Help: "Number of TTL-after-finished controller workers (they delete finished Jobs ttlSecondsAfterFinished after they finished)."},
		{Name: "horizontal-pod-autoscaler-sync-period", check: positive,
			Help: "How often every HorizontalPodAutoscaler is reconciled."},
		{Name: "horizontal-pod-autoscaler-tolerance", check: nonNegative,
			Help: "Usage-ratio tolerance within which the HPA does not scale (both directions), unless a behavior sets its own."},
		{Name: "horizontal-pod-autoscaler-downscale-stabilization", check: nonNegative,
			Help: "Window of past recommendations the HPA takes the highest of before scaling down (and the default scale-down stabilization of a behavior)."},
		{Name: "horizontal-pod-autoscaler-cpu-initialization-period", check: nonNegative,
			Help: "Period after a pod starts during which its CPU samples are skipped unless it is Ready and a full metric window has passed."},
		{Name: "horizontal-pod-autoscaler-initial-readiness-delay", check: nonNegative,
			Help: "Readiness changes this soon after a pod starts are taken as its initial readiness."},
		{Name: "concurrent-horizontal-pod-autoscaler-syncs", check: positive,
			Help: "Number of HPA controller workers."},
		{Name: "concurrent-gc-syncs", check: positive,
			Help: "Number of garbage collector workers."},
		{Name: "terminated-pod-gc-threshold", check: nonNegative,
			Help: "Number of terminated pods that may exist before the pod garbage collector deletes the oldest; 0 disables that part of pod GC."},
		{Name: "min-resync-period", check: positive,
			Help: "Informer resync period base: each informer resyncs at a random period in [min-resync-period, 2*min-resync-period)."},
	}),
	electedComponentFlags(ComponentControllerManager, "cold, as upstream's: informers start only once a replica leads (cmd/kube-controller-manager/app/controllermanager.go Run)"),
	ofComponent(ComponentScheduler, []Flag{
		{Name: "kube-api-qps", check: positive, ConfigField: "clientConnection.qps",
			Help: "Client-side rate limit (requests per second) of the scheduler's API client."},
		{Name: "kube-api-burst", check: positive, ConfigField: "clientConnection.burst",
			Help: "Client-side burst of the scheduler's API client."},
		{Name: "pod-initial-backoff-seconds", check: positive, ConfigField: "podInitialBackoffSeconds",
			Help: "Initial backoff of an unschedulable pod; it doubles per attempt up to pod-max-backoff-seconds."},
		{Name: "pod-max-backoff-seconds", check: positive, ConfigField: "podMaxBackoffSeconds",
			Help: "Maximum backoff of an unschedulable pod; must not be less than pod-initial-backoff-seconds."},
	}),
	electedComponentFlags(ComponentScheduler, "hot, as upstream's: informers start and sync before the election (cmd/kube-scheduler/app/server.go Run)"),
	ofComponent(ComponentKubelet, []Flag{
		{Name: "kube-api-qps", check: positive, ConfigField: "kubeAPIQPS",
			Help: "Client-side rate limit (requests per second) of each kubelet's API client."},
		{Name: "kube-api-burst", check: positive, ConfigField: "kubeAPIBurst",
			Help: "Client-side burst of each kubelet's API client."},
		{Name: "event-qps", check: nonNegative, ConfigField: "eventRecordQPS",
			Help: "Client-side rate limit (requests per second) of each kubelet's event client (kubeDeps.EventClient), through which its Events go; 0 means unlimited (cmd/kubelet/app/server.go)."},
		{Name: "event-burst", check: positive, ConfigField: "eventBurst",
			Help: "Client-side burst of each kubelet's event client."},
		{Name: "node-status-update-frequency", check: positive, ConfigField: "nodeStatusUpdateFrequency",
			Help: "How often the kubelet computes node status; it posts it only when it changed or node-status-report-frequency has passed."},
		{Name: "node-status-report-frequency", check: positive, ConfigField: "nodeStatusReportFrequency",
			DefaultFollows: "node-status-update-frequency",
			Help:           "How long the kubelet waits before posting an unchanged node status; defaults to node-status-update-frequency when that is set explicitly."},
		{Name: "node-lease-duration-seconds", check: positive, ConfigField: "nodeLeaseDurationSeconds",
			Help: "Duration of the node's Lease; the kubelet renews it every quarter of it (nodeLeaseRenewIntervalFraction 0.25)."},
		{Name: "max-pods", check: positive, ConfigField: "maxPods",
			Help: "Pods a node accepts; also the node's pods capacity when the node group does not set one."},
		{Name: "image-pull", Simulator: true,
			Help: "Time to pull a pod's images when the node does not have them yet."},
		{Name: "container-start", Simulator: true,
			Help: "Time from sandbox creation to a started container."},
	}),
	ofComponent(ComponentSimulator, []Flag{
		{Name: "watch-delay", Simulator: true,
			Help: "Delay between a committed write and its delivery to each watcher."},
		{Name: "api-service-time-get", Simulator: true,
			Help: "API server service time of a GET, during which the request holds an in-flight slot."},
		{Name: "api-service-time-list", Simulator: true,
			Help: "API server service time of a LIST."},
		{Name: "api-service-time-mutating", Simulator: true,
			Help: "API server service time of a create, update, patch or delete."},
		{Name: "events-through-api", Simulator: true,
			Help: "Whether components' Kubernetes Events go through their own API clients (costing their QPS, correlated, aggregated and spam-filtered as client-go's EventCorrelator does; events.jsonl records what the API server stored) or straight to events.jsonl at no cost, every call one Event with count 1 (for comparisons)."},
		{Name: "metric-resolution", check: positive, Simulator: true,
			Help: "How often the metrics-server model scrapes the kubelets; the HPA sees usage this stale."},
		{Name: "housekeeping-interval", check: nonNegative, Simulator: true,
			Help: "How often each kubelet samples container usage for the metrics pipeline; 0 samples at scrape time."},
		{Name: "upstream-version", Type: flagtab.String, Default: DefaultUpstreamVersion, Simulator: true, check: supportedVersion,
			Source: "simulator setting; the default is the newest release whose k8s.io/api the module uses (go.mod)",
			Help: "Kubernetes minor version (" + SupportedUpstreamVersions[0] + " to " + DefaultUpstreamVersion + ") whose flag defaults apply to flags that are not set, and whose feature gates and behaviour changes every component follows (the gate table below; docs/upstream.md#versions). " +
				"Every component runs the same version: version skew between components is not modelled."},
		{Name: "feature-gates", Type: flagtab.String, Default: "", Simulator: true, check: featureGates,
			Source: "component-base featuregate --feature-gates (Name=true,Name=false,...)",
			Help:   "Overrides single gates of the gate table for every component, as upstream's --feature-gates does (a gate upstream locked in the chosen version cannot be changed); the rest follow simulator.upstream-version."},
	}),
	ofComponent(ComponentGitOpsAgent, []Flag{
		{Name: "enabled", Type: flagtab.Bool, Default: "false", Simulator: true,
			Source: "simulator setting",
			Help:   "Run the GitOps agent. It also runs when any other gitops-agent flag is set, unless this one is set to false."},
		{Name: "mode", Simulator: true, check: oneOf("argocd", "flux"),
			Help: "argocd: Argo CD's application controller (refresh on every change of a managed object and every app-resync, automated sync with self-heal back-off); flux: Flux's kustomize-controller (a server-side apply of the whole source every interval, which reverts drift)."},
		{Name: "argocd-version", Simulator: true, check: argocdVersion,
			Help: "Argo CD minor version whose defaults apply to app-resync, app-resync-jitter and the self-heal timing: before 3.0 app-resync is 180s without jitter (commit fe598a831e, #22342); before 2.14 self-heal waits a fixed self-heal-timeout-seconds of 5 instead of the back-off (#20275)."},
		{Name: "app-resync", check: nonNegative,
			Help: "timeout.reconciliation: how often an Application is refreshed (its source compared with the cluster) without any other trigger; 0 disables the periodic refresh."},
		{Name: "app-resync-jitter", check: nonNegative,
			Help: "timeout.reconciliation.jitter: each periodic refresh comes up to this much later (uniform)."},
		{Name: "automated",
			Help: "Automated sync: sync when the Application is OutOfSync with a revision not yet synced. Without self-heal, drift in the cluster is only reported (OutOfSync)."},
		{Name: "self-heal",
			Help: "With automated sync, also sync when the cluster drifted from an already synced revision, after the self-heal back-off."},
		{Name: "prune",
			Help: "Delete managed objects that are no longer in the source (a delete with commit: true). Without it they stay, and the Application stays OutOfSync."},
		{Name: "self-heal-backoff-timeout-seconds", check: nonNegative,
			Help: "The first delay of the self-heal back-off: self-heal attempt n (n >= 1) waits timeout*factor^(n-1), capped, after the previous operation finished; the first attempt is immediate (controller/appcontroller.go selfHealRemainingBackoff). 0 disables the back-off and uses self-heal-timeout-seconds."},
		{Name: "self-heal-backoff-factor", check: positive,
			Help: "The factor of the self-heal back-off."},
		{Name: "self-heal-backoff-cap-seconds", check: positive,
			Help: "The longest self-heal back-off delay."},
		{Name: "self-heal-timeout-seconds", check: nonNegative,
			Help: "Fixed wait after the previous operation before a self-heal, used when the back-off is disabled (self-heal-backoff-timeout-seconds 0, or argocd-version before 2.14)."},
		{Name: "ignore-hpa-replicas",
			Help: "Ignore spec.replicas of objects an HorizontalPodAutoscaler targets when diffing, as an ignoreDifferences entry for /spec/replicas does. Without it an autoscaled Deployment whose manifest sets replicas is OutOfSync whenever the HPA scaled it."},
		{Name: "kube-api-qps", check: positive,
			Help: "Client-side rate limit of the agent's API client: a large drifting application costs what it costs."},
		{Name: "kube-api-burst", check: positive,
			Help: "Client-side burst of the agent's API client."},
		{Name: "compare-time", Simulator: true,
			Help: "How long one refresh (compare) of the Application takes before its status and any sync."},
		{Name: "interval", check: positive,
			Help: "flux mode: how often the Kustomization is applied (server-side apply of the whole source), which reverts drift."},
		{Name: "interval-jitter-percentage", check: nonNegative,
			Help: "flux mode: each interval is jittered by up to this percentage either way."},
	}),
), componentTables)

// electedComponentFlags are the process and leader-election flags of kube-controller-manager
// and kube-scheduler (component-base's --leader-elect*, the simulator's replicas and
// restart-delay); standby says how a standby replica waits.
func electedComponentFlags(component, standby string) []Flag {
	return ofComponent(component, []Flag{
		{Name: "leader-elect",
			Help: "Run leader election (client-go tools/leaderelection over the Lease kube-system/" + component + ") before doing any work. The simulator runs the election when replicas is more than 1 or this flag is set explicitly; a single replica left at the default leads from the start without Lease traffic, which changes nothing but the trace."},
		{Name: "leader-elect-lease-duration", check: positive,
			Help: "How long a standby waits, from when it last saw the Lease renewed, before it takes the Lease over."},
		{Name: "leader-elect-renew-deadline", check: positive,
			Help: "How long the leader keeps retrying a renewal before it gives up leadership and exits (client-go LeaderElector.renew). Must be less than the lease duration and more than 1.2 times the retry period."},
		{Name: "leader-elect-retry-period", check: positive,
			Help: "The wait between election attempts: a standby tries every retry-period*[1, 2.2) (wait.JitterUntil with JitterFactor 1.2), the leader renews every retry-period."},
		{Name: "replicas", check: replicaCount, Simulator: true,
			Help: "Number of " + component + " processes, each a leader-election candidate with its own clients and informers; only the leader works. Standbys are " + standby + "."},
		{Name: "restart-delay", check: nonNegative, Simulator: true,
			Help: "How long a replica that lost its lease (and exited, as upstream's process does) takes to come back as a standby."},
	})
}

// ofComponent returns flags, each set as a flag of component.
func ofComponent(component string, flags []Flag) []Flag {
	for i := range flags {
		flags[i].Component = component
	}
	return flags
}

// Flags returns every supported flag, grouped by component in the order kube-apiserver,
// kube-controller-manager, kube-scheduler, kubelet, simulator. The slice is a copy.
func Flags() []Flag {
	out := make([]Flag, len(flags))
	copy(out, flags)
	return out
}

// ComponentNames returns the component names a scenario can configure, in display order.
func ComponentNames() []string { return append([]string(nil), componentNames...) }

// LookupFlag returns the flag of component named name.
func LookupFlag(component, name string) (Flag, bool) {
	for _, f := range flags {
		if f.Component == component && f.Name == name {
			return f, true
		}
	}
	return Flag{}, false
}

func isComponent(name string) bool {
	for _, c := range componentNames {
		if c == name {
			return true
		}
	}
	return false
}

func flagNamesOf(component string) []string {
	var names []string
	for _, f := range flags {
		if f.Component == component {
			names = append(names, f.Name)
		}
	}
	return names
}

// componentsWithFlag returns the components that have a flag called name, in display order.
func componentsWithFlag(name string) []string {
	var cs []string
	for _, f := range flags {
		if f.Name == name {
			cs = append(cs, f.Component)
		}
	}
	return cs
}

// minorOf returns the minor number of a "1.NN" version, or -1.
func minorOf(v string) int {
	rest, ok := strings.CutPrefix(v, "1.")
	if !ok {
		return -1
	}
	n, err := strconv.Atoi(rest)
	if err != nil {
		return -1
	}
	return n
}

// DefaultFor returns the flag's default for an upstream version (as in
// SupportedUpstreamVersions) and the source of that default.
func (f Flag) DefaultFor(version string) (value, source string) {
	value, source = f.Default, f.Source
	m := minorOf(version)
	best := -1
	for _, od := range f.OlderDefaults {
		b := minorOf(od.Before)
		if m < b && (best < 0 || b < best) {
			best = b
			value, source = od.Default, od.Source
		}
	}
	return value, source
}

// flagValue is a parsed value; text is its canonical command-line form.
type flagValue struct {
	text string
	dur  time.Duration
	i    int64
	f    float64
	b    bool
	s    string
	dist sim.Dist
}

// num returns the numeric value for range checks of int, float and duration flags.
func (v flagValue) num() float64 {
	switch {
	case v.dur != 0:
		return float64(v.dur)
	case v.i != 0:
		return float64(v.i)
	default:
		return v.f
	}
}

// parseFlagText parses a value written as on the command line and runs the flag's checks.
// The error message says what was expected; it does not repeat the flag name.
func parseFlagText(f Flag, text string) (flagValue, error) {
	v := flagValue{text: text}
	switch f.Type {
	case flagtab.Duration:
		d, err := parseDuration(text)
		if err != nil {
			return v, err
		}
		if d < 0 {
			return v, fmt.Errorf("must not be negative, got %s", text)
		}
		if d > maxFlagDuration {
			return v, fmt.Errorf("must be at most %s, got %s", maxFlagDuration, text)
		}
		v.dur, v.text = d, formatDuration(d)
	case flagtab.Int:
		n, err := strconv.ParseInt(strings.TrimSpace(text), 10, 64)
		if err != nil {
			return v, fmt.Errorf("want an integer, got %q", text)
		}
		if n > maxFlagInt || n < -maxFlagInt {
			return v, fmt.Errorf("must be at most %d, got %s", maxFlagInt, text)
		}
		v.i, v.text = n, strconv.FormatInt(n, 10)
	case flagtab.Float:
		x, err := strconv.ParseFloat(strings.TrimSpace(text), 64)
		if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
			return v, fmt.Errorf("want a number, got %q", text)
		}
		if math.Abs(x) > maxFlagInt {
			return v, fmt.Errorf("must be at most %d, got %s", maxFlagInt, text)
		}
		v.f, v.text = x, strconv.FormatFloat(x, 'g', -1, 64)
	case flagtab.Bool:
		b, err := strconv.ParseBool(strings.TrimSpace(text))
		if err != nil {
			return v, fmt.Errorf("want true or false, got %q", text)
		}
		v.b, v.text = b, strconv.FormatBool(b)
	case flagtab.String:
		v.s = text
	case flagtab.Dist:
		d, err := ParseDist(text)
		if err != nil {
			return v, err
		}
		v.dist, v.text = d, FormatDist(d)
	default:
		panic("scenarios: flag " + f.Key() + " has unknown type " + string(f.Type))
	}
	if f.check != nil {
		if err := f.check(v); err != nil {
			return v, err
		}
	}
	return v, nil
}

// parseDuration is sim.ParseDuration: time.ParseDuration with a clearer message for a number
// without a unit.
func parseDuration(text string) (time.Duration, error) { return sim.ParseDuration(text) }

// FormatDuration writes a duration as flag values are written: 50s, 5m, 1h30m, 1.5s, 300ms.
func FormatDuration(d time.Duration) string { return formatDuration(d) }

// formatDuration is FormatDuration.
func formatDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// distKeys are the parameter names of a distribution, in canonical order.
var distKeys = sim.DistKeys

// ParseDist parses a distribution written on one line (sim.ParseDist: a plain duration,
// "constant(5ms)", "uniform(1ms..5ms)", or "kind(key=value,...)"), adding a did-you-mean to
// an unknown parameter.
func ParseDist(text string) (sim.Dist, error) {
	d, err := sim.ParseDist(text)
	var u *sim.UnknownDistParamError
	if errors.As(err, &u) {
		msg := u.Error()
		if s := closest(u.Param, distKeys); s != "" {
			msg += fmt.Sprintf("; did you mean %q?", s)
		}
		return sim.Dist{}, fmt.Errorf("%s", msg)
	}
	return d, err
}

// checkDist validates d and bounds its parameters (sim.CheckDist).
func checkDist(d sim.Dist) (sim.Dist, error) { return sim.CheckDist(d) }

// FormatDist writes d in the canonical form ParseDist reads: "constant(5ms)" or
// "kind(key=value,...)" with the non-zero parameters in the order value, mean, median, p99,
// min, max.
func FormatDist(d sim.Dist) string {
	kind := d.Kind
	if kind == "" {
		kind = sim.DistConstant
	}
	vals := []time.Duration{d.Value, d.Mean, d.Median, d.P99, d.Min, d.Max}
	if kind == sim.DistConstant && d.Min == 0 && d.Max == 0 {
		return "constant(" + formatDuration(d.Value) + ")"
	}
	var parts []string
	for i, v := range vals {
		if v != 0 {
			parts = append(parts, distKeys[i]+"="+formatDuration(v))
		}
	}
	return string(kind) + "(" + strings.Join(parts, ",") + ")"
}

// flagKey identifies a flag in Components.
type flagKey struct{ component, name string }

// Components holds the flag values a scenario (and its overrides) set explicitly, and
// answers typed questions about any supported flag: the explicit value if there is one,
// otherwise the default for the scenario's upstream version. The zero value (and a nil
// *Components) means "every flag at its default".
//
// The typed getters panic only on programming errors: a component or flag name that is not
// in the registry, or a getter of the wrong type. Values from users are validated when the
// scenario is loaded or the override applied, so they never make a getter panic.
type Components struct {
	set map[flagKey]flagValue
}

// Set parses value as the flag's type, checks it, and records it as explicitly set. It
// returns an error (naming the flag) for an unknown component or flag, or a bad value, and
// leaves c unchanged then.
func (c *Components) Set(component, flag, value string) error {
	f, ok := LookupFlag(component, flag)
	if !ok {
		return unknownFlagError(component, flag)
	}
	v, err := parseFlagText(f, value)
	if err != nil {
		return fmt.Errorf("%s: %v", f.Key(), err)
	}
	if c.set == nil {
		c.set = map[flagKey]flagValue{}
	}
	c.set[flagKey{component, flag}] = v
	return nil
}

// unknownFlagError explains an unknown component or flag, with a did-you-mean.
func unknownFlagError(component, flag string) error {
	if !isComponent(component) {
		msg := fmt.Sprintf("unknown component %q (want one of %s)", component, strings.Join(componentNames, ", "))
		if s := closest(component, componentNames); s != "" {
			msg += fmt.Sprintf("; did you mean %q?", s)
		}
		return fmt.Errorf("%s", msg)
	}
	msg, hint := unknownFlagMessage(component, flag)
	if hint != "" {
		msg += "; " + hint
	}
	return fmt.Errorf("%s", msg)
}

// unknownFlagMessage returns the message and hint for a flag the component does not have.
func unknownFlagMessage(component, flag string) (msg, hint string) {
	msg = fmt.Sprintf("%s has no flag %q", component, flag)
	if s := closest(flag, flagNamesOf(component)); s != "" {
		return msg, fmt.Sprintf("did you mean %q?", s)
	}
	if others := componentsWithFlag(flag); len(others) > 0 {
		return msg, fmt.Sprintf("%s is a flag of %s", flag, strings.Join(others, " and "))
	}
	return msg, "`sim explain " + component + "` lists its flags"
}

// IsSet reports whether the flag was set explicitly (in the scenario or by an override).
func (c *Components) IsSet(component, flag string) bool {
	c.mustFlag(component, flag)
	if c == nil {
		return false
	}
	_, ok := c.set[flagKey{component, flag}]
	return ok
}

// UpstreamVersion returns simulator.upstream-version: the Kubernetes minor version whose
// defaults apply.
func (c *Components) UpstreamVersion() string {
	return c.String(ComponentSimulator, "upstream-version")
}

// FeatureGates returns every gate of sim/features resolved for simulator.upstream-version and
// simulator.feature-gates. The loader has checked both, so this does not fail.
func (c *Components) FeatureGates() features.Set {
	s, err := c.featureGateSet()
	if err != nil {
		panic("scenarios: feature gates were not validated: " + err.Error())
	}
	return s
}

func (c *Components) featureGateSet() (features.Set, error) {
	minor, err := features.ParseVersion(c.UpstreamVersion())
	if err != nil {
		return features.Set{}, err
	}
	overrides, err := features.ParseOverrides(c.String(ComponentSimulator, "feature-gates"))
	if err != nil {
		return features.Set{}, err
	}
	return features.For(minor, overrides)
}

// Setting is one explicitly set flag value.
type Setting struct {
	Component string
	Flag      string
	// Value is the canonical command-line form of the value.
	Value string
}

// Settings returns the explicitly set values, sorted by component (display order) then flag.
func (c *Components) Settings() []Setting {
	if c == nil {
		return nil
	}
	var out []Setting
	for _, f := range flags {
		if v, ok := c.set[flagKey{f.Component, f.Name}]; ok {
			out = append(out, Setting{Component: f.Component, Flag: f.Name, Value: v.text})
		}
	}
	return out
}

// clone returns a deep copy of c (values are immutable, so the map is what is copied).
func (c *Components) clone() *Components {
	n := &Components{}
	if c != nil && c.set != nil {
		n.set = make(map[flagKey]flagValue, len(c.set))
		for k, v := range c.set { //detlint:ordered a copy into a map
			n.set[k] = v
		}
	}
	return n
}

func (c *Components) mustFlag(component, flag string) Flag {
	f, ok := LookupFlag(component, flag)
	if !ok {
		panic(fmt.Sprintf("scenarios: %s.%s is not a registered flag", component, flag))
	}
	return f
}

// value returns the effective value of a flag, checking the getter's type.
func (c *Components) value(component, flag string, want FlagType) flagValue {
	f := c.mustFlag(component, flag)
	if f.Type != want {
		panic(fmt.Sprintf("scenarios: %s is a %s flag, read as %s", f.Key(), f.Type, want))
	}
	if c != nil {
		if v, ok := c.set[flagKey{component, flag}]; ok {
			return v
		}
		if f.DefaultFollows != "" {
			if v, ok := c.set[flagKey{component, f.DefaultFollows}]; ok {
				return v
			}
		}
	}
	version := DefaultUpstreamVersion
	if !(component == ComponentSimulator && flag == "upstream-version") {
		version = c.UpstreamVersion()
	}
	text, _ := f.DefaultFor(version)
	v, err := parseFlagText(f, text)
	if err != nil {
		panic(fmt.Sprintf("scenarios: registry default of %s does not parse: %v", f.Key(), err))
	}
	return v
}

// Duration returns a duration flag's effective value.
func (c *Components) Duration(component, flag string) time.Duration {
	return c.value(component, flag, flagtab.Duration).dur
}

// Int returns an integer flag's effective value.
func (c *Components) Int(component, flag string) int {
	return int(c.value(component, flag, flagtab.Int).i)
}

// Float returns a float flag's effective value.
func (c *Components) Float(component, flag string) float64 {
	return c.value(component, flag, flagtab.Float).f
}

// Bool returns a boolean flag's effective value.
func (c *Components) Bool(component, flag string) bool {
	return c.value(component, flag, flagtab.Bool).b
}

// String returns a string flag's effective value.
func (c *Components) String(component, flag string) string {
	return c.value(component, flag, flagtab.String).s
}

// Dist returns a distribution flag's effective value.
func (c *Components) Dist(component, flag string) sim.Dist {
	return c.value(component, flag, flagtab.Dist).dist
}

// Text returns any flag's effective value in its canonical command-line form.
func (c *Components) Text(component, flag string) string {
	f := c.mustFlag(component, flag)
	return c.value(component, flag, f.Type).text
}

// crossCheck reports problems between flags (upstream validation that involves two values);
// each message names the flags.
func (c *Components) crossCheck() []string {
	var problems []string
	if _, err := c.featureGateSet(); err != nil {
		problems = append(problems, "simulator.feature-gates: "+err.Error())
	}
	// kube-apiserver's admission options Validate: a plugin may not be both enabled and
	// disabled.
	api := c.apiServerOptions()
	enabled := splitList(api.EnableAdmissionPlugins)
	for _, d := range splitList(api.DisableAdmissionPlugins) {
		if slices.Contains(enabled, d) {
			problems = append(problems, fmt.Sprintf("kube-apiserver: %s is both in enable-admission-plugins and disable-admission-plugins", d))
		}
	}
	sched := scheduler.DefaultConfig()
	Configure(c, scheduler.Flags, &sched)
	if initial, max := sched.PodInitialBackoffSeconds, sched.PodMaxBackoffSeconds; max < initial {
		problems = append(problems, fmt.Sprintf("kube-scheduler.pod-max-backoff-seconds (%d) is less than pod-initial-backoff-seconds (%d)", max, initial))
	}
	for _, comp := range []string{ComponentControllerManager, ComponentScheduler} {
		problems = append(problems, c.electionProblems(comp)...)
	}
	return problems
}

// electionProblems checks a component's leader-election flags as client-go's
// NewLeaderElector does (tools/leaderelection/leaderelection.go): lease duration greater than
// renew deadline, renew deadline greater than JitterFactor (1.2) times the retry period.
func (c *Components) electionProblems(comp string) []string {
	var problems []string
	cfg := leaderelection.DefaultConfig()
	Configure(c, leaderelection.Flags(comp), &cfg)
	lease, renew, retry := cfg.LeaseDuration, cfg.RenewDeadline, cfg.RetryPeriod
	if lease <= renew {
		problems = append(problems, fmt.Sprintf("%s.leader-elect-lease-duration (%s) must be greater than leader-elect-renew-deadline (%s)", comp, formatDuration(lease), formatDuration(renew)))
	}
	if float64(renew) <= 1.2*float64(retry) {
		problems = append(problems, fmt.Sprintf("%s.leader-elect-renew-deadline (%s) must be greater than 1.2 times leader-elect-retry-period (%s)", comp, formatDuration(renew), formatDuration(retry)))
	}
	return problems
}

// Elections reports whether the simulator runs leader election for component
// (kube-controller-manager or kube-scheduler): leader-elect is true and either replicas is
// more than 1 or leader-elect was set explicitly.
func (c *Components) Elections(component string) bool {
	p := leaderelection.DefaultProcess()
	Configure(c, leaderelection.ProcessFlags(component), &p)
	if !p.LeaderElect {
		return false
	}
	return p.Replicas > 1 || c.IsSet(component, "leader-elect")
}

// sortedFlagKeys returns every flag key ("component.name"), sorted.
func sortedFlagKeys() []string {
	keys := make([]string, 0, len(flags))
	for _, f := range flags {
		keys = append(keys, f.Key())
	}
	sort.Strings(keys)
	return keys
}
