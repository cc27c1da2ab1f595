package nodelifecycle

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim/controllers/nodelifecycle/testworld"
)

// TestNodesRegisteredRemovedAndRegisteredAgain: a monitor pass registers each node it has not
// seen (RegisteredNode), removes a registered node that is gone (RemovingNode), and registers
// a node re-created under the same name again; nodes it knows are neither. After every pass,
// the memo the pass used for each node is that node's, however the list moved.
func TestNodesRegisteredRemovedAndRegisteredAgain(t *testing.T) {
	w, err := testworld.New(t, testworld.Options{Seed: 1})
	require.NoError(t, err)
	for _, n := range []string{"n1", "n2", "n3"} {
		require.NoError(t, w.AddNode(n, "a", "r", model.ConditionTrue, nil, true))
	}
	c, f := w.Client("kcm-nodelifecycle")
	nc, err := New(w.K, c, f, w.Recorder(ComponentName), DefaultConfig())
	require.NoError(t, err)
	f.Start(w.K)
	nc.Start()
	until := func(d time.Duration) {
		t.Helper()
		require.NoError(t, w.RunUntil(w.K.Now().Add(d)))
		nodes := nc.nodes.List()
		require.Len(t, nc.passMemos, len(nodes))
		for i, n := range nodes {
			require.Same(t, nc.memos[n.Name], nc.passMemos[i], n.Name)
			require.Same(t, n, nc.passMemos[i].node, n.Name)
		}
	}
	until(20 * time.Second)
	assert.Equal(t, 3, nc.knownNodes)

	_, err = w.Store.Delete(model.KindNode, "", "n2", model.DeleteOptions{})
	require.NoError(t, err)
	until(20 * time.Second)
	assert.Equal(t, 2, nc.knownNodes)

	require.NoError(t, w.AddNode("n2", "a", "r", model.ConditionTrue, nil, false))
	until(20 * time.Second)
	assert.Equal(t, 3, nc.knownNodes)

	got := w.Events(ReasonRegisteredNode, ReasonRemovingNode)
	assert.Equal(t, 5, strings.Count(got, "\n"), got)
	assert.Contains(t, got, `RemovingNode Node n2 "Node n2 event: Removing Node n2 from Controller"`)
	assert.Equal(t, 2, strings.Count(got, "RegisteredNode Node n2 "), got)
	assert.Equal(t, 1, strings.Count(got, "RegisteredNode Node n1 "), got)
}

// TestZoneGoneWithItsLastNode: a zone whose last node is deleted leaves the zone states at
// the next pass (a pass's zones are those of the nodes it saw, not of an earlier pass), and
// comes back with a node.
func TestZoneGoneWithItsLastNode(t *testing.T) {
	w, err := testworld.New(t, testworld.Options{Seed: 1})
	require.NoError(t, err)
	require.NoError(t, w.AddNode("a1", "a", "r", model.ConditionTrue, nil, true))
	require.NoError(t, w.AddNode("b1", "b", "r", model.ConditionTrue, nil, true))
	c, f := w.Client("kcm-nodelifecycle")
	nc, err := New(w.K, c, f, w.Recorder(ComponentName), DefaultConfig())
	require.NoError(t, err)
	f.Start(w.K)
	nc.Start()
	zones := func() (out []string) {
		require.NoError(t, w.RunUntil(w.K.Now().Add(20*time.Second)))
		for _, z := range nc.ZoneStates() {
			out = append(out, z.Zone+"="+strconv.Itoa(z.Nodes))
		}
		return out
	}
	assert.Equal(t, []string{"r/a=1", "r/b=1"}, zones())

	_, err = w.Store.Delete(model.KindNode, "", "b1", model.DeleteOptions{})
	require.NoError(t, err)
	assert.Equal(t, []string{"r/a=1"}, zones())

	require.NoError(t, w.AddNode("b2", "b", "r", model.ConditionTrue, nil, true))
	assert.Equal(t, []string{"r/a=1", "r/b=1"}, zones())
}
