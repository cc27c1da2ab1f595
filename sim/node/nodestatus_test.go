package node

import (
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim/client"
	"github.com/reconsim/reconsim/vtime"
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
	w.Run(time.Minute) // registration, the first status write and a few checks

	obj, err := w.Store.Get(model.KindNode, "", "n1")
	require.NoError(t, err)
	stored := obj.(*model.Node)
	snapshot := stored.DeepCopy()
	gets := w.clients["n1"].Stats().RequestsFor(client.VerbGet)
	updates := w.clients["n1"].Stats().RequestsFor(client.VerbUpdate)

	w.Run(cfg.NodeStatusReportFrequency / 2)
	assert.Greater(t, w.clients["n1"].Stats().RequestsFor(client.VerbGet), gets+10, "the status loop kept checking")
	again, err := w.Store.Get(model.KindNode, "", "n1")
	require.NoError(t, err)
	assert.Same(t, stored, again, "checks that find no change do not write the Node")
	assert.True(t, reflect.DeepEqual(snapshot, stored), "the checks left the stored Node as it was")

	w.Run(cfg.NodeStatusReportFrequency)
	assert.True(t, reflect.DeepEqual(snapshot, stored), "the Node read before the write is unchanged")
	obj, err = w.Store.Get(model.KindNode, "", "n1")
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

// TestNodeStatusChangedMatchesUpstreamComparison checks the kubelet's memoized comparison
// against nodeStatusHasChanged on random stored Nodes, each checked several times in a random
// order: stored Nodes with the kubelet's own resources or others, and with conditions that
// the setters leave alone or change.
func TestNodeStatusChangedMatchesUpstreamComparison(t *testing.T) {
	w := newWorld(t, 5)
	kl := w.addNode("n1", model.ResourceList{model.ResourceCPU: mustQuantity(t, "4"), model.ResourceMemory: mustQuantity(t, "8Gi")}, DefaultConfig(), false)
	r := rand.New(rand.NewPCG(5, 0))
	var nodes []*model.Node
	for i := 0; i < 200; i++ {
		n := kl.initialNode()
		n.Status.Capacity = n.Status.Capacity.DeepCopy()
		n.Status.Allocatable = n.Status.Allocatable.DeepCopy()
		switch r.IntN(6) {
		case 0:
			n.Status.Capacity[model.ResourceCPU] = mustQuantity(t, "8")
		case 1:
			delete(n.Status.Allocatable, model.ResourceMemory)
		case 2:
			n.Status.Allocatable["example.com/gpu"] = mustQuantity(t, "1")
		case 3:
			n.Status.Conditions[r.IntN(len(n.Status.Conditions))].Status = model.ConditionUnknown
		case 4:
			n.Status.Conditions = n.Status.Conditions[:len(n.Status.Conditions)-1]
		}
		for j := range n.Status.Conditions {
			n.Status.Conditions[j].LastHeartbeatTime = vtime.Time(r.IntN(1000))
		}
		nodes = append(nodes, n)
	}
	changed := 0
	for i := 0; i < 1000; i++ {
		current := nodes[r.IntN(len(nodes))]
		view := *current
		view.Status.Conditions = append([]model.NodeCondition(nil), current.Status.Conditions...)
		kl.setNodeStatus(&view)
		want := nodeStatusHasChanged(&current.Status, &view.Status)
		require.Equal(t, want, kl.nodeStatusChanged(current, &view.Status), "check %d", i)
		if want {
			changed++
		}
	}
	assert.Greater(t, changed, 100, "the random Nodes include changed ones")
	assert.Less(t, changed, 900, "the random Nodes include unchanged ones")
}

// TestNodeStatusCheckSeesAnotherWritersChange: a check skips the setters only for the very
// stored Node it found unchanged before. When another writer changes the Node (the node
// lifecycle controller marking it Unknown), the next check finds a new stored Node, applies the
// setters and writes at once, not at the report frequency; the checks after it write nothing.
func TestNodeStatusCheckSeesAnotherWritersChange(t *testing.T) {
	w := newWorld(t, 4)
	cfg := DefaultConfig()
	kl := w.addNode("n1", model.ResourceList{model.ResourceCPU: mustQuantity(t, "4"), model.ResourceMemory: mustQuantity(t, "8Gi")}, cfg, true)
	kl.Start()
	w.Run(time.Minute)

	obj, err := w.Store.Get(model.KindNode, "", "n1")
	require.NoError(t, err)
	unknown := obj.(*model.Node).DeepCopy()
	for i := range unknown.Status.Conditions {
		unknown.Status.Conditions[i].Status = model.ConditionUnknown
	}
	_, err = w.Store.UpdateStatus(unknown)
	require.NoError(t, err)

	w.Run(cfg.NodeStatusUpdateFrequency * 11 / 10) // one check, jitter included
	obj, err = w.Store.Get(model.KindNode, "", "n1")
	require.NoError(t, err)
	reposted := obj.(*model.Node)
	assert.Equal(t, model.ConditionTrue, readyCondition(t, reposted).Status, "the kubelet set Ready again")

	w.Run(cfg.NodeStatusUpdateFrequency * 5)
	again, err := w.Store.Get(model.KindNode, "", "n1")
	require.NoError(t, err)
	assert.Same(t, reposted, again, "the checks after the write find it unchanged")
}
