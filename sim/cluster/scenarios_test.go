package cluster

import (
	"bytes"
	"flag"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/report"
	"github.com/reconsim/reconsim/scenarios"
)

var determinismAll = flag.Bool("determinism-all", false, "run every built-in scenario twice (make check-determinism)")

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

// convergenceOf is the convergence time of the record name; a record that is missing or
// never converged fails the test.
func convergenceOf(t *testing.T, res *report.Result, name string) float64 {
	t.Helper()
	c := convergenceRecord(t, res, name)
	require.NotNil(t, c.Seconds, "%s never converged", name)
	return *c.Seconds
}

// convergenceRecord is res's convergence record name; a missing one fails the test.
func convergenceRecord(t *testing.T, res *report.Result, name string) *report.Convergence {
	t.Helper()
	for i := range res.Convergence {
		if res.Convergence[i].Name == name {
			return &res.Convergence[i]
		}
	}
	t.Fatalf("no convergence record %q", name)
	return nil
}

// TestNodeFailureTimeline checks the node-failure story against the upstream arithmetic
// (docs/upstream.md#node-failure-timeline): NotReady at crash + grace (the last renewal was observed up to
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
	fast, err := checkedRun(t, scn, Options{})
	require.NoError(t, err)
	saved := convergenceOf(t, base, "crash") - convergenceOf(t, fast, "crash")
	assert.InDelta(t, 300, saved, 12, "base %.1fs, fast %.1fs", convergenceOf(t, base, "crash"), convergenceOf(t, fast, "crash"))
}

// TestBuiltinScenariosAreDeterministic runs scenarios twice with the same seed and compares
// the trace hash and every recorded byte; a different seed must give a different trace.
// By default it checks node-failure; -determinism-all (make check-determinism) checks all but
// the slow ones (fastBuiltins).
func TestBuiltinScenariosAreDeterministic(t *testing.T) {
	names := []string{"node-failure"}
	if *determinismAll {
		names = fastBuiltins()
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
			other, err := checkedRun(t, scn, Options{Seed: scn.Seed + 1, SeedSet: true})
			require.NoError(t, err)
			assert.NotEqual(t, a.TraceHash, other.TraceHash, "a different seed gives a different trace")
		})
	}
}

// taintTimes returns the times of NoExecute taint-add trace lines per node.
func taintTimes(trace string) map[string]float64 {
	out := map[string]float64{}
	for _, line := range strings.Split(trace, "\n") {
		f := strings.Fields(line)
		if len(f) >= 5 && f[1] == "nodelifecycle" && f[2] == "taint-add" && strings.HasSuffix(line, ":NoExecute") {
			t, _ := strconv.ParseFloat(f[0], 64)
			out[f[4]] = t
		}
	}
	return out
}

func countReason(res *report.Result, reason, messagePrefix string) int {
	n := 0
	for _, e := range res.Events {
		if e.Reason == reason && strings.HasPrefix(e.Message, messagePrefix) {
			n++
		}
	}
	return n
}

// TestZoneOutageTaintsOneNodeEveryTenSeconds: a fully disrupted zone while others are Normal is
// tainted at --node-eviction-rate 0.1 (burst 1): consecutive taints at least 10 s apart.
func TestZoneOutageTaintsOneNodeEveryTenSeconds(t *testing.T) {
	var trace bytes.Buffer
	res := runBuiltin(t, "zone-outage", &trace)
	require.True(t, res.Passed, "%+v", res.Expectations)
	taints := taintTimes(trace.String())
	require.Len(t, taints, 3, "%v", taints)
	var times []float64
	for _, v := range taints {
		times = append(times, v)
	}
	sort.Float64s(times)
	for i := 1; i < len(times); i++ {
		assert.GreaterOrEqual(t, times[i]-times[i-1], 9.99, "taints %v", times)
	}
	assert.Equal(t, 6, countReason(res, "TaintManagerEviction", "Marking for deletion"))
}

// TestPartialDisruptionInSmallZoneTaintsNothing and TestAllZonesDownEvictsNothing: the two
// upstream protections against evicting on what is probably a network or control-plane fault.
func TestPartialDisruptionInSmallZoneTaintsNothing(t *testing.T) {
	var trace bytes.Buffer
	res := runBuiltin(t, "zone-outage-partial", &trace)
	assert.True(t, res.Passed, "%+v", res.Expectations)
	assert.Empty(t, taintTimes(trace.String()))
	assert.Zero(t, countReason(res, "TaintManagerEviction", ""))
	require.Len(t, res.Verdicts, 1)
	assert.Equal(t, "NodeDown", res.Verdicts[0].Reason)
	assert.Contains(t, res.Verdicts[0].Message, "pods on node(s) that are down (b-0, b-1, b-2)")
}

func TestAllZonesDownEvictsNothing(t *testing.T) {
	var trace bytes.Buffer
	res := runBuiltin(t, "zone-outage-all", &trace)
	assert.True(t, res.Passed, "%+v", res.Expectations)
	assert.Zero(t, countReason(res, "TaintManagerEviction", "Marking for deletion"))
	require.Len(t, res.Verdicts, 1)
	assert.Equal(t, int32(12), res.Verdicts[0].Short)
}

// TestImpossibleSpecEndsWithAVerdict: the run ends quiescent long before its 1 h limit, fails,
// and the verdict names the ReplicaSet, how many replicas it is short and the scheduler's reason.
func TestImpossibleSpecEndsWithAVerdict(t *testing.T) {
	res := runBuiltin(t, "impossible-spec", nil)
	assert.False(t, res.Passed)
	assert.Equal(t, "quiescent", res.StopReason)
	assert.Less(t, res.VirtualSeconds, 900.0)
	require.Len(t, res.Verdicts, 1)
	v := res.Verdicts[0]
	assert.Equal(t, "ReplicaSet default/big", v.Workload)
	assert.Equal(t, int32(7), v.Short)
	assert.Equal(t, "Unschedulable", v.Reason)
	assert.Contains(t, v.Message, "7 pod(s) cannot be scheduled: 0/3 nodes are available: 3 Insufficient cpu.")
}

func TestPartitionedPodsStayTerminatingUntilTheHeal(t *testing.T) {
	res := runBuiltin(t, "node-partition", nil)
	require.True(t, res.Passed, "%+v", res.Expectations)
	terminating := series(t, res, "pods.terminating")
	at := func(sec float64) float64 { return valueAt(terminating, sec, 0) }
	assert.Equal(t, 2.0, at(800), "the evicted pods are still Terminating while the node is cut off")
	assert.Equal(t, 0.0, at(1000), "and gone after the heal")
}

func TestFlappingNodeEvictsNothing(t *testing.T) {
	res := runBuiltin(t, "flapping-node", nil)
	require.True(t, res.Passed, "%+v", res.Expectations)
	assert.Zero(t, countReason(res, "TaintManagerEviction", "Marking for deletion"))
	assert.Positive(t, countReason(res, "TaintManagerEviction", "Cancelling deletion"))
}

// expectedToFail are the built-in scenarios whose point is a failed run: an impossible spec is
// reported as a verdict and exits 1.
var expectedToFail = map[string]bool{"impossible-spec": true}

// fastBuiltins are the built-in scenarios without the slow ones (scenarios.SlowBuiltins,
// which take minutes each and run in make bench instead).
func fastBuiltins() []string {
	var names []string
	for _, name := range scenarios.BuiltinNames() {
		if !scenarios.IsSlowBuiltin(name) {
			names = append(names, name)
		}
	}
	return names
}

// TestEveryBuiltinRunsToItsExpectations runs every built-in scenario but the slow ones
// (fastBuiltins; in parallel, one per core) and checks that it ends as its file says: every expectation held, or, for the
// scenarios whose finding is a failure, failed with a verdict.
func TestEveryBuiltinRunsToItsExpectations(t *testing.T) {
	for _, name := range fastBuiltins() {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			res := runBuiltin(t, name, nil)
			if expectedToFail[name] {
				assert.False(t, res.Passed, "%s is expected to fail", name)
				assert.NotEmpty(t, res.Verdicts, "%s fails with a verdict", name)
				return
			}
			assert.True(t, res.Passed, "%s: %+v %+v", name, res.Expectations, res.Verdicts)
		})
	}
}
