package cluster

import (
	"context"
	"flag"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/report"
	"github.com/reconsim/reconsim/scenarios"
)

var determinismAll = flag.Bool("determinism-all", false, "run every built-in scenario twice (make check-determinism)")

func loadBuiltin(t *testing.T, name string) *scenarios.Scenario {
	t.Helper()
	file, data, dir, err := scenarios.Resolve(name)
	require.NoError(t, err)
	scn, _, err := scenarios.Parse(file, data, dir)
	require.NoError(t, err)
	return scn
}

func eventTime(t *testing.T, res *report.Result, reason, kind, name string) float64 {
	t.Helper()
	for _, e := range res.Events {
		if e.Reason == reason && e.Kind == kind && (name == "" || e.Name == name) {
			return e.Time
		}
	}
	t.Fatalf("no %s event for %s %s", reason, kind, name)
	return 0
}

func convergenceOf(t *testing.T, res *report.Result, name string) float64 {
	t.Helper()
	for _, c := range res.Convergence {
		if c.Name == name {
			require.NotNil(t, c.Seconds, "%s never converged", name)
			return *c.Seconds
		}
	}
	t.Fatalf("no convergence record %q", name)
	return 0
}

// TestNodeFailureTimeline checks the node-failure story against the upstream arithmetic
// (reference doc section 12): NotReady at crash + grace (the last renewal was observed up to
// one lease renew interval before the crash, plus up to one monitor period); the NoExecute
// taint on the next monitor pass (upstream processTaintBaseEviction acts on the Ready
// condition observed before the update); eviction 300 s after the taint; replacements Ready
// right after.
func TestNodeFailureTimeline(t *testing.T) {
	res := runBuiltin(t, "node-failure", nil)
	require.True(t, res.Passed, "%+v", res.Expectations)
	const crash = 60.0
	notReady := eventTime(t, res, "NodeNotReady", "Node", "worker-0")
	assert.InDelta(t, crash+50, notReady, 10, "NotReady after the 50 s grace (+ renew and monitor skew)")
	evicted := eventTime(t, res, "TaintManagerEviction", "Pod", "")
	assert.InDelta(t, notReady+5+300, evicted, 1, "eviction 300 s after the taint, which follows one monitor pass later")
	conv := convergenceOf(t, res, "crash")
	assert.InDelta(t, 350, conv, 15, "≈ 5m50s after the crash")
	assert.Greater(t, crash+conv, evicted, "convergence comes after the eviction")
	assert.Less(t, crash+conv, evicted+5, "and right after it")
	assert.Empty(t, res.Verdicts)
	for _, reason := range []string{"NodeNotReady", "TaintManagerEviction", "SuccessfulCreate", "Scheduled", "Started"} {
		eventTime(t, res, reason, kindOfReason(reason), "")
	}
}

func kindOfReason(reason string) string {
	switch reason {
	case "NodeNotReady":
		return "Node"
	case "SuccessfulCreate":
		return "ReplicaSet"
	}
	return "Pod"
}

// TestNodeFailureFasterWithShortGraceAndToleration: grace 20 s and pods tolerating unreachable
// for 30 s converge about (50-20) + (300-30) = 300 s sooner.
func TestNodeFailureFasterWithShortGraceAndToleration(t *testing.T) {
	base := runBuiltin(t, "node-failure", nil)

	scn := loadBuiltin(t, "node-failure")
	o, err := scenarios.ParseOverride("kube-controller-manager.node-monitor-grace-period=20s")
	require.NoError(t, err)
	require.NoError(t, scn.Apply([]scenarios.Override{o}))
	for _, src := range scn.Objects {
		for _, obj := range src.Objects {
			if rs, ok := obj.(*model.ReplicaSet); ok {
				rs.Spec.Template.Spec.Tolerations = append(rs.Spec.Template.Spec.Tolerations, model.Toleration{
					Key: "node.kubernetes.io/unreachable", Operator: "Exists", Effect: model.TaintEffectNoExecute,
					TolerationSeconds: model.Ptr(int64(30)),
				})
			}
		}
	}
	fast, err := Run(context.Background(), scn, Options{})
	require.NoError(t, err)
	saved := convergenceOf(t, base, "crash") - convergenceOf(t, fast, "crash")
	assert.InDelta(t, 300, saved, 12, "base %.1fs, fast %.1fs", convergenceOf(t, base, "crash"), convergenceOf(t, fast, "crash"))
}

// TestBuiltinScenariosAreDeterministic runs scenarios twice with the same seed and compares
// the trace hash and every recorded byte; a different seed must give a different trace.
// By default it checks node-failure; -determinism-all (make check-determinism) checks all.
func TestBuiltinScenariosAreDeterministic(t *testing.T) {
	names := []string{"node-failure"}
	if *determinismAll {
		names = scenarios.BuiltinNames()
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			a := runBuiltin(t, name, nil)
			b := runBuiltin(t, name, nil)
			assert.Equal(t, a.TraceHash, b.TraceHash)
			assert.Equal(t, a.Events, b.Events)
			assert.Equal(t, a.Series, b.Series)
			assert.Equal(t, a.Convergence, b.Convergence)
			assert.Equal(t, a.Expectations, b.Expectations)
			assert.Equal(t, a.Verdicts, b.Verdicts)

			scn := loadBuiltin(t, name)
			other, err := Run(context.Background(), scn, Options{Seed: scn.Seed + 1, SeedSet: true})
			require.NoError(t, err)
			assert.NotEqual(t, a.TraceHash, other.TraceHash, "a different seed gives a different trace")
		})
	}
}
