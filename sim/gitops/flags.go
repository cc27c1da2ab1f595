package gitops

import (
	"strconv"
	"strings"
	"time"

	"github.com/reconsim/reconsim/internal/flagtab"
	"github.com/reconsim/reconsim/sim"
)

// Options are the agent's flags a scenario can set (gitops-agent flags, Flags): Argo CD's
// application controller flags and Application sync policy, Flux's Kustomization settings,
// the agent's client, and the simulator's compare time. Config turns them into a Config.
type Options struct {
	// Mode is argocd or flux.
	Mode Mode
	// ArgoCDVersion is the Argo CD minor version ("3.5") whose defaults apply
	// (DefaultOptionsFor).
	ArgoCDVersion string
	// AppResync and AppResyncJitter are timeout.reconciliation and its jitter.
	AppResync, AppResyncJitter time.Duration
	// Automated, SelfHeal and Prune are the Application's spec.syncPolicy.automated fields
	// (Prune also Flux's spec.prune); IgnoreHPAReplicas is an ignoreDifferences entry for
	// /spec/replicas of an HPA's target.
	Automated, SelfHeal, Prune, IgnoreHPAReplicas bool
	// SelfHealBackoffTimeoutSeconds, SelfHealBackoffFactor and SelfHealBackoffCapSeconds are
	// the application controller's --self-heal-backoff-* flags (v2.14 on); a timeout of 0
	// disables the back-off.
	SelfHealBackoffTimeoutSeconds, SelfHealBackoffFactor, SelfHealBackoffCapSeconds int
	// SelfHealTimeoutSeconds is --self-heal-timeout-seconds, the fixed wait without back-off.
	SelfHealTimeoutSeconds int
	// KubeAPIQPS and KubeAPIBurst are the agent's client throttling.
	KubeAPIQPS   float64
	KubeAPIBurst int
	// CompareTime is how long one refresh takes (simulator knob).
	CompareTime sim.Dist
	// Interval and IntervalJitterPercentage are Flux's spec.interval and
	// --interval-jitter-percentage.
	Interval                 time.Duration
	IntervalJitterPercentage int
}

// LatestArgoCDVersion is the newest Argo CD release whose defaults DefaultOptions has.
const LatestArgoCDVersion = "3.5"

// DefaultOptions returns the defaults of LatestArgoCDVersion (see Flags for the sources).
func DefaultOptions() Options {
	return Options{
		Mode: ModeArgoCD, ArgoCDVersion: LatestArgoCDVersion,
		AppResync: 120 * time.Second, AppResyncJitter: 60 * time.Second,
		SelfHealBackoffTimeoutSeconds: 2, SelfHealBackoffFactor: 3, SelfHealBackoffCapSeconds: 300,
		KubeAPIQPS: 50, KubeAPIBurst: 100,
		CompareTime: sim.Dist{Kind: sim.DistLogNormal, Median: 500 * time.Millisecond, P99: 3 * time.Second, Max: 30 * time.Second},
		Interval:    10 * time.Minute, IntervalJitterPercentage: 5,
	}
}

// DefaultOptionsFor returns DefaultOptions with the defaults of Argo CD version (a valid
// ParseArgoCDVersion value): before v3.0 timeout.reconciliation is 180s without jitter
// (commit fe598a831e, argoproj/argo-cd#22342); before v2.14 there is no self-heal back-off
// and --self-heal-timeout-seconds is 5 (argoproj/argo-cd#20275).
func DefaultOptionsFor(version string) Options {
	o := DefaultOptions()
	o.ArgoCDVersion = version
	if argoCDBefore(version, 3, 0) {
		o.AppResync, o.AppResyncJitter = 180*time.Second, 0
	}
	if argoCDBefore(version, 2, 14) {
		o.SelfHealTimeoutSeconds = 5
	}
	return o
}

// ParseArgoCDVersion parses an Argo CD "MAJOR.MINOR" version (major 2 or 3).
func ParseArgoCDVersion(s string) (major, minor int, ok bool) {
	a, b, found := strings.Cut(s, ".")
	if !found {
		return 0, 0, false
	}
	maj, err1 := strconv.Atoi(a)
	min, err2 := strconv.Atoi(b)
	if err1 != nil || err2 != nil || maj < 2 || maj > 3 || min < 0 || min > 99 {
		return 0, 0, false
	}
	return maj, min, true
}

// argoCDBefore reports whether Argo CD version (a valid ParseArgoCDVersion value) is older
// than major.minor.
func argoCDBefore(version string, major, minor int) bool {
	maj, min, _ := ParseArgoCDVersion(version)
	return maj < major || (maj == major && min < minor)
}

// Config returns the agent's Config for the Application (or Kustomization) called name:
// before Argo CD v2.14 a self-heal waits the fixed SelfHealTimeoutSeconds; from v2.14 it backs
// off unless SelfHealBackoffTimeoutSeconds is 0.
func (o Options) Config(name string) Config {
	secs := func(n int) time.Duration { return time.Duration(n) * time.Second }
	cfg := Config{
		Mode: o.Mode, Name: name,
		Resync: o.AppResync, ResyncJitter: o.AppResyncJitter,
		Automated: o.Automated, SelfHeal: o.SelfHeal, Prune: o.Prune, IgnoreHPAReplicas: o.IgnoreHPAReplicas,
		SelfHealTimeout: secs(o.SelfHealTimeoutSeconds),
		CompareTime:     o.CompareTime,
		Interval:        o.Interval, JitterPercent: o.IntervalJitterPercentage,
	}
	if !argoCDBefore(o.ArgoCDVersion, 2, 14) && o.SelfHealBackoffTimeoutSeconds > 0 {
		cfg.SelfHealBackoff = &Backoff{Duration: secs(o.SelfHealBackoffTimeoutSeconds),
			Factor: float64(o.SelfHealBackoffFactor), Cap: secs(o.SelfHealBackoffCapSeconds)}
	}
	return cfg
}

// argoCmd is the application controller's command, where its flags and defaults are.
const argoCmd = "argoproj/argo-cd cmd/argocd-application-controller/commands/argocd_application_controller.go"

// Flags is the agent's flag table (gitops-agent flags): each flag, its default (equal to
// DefaultOptions'; a test of scenarios checks), the upstream source of that default and the
// Options field it sets. scenarios documents and validates the flags from it; sim/cluster
// configures the agent through it (internal/flagtab), over DefaultOptionsFor the scenario's
// argocd-version.
var Flags = flagtab.Table[Options]{
	Component: Component,
	Defaults:  DefaultOptions,
	Flags: []flagtab.Flag[Options]{
		{Name: "mode", Type: flagtab.String, Default: "argocd", Field: "Mode", Source: "simulator setting",
			Ptr: func(o *Options) any { return &o.Mode }},
		{Name: "argocd-version", Type: flagtab.String, Default: LatestArgoCDVersion, Field: "ArgoCDVersion",
			Source: "argoproj/argo-cd releases (latest v" + LatestArgoCDVersion + ")",
			Ptr:    func(o *Options) any { return &o.ArgoCDVersion }},
		{Name: "app-resync", Type: flagtab.Duration, Default: "120s", Field: "AppResync",
			Source: argoCmd + " defaultAppResyncPeriod = 120 (180 before v3.0)",
			Ptr:    func(o *Options) any { return &o.AppResync }},
		{Name: "app-resync-jitter", Type: flagtab.Duration, Default: "60s", Field: "AppResyncJitter",
			Source: argoCmd + " defaultAppResyncPeriodJitter = 60 (0 before v3.0); controller/appcontroller.go newApplicationInformerAndLister",
			Ptr:    func(o *Options) any { return &o.AppResyncJitter }},
		{Name: "automated", Type: flagtab.Bool, Default: "false", Field: "Automated",
			Source: "Argo CD Application spec.syncPolicy.automated (unset by default: manual sync); docs/user-guide/auto_sync.md",
			Ptr:    func(o *Options) any { return &o.Automated }},
		{Name: "self-heal", Type: flagtab.Bool, Default: "false", Field: "SelfHeal",
			Source: "Argo CD spec.syncPolicy.automated.selfHeal (false by default); docs/user-guide/auto_sync.md",
			Ptr:    func(o *Options) any { return &o.SelfHeal }},
		{Name: "prune", Type: flagtab.Bool, Default: "false", Field: "Prune",
			Source: "Argo CD spec.syncPolicy.automated.prune (false by default); flux spec.prune",
			Ptr:    func(o *Options) any { return &o.Prune }},
		{Name: "self-heal-backoff-timeout-seconds", Type: flagtab.Int, Default: "2", Field: "SelfHealBackoffTimeoutSeconds",
			Source: argoCmd + " --self-heal-backoff-timeout-seconds (since v2.14, #20275)",
			Ptr:    func(o *Options) any { return &o.SelfHealBackoffTimeoutSeconds }},
		{Name: "self-heal-backoff-factor", Type: flagtab.Int, Default: "3", Field: "SelfHealBackoffFactor",
			Source: argoCmd + " --self-heal-backoff-factor",
			Ptr:    func(o *Options) any { return &o.SelfHealBackoffFactor }},
		{Name: "self-heal-backoff-cap-seconds", Type: flagtab.Int, Default: "300", Field: "SelfHealBackoffCapSeconds",
			Source: argoCmd + " --self-heal-backoff-cap-seconds",
			Ptr:    func(o *Options) any { return &o.SelfHealBackoffCapSeconds }},
		{Name: "self-heal-timeout-seconds", Type: flagtab.Int, Default: "0", Field: "SelfHealTimeoutSeconds",
			Source: argoCmd + " --self-heal-timeout-seconds (5 before v2.14)",
			Ptr:    func(o *Options) any { return &o.SelfHealTimeoutSeconds }},
		{Name: "ignore-hpa-replicas", Type: flagtab.Bool, Default: "false", Field: "IgnoreHPAReplicas",
			Source: "Argo CD spec.ignoreDifferences (docs/user-guide/diffing.md: an HPA changes replicas)",
			Ptr:    func(o *Options) any { return &o.IgnoreHPAReplicas }},
		{Name: "kube-api-qps", Type: flagtab.Float, Default: "50", Field: "KubeAPIQPS",
			Source: "Argo CD ARGOCD_K8S_CLIENT_QPS default 50 (docs/operator-manual/high_availability.md)",
			Ptr:    func(o *Options) any { return &o.KubeAPIQPS }},
		{Name: "kube-api-burst", Type: flagtab.Int, Default: "100", Field: "KubeAPIBurst",
			Source: "Argo CD ARGOCD_K8S_CLIENT_BURST default 2 x QPS (docs/operator-manual/high_availability.md)",
			Ptr:    func(o *Options) any { return &o.KubeAPIBurst }},
		{Name: "compare-time", Type: flagtab.Dist, Default: "lognormal(median=500ms,p99=3s,max=30s)", Field: "CompareTime",
			Source: "simulator default (not upstream): manifest generation (cached by the repo-server) and diff",
			Ptr:    func(o *Options) any { return &o.CompareTime }},
		{Name: "interval", Type: flagtab.Duration, Default: "10m", Field: "Interval",
			Source: "fluxcd/kustomize-controller docs/spec/v1/kustomizations.md .spec.interval (required; its examples use 10m, the minimum recommended is 60s)",
			Ptr:    func(o *Options) any { return &o.Interval }},
		{Name: "interval-jitter-percentage", Type: flagtab.Int, Default: "5", Field: "IntervalJitterPercentage",
			Source: "fluxcd/kustomize-controller main.go --interval-jitter-percentage default 5",
			Ptr:    func(o *Options) any { return &o.IntervalJitterPercentage }},
	},
}
