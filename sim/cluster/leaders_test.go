package cluster

import (
	_ "embed"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reconsim/reconsim/report"
	"github.com/reconsim/reconsim/scenarios"
)

// TestLeaderFailoverScenario checks leader-failover against client-go's LeaderElector
// (tools/leaderelection/leaderelection.go acquire, tryAcquireOrRenew): the crashed leader
// last renewed at most one retry period (2s) before the crash, a standby takes the Lease at
// its first jittered attempt (every 2s to 4.4s) after 15s without a change, and the new
// leader's node lifecycle controller starts the 50s grace period afresh
// (pkg/controller/nodelifecycle tryUpdateNodeHealth), so NotReady comes about 50-55s after
// the failover instead of 50-55s after the node crash.
func TestLeaderFailoverScenario(t *testing.T) {
	res := runBuiltin(t, "leader-failover", nil)
	require.True(t, res.Passed, "%+v", res.Expectations)
	const leaderCrash = 90.0
	require.Len(t, res.Leadership, 2, "%+v", res.Leadership)
	first, second := res.Leadership[0], res.Leadership[1]
	require.NotNil(t, first.To)
	assert.Equal(t, leaderCrash, *first.To)
	assert.NotEqual(t, first.Replica, second.Replica)
	assert.GreaterOrEqual(t, second.From-leaderCrash, 13.0)
	assert.LessOrEqual(t, second.From-leaderCrash, 24.0)
	assert.Nil(t, second.To)
	notReady := eventTime(t, res, "NodeNotReady", "Node", "worker-0")
	assert.InDelta(t, second.From+50, notReady, 6, "a full grace period from the new leader's start")

	base := runBuiltin(t, "node-failure", nil)
	assert.Greater(t, convergenceOf(t, res, "crash")-convergenceOf(t, base, "crash"), 30.0,
		"the failover delays the recovery")
	assert.Contains(t, pointValues(series(t, res, "leader.kube-controller-manager")), -1.0, "the lane shows the leaderless gap")
}

//go:embed testdata/election.yaml
var electionScenario string

func runElection(t *testing.T, component, action, extra string) *report.Result {
	t.Helper()
	src := fmt.Sprintf(electionScenario, component, action, component, extra)
	return runYAML(t, "election", src)
}

// TestLeaderFaults: the failover after each fault, per component, against client-go's
// LeaderElector and the binaries' ReleaseOnCancel (kube-scheduler true in
// cmd/kube-scheduler/app/options/options.go makeLeaderElectionConfig; kube-controller-manager
// unset in cmd/kube-controller-manager/app/controllermanager.go Run).
func TestLeaderFaults(t *testing.T) {
	cases := []struct {
		component, action, extra string
		// the old term ends within [endLo, endHi] after the fault, the new one starts within
		// [lo, hi] after the fault.
		endLo, endHi, lo, hi float64
	}{
		{scenarios.ComponentControllerManager, "leader-crash", "", 0, 0, 13, 24},
		{scenarios.ComponentScheduler, "leader-crash", "", 0, 0, 13, 24},
		{scenarios.ComponentScheduler, "leader-release", "", 0, 0.1, 0, 4.5},
		{scenarios.ComponentControllerManager, "leader-release", "", 0, 0.1, 13, 24},
		// renew deadline 10s from the start of the failing round, which starts at most one
		// retry period (2s) after the fault.
		{scenarios.ComponentControllerManager, "leader-partition", "  for: 1m", 8, 12.1, 13, 24},
	}
	for _, tc := range cases {
		t.Run(tc.component+"/"+tc.action, func(t *testing.T) {
			res := runElection(t, tc.component, tc.action, tc.extra)
			require.GreaterOrEqual(t, len(res.Leadership), 2, "%+v", res.Leadership)
			first, second := res.Leadership[0], res.Leadership[1]
			require.NotNil(t, first.To)
			assert.GreaterOrEqual(t, *first.To-60, tc.endLo)
			assert.LessOrEqual(t, *first.To-60, tc.endHi)
			assert.GreaterOrEqual(t, second.From-60, tc.lo)
			assert.LessOrEqual(t, second.From-60, tc.hi)
			assert.GreaterOrEqual(t, second.From, *first.To, "never two leaders")
			assert.NotEqual(t, first.Identity, second.Identity)
		})
	}
}
