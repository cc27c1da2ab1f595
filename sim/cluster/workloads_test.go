package cluster

import (
	"bytes"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRollingUpdateKeepsTheBudget: both invariants hold at every instant, as expectations of
// the scenario (checked after every write), on several seeds.
func TestRollingUpdateKeepsTheBudget(t *testing.T) {
	for _, seed := range []string{"1", "2", "3"} {
		res := runBuiltin(t, "rolling-update", nil, "seed="+seed)
		assert.True(t, res.Passed, "seed %s: %+v", seed, res.Expectations)
	}
}

// TestStuckRolloutReportsProgressDeadlineExceeded: the deadline (120 s) passes with no
// progress after the rollout's last step; the Deployment controller marks it at that moment,
// while the old pods keep the Service above replicas - maxUnavailable.
func TestStuckRolloutReportsProgressDeadlineExceeded(t *testing.T) {
	var trace bytes.Buffer
	res := runBuiltin(t, "stuck-rollout", &trace)
	require.True(t, res.Passed, "%+v", res.Expectations)
	var exceededAt, lastProgress float64
	for _, line := range strings.Split(trace.String(), "\n") {
		f := strings.Fields(line)
		if len(f) < 3 || f[1] != "deployment-controller" {
			continue
		}
		at, _ := strconv.ParseFloat(f[0], 64)
		if strings.Contains(line, "Progressing=False/ProgressDeadlineExceeded") && exceededAt == 0 {
			exceededAt = at
		}
		if exceededAt == 0 && strings.Contains(line, "Progressing=True/ReplicaSetUpdated") {
			lastProgress = at
		}
	}
	require.NotZero(t, exceededAt, "ProgressDeadlineExceeded is written")
	assert.InDelta(t, lastProgress+120, exceededAt, 2, "at the last progress + progressDeadlineSeconds")
	require.NotEmpty(t, res.Verdicts)
	assert.Contains(t, res.Verdicts[0].Reason, "ProgressDeadlineExceeded")
	eps := series(t, res, "service.default/web.ready_endpoints")
	for _, p := range eps {
		if p.T > 60 {
			assert.GreaterOrEqual(t, p.V, 8.0, "the old pods keep serving at %.1fs", p.T)
		}
	}
}

// TestStatefulSetWaitsForTheOldPod: the verdict names the pod the StatefulSet is held by;
// deleting the Node (pod GC removes the pod) lets it recover.
func TestStatefulSetWaitsForTheOldPod(t *testing.T) {
	res := runBuiltin(t, "statefulset-node-failure", nil)
	require.True(t, res.Passed, "%+v", res.Expectations)
	require.Len(t, res.Verdicts, 1)
	v := res.Verdicts[0]
	assert.Equal(t, "StatefulSet default/db", v.Workload)
	assert.Equal(t, int32(1), v.Short)
	assert.Equal(t, "WaitingForPod", v.Reason)
	assert.Regexp(t, `pod default/db-\d is Terminating on node worker-1 and will not be replaced until it is gone`, v.Message)

	recovered := runBuiltin(t, "statefulset-node-delete", nil)
	assert.True(t, recovered.Passed, "%+v", recovered.Expectations)
	assert.Empty(t, recovered.Verdicts)
}

func TestDrainWaitsOnTheBudget(t *testing.T) {
	var trace bytes.Buffer
	res := runBuiltin(t, "drain-with-pdb", &trace)
	require.True(t, res.Passed, "%+v", res.Expectations)
	assert.Contains(t, trace.String(), "Cannot evict pod as it would violate the pod's disruption budget")
}

func TestDaemonSetCoversEveryEligibleNode(t *testing.T) {
	res := runBuiltin(t, "daemonset-new-nodes", nil)
	require.True(t, res.Passed, "%+v", res.Expectations)
	n := 0
	for _, e := range res.Events {
		if e.Reason == "SuccessfulCreate" && e.Kind == "DaemonSet" {
			n++
		}
	}
	assert.Equal(t, 6, n, "one pod per untainted node, none on the tainted one")
}

// TestHPASpikeFollowsThePolicies: every scale-up stays within the default scaleUp policies
// per 15 s period (max of +4 pods and +100%), and replicas come down only after the load has
// been lower for the 300 s stabilization window (the spike ends at 7m).
func TestHPASpikeFollowsThePolicies(t *testing.T) {
	res := runBuiltin(t, "hpa-spike", nil)
	require.True(t, res.Passed, "%+v", res.Expectations)
	pts := series(t, res, "hpa.default/web.replicas")
	firstDown := -1.0
	for i := 1; i < len(pts); i++ {
		prev, cur := pts[i-1], pts[i]
		if cur.V > prev.V && prev.V > 0 { // 0 is the HPA's status before its first sync
			allowed := max(prev.V+4, 2*prev.V)
			assert.LessOrEqual(t, cur.V, allowed, "scale-up at %.1fs from %v to %v", cur.T, prev.V, cur.V)
		}
		if cur.V < prev.V && firstDown < 0 {
			firstDown = cur.T
		}
	}
	require.Positive(t, firstDown, "replicas come down after the spike")
	assert.GreaterOrEqual(t, firstDown, 420.0+300, "not before the stabilization window after the drop")
	for _, name := range []string{"load.web.offered", "load.web.cpu_utilization_percent", "hpa.default/web.desired"} {
		assert.NotEmpty(t, series(t, res, name), name)
	}
}

func TestHPANoRoomEndsWithAVerdict(t *testing.T) {
	res := runBuiltin(t, "hpa-no-room", nil)
	require.True(t, res.Passed, "%+v", res.Expectations)
	require.NotEmpty(t, res.Verdicts)
	var all string
	for _, v := range res.Verdicts {
		all += v.Reason + ": " + v.Message + "\n"
	}
	assert.Contains(t, all, "HorizontalPodAutoscaler default/web wants")
	assert.Contains(t, all, "Insufficient cpu")
}
