package scenarios

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reconsim/reconsim/sim"
)

// TestRegistry checks the registry's own consistency: every flag is documented and cited, its
// default (for every supported version) parses and passes its checks, and names are unique.
func TestRegistry(t *testing.T) {
	seen := map[string]bool{}
	for _, f := range Flags() {
		key := f.Key()
		assert.False(t, seen[key], "%s is registered twice", key)
		seen[key] = true
		assert.True(t, isComponent(f.Component), "%s: unknown component", key)
		assert.NotEmpty(t, f.Source, "%s cites no source", key)
		assert.NotEmpty(t, f.Help, "%s has no help", key)
		assert.Contains(t, typeWords, f.Type, "%s has an unknown type", key)
		for _, v := range SupportedUpstreamVersions {
			def, src := f.DefaultFor(v)
			_, err := parseFlagText(f, def)
			assert.NoError(t, err, "%s default %q for %s", key, def, v)
			assert.NotEmpty(t, src)
		}
		if f.DefaultFollows != "" {
			other, ok := LookupFlag(f.Component, f.DefaultFollows)
			assert.True(t, ok, "%s follows an unknown flag", key)
			assert.Equal(t, f.Type, other.Type, "%s follows a flag of another type", key)
		}
	}
	// The scenario-level settings scenarios itself reads by name (the components' flags come
	// from their tables: TestDocumentedDefaultsAreDefaultConfigs).
	for _, key := range []string{"simulator.upstream-version", "simulator.feature-gates", "gitops-agent.enabled",
		"kube-apiserver.enable-admission-plugins", "kube-apiserver.disable-admission-plugins"} {
		assert.True(t, seen[key], "%s is not registered", key)
	}
}

// TestUpstreamDefaults pins the defaults to the reference values, so a table edit that
// changes one is noticed.
func TestUpstreamDefaults(t *testing.T) {
	var c *Components // nil: every flag at its default
	for _, tc := range []struct{ component, flag, want string }{
		{ComponentAPIServer, "max-requests-inflight", "400"},
		{ComponentAPIServer, "max-mutating-requests-inflight", "200"},
		{ComponentAPIServer, "default-unreachable-toleration-seconds", "300"},
		{ComponentControllerManager, "kube-api-qps", "20"},
		{ComponentControllerManager, "kube-api-burst", "30"},
		{ComponentControllerManager, "node-monitor-period", "5s"},
		{ComponentControllerManager, "node-monitor-grace-period", "50s"},
		{ComponentControllerManager, "node-startup-grace-period", "1m"},
		{ComponentControllerManager, "node-eviction-rate", "0.1"},
		{ComponentControllerManager, "secondary-node-eviction-rate", "0.01"},
		{ComponentControllerManager, "large-cluster-size-threshold", "50"},
		{ComponentControllerManager, "unhealthy-zone-threshold", "0.55"},
		{ComponentControllerManager, "concurrent-replicaset-syncs", "5"},
		{ComponentControllerManager, "concurrent-gc-syncs", "20"},
		{ComponentControllerManager, "terminated-pod-gc-threshold", "12500"},
		{ComponentControllerManager, "min-resync-period", "12h"},
		{ComponentScheduler, "kube-api-qps", "50"},
		{ComponentScheduler, "kube-api-burst", "100"},
		{ComponentScheduler, "pod-initial-backoff-seconds", "1"},
		{ComponentScheduler, "pod-max-backoff-seconds", "10"},
		{ComponentKubelet, "kube-api-qps", "50"},
		{ComponentKubelet, "kube-api-burst", "100"},
		{ComponentKubelet, "node-status-update-frequency", "10s"},
		{ComponentKubelet, "node-status-report-frequency", "5m"},
		{ComponentKubelet, "node-lease-duration-seconds", "40"},
		{ComponentKubelet, "max-pods", "110"},
		{ComponentSimulator, "upstream-version", "1.37"},
		{ComponentSimulator, "watch-delay", "lognormal(median=2ms,p99=20ms,max=1s)"},
	} {
		assert.Equal(t, tc.want, c.Text(tc.component, tc.flag), "%s.%s", tc.component, tc.flag)
	}
	assert.Equal(t, 20.0, c.Float(ComponentControllerManager, "kube-api-qps"), "the typed getters read the same values")
	assert.Equal(t, 12*time.Hour, c.Duration(ComponentControllerManager, "min-resync-period"))
	assert.False(t, c.IsSet(ComponentKubelet, "max-pods"))
	assert.Empty(t, c.Settings())
}

func TestComponentsVersionAndSet(t *testing.T) {
	var c Components
	require.NoError(t, c.Set(ComponentSimulator, "upstream-version", "1.32"))
	assert.Equal(t, 50*time.Second, c.Duration(ComponentControllerManager, "node-monitor-grace-period"), "1.32 defaults to 50s")
	grace, _ := LookupFlag(ComponentControllerManager, "node-monitor-grace-period")
	old, _ := grace.DefaultFor("1.31")
	assert.Equal(t, "40s", old, "the 1.31 default, outside the supported releases, stays documented")
	require.NoError(t, c.Set(ComponentControllerManager, "node-monitor-grace-period", "45s"))
	assert.Equal(t, 45*time.Second, c.Duration(ComponentControllerManager, "node-monitor-grace-period"), "an explicit value beats any default")
	assert.True(t, c.IsSet(ComponentControllerManager, "node-monitor-grace-period"))
	assert.Equal(t, "45s", c.Text(ComponentControllerManager, "node-monitor-grace-period"))
	assert.Equal(t, []Setting{
		{Component: ComponentControllerManager, Flag: "node-monitor-grace-period", Value: "45s"},
		{Component: ComponentSimulator, Flag: "upstream-version", Value: "1.32"},
	}, c.Settings())

	for _, bad := range []struct{ component, flag, value, want string }{
		{ComponentSimulator, "upstream-version", "1.20", "unsupported upstream version"},
		{ComponentSimulator, "upstream-version", "1.31", "supported: 1.32, 1.33, 1.34, 1.35, 1.36, 1.37"},
		{ComponentSimulator, "feature-gates", "SchedulerPopFromBackofQ=true", `unrecognized feature gate: SchedulerPopFromBackofQ; did you mean "SchedulerPopFromBackoffQ"?`},
		{ComponentSimulator, "feature-gates", "SchedulerPopFromBackoffQ=maybe", "invalid value of SchedulerPopFromBackoffQ=maybe"},
		{ComponentSimulator, "feature-gates", "SchedulerPopFromBackoffQ", "missing bool value"},
		{ComponentSimulator, "feature-gates", "BalancedAllocationScoresChange=false", "not modelled"},
		{ComponentAPIServer, "disable-admission-plugins", "Priorty", `did you mean "Priority"?`},
		{ComponentAPIServer, "disable-admission-plugins", "NamespaceLifecycle", "cannot be disabled"},
		{ComponentKubelet, "max-pods", "0", "must be greater than 0"},
		{ComponentKubelet, "max-pods", "many", "want an integer"},
		{ComponentKubelet, "max-pods", "3000000000", "must be at most"},
		{ComponentControllerManager, "unhealthy-zone-threshold", "1.5", "must be in (0, 1]"},
		{ComponentControllerManager, "node-monitor-period", "-5s", "must not be negative"},
		{ComponentControllerManager, "node-monitor-period", "5", "has no unit"},
		{ComponentControllerManager, "node-eviction-rate", "NaN", "want a number"},
		{"kube-proxy", "x", "1", `unknown component "kube-proxy"`},
		{ComponentKubelet, "node-monitor-grace-period", "1s", "is a flag of kube-controller-manager"},
		{ComponentKubelet, "max-pod", "1", `did you mean "max-pods"?`},
	} {
		err := c.Set(bad.component, bad.flag, bad.value)
		if assert.Error(t, err, "%s.%s=%s", bad.component, bad.flag, bad.value) {
			assert.Contains(t, err.Error(), bad.want)
		}
	}
	assert.Equal(t, 45*time.Second, c.Duration(ComponentControllerManager, "node-monitor-grace-period"), "a rejected value changes nothing")
}

func TestGettersPanicOnlyOnProgrammingErrors(t *testing.T) {
	var c Components
	assert.PanicsWithValue(t, "scenarios: kubelet.max-podz is not a registered flag", func() { c.Int(ComponentKubelet, "max-podz") })
	assert.PanicsWithValue(t, "scenarios: kubelet.max-pods is a int flag, read as duration", func() { c.Duration(ComponentKubelet, "max-pods") })
	assert.NotPanics(t, func() { c.Int(ComponentKubelet, "max-pods") })
}

func TestParseDist(t *testing.T) {
	ms := time.Millisecond
	good := []struct {
		in        string
		want      sim.Dist
		canonical string
	}{
		{"5ms", sim.Constant(5 * ms), "constant(5ms)"},
		{"constant(2s)", sim.Constant(2 * time.Second), "constant(2s)"},
		{"uniform(1ms..5ms)", sim.Dist{Kind: sim.DistUniform, Min: ms, Max: 5 * ms}, "uniform(min=1ms,max=5ms)"},
		{"uniform(min=1ms, max=5ms)", sim.Dist{Kind: sim.DistUniform, Min: ms, Max: 5 * ms}, "uniform(min=1ms,max=5ms)"},
		{"exponential(min=1ms,mean=3ms)", sim.Dist{Kind: sim.DistExponential, Min: ms, Mean: 3 * ms}, "exponential(mean=3ms,min=1ms)"},
		{" lognormal(median=2ms,p99=20ms,max=1s) ", sim.Dist{Kind: sim.DistLogNormal, Median: 2 * ms, P99: 20 * ms, Max: time.Second}, "lognormal(median=2ms,p99=20ms,max=1s)"},
	}
	for _, g := range good {
		d, err := ParseDist(g.in)
		require.NoError(t, err, g.in)
		assert.Equal(t, g.want, d, g.in)
		assert.Equal(t, g.canonical, FormatDist(d))
		back, err := ParseDist(FormatDist(d))
		require.NoError(t, err)
		assert.Equal(t, d, back, "the canonical form parses back to the same distribution")
	}
	for _, bad := range []struct{ in, want string }{
		{"fast", "want a distribution"},
		{"gamma(shape=1s)", `unknown distribution kind "gamma"`},
		{"lognormal(median=2ms", "closing parenthesis"},
		{"lognormal(median=2ms,p99=1ms)", "p99 >= median"},
		{"lognormal(median=2ms,p9=20ms)", `did you mean "p99"?`},
		{"uniform(min=1ms,min=2ms,max=3ms)", "given twice"},
		{"uniform(5ms..1ms)", "greater than max"},
		{"exponential(mean=2)", "has no unit"},
		{"constant(-1s)", "must not be negative"},
		{"lognormal(median)", "not key=value"},
		{"constant(9000h)", "longer than"},
	} {
		_, err := ParseDist(bad.in)
		if assert.Error(t, err, bad.in) {
			assert.Contains(t, err.Error(), bad.want, bad.in)
		}
	}
}

func TestOverrides(t *testing.T) {
	load := func() *Scenario {
		data, _ := Builtin("node-failure")
		s, _, err := Parse(BuiltinFile("node-failure"), data, "")
		require.NoError(t, err)
		return s
	}

	t.Run("parse", func(t *testing.T) {
		o, err := ParseOverride("kube-controller-manager.node-monitor-grace-period=30s")
		require.NoError(t, err)
		assert.Equal(t, Override{Key: "kube-controller-manager.node-monitor-grace-period", Value: "30s"}, o)
		o, err = ParseOverride("simulator.watch-delay=lognormal(median=1ms,p99=2ms)")
		require.NoError(t, err)
		assert.Equal(t, "lognormal(median=1ms,p99=2ms)", o.Value, "only the first = splits")
		for _, bad := range []struct{ in, want string }{
			{"duration", "want KEY=VALUE"},
			{"kube-controller-manager.node-monitor-grace=30s", `did you mean "kube-controller-manager.node-monitor-grace-period"?`},
			{"node-monitor-grace-period=30s", "name the component: kube-controller-manager.node-monitor-grace-period"},
			{"kube-api-qps=5", "name the component: kube-controller-manager.kube-api-qps or kube-scheduler.kube-api-qps or kubelet.kube-api-qps"},
			{"kube-proxy.mode=ipvs", "components: kube-apiserver"},
			{"sed=3", `did you mean "seed"?`},
		} {
			_, err := ParseOverride(bad.in)
			if assert.Error(t, err, bad.in) {
				assert.Contains(t, err.Error(), bad.want, bad.in)
				assert.True(t, strings.HasPrefix(err.Error(), "--set "), "override errors name the --set")
			}
		}
	})

	t.Run("apply", func(t *testing.T) {
		s := load()
		overrides := overridesOf("kube-controller-manager.node-monitor-grace-period=20s", "seed=7", "duration=30m",
			"stop.maxEvents=1000", "stop.quiescence=0s", "simulator.upstream-version=1.33",
			"kube-controller-manager.node-monitor-grace-period=25s")
		require.NoError(t, s.Apply(overrides))
		assert.Equal(t, 25*time.Second, s.Components.Duration(ComponentControllerManager, "node-monitor-grace-period"), "the later override wins")
		assert.Equal(t, uint64(7), s.Seed)
		assert.Equal(t, 30*time.Minute, s.Duration)
		assert.Equal(t, uint64(1000), s.Stop.MaxEvents)
		assert.Equal(t, time.Duration(0), s.Stop.Quiescence)
		assert.Equal(t, "1.33", s.Components.UpstreamVersion())
		assert.Equal(t, overrides, s.Overrides)
	})

	t.Run("atomic", func(t *testing.T) {
		s := load()
		err := s.Apply(overridesOf("kube-controller-manager.node-monitor-grace-period=20s", "seed=-1", "kubelet.max-pods=lots",
			"duration=30s", "kube-scheduler.pod-max-backoff-seconds=0", "kube-scheduler.pod-initial-backoff-seconds=20", "bogus=1"))
		require.Error(t, err)
		lines := strings.Split(err.Error(), "\n")
		require.Len(t, lines, 6, err.Error())
		assert.Contains(t, lines[0], `--set seed=-1: want a non-negative integer`)
		assert.Contains(t, lines[1], `--set kubelet.max-pods=lots: want an integer`)
		assert.Contains(t, lines[2], "--set kube-scheduler.pod-max-backoff-seconds=0: must be greater than 0")
		assert.Contains(t, lines[3], `--set bogus=1: unknown key "bogus"`)
		assert.Contains(t, lines[4], "--set: kube-scheduler.pod-max-backoff-seconds (10) is less than pod-initial-backoff-seconds (20)")
		assert.Contains(t, lines[5], "--set duration=30s: timeline[0] (crash) runs at 1m, after the run would end")
		assert.Equal(t, 50*time.Second, s.Components.Duration(ComponentControllerManager, "node-monitor-grace-period"), "nothing was applied")
		assert.Equal(t, 20*time.Minute, s.Duration)
		assert.Empty(t, s.Overrides)
	})
}

// overridesOf returns KEY=VALUE settings as Overrides, unchecked (as Apply gets them).
func overridesOf(settings ...string) []Override {
	out := make([]Override, len(settings))
	for i, kv := range settings {
		out[i].Key, out[i].Value, _ = strings.Cut(kv, "=")
	}
	return out
}

func TestExplain(t *testing.T) {
	text, err := Explain("kube-controller-manager.node-monitor-grace-period")
	require.NoError(t, err)
	for _, want := range []string{"(duration)", "default    50s (Kubernetes 1.37)", "40s before 1.32", "PR #126287",
		"--set kube-controller-manager.node-monitor-grace-period=50s", "sets       nodelifecycle.Config.NodeMonitorGracePeriod"} {
		assert.Contains(t, text, want)
	}

	text, err = Explain("kube-api-qps")
	require.NoError(t, err)
	for _, c := range []string{"kube-controller-manager.kube-api-qps", "kube-scheduler.kube-api-qps", "kubelet.kube-api-qps"} {
		assert.Contains(t, text, c, "a bare flag name explains it for every component")
	}

	text, err = Explain("kubelet")
	require.NoError(t, err)
	assert.Contains(t, text, "max-pods")
	assert.Contains(t, text, "node-lease-duration-seconds")

	text, err = Explain("--duration")
	require.NoError(t, err)
	assert.Contains(t, text, "virtual-time limit")

	text, err = Explain("simulator.watch-delay")
	require.NoError(t, err)
	assert.Contains(t, text, "syntax")
	assert.Contains(t, text, `components: {simulator: {watch-delay: "lognormal(median=2ms,p99=20ms,max=1s)"}}`)

	_, err = Explain("node-monitor-grace-perod")
	require.Error(t, err)
	assert.Contains(t, err.Error(), `did you mean "node-monitor-grace-period"?`)
	_, err = Explain("zzz")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "try a scenario key")
}

// TestDocsFlagTable fails when docs/scenario.md's flag table differs from the registry.
// Regenerate it with `go run ./scenarios/internal/gendocs`.
func TestDocsFlagTable(t *testing.T) {
	doc, err := os.ReadFile("../docs/scenario.md")
	require.NoError(t, err)
	want, err := ReplaceFlagsSection(string(doc))
	require.NoError(t, err)
	if line := firstDiff(want, string(doc)); line != "" {
		t.Errorf("docs/scenario.md's flag table is stale (first difference: %s): run go run ./scenarios/internal/gendocs", line)
	}
	for _, f := range Flags() {
		assert.Contains(t, string(doc), "`"+f.Name+"`")
	}
}

func TestClosest(t *testing.T) {
	cands := []string{"timeline", "duration", "description", "cluster", "node-crash", "node-recover", "scale"}
	for in, want := range map[string]string{
		"timline":    "timeline",
		"Duration":   "duration",
		"scael":      "scale",
		"node-crsh":  "node-crash",
		"clsuter":    "cluster",
		"descr":      "description",
		"xyz":        "",
		"":           "",
		"node":       "",
		"timeline":   "",
		"completely": "",
	} {
		assert.Equal(t, want, closest(in, cands), in)
	}
}
