package cluster

import (
	_ "embed"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reconsim/reconsim/report"
	"github.com/reconsim/reconsim/sim/apiserver"
	"github.com/reconsim/reconsim/sim/controllers/hpa"
	"github.com/reconsim/reconsim/sim/controllers/job"
	"github.com/reconsim/reconsim/sim/controllers/scheduler"
	"github.com/reconsim/reconsim/sim/controllers/statefulset"
	"github.com/reconsim/reconsim/sim/features"
	"github.com/reconsim/reconsim/sim/node"
)

// gatedConfigs are the configurations the gates reach.
type gatedConfigs struct {
	sched   scheduler.Config
	kubelet node.Config
	sts     statefulset.Config
	hpa     hpa.Config
	job     job.Config
	apf     apiserver.APFConfig
}

func configsFor(g features.Set) gatedConfigs {
	c := gatedConfigs{scheduler.DefaultConfig(), node.DefaultConfig(), statefulset.DefaultConfig(), hpa.DefaultConfig(), job.DefaultConfig(), apiserver.APFConfig{}}
	gateScheduler(g, &c.sched)
	gateKubelet(g, &c.kubelet)
	gateStatefulSet(g, &c.sts)
	gateHPA(g, &c.hpa)
	gateJob(g, &c.job)
	gateAPIServer(g, &c.apf)
	return c
}

// TestEveryGateHasAnEffect: each modelled gate of sim/features reaches a component's
// configuration (flipping it alone changes what the components are built with), and the
// defaults of the newest release are the components' own DefaultConfig.
func TestEveryGateHasAnEffect(t *testing.T) {
	def := configsFor(features.Default())
	own := gatedConfigs{scheduler.DefaultConfig(), node.DefaultConfig(), statefulset.DefaultConfig(), hpa.DefaultConfig(), job.DefaultConfig(), apiserver.APFConfig{}}
	own.job.MaxPodFailureBackOff = job.MaxJobPodFailureBackOff
	own.apf.SizeBasedListCost = true
	assert.True(t, reflect.DeepEqual(own, def), "DefaultConfig is the newest release's: %+v", def)
	for _, g := range features.Table() {
		if !g.Modelled {
			continue
		}
		t.Run(string(g.Name), func(t *testing.T) {
			minor := features.DefaultMinor
			switch g.Name {
			case features.JobManagedBy:
				minor = 34 // locked from 1.35
			case features.SidecarContainers:
				minor = 32 // GA and locked from 1.33
			}
			base, err := features.For(minor, nil)
			require.NoError(t, err)
			flipped, err := features.For(minor, []features.Override{{Name: g.Name, On: !base.Enabled(g.Name)}})
			require.NoError(t, err)
			assert.False(t, reflect.DeepEqual(configsFor(base), configsFor(flipped)), "%s switches nothing", g.Name)
		})
	}
}

// versionScenario meets every gated behaviour that differs between 1.32 and 1.37: a pod that
// fits no node (the FailedScheduling message: the taint named or not, the doubled period), a
// crash-looping pod (the pod worker's retries, seen in the kubelet's BackOff events), and a
// StatefulSet rolled out with maxUnavailable 3 (three pods deleted at once or one at a time).
//
//go:embed testdata/version.yaml
var versionScenario string

// TestUpstreamVersionDifferences runs the same scenario as 1.32 and as the default release
// and checks each gated difference the scenario can show (the others are checked per
// component: the scheduler's PopFromBackoffQ by its trace scripts, HPA tolerance by
// hpa.TestTolerancesForHpa; the Job gates are the same in 1.32 and 1.37).
func TestUpstreamVersionDifferences(t *testing.T) {
	old := runYAML(t, "versions", versionScenario, "simulator.upstream-version=1.32")
	cur := runYAML(t, "versions", versionScenario)

	// FailedScheduling: TaintTolerationGenericMessage (1.35, #134740) and
	// SchedulerFitErrorSinglePeriod (1.34).
	lastFailed := func(res *report.Result) string {
		var m string
		for _, e := range eventsOf(res, "FailedScheduling") {
			if e.Name == "too-big" {
				m = e.Message
			}
		}
		return m
	}
	assert.Contains(t, lastFailed(old), "1 node(s) had untolerated taint {dedicated: gpu}")
	assert.True(t, strings.HasSuffix(lastFailed(old), ".."), lastFailed(old))
	assert.Contains(t, lastFailed(cur), "1 node(s) had untolerated taint(s)")
	assert.False(t, strings.HasSuffix(lastFailed(cur), ".."), lastFailed(cur))

	// MaxUnavailableStatefulSet (off in 1.32, on in 1.37): the rollout deletes the three pods
	// together, instead of one at a time.
	deletes := func(res *report.Result) []float64 {
		var ts []float64
		for _, e := range eventsOf(res, "SuccessfulDelete") {
			if e.Kind == "StatefulSet" {
				ts = append(ts, e.Time)
			}
		}
		return ts
	}
	// KubeletPodWorkerRetryAtBackOff (1.35, #133066): before, the worker retried every
	// 10-15s during the back-off and the kubelet said BackOff each time.
	backOffs := func(res *report.Result) int {
		n := 0
		for _, e := range eventsOf(res, "BackOff") {
			if e.Name == "crasher" {
				n += int(e.Count)
			}
		}
		return n
	}
	t.Logf("BackOff events: 1.32 %d, 1.37 %d; StatefulSet deletes: 1.32 %v, 1.37 %v", backOffs(old), backOffs(cur), deletes(old), deletes(cur))
	assert.Greater(t, backOffs(old), backOffs(cur)+5, "1.32 retries a crash-looping pod every 10-15s")

	require.Len(t, deletes(cur), 3)
	require.Len(t, deletes(old), 3)
	assert.Less(t, deletes(cur)[2]-deletes(cur)[0], 1.0, "1.37: all three within a second: %v", deletes(cur))
	assert.Greater(t, deletes(old)[2]-deletes(old)[0], 2.0, "1.32: one at a time: %v", deletes(old))
}
