package cluster

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPriorityPreemption runs the built-in priority-preemption: DefaultPreemption
// (pkg/scheduler/framework/preemption/preemption.go Evaluator.Preempt, prepareCandidate)
// preempts one low-priority batch pod per critical pod, each on its own node, with the upstream
// event; the critical pods bind to their nominated nodes; the pod with preemptionPolicy Never
// preempts nobody and stays Pending with upstream's message.
func TestPriorityPreemption(t *testing.T) {
	var trace bytes.Buffer
	res := runBuiltin(t, "priority-preemption", &trace)
	require.True(t, res.Passed, "%+v %+v", res.Expectations, res.Verdicts)

	preempted := map[string]bool{}
	nodes := map[string]bool{}
	for _, e := range res.Events {
		if e.Reason != "Preempted" {
			continue
		}
		assert.Equal(t, "Normal", e.Type)
		assert.Equal(t, "default-scheduler", e.Source)
		assert.True(t, strings.HasPrefix(e.Name, "batch-"), "only batch pods are victims: %s", e.Name)
		assert.Regexp(t, `^Preempted by pod [0-9a-f-]+ on node worker-[0-2]$`, e.Message)
		preempted[e.Name] = true
		nodes[e.Message[strings.LastIndex(e.Message, " ")+1:]] = true
	}
	assert.Len(t, preempted, 3)
	assert.Len(t, nodes, 3, "one victim per node: each critical pod's nominated node")

	// Each critical pod binds to the node it was nominated to.
	nominated := map[string]string{}
	for _, line := range strings.Split(trace.String(), "\n") {
		f := strings.Fields(line)
		if len(f) < 6 || f[1] != "kube-scheduler" {
			continue
		}
		switch f[2] {
		case "preempt":
			nominated[f[4]] = strings.TrimPrefix(f[6], "node=")
		case "bound":
			if want, ok := nominated[f[4]]; ok {
				assert.Equal(t, "node="+want, f[5], "%s binds to its nominated node", f[4])
				delete(nominated, f[4])
			}
		}
	}
	assert.Empty(t, nominated, "every preemptor bound")

	var polite, batch string
	for _, v := range res.Verdicts {
		switch {
		case v.Kind == "ReplicaSet" && strings.HasPrefix(v.Name, "polite-"):
			polite = v.Message
		case v.Kind == "ReplicaSet" && strings.HasPrefix(v.Name, "batch-"):
			batch = v.Message
		}
	}
	assert.Contains(t, polite, "preemption: not eligible due to preemptionPolicy=Never.")
	assert.Contains(t, batch, "3 No preemption victims found for incoming pod.")
}

// TestOtherSchedulerNameIsIgnored: a pod for a scheduler that does not run gets no
// FailedScheduling event from the default scheduler (eventhandlers.go responsibleForPod: no
// queueing, no events) and ends as a NoScheduler verdict.
func TestOtherSchedulerNameIsIgnored(t *testing.T) {
	res := runYAML(t, "pending-pods", pendingPodsScenario)
	for _, e := range res.Events {
		if e.Name == "custom" {
			assert.NotEqual(t, "FailedScheduling", e.Reason, "%+v", e)
			assert.NotEqual(t, "Scheduled", e.Reason, "%+v", e)
		}
	}
	found := false
	for _, v := range res.Verdicts {
		if v.Name == "custom" {
			found = true
			assert.Equal(t, "NoScheduler", v.Reason)
		}
	}
	assert.True(t, found, "%+v", res.Verdicts)
}
