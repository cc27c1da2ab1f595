package report

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// nodeFailureTrace holds the milestone lines of a node-failure run (seed 1): the crash at
// 60 s, the NodeNotReady after the 50 s grace period, the NoExecute taint on the next
// monitor pass, the evictions scheduled and carried out 300 s later, two status update
// conflicts while the replacements start, and convergence.
func nodeFailureTrace() []string {
	return []string{
		"60.000000 timeline node-crash crash nodes=worker-0",
		"110.025383 node-controller event Node worker-0 Normal NodeNotReady: Node worker-0 status is now: NodeNotReady",
		"110.025383 nodelifecycle mark-unknown Node worker-0 rv=54 ready=True->Unknown silent-since=t=55.020s grace=50s",
		"110.033059 nodelifecycle taint-add Node worker-0 rv=55 node.kubernetes.io/unreachable:NoSchedule",
		"115.137801 nodelifecycle taint-add Node worker-0 rv=62 node.kubernetes.io/unreachable:NoExecute",
		"115.145044 tainteviction schedule-eviction Pod default/web-9fzlx rv=56 node=worker-0 after=5m0s at=t=415.145s",
		"115.145044 tainteviction schedule-eviction Pod default/web-b84d2 rv=57 node=worker-0 after=5m0s at=t=415.145s",
		"415.145044 taint-eviction-controller event Pod default/web-9fzlx Normal TaintManagerEviction: Marking for deletion",
		"415.197543 replicaset-controller update-status-error ReplicaSet default/web rv=59 Conflict",
		"415.214803 replicaset-controller update-status-error ReplicaSet default/web rv=130 Conflict",
		"416.042009 cluster converged after node-crash (crash) 356.042s",
	}
}

func nodeFailureResult() *Result {
	return &Result{
		Convergence: []Convergence{
			{Action: "start", Name: "start", At: 0, ConvergedAt: ptr(0), Seconds: ptr(0)},
			{Action: "node-crash", Name: "crash", At: 60, ConvergedAt: ptr(416.042009313), Seconds: ptr(356.042009313)},
		},
		Events: []EventRecord{
			{Time: 0.019, Reason: "RegisteredNode", Kind: "Node", Name: "worker-0"},
			{Time: 110.025382, Reason: "NodeNotReady", Kind: "Node", Name: "worker-0"},
			{Time: 110.033320, Reason: "NodeNotReady", Kind: "Pod", Namespace: "default", Name: "web-9fzlx"},
			{Time: 415.145043786, Reason: "TaintManagerEviction", Kind: "Pod", Namespace: "default", Name: "web-9fzlx"},
			{Time: 415.145043786, Reason: "TaintManagerEviction", Kind: "Pod", Namespace: "default", Name: "web-b84d2"},
			{Time: 415.170240079, Reason: "SuccessfulCreate", Kind: "ReplicaSet", Namespace: "default", Name: "web"},
			{Time: 415.173827489, Reason: "SuccessfulCreate", Kind: "ReplicaSet", Namespace: "default", Name: "web"},
			{Time: 415.178688529, Reason: "Scheduled", Kind: "Pod", Namespace: "default", Name: "web-2p5kn"},
			{Time: 415.187511659, Reason: "Scheduled", Kind: "Pod", Namespace: "default", Name: "web-kq2vp"},
			{Time: 415.633421374, Reason: "Started", Kind: "Pod", Namespace: "default", Name: "web-2p5kn"},
		},
	}
}

func TestWhyNodeFailure(t *testing.T) {
	res := nodeFailureResult()
	phases := Why(res, nodeFailureTrace())
	names := make([]string, len(phases))
	byName := map[string]Phase{}
	for i, p := range phases {
		names[i] = p.Name
		byName[p.Name] = p
		assert.Equal(t, "crash (node-crash at 60s)", p.Interval)
		assert.NotEmpty(t, p.Cause)
		assert.InDelta(t, p.To-p.From, p.Seconds, 1e-12)
		if i > 0 {
			assert.Equal(t, phases[i-1].To, p.From, "phases are consecutive")
		}
	}
	require.Equal(t, []string{"detection", "taint", "toleration", "replacement: create", "replacement: schedule", "replacement: start"}, names)
	assert.Equal(t, 60.0, phases[0].From)
	assert.Equal(t, 416.042009313, phases[len(phases)-1].To)

	var sum float64
	for _, p := range phases {
		sum += p.Seconds
	}
	assert.InDelta(t, 356.042009313, sum, 1e-9, "the phases add up to the interval")
	assert.InDelta(t, 50, byName["detection"].Seconds, 0.1, "node-monitor-grace-period")
	assert.InDelta(t, 300, byName["toleration"].Seconds, 0.1, "tolerationSeconds")
	assert.InDelta(t, 5.1, byName["taint"].Seconds, 0.1, "next monitor pass")
	assert.Greater(t, (byName["detection"].Seconds+byName["toleration"].Seconds)/sum, 0.95, "grace and toleration dominate")

	// The trace's evidence lands in the phase it happened in.
	assert.Contains(t, byName["detection"].Cause, "In this run: the node controller: mark-unknown Node worker-0 ready=True->Unknown silent-since=t=55.020s grace=50s")
	assert.Contains(t, byName["toleration"].Cause, "scheduled 2 pod deletions: Pod default/web-9fzlx node=worker-0 after=5m0s")
	assert.Contains(t, byName["replacement: start"].Cause, "2 update conflicts (409), retried")
	for _, name := range []string{"taint", "replacement: create", "replacement: schedule"} {
		assert.NotContains(t, byName[name].Cause, "In this run", "%s has no evidence in the trace", name)
	}
}

func TestWhyWithoutTrace(t *testing.T) {
	phases := Why(nodeFailureResult(), nil)
	var names []string
	for _, p := range phases {
		names = append(names, p.Name)
	}
	// Without the trace the taint milestone is missing, so detection runs into toleration.
	assert.Equal(t, []string{"detection", "toleration", "replacement: create", "replacement: schedule", "replacement: start"}, names)
	assert.InDelta(t, 305.12, phases[1].Seconds, 0.01)
}

func TestWhyUnexplainedIsOther(t *testing.T) {
	tests := []struct {
		name string
		res  *Result
		want []Phase
	}{
		{
			name: "no milestone",
			res:  &Result{Convergence: []Convergence{{Action: "scale", At: 10, ConvergedAt: ptr(25)}}},
			want: []Phase{{Interval: "scale (scale at 10s)", Name: "other", From: 10, To: 25, Seconds: 15}},
		},
		{
			name: "milestones outside the interval are ignored",
			res: &Result{
				Convergence: []Convergence{{Action: "scale", Name: "up", At: 10, ConvergedAt: ptr(25)}},
				Events:      []EventRecord{{Time: 5, Reason: "SuccessfulCreate"}, {Time: 30, Reason: "Scheduled"}},
			},
			want: []Phase{{Interval: "up (scale at 10s)", Name: "other", From: 10, To: 25, Seconds: 15}},
		},
		{
			name: "never converged or start: nothing",
			res: &Result{Convergence: []Convergence{
				{Action: "start", At: 0, ConvergedAt: ptr(3)},
				{Action: "node-crash", At: 10},
			}},
			want: nil,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Why(tt.res, []string{"not a trace line", "1.0 x"})
			for i := range got {
				got[i].Cause = ""
			}
			assert.Equal(t, tt.want, got)
		})
	}
	assert.Nil(t, Why(nil, nil))
}

// TestWhyNamesLeaderGap: a failover of kube-controller-manager during the detection phase
// is named in that phase's cause, with how long no replica led.
func TestWhyNamesLeaderGap(t *testing.T) {
	trace := append(nodeFailureTrace(),
		"104.415503 leaderelection new-leader Lease kube-system/kube-controller-manager kube-controller-manager had no leader for 14.416s (replica 1 took over; lease-duration 15s, retry-period 2s)")
	phases := Why(nodeFailureResult(), trace)
	require.NotEmpty(t, phases)
	assert.Equal(t, "detection", phases[0].Name)
	assert.Contains(t, phases[0].Cause, "leader failover: kube-controller-manager had no leader for 14.416s (replica 1 took over")
	for _, p := range phases[1:] {
		assert.NotContains(t, p.Cause, "leader failover")
	}
}
