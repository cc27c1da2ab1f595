package replicaset

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/reconsim/reconsim/model"
)

func TestIsPodAvailable(t *testing.T) {
	readyAt := func(ts float64) *model.Pod { return rankPod("p", readySince(at(ts))) }
	tests := []struct {
		name            string
		pod             *model.Pod
		minReadySeconds int32
		now             float64
		want            bool
	}{
		{"not ready", rankPod("p", notReady), 0, 100, false},
		{"no ready condition", &model.Pod{}, 0, 100, false},
		{"ready, minReadySeconds 0", readyAt(100), 0, 100, true},
		{"ready for less than minReadySeconds", readyAt(95), 10, 100, false},
		{"ready for exactly minReadySeconds is not yet available", readyAt(90), 10, 100, false},
		{"ready for more than minReadySeconds", readyAt(89.999), 10, 100, true},
		{"ready since time 0 counts as a real time", readyAt(0), 10, 11, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, model.IsPodAvailable(tc.pod, tc.minReadySeconds, at(tc.now)))
		})
	}
}

func TestIsPodActiveAndFilter(t *testing.T) {
	deleting := rankPod("deleting")
	deleting.DeletionTimestamp = model.Ptr(at(1))
	pods := []*model.Pod{
		rankPod("running"),
		rankPod("pending", phase(model.PodPending)),
		rankPod("succeeded", phase(model.PodSucceeded)),
		rankPod("failed", phase(model.PodFailed)),
		deleting,
		rankPod("unknown", phase(model.PodUnknown)),
	}
	var names []string
	for _, p := range FilterActivePods(pods) {
		names = append(names, p.Name)
	}
	assert.Equal(t, []string{"running", "pending", "unknown"}, names)
}

func TestDeletionCost(t *testing.T) {
	tests := []struct {
		value string
		want  int32
	}{
		{"0", 0}, {"12", 12}, {"-12", -12}, {"+12", 0}, {"012", 0}, {"", 0}, {"abc", 0},
		{"2147483647", 2147483647}, {"2147483648", 0},
	}
	for _, tc := range tests {
		t.Run(tc.value, func(t *testing.T) {
			assert.Equal(t, tc.want, deletionCost(rankPod("p", cost(tc.value))))
		})
	}
	assert.Equal(t, int32(0), deletionCost(rankPod("p")), "no annotation")
}
