package job

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/vtime"
)

// backoffDelay follows upstream getRemainingTimeForFailuresCount: 10s doubling per failure,
// capped (10m current, 6m legacy).
func TestBackoffDelay(t *testing.T) {
	cases := []struct {
		failures int32
		max      time.Duration
		want     time.Duration
	}{
		{1, MaxJobPodFailureBackOff, 10 * time.Second},
		{2, MaxJobPodFailureBackOff, 20 * time.Second},
		{3, MaxJobPodFailureBackOff, 40 * time.Second},
		{6, MaxJobPodFailureBackOff, 320 * time.Second},
		{7, MaxJobPodFailureBackOff, 10 * time.Minute},
		{100, MaxJobPodFailureBackOff, 10 * time.Minute},
		{6, LegacyMaxJobBackOff, 320 * time.Second},
		{7, LegacyMaxJobBackOff, 6 * time.Minute},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, backoffDelay(c.failures, DefaultJobPodFailureBackOff, c.max), "failures=%d max=%s", c.failures, c.max)
	}
}

func failedAt(name string, at vtime.Time) *model.Pod {
	p := &model.Pod{}
	p.Name = name
	p.Status.ContainerStatuses = []model.ContainerStatus{{Name: "app", State: model.ContainerState{Terminated: &model.ContainerStateTerminated{ExitCode: 1, FinishedAt: at}}}}
	return p
}

// newBackoffRecord: failures add up; a success resets the count to the failures after it
// (upstream TestNewBackoffRecord's cases in spirit).
func TestNewBackoffRecord(t *testing.T) {
	s := newBackoffStore()
	sec := vtime.Time(time.Second)
	r := s.newBackoffRecord("k", nil, []*model.Pod{failedAt("a", 5*sec), failedAt("b", 3*sec)})
	assert.Equal(t, int32(2), r.failuresAfterLastSuccess)
	assert.Equal(t, 5*sec, *r.lastFailureTime)
	s.update(r)
	r = s.newBackoffRecord("k", []*model.Pod{failedAt("ok", 7*sec)}, []*model.Pod{failedAt("c", 6*sec), failedAt("d", 9*sec)})
	assert.Equal(t, int32(1), r.failuresAfterLastSuccess, "only the failure after the success counts")
	assert.Equal(t, 9*sec, *r.lastFailureTime)
	assert.Equal(t, 10*time.Second-2*time.Second, r.remainingTime(11*sec, DefaultJobPodFailureBackOff, MaxJobPodFailureBackOff))
	assert.Equal(t, time.Duration(0), r.remainingTime(30*sec, DefaultJobPodFailureBackOff, MaxJobPodFailureBackOff))
	r = s.newBackoffRecord("k", []*model.Pod{failedAt("ok", 7*sec)}, nil)
	assert.Equal(t, int32(0), r.failuresAfterLastSuccess)
}

func TestOrderedIntervals(t *testing.T) {
	cases := []struct {
		prev string
		add  []int
		want string
	}{
		{"", nil, ""},
		{"", []int{3, 1, 2}, "1-3"},
		{"1,3", []int{2}, "1-3"},
		{"0-2", []int{5, 7}, "0-2,5,7"},
		{"0", []int{1}, "0,1"},
	}
	for _, c := range cases {
		got := parseIndexesFromString(c.prev, 10).withIndexes(c.add)
		assert.Equal(t, c.want, got.String(), "%q + %v", c.prev, c.add)
	}
	assert.Equal(t, "job-0-", podGenerateNameWithIndex("job", 0))
	assert.Len(t, podGenerateNameWithIndex("a-very-long-job-name-that-goes-on-and-on-and-on-for-ever", 12345), 58)
}

// matchPodFailurePolicy: first matching rule wins; exit code 0 never matches; NotIn.
func TestMatchPodFailurePolicy(t *testing.T) {
	pfp := &model.PodFailurePolicy{Rules: []model.PodFailurePolicyRule{
		{Action: model.PodFailurePolicyActionIgnore, OnPodConditions: []model.PodFailurePolicyOnPodConditionsPattern{{Type: model.PodDisruptionTarget, Status: model.ConditionTrue}}},
		{Action: model.PodFailurePolicyActionFailJob, OnExitCodes: &model.PodFailurePolicyOnExitCodesRequirement{Operator: "In", Values: []int32{42}}},
		{Action: model.PodFailurePolicyActionCount, OnExitCodes: &model.PodFailurePolicyOnExitCodesRequirement{Operator: "NotIn", Values: []int32{1}}},
	}}
	p := failedAt("x", 0)
	p.Namespace = "ns"
	p.Status.ContainerStatuses[0].State.Terminated.ExitCode = 42
	msg, count, action := matchPodFailurePolicy(pfp, p)
	assert.Equal(t, model.PodFailurePolicyActionFailJob, action)
	assert.True(t, count)
	assert.Equal(t, "Container app for pod ns/x failed with exit code 42 matching FailJob rule at index 1", *msg)
	p.Status.Conditions = []model.PodCondition{{Type: model.PodDisruptionTarget, Status: model.ConditionTrue}}
	_, count, action = matchPodFailurePolicy(pfp, p)
	assert.Equal(t, model.PodFailurePolicyActionIgnore, action)
	assert.False(t, count)
	p.Status.Conditions = nil
	p.Status.ContainerStatuses[0].State.Terminated.ExitCode = 1
	_, count, action = matchPodFailurePolicy(pfp, p)
	assert.Equal(t, "", action, "exit 1 is NotIn's exception: no rule matches")
	assert.True(t, count)
	p.Status.ContainerStatuses[0].State.Terminated.ExitCode = 0
	_, _, action = matchPodFailurePolicy(pfp, p)
	assert.Equal(t, "", action, "exit code 0 never matches")
}

// pastBackoffLimitOnFailure: with restartPolicy OnFailure, container restarts of running and
// pending pods count towards backoffLimit (reaching it fails the Job; with backoffLimit 0 any
// restart does).
func TestPastBackoffLimitOnFailure(t *testing.T) {
	pod := func(phase string, restarts int32) *model.Pod {
		p := &model.Pod{}
		p.Status.Phase = phase
		p.Status.ContainerStatuses = []model.ContainerStatus{{Name: "app", RestartCount: restarts}}
		return p
	}
	job := func(rp string, limit int32) *model.Job {
		j := &model.Job{}
		j.Spec.Template.Spec.RestartPolicy = rp
		j.Spec.BackoffLimit = &limit
		return j
	}
	cases := []struct {
		job  *model.Job
		pods []*model.Pod
		want bool
	}{
		{job(model.RestartPolicyOnFailure, 6), []*model.Pod{pod(model.PodRunning, 3), pod(model.PodPending, 2)}, false},
		{job(model.RestartPolicyOnFailure, 6), []*model.Pod{pod(model.PodRunning, 3), pod(model.PodPending, 3)}, true},
		{job(model.RestartPolicyOnFailure, 6), []*model.Pod{pod(model.PodFailed, 9)}, false},
		{job(model.RestartPolicyOnFailure, 0), []*model.Pod{pod(model.PodRunning, 1)}, true},
		{job(model.RestartPolicyNever, 0), []*model.Pod{pod(model.PodRunning, 5)}, false},
	}
	for i, c := range cases {
		assert.Equal(t, c.want, pastBackoffLimitOnFailure(c.job, c.pods), "case %d", i)
	}
}
