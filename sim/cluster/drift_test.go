package cluster

import (
	_ "embed"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reconsim/reconsim/report"
	"github.com/reconsim/reconsim/scenarios"
)

// TestGitOpsSelfHealScenario: gitops-selfheal passes; the Application's events tell the
// story (argoproj/argo-cd controller/appcontroller.go autoSync: the first self-heal is
// immediate, the second waits 2s after the first ended); alice's and bob's actions are
// recorded with their actor.
func TestGitOpsSelfHealScenario(t *testing.T) {
	res := runBuiltin(t, "gitops-selfheal", nil)
	require.True(t, res.Passed, "%+v", res.Expectations)
	var completed []float64
	for _, e := range res.Events {
		if e.Reason == "OperationCompleted" && e.Kind == "Application" {
			completed = append(completed, e.Time)
		}
	}
	// The commit (first periodic refresh, 120-180s), two edits, the Service.
	require.Len(t, completed, 4, "%v", completed)
	assert.GreaterOrEqual(t, completed[0], 120.0)
	assert.LessOrEqual(t, completed[0], 181.0)
	assert.Less(t, completed[1]-300, 5.0, "the first self-heal comes within a compare of the edit")
	assert.GreaterOrEqual(t, completed[2]-completed[1], 2.0, "the second self-heal waits out the 2s back-off")
	assert.Less(t, completed[3]-420, 10.0, "the deleted Service is recreated at once")
	actors := map[string]string{}
	for _, c := range res.Convergence {
		actors[c.Name] = c.Actor
	}
	assert.Equal(t, "alice", actors["edit-image"])
	assert.Equal(t, "bob", actors["delete-service"])
}

// TestGitOpsWithoutSelfHeal: with self-heal off the drift stays, and the verdict says why.
func TestGitOpsWithoutSelfHeal(t *testing.T) {
	res := runBuiltin(t, "gitops-selfheal", nil, "gitops-agent.self-heal=false")
	assert.False(t, res.Passed)
	v := findVerdict(res, "Application app")
	require.NotNil(t, v, "%+v", res.Verdicts)
	assert.Equal(t, scenarios.VerdictOutOfSync, v.Reason)
	assert.Contains(t, v.Message, "Service default/web missing")
	assert.Contains(t, v.Message, "self-heal is off")
}

// TestGitOpsFluxMode: in flux mode the drift is reverted only at the next interval, jittered
// by 5% (fluxcd/kustomize-controller .spec.interval, --interval-jitter-percentage).
func TestGitOpsFluxMode(t *testing.T) {
	res := runBuiltin(t, "gitops-selfheal", nil, "gitops-agent.mode=flux", "gitops-agent.interval=3m")
	require.Empty(t, res.Verdicts, "the last interval reverted everything")
	var runs []float64
	for _, e := range res.Events {
		if e.Reason == "ReconciliationSucceeded" {
			runs = append(runs, e.Time)
		}
	}
	require.GreaterOrEqual(t, len(runs), 3)
	for i := 1; i < len(runs); i++ {
		gap := runs[i] - runs[i-1]
		assert.InDelta(t, 180, gap, 180*0.05+1, "interval %d", i)
	}
}

func findVerdict(res *report.Result, workload string) *report.Verdict {
	for i := range res.Verdicts {
		if res.Verdicts[i].Workload == workload {
			return &res.Verdicts[i]
		}
	}
	return nil
}

//go:embed testdata/kill.yaml
var killScenario string

// TestKillContainerAndPatch: kill-container ends a container that the kubelet restarts
// (restartPolicy Always), a JSON patch scales the Deployment, and the trace names the actors.
func TestKillContainerAndPatch(t *testing.T) {
	var trace strings.Builder
	res := runParsed(t, parseYAML(t, "kill", killScenario), Options{Trace: &trace})
	text := trace.String()
	assert.Contains(t, text, "timeline kill-container oom as=alice Deployment default/web")
	assert.Contains(t, text, "reason=OOMKilled killed")
	assert.Contains(t, text, "code=1 reason=Error killed")
	assert.Contains(t, text, "timeline patch scale-json as=bob")
	assert.NotContains(t, text, "timeline error")
	starts := strings.Count(text, "container-start Pod default/web")
	assert.GreaterOrEqual(t, starts, 3, "the killed containers restarted, and the third replica started")
	assert.Empty(t, res.Verdicts)
}
