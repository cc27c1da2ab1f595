package cluster

import (
	_ "embed"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reconsim/reconsim/report"
)

// lateNodeScenario: a pod that fits only on a node that joins at 60s.
//
//go:embed testdata/late-node.yaml
var lateNodeScenario string

func eventsOf(res *report.Result, reason string) []report.EventRecord {
	var out []report.EventRecord
	for _, e := range res.Events {
		if e.Reason == reason {
			out = append(out, e)
		}
	}
	return out
}

// TestNewNodeNotSchedulableBeforeReady: with TaintNodesByCondition
// (plugin/pkg/admission/nodetaint/admission.go) the joining node is registered with
// node.kubernetes.io/not-ready:NoSchedule, so the scheduler rejects it until the node lifecycle
// controller's NoSchedule pass (node_lifecycle_controller.go doNoScheduleTaintingPass) lifts
// the taint once the node is Ready. Without the plugin the node is a candidate at once.
func TestNewNodeNotSchedulableBeforeReady(t *testing.T) {
	res := runYAML(t, "late-node", lateNodeScenario)
	scheduled := eventsOf(res, "Scheduled")
	require.Len(t, scheduled, 1)
	assert.Contains(t, scheduled[0].Message, "big-0")
	var tainted bool
	for _, e := range eventsOf(res, "FailedScheduling") {
		if e.Time >= 60 && strings.Contains(e.Message, "node(s) had untolerated taint(s)") {
			tainted = true
			assert.Less(t, e.Time, scheduled[0].Time)
		}
	}
	assert.True(t, tainted, "the new node is rejected for its not-ready taint first: %+v", eventsOf(res, "FailedScheduling"))

	off := runYAML(t, "late-node", lateNodeScenario, "kube-apiserver.disable-admission-plugins=TaintNodesByCondition")
	for _, e := range eventsOf(off, "FailedScheduling") {
		assert.NotContains(t, e.Message, "untolerated taint", "without the plugin the new node carries no taint")
	}
	require.Len(t, eventsOf(off, "Scheduled"), 1)
	assert.Less(t, eventsOf(off, "Scheduled")[0].Time, scheduled[0].Time, "without the plugin the pod is bound sooner")
}

// priorityScenario: a PriorityClass that is the global default, one a Deployment names, and a
// Deployment naming a class that does not exist.
//
//go:embed testdata/priority.yaml
var priorityScenario string

// TestPriorityClasses follows plugin/pkg/admission/priority/admission.go admitPod through a
// whole run: PriorityClasses in a scenario (created before the workloads, whatever their
// order), a class named by a template, the global default for pods that name none, and a class
// that does not exist, which the API server refuses (the ReplicaSet's FailedCreate and the
// verdict say so).
func TestPriorityClasses(t *testing.T) {
	res := runYAML(t, "priorities", priorityScenario)
	var failed []string
	for _, e := range eventsOf(res, "FailedCreate") {
		failed = append(failed, e.Name)
		assert.Contains(t, e.Message, "no PriorityClass with name hihg was found")
	}
	assert.NotEmpty(t, failed)
	for _, n := range failed {
		assert.True(t, strings.HasPrefix(n, "typo-"), n)
	}
	assert.Len(t, eventsOf(res, "Scheduled"), 3, "web's two pods and batch's")
	var typo *report.Verdict
	for i := range res.Verdicts {
		if res.Verdicts[i].Kind == "ReplicaSet" && strings.HasPrefix(res.Verdicts[i].Name, "typo-") {
			typo = &res.Verdicts[i]
		}
	}
	require.NotNil(t, typo, "%+v", res.Verdicts)
	assert.Equal(t, "FailedCreate", typo.Reason)
	assert.Contains(t, typo.Message, "no PriorityClass with name hihg was found")
}
