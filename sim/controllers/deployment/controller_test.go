package deployment

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim"
)

// rolloutWorld is a world with a 10-replica Deployment rolled out to v1 and settled.
func rolloutWorld(t *testing.T) *world {
	w := newWorld(t, DefaultConfig(), 2*time.Second)
	s := deploymentSpec{name: "web", replicas: 10, strategy: model.RollingUpdateDeploymentStrategyType, maxSurge: "25%", maxUnavailable: "25%",
		image: "v1", progressDeadlineSeconds: 600, revisionHistoryLimit: 10}
	_, err := w.Store.Create(s.build())
	require.NoError(t, err)
	w.watch("web")
	w.Run(30 * time.Second)
	return w
}

func progressing(t *testing.T, w *world) model.DeploymentCondition {
	c := GetDeploymentCondition(w.mustDeployment("web").Status, model.DeploymentProgressing)
	require.NotNil(t, c)
	return *c
}

// TestStuckRolloutIsNotQuiescentBeforeItsDeadline runs a stuck rollout with the scenarios'
// default quiet window (10 minutes) and the default deadline (600s): the pending progress check
// must keep the run going until ProgressDeadlineExceeded is written, and then let it end.
func TestStuckRolloutIsNotQuiescentBeforeItsDeadline(t *testing.T) {
	w := rolloutWorld(t)
	w.updateDeployment("web", func(d *model.Deployment) { d.Spec.Template = podTemplate("web", "v2", true) })
	w.Run(10 * time.Second)
	before := progressing(t, w)
	require.Equal(t, ReplicaSetUpdatedReason, before.Reason)

	out := w.K.Run(sim.Limits{QuiescenceWindow: 10 * time.Minute, MaxTime: w.K.Now().Add(2 * time.Hour)})
	require.Equal(t, sim.StopQuiescent, out.Reason, out.Detail)
	after := progressing(t, w)
	assert.Equal(t, TimedOutReason, after.Reason)
	assert.Equal(t, model.ConditionFalse, after.Status)
	// The check runs at lastUpdateTime + 600s + 1s, and times the rollout out at once.
	assert.Equal(t, before.LastUpdateTime.Add(601*time.Second), after.LastUpdateTime)
	assert.Empty(t, w.dc.progressTimers, "no check is pending after the timeout")
	d := w.mustDeployment("web")
	assert.Equal(t, int32(8), d.Status.AvailableReplicas, "the old pods keep serving")
}

// TestCompleteRolloutLeavesNoPendingCheck checks that a finished rollout does not hold the run:
// with a one-minute quiet window the run ends about a minute after the last change.
func TestCompleteRolloutLeavesNoPendingCheck(t *testing.T) {
	w := rolloutWorld(t)
	start := w.K.Now()
	w.updateDeployment("web", func(d *model.Deployment) { d.Spec.Template = podTemplate("web", "v2", false) })
	out := w.K.Run(sim.Limits{QuiescenceWindow: time.Minute, MaxTime: w.K.Now().Add(2 * time.Hour)})
	require.Equal(t, sim.StopQuiescent, out.Reason, out.Detail)
	assert.Less(t, out.At.Sub(start), 2*time.Minute, "ended at %s", out.At)
	assert.Equal(t, NewRSAvailableReason, progressing(t, w).Reason)
	assert.Empty(t, w.dc.progressTimers)
}

// TestStopCancelsPendingChecks stops the controller in the middle of a stuck rollout: the
// pending check is cancelled, so nothing holds the run any more.
func TestStopCancelsPendingChecks(t *testing.T) {
	w := rolloutWorld(t)
	w.updateDeployment("web", func(d *model.Deployment) { d.Spec.Template = podTemplate("web", "v2", true) })
	w.Run(10 * time.Second)
	require.NotEmpty(t, w.dc.progressTimers)
	w.dc.Stop()
	assert.Empty(t, w.dc.progressTimers)
	out := w.K.Run(sim.Limits{QuiescenceWindow: time.Minute, MaxTime: w.K.Now().Add(time.Hour)})
	require.Equal(t, sim.StopQuiescent, out.Reason, out.Detail)
	assert.Equal(t, ReplicaSetUpdatedReason, progressing(t, w).Reason, "a stopped controller reports nothing more")
	mainProc, workers := w.dc.Loop.Procs()
	w.dc.Start()
	mainAfter, workersAfter := w.dc.Loop.Procs()
	assert.Same(t, mainProc, mainAfter, "Start after Stop does nothing")
	assert.Len(t, workersAfter, len(workers))
	s := w.dc.Stats()
	assert.Positive(t, s.Syncs)
	assert.Equal(t, uint64(2), s.ReplicaSetsCreated)
	assert.Positive(t, s.ScaleUps)
	assert.Positive(t, s.ScaleDowns)
	assert.Positive(t, s.ProgressChecks)
}

// TestRolloutIsDeterministic runs the same rollout in two fresh worlds and compares the traces.
func TestRolloutIsDeterministic(t *testing.T) {
	var hashes [2]uint64
	var lines [2]uint64
	for i := range hashes {
		w := rolloutWorld(t)
		w.updateDeployment("web", func(d *model.Deployment) { d.Spec.Template = podTemplate("web", "v2", false) })
		w.updateDeployment("web", func(d *model.Deployment) { d.Spec.Replicas = model.Ptr(int32(14)) })
		w.Run(2 * time.Minute)
		hashes[i], lines[i] = w.K.Trace().Hash(), w.K.Trace().Lines()
	}
	assert.Equal(t, hashes[0], hashes[1])
	assert.Equal(t, lines[0], lines[1])
}

func TestNewRejectsBadConfig(t *testing.T) {
	k := sim.New(1)
	_, err := New(k, nil, nil, nil, Config{})
	require.Error(t, err)
}
