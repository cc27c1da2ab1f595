package node

import (
	"reflect"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim/client"
)

// TestNodeStatusCheckLeavesStoredNodeAlone checks the node status loop's use of the shared
// Node from GetShared: checks that find nothing changed write nothing and leave the stored
// Node exactly as it was, and the write after NodeStatusReportFrequency carries a fresh
// heartbeat while the Node read before it stays unchanged.
func TestNodeStatusCheckLeavesStoredNodeAlone(t *testing.T) {
	w := newWorld(t, 3)
	cfg := DefaultConfig()
	kl := w.addNode("n1", model.ResourceList{model.ResourceCPU: mustQuantity(t, "4"), model.ResourceMemory: mustQuantity(t, "8Gi")}, cfg, true)
	kl.Start()
	w.run(time.Minute) // registration, the first status write and a few checks

	obj, err := w.srv.Store().Get(model.KindNode, "", "n1")
	require.NoError(t, err)
	stored := obj.(*model.Node)
	snapshot := stored.DeepCopy()
	gets := w.clients["n1"].Stats().RequestsFor(client.VerbGet)
	updates := w.clients["n1"].Stats().RequestsFor(client.VerbUpdate)

	w.run(cfg.NodeStatusReportFrequency / 2)
	assert.Greater(t, w.clients["n1"].Stats().RequestsFor(client.VerbGet), gets+10, "the status loop kept checking")
	again, err := w.srv.Store().Get(model.KindNode, "", "n1")
	require.NoError(t, err)
	assert.Same(t, stored, again, "checks that find no change do not write the Node")
	assert.True(t, reflect.DeepEqual(snapshot, stored), "the checks left the stored Node as it was")

	w.run(cfg.NodeStatusReportFrequency)
	assert.True(t, reflect.DeepEqual(snapshot, stored), "the Node read before the write is unchanged")
	obj, err = w.srv.Store().Get(model.KindNode, "", "n1")
	require.NoError(t, err)
	latest := obj.(*model.Node)
	require.NotSame(t, stored, latest, "the report frequency forces a write")
	assert.Greater(t, w.clients["n1"].Stats().RequestsFor(client.VerbUpdate), updates)
	ready, before := readyCondition(t, latest), readyCondition(t, snapshot)
	assert.Greater(t, ready.LastHeartbeatTime, before.LastHeartbeatTime)
	assert.Equal(t, model.ConditionTrue, ready.Status)
}

func readyCondition(t *testing.T, n *model.Node) model.NodeCondition {
	t.Helper()
	for _, c := range n.Status.Conditions {
		if c.Type == model.NodeReady {
			return c
		}
	}
	t.Fatalf("node %s has no Ready condition", n.Name)
	return model.NodeCondition{}
}
