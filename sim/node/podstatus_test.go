package node

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/vtime"
)

func cs(state string, lastTerminated bool) model.ContainerStatus {
	s := model.ContainerStatus{Name: "c"}
	switch state {
	case "waiting":
		s.State.Waiting = &model.ContainerStateWaiting{Reason: reasonContainerCreating}
	case "running":
		s.State.Running = &model.ContainerStateRunning{}
	case "ok":
		s.State.Terminated = &model.ContainerStateTerminated{ExitCode: 0}
	case "failed":
		s.State.Terminated = &model.ContainerStateTerminated{ExitCode: 1}
	}
	if lastTerminated {
		s.LastState.Terminated = &model.ContainerStateTerminated{ExitCode: 1}
	}
	return s
}

func TestGetPhase(t *testing.T) {
	cases := []struct {
		name     string
		policy   string
		statuses []model.ContainerStatus
		terminal bool
		want     string
	}{
		{"creating", model.RestartPolicyAlways, []model.ContainerStatus{cs("waiting", false)}, false, model.PodPending},
		{"one running, one creating", model.RestartPolicyAlways, []model.ContainerStatus{cs("running", false), cs("waiting", false)}, false, model.PodPending},
		{"running", model.RestartPolicyAlways, []model.ContainerStatus{cs("running", false)}, false, model.PodRunning},
		{"back-off counts as stopped", model.RestartPolicyAlways, []model.ContainerStatus{cs("waiting", true)}, false, model.PodRunning},
		{"always, all exited, restarting", model.RestartPolicyAlways, []model.ContainerStatus{cs("failed", false)}, false, model.PodRunning},
		{"always, deleted, clean exits", model.RestartPolicyAlways, []model.ContainerStatus{cs("ok", false)}, true, model.PodSucceeded},
		{"always, deleted, a failure", model.RestartPolicyAlways, []model.ContainerStatus{cs("ok", false), cs("failed", false)}, true, model.PodFailed},
		{"never, failure", model.RestartPolicyNever, []model.ContainerStatus{cs("failed", false)}, false, model.PodFailed},
		{"never, success", model.RestartPolicyNever, []model.ContainerStatus{cs("ok", false)}, false, model.PodSucceeded},
		{"never, one still running", model.RestartPolicyNever, []model.ContainerStatus{cs("ok", false), cs("running", false)}, false, model.PodRunning},
		{"on-failure, failure restarts", model.RestartPolicyOnFailure, []model.ContainerStatus{cs("failed", false)}, false, model.PodRunning},
		{"on-failure, success", model.RestartPolicyOnFailure, []model.ContainerStatus{cs("ok", false)}, false, model.PodSucceeded},
		{"on-failure, deleted while failed", model.RestartPolicyOnFailure, []model.ContainerStatus{cs("failed", false)}, true, model.PodFailed},
		{"no containers", model.RestartPolicyAlways, nil, false, model.PodPending},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, getPhase(tc.policy, tc.statuses, tc.terminal))
		})
	}
}

func TestReadyConditions(t *testing.T) {
	ready := model.ContainerStatus{Name: "a", Ready: true}
	unready := model.ContainerStatus{Name: "b"}
	cr, r := readyConditions([]model.ContainerStatus{ready, ready}, model.PodRunning)
	assert.Equal(t, model.ConditionTrue, cr.Status)
	assert.Equal(t, model.PodReady, r.Type)
	assert.Equal(t, model.ConditionTrue, r.Status)

	cr, r = readyConditions([]model.ContainerStatus{ready, unready, {Name: "c"}}, model.PodRunning)
	assert.Equal(t, model.ConditionFalse, cr.Status)
	assert.Equal(t, reasonContainersNotReady, r.Reason)
	assert.Equal(t, "containers with unready status: [b c]", r.Message)

	_, r = readyConditions([]model.ContainerStatus{unready}, model.PodSucceeded)
	assert.Equal(t, reasonPodCompleted, r.Reason)
}

func TestNormalizeStatus(t *testing.T) {
	old := &model.PodStatus{
		Phase:     model.PodFailed,
		StartTime: model.Ptr(vtime.Time(5)),
		Conditions: []model.PodCondition{
			{Type: model.PodReady, Status: model.ConditionFalse, LastTransitionTime: 3},
			{Type: model.PodScheduled, Status: model.ConditionTrue, LastTransitionTime: 1},
		},
	}
	s := &model.PodStatus{
		Phase: model.PodRunning,
		Conditions: []model.PodCondition{
			{Type: model.PodReady, Status: model.ConditionTrue},
			{Type: model.PodScheduled, Status: model.ConditionTrue},
			{Type: model.PodInitialized, Status: model.ConditionTrue},
		},
	}
	normalizeStatus(s, old, 100)
	assert.Equal(t, vtime.Time(100), s.Conditions[0].LastTransitionTime, "changed status: new time")
	assert.Equal(t, vtime.Time(1), s.Conditions[1].LastTransitionTime, "same status: old time")
	assert.Equal(t, vtime.Time(100), s.Conditions[2].LastTransitionTime, "new condition: new time")
	assert.Equal(t, vtime.Time(5), *s.StartTime, "start time never changes")
	assert.Equal(t, model.PodFailed, s.Phase, "a terminal phase stays")

	fresh := &model.PodStatus{Phase: model.PodPending}
	normalizeStatus(fresh, &model.PodStatus{}, 7)
	assert.Equal(t, vtime.Time(7), *fresh.StartTime)
}

func TestMergePodStatus(t *testing.T) {
	api := &model.PodStatus{
		Phase:             model.PodRunning,
		NominatedNodeName: "node-a",
		Conditions: []model.PodCondition{
			{Type: model.PodDisruptionTarget, Status: model.ConditionTrue, Reason: "DeletionByTaintManager"},
			{Type: model.PodReady, Status: model.ConditionFalse},
		},
	}
	kubelet := &model.PodStatus{
		Phase: model.PodRunning,
		Conditions: []model.PodCondition{
			{Type: model.PodReady, Status: model.ConditionTrue},
			{Type: model.PodScheduled, Status: model.ConditionTrue},
		},
		ContainerStatuses: []model.ContainerStatus{{Name: "c", Ready: true}},
	}
	merged := mergePodStatus(api, kubelet)
	var types []string
	for _, c := range merged.Conditions {
		types = append(types, c.Type+"="+string(c.Status))
	}
	assert.Equal(t, []string{"DisruptionTarget=True", "Ready=True", "PodScheduled=True"}, types)
	assert.Equal(t, kubelet.ContainerStatuses, merged.ContainerStatuses)
	assert.Equal(t, "node-a", merged.NominatedNodeName, "the scheduler's nomination is not the kubelet's to clear")
	assert.True(t, model.SameSlice(kubelet.ContainerStatuses, merged.ContainerStatuses), "the read-only container statuses are shared")
	assert.False(t, model.SameSlice(kubelet.Conditions, merged.Conditions), "a list with the API's own condition is the merge's")

	api.Conditions = api.Conditions[1:]
	merged = mergePodStatus(api, kubelet)
	assert.True(t, model.SameSlice(kubelet.Conditions, merged.Conditions), "the kubelet's whole list is shared")
	assert.True(t, statusEqual(&model.PodStatus{}, &model.PodStatus{Conditions: []model.PodCondition{}}), "nil and empty are equal")
}
