package cluster

import (
	_ "embed"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reconsim/reconsim/report"
	"github.com/reconsim/reconsim/vtime"
)

// TestRecordFollowsDivergence checks the convergence record's bookkeeping: the first and the
// last convergence, each divergence counted once, and a divergence that ends at the instant it
// began (one virtual time, several commits) not counted.
func TestRecordFollowsDivergence(t *testing.T) {
	s := func(secs float64) vtime.Time { return vtime.Time(secs * 1e9) }
	tests := []struct {
		name  string
		steps []struct {
			at   float64
			conv bool
		}
		stable      bool
		since       float64
		divergences int
	}{
		{"never", []struct {
			at   float64
			conv bool
		}{{1, false}, {2, false}}, false, 0, 0},
		{"once", []struct {
			at   float64
			conv bool
		}{{1, false}, {2, true}, {3, true}}, true, 2, 0},
		{"diverges and returns", []struct {
			at   float64
			conv bool
		}{{2, true}, {5, false}, {9, true}}, true, 9, 1},
		{"diverges and stays", []struct {
			at   float64
			conv bool
		}{{2, true}, {5, false}, {9, false}}, false, 0, 1},
		{"an instant is not a divergence", []struct {
			at   float64
			conv bool
		}{{2, true}, {5, false}, {5, true}}, true, 2, 0},
		{"twice", []struct {
			at   float64
			conv bool
		}{{2, true}, {5, false}, {6, true}, {7, false}, {7, true}, {8, false}, {10, true}}, true, 10, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &actionRecord{}
			for _, st := range tt.steps {
				r.follow(st.conv, s(st.at))
				if st.conv && !r.converged {
					r.converged, r.convergedAt = true, s(st.at)
				}
			}
			assert.Equal(t, tt.stable, r.stable)
			if tt.stable {
				assert.Equal(t, s(tt.since), r.stableSince)
			}
			assert.Equal(t, tt.divergences, r.divergences)
		})
	}
}

//go:embed testdata/blocked-drain.yaml
var blockedDrainScenario string

// TestBlockedDrainDoesNotConverge: a drain a PodDisruptionBudget blocks until its timeout
// leaves the pods where they were (the world looks converged), but the drain did not happen:
// its record never converges, the converged expectation fails, and the verdict names the drain.
func TestBlockedDrainDoesNotConverge(t *testing.T) {
	res := runYAML(t, "blocked-drain", blockedDrainScenario)
	drain := convergenceRecord(t, res, "drain-b0")
	assert.Nil(t, drain.ConvergedAt, "a blocked drain did not converge: %s", report.ConvergenceText(*drain))
	assert.Nil(t, drain.FirstConvergedAt)
	require.Len(t, res.Expectations, 2, "%+v", res.Expectations)
	assert.False(t, res.Expectations[0].Passed)
	assert.Contains(t, res.Expectations[0].Message, "drain-b0 did not complete")
	assert.False(t, res.Passed)
	require.Len(t, res.Verdicts, 1)
	assert.True(t, strings.HasPrefix(res.Verdicts[0].Workload, "Node worker-0"), "%+v", res.Verdicts[0])
}

//go:embed testdata/rediverging.yaml
var redivergingScenario string

// TestConvergenceReportsRedivergence: the pods converge within seconds, crash at 90 s and come
// back after the restart backoff. The convergence is the last one, the first is kept apart,
// the divergence is counted, and converged-within-1m fails: the world did not stay converged.
func TestConvergenceReportsRedivergence(t *testing.T) {
	res := runYAML(t, "rediverging", redivergingScenario)
	require.NotEmpty(t, res.Convergence)
	c := res.Convergence[0]
	require.NotNil(t, c.FirstConvergedAt)
	require.NotNil(t, c.ConvergedAt, "%s", report.ConvergenceText(c))
	assert.Less(t, *c.FirstConvergedAt, 30.0)
	assert.Greater(t, *c.ConvergedAt, 90.0, "the last convergence comes after the crash")
	assert.Equal(t, 1, c.Divergences)
	assert.Contains(t, report.ConvergenceText(c), "diverged 1 time(s)")
	assert.False(t, res.Expectations[0].Passed, "%+v", res.Expectations[0])
	assert.Contains(t, res.Expectations[0].Message, "then diverged 1 time(s)")
}

//go:embed testdata/pending-pods.yaml
var pendingPodsScenario string

// TestPendingPodsAreVerdicts: a bare pod that never schedules (an extended resource no node
// has) and one that names a scheduler that does not run are verdicts; without an expectation
// that covers them the run fails, and declaring them expected makes it pass.
func TestPendingPodsAreVerdicts(t *testing.T) {
	res := runYAML(t, "pending-pods", pendingPodsScenario)
	require.Len(t, res.Verdicts, 2, "%+v", res.Verdicts)
	byName := map[string]report.Verdict{}
	for _, v := range res.Verdicts {
		byName[v.Name] = v
	}
	assert.Equal(t, "Unschedulable", byName["trainer"].Reason)
	assert.Contains(t, byName["trainer"].Message, "nvidia.com/gpu")
	assert.Equal(t, "NoScheduler", byName["custom"].Reason)
	assert.Contains(t, byName["custom"].Message, "my-scheduler")
	assert.False(t, res.Passed, "uncovered verdicts fail the run")
	require.Len(t, res.Expectations, 1)
	assert.Equal(t, "no-verdicts", res.Expectations[0].Name)

	tests := []struct {
		expect string
		passed bool
	}{
		{"- {name: gpu, verdict: {reason: Unschedulable}}\n", false},
		{"- {name: gpu, verdict: {reason: Unschedulable}}\n- {name: other, verdict: {reason: NoScheduler, name: custom}}\n", true},
		{"- {name: all, verdict: any}\n", true},
		{"- {name: none, verdict: none}\n", false},
		{"- {name: gpu, verdict: {reason: Unschedulable}}\n- {name: crash, verdict: {reason: CrashLoopBackOff}}\n- {name: other, verdict: {reason: NoScheduler}}\n", false},
	}
	for _, tt := range tests {
		res := runYAML(t, "pending-pods", pendingPodsScenario+"expect:\n"+tt.expect)
		assert.Equal(t, tt.passed, res.Passed, "%s: %+v", tt.expect, res.Expectations)
	}
}

//go:embed testdata/settled-service.yaml
var settledServiceScenario string

// TestSettledServiceAndStatefulSet: a settled Service has its endpoints at time 0, so the
// ready-endpoints-at-least condition and the service's series read the same 10 from the start;
// a settled StatefulSet or DaemonSet starts with its pods running and its controller leaves
// it alone.
func TestSettledServiceAndStatefulSet(t *testing.T) {
	res := runYAML(t, "settled-service", settledServiceScenario)
	assert.True(t, res.Passed, "%+v %+v", res.Expectations, res.Verdicts)
	endpoints := series(t, res, "service.default/web.ready_endpoints")
	require.NotEmpty(t, endpoints)
	assert.Equal(t, report.Point{T: 0, V: 10}, endpoints[0], "the series starts at time 0 with the settled endpoints")
	for _, p := range endpoints {
		assert.Equal(t, 10.0, p.V)
	}
	for _, e := range res.Events {
		if (e.Source == "statefulset-controller" || e.Source == "daemonset-controller") && (e.Reason == "SuccessfulCreate" || e.Reason == "SuccessfulDelete") {
			t.Errorf("a controller changed the pods of a settled StatefulSet or DaemonSet: %+v", e)
		}
	}
	assert.Equal(t, report.Point{T: 0, V: 3}, series(t, res, "daemonset.default/agent.available")[0], "one daemon pod per node from time 0")
}

// TestUnsettledServiceSeriesStartsAtZero: without settled, the Service has no endpoints at
// time 0; the series says so from the Service's creation, as the condition does.
func TestUnsettledServiceSeriesStartsAtZero(t *testing.T) {
	text := strings.Replace(settledServiceScenario, "- settled: true\n  manifest:\n    apiVersion: v1\n    kind: Service", "- manifest:\n    apiVersion: v1\n    kind: Service", 1)
	res := runYAML(t, "unsettled-service", text)
	assert.False(t, res.Expectations[0].Passed)
	assert.Contains(t, res.Expectations[0].Message, "first failed at 0.000s: Service default/web has 0 ready endpoints")
	endpoints := series(t, res, "service.default/web.ready_endpoints")
	assert.Equal(t, report.Point{T: 0, V: 0}, endpoints[0])
	assert.Equal(t, 10.0, endpoints[len(endpoints)-1].V)
}

// TestSeriesStartAtTheirFirstObservedValue: the HPA's series start with its controller's first
// status write (hpa-spike's web runs 5 replicas), not at the 0 of a status nobody wrote yet;
// so do the status series of the workloads.
func TestSeriesStartAtTheirFirstObservedValue(t *testing.T) {
	res := runBuiltin(t, "hpa-spike", nil)
	found := 0
	for _, s := range res.Series {
		switch {
		case strings.HasPrefix(s.Name, "hpa.") && (strings.HasSuffix(s.Name, ".replicas") || strings.HasSuffix(s.Name, ".desired")):
			found++
			require.NotEmpty(t, s.Points, s.Name)
			assert.Positive(t, s.Points[0].T, "%s starts at the HPA's first sync", s.Name)
			for _, p := range s.Points {
				assert.Positive(t, p.V, "%s never shows a replica count nobody observed: %+v", s.Name, s.Points[:min(5, len(s.Points))])
			}
		}
	}
	assert.Equal(t, 2, found)
}

// TestFailedActionIsAVerdict: an action whose API call fails (scaling a Deployment that was
// deleted) did not happen: its record never converges and the run ends with an ActionFailed
// verdict, instead of "converged 0s after scale".
func TestFailedActionIsAVerdict(t *testing.T) {
	text := strings.Replace(settledServiceScenario, "expect:\n", `timeline:
- {at: 10s, name: remove, action: delete, target: {kind: Deployment, name: web}}
- {at: 20s, name: grow, action: scale, target: {kind: Deployment, name: web}, replicas: 12}
expect:
`, 1)
	text = text[:strings.Index(text, "expect:\n")] + "expect:\n- {name: grown, converged: {after: grow, within: 5m}}\n"
	res := runYAML(t, "failed-action", text)
	grow := convergenceRecord(t, res, "grow")
	assert.Nil(t, grow.FirstConvergedAt, "a failed scale never converges")
	assert.False(t, res.Expectations[0].Passed)
	assert.Contains(t, res.Expectations[0].Message, "grow did not complete")
	require.NotEmpty(t, res.Verdicts)
	v := res.Verdicts[len(res.Verdicts)-1]
	assert.Equal(t, "ActionFailed", v.Reason, "%+v", res.Verdicts)
	assert.Contains(t, v.Message, "not found")
	assert.False(t, res.Passed)
}

// TestPendingPodVerdictsAreBounded: past maxPodVerdicts bare Pending pods, the rest are
// counted in one verdict per reason, not listed one by one.
func TestPendingPodVerdictsAreBounded(t *testing.T) {
	var b strings.Builder
	b.WriteString("apiVersion: reconsim.dev/v1alpha1\nkind: Scenario\nname: many-pending\nseed: 1\nduration: 2m\n" +
		"cluster:\n  nodeGroups:\n  - {name: worker, count: 1, zone: zone-a, capacity: {cpu: \"4\", memory: 16Gi}}\nobjects:\n")
	const n = maxPodVerdicts + 30
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "- manifest: {apiVersion: v1, kind: Pod, metadata: {name: p%d}, spec: {schedulerName: other, containers: [{name: c, image: c}]}}\n", i)
	}
	res := runYAML(t, "many-pending", b.String())
	require.Len(t, res.Verdicts, maxPodVerdicts+1)
	last := res.Verdicts[maxPodVerdicts]
	assert.Equal(t, "Pods (30 more)", last.Workload)
	assert.Equal(t, "NoScheduler", last.Reason)
	assert.Equal(t, int32(30), last.Short)
}

//go:embed testdata/other-scheduler.yaml
var otherSchedulerScenario string

// TestOtherSchedulerVerdict: the default scheduler ignores a Deployment's pods that name
// another schedulerName (pkg/scheduler/eventhandlers.go responsibleForPod, addPodToSchedulingQueue
// only for this scheduler's profiles): they stay Pending with no FailedScheduling event, and
// the run ends with a verdict on the Deployment that names the scheduler.
func TestOtherSchedulerVerdict(t *testing.T) {
	res := runYAML(t, "other-scheduler", otherSchedulerScenario)
	require.Len(t, res.Verdicts, 2, "%+v", res.Verdicts) // the Deployment's and its ReplicaSet's
	assert.Equal(t, "Deployment", res.Verdicts[0].Kind)
	assert.Equal(t, "NoScheduler", res.Verdicts[0].Reason, "the Deployment takes its ReplicaSet's reason")
	assert.Equal(t, "ReplicaSet", res.Verdicts[1].Kind)
	assert.Equal(t, "NoScheduler", res.Verdicts[1].Reason)
	assert.Contains(t, res.Verdicts[1].Message, `2 pod(s) name schedulerName "volcano" and only "default-scheduler" runs in the simulation`)
	for _, e := range res.Events {
		assert.NotEqual(t, "FailedScheduling", e.Reason, "the default scheduler says nothing about pods it does not own")
	}
	assert.False(t, res.Passed)
}

// TestListNamesIsBounded: a verdict names at most maxNamesInVerdict nodes and counts the rest,
// so that a zone outage at scale-5k does not print a thousand names per workload.
func TestListNamesIsBounded(t *testing.T) {
	names := func(n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = fmt.Sprintf("n%02d", i)
		}
		return out
	}
	tests := []struct {
		n    int
		want string
	}{
		{0, ""},
		{1, "n00"},
		{maxNamesInVerdict, strings.Join(names(maxNamesInVerdict), ", ")},
		{maxNamesInVerdict + 1, strings.Join(names(maxNamesInVerdict), ", ") + " and 1 more"},
		{1000, strings.Join(names(maxNamesInVerdict), ", ") + " and 990 more"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, listNames(names(tt.n)), "n=%d", tt.n)
	}
}

//go:embed testdata/kubelet-verdicts.yaml
var kubeletVerdictsScenario string

// TestKubeletVerdicts: a Deployment whose image cannot be pulled ends with an ImagePullBackOff
// verdict, one whose init container keeps failing with a CrashLoopBackOff verdict naming the
// init container (sim/node: image_manager.go EnsureImageExists, computeInitContainerActions).
func TestKubeletVerdicts(t *testing.T) {
	res := runYAML(t, "kubelet-verdicts", kubeletVerdictsScenario)
	got := map[string]string{} // "Deployment badtag", "ReplicaSet badtag"
	for _, v := range res.Verdicts {
		name, _, _ := strings.Cut(v.Name, "-")
		got[v.Kind+" "+name] = v.Reason + ": " + v.Message
	}
	assert.Contains(t, got["Deployment badtag"], "ImagePullBackOff: ")
	assert.Regexp(t, `^ImagePullBackOff: pod default/badtag-\S+: container app is in (ErrImagePull|ImagePullBackOff) \(image app:nope\)`, got["ReplicaSet badtag"])
	assert.Contains(t, got["Deployment badinit"], "CrashLoopBackOff: ")
	assert.Regexp(t, `^CrashLoopBackOff: pod default/badinit-\S+: init container migrate is in CrashLoopBackOff`, got["ReplicaSet badinit"])
}

//go:embed testdata/registry-down.yaml
var registryDownScenario string

// TestImagePullFailureAction: the image-pull-failure timeline action makes a node's pulls fail
// for a while (Kubelet.FailImagePulls); a pod created meanwhile waits in ErrImagePull and
// ImagePullBackOff and starts at its first pull after the fault, when the image back-off
// (image_manager.go EnsureImageExists: 10s, 20s, 40s, ...) lets it try again.
func TestImagePullFailureAction(t *testing.T) {
	res := runYAML(t, "registry-down", registryDownScenario)
	var failed []float64
	for _, e := range eventsOf(res, "Failed") {
		if strings.HasPrefix(e.Message, "Failed to pull image") {
			assert.Contains(t, e.Message, "image-pull-failure on node worker-0")
			failed = append(failed, e.Time)
		}
	}
	require.NotEmpty(t, failed)
	assert.Less(t, failed[len(failed)-1], 45.0, "pulls started after the fault succeed")
	started := eventsOf(res, "Started")
	require.Len(t, started, 1)
	assert.Greater(t, started[0].Time, 45.0)
	assert.Less(t, started[0].Time, 45.0+40+15+5, "within a back-off step and a worker retry of the fault's end")
	assert.Empty(t, res.Verdicts)
	assert.NotEmpty(t, eventsOf(res, "BackOff"), "ImagePullBackOff between the pulls")
}
