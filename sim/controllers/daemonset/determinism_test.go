package daemonset

import (
	"fmt"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim"
	"github.com/reconsim/reconsim/sim/apiserver"
	"github.com/reconsim/reconsim/sim/internal/testworld"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// runScenario drives a world with nodes nodes: a DaemonSet rolls out everywhere, nodes join,
// one gets an untolerated NoExecute taint, and a rolling update with maxUnavailable 10% runs.
// It returns the trace hash and the number of trace lines.
func runScenario(t testing.TB, nodes int) *world {
	w := newWorld(t, DefaultConfig())
	for i := 0; i < nodes; i++ {
		if _, err := w.Store.Create(testworld.ReadyNode(fmt.Sprintf("node-%03d", i), nil, nil)); err != nil {
			t.Fatalf("add node: %v", err)
		}
	}
	ds := newDaemonSet("agent", "agent:v1")
	ds.Spec.UpdateStrategy.Type = model.RollingUpdateDaemonSetStrategyType
	ds.Spec.UpdateStrategy.RollingUpdate = &model.RollingUpdateDaemonSet{MaxUnavailable: model.Ptr(intstr.FromString("10%"))}
	if _, err := w.Store.Create(ds); err != nil {
		t.Fatalf("create: %v", err)
	}
	w.Run(30 * time.Second)
	for i := nodes; i < nodes+nodes/10; i++ {
		if _, err := w.Store.Create(testworld.ReadyNode(fmt.Sprintf("node-%03d", i), nil, nil)); err != nil {
			t.Fatalf("add node: %v", err)
		}
	}
	n := w.Node("node-000").DeepCopy()
	n.Spec.Taints = []model.Taint{{Key: "maintenance", Effect: model.TaintEffectNoExecute}}
	if _, err := w.Store.Update(n); err != nil {
		t.Fatalf("taint: %v", err)
	}
	w.Run(30 * time.Second)
	cur := w.ds("agent").DeepCopy()
	cur.Spec.Template.Spec.Containers[0].Image = "agent:v2"
	if _, err := w.Store.Update(cur); err != nil {
		t.Fatalf("update: %v", err)
	}
	w.Run(5 * time.Minute)
	st := w.ds("agent").Status
	if st.UpdatedNumberScheduled != st.DesiredNumberScheduled || st.NumberAvailable != st.DesiredNumberScheduled {
		t.Fatalf("rollout did not finish: %s", statusLine(st))
	}
	return w
}

// TestDeterminism: the same calls give the same trace, byte for byte.
func TestDeterminism(t *testing.T) {
	testworld.CheckDeterminism(t, 100, func() *sim.Kernel { return runScenario(t, 20).K })
}

// BenchmarkRollout100Nodes measures a whole scenario over 100 (then 110) nodes.
func BenchmarkRollout100Nodes(b *testing.B) {
	for i := 0; i < b.N; i++ {
		runScenario(b, 100)
	}
}

// TestHandedOverPodsAreNotTouched: the controller hands each created pod over to the client
// (PodControl.Shared), so the API server keeps the very object; with the store's ownership
// check on, a rollout that creates and replaces pods on every node must leave every stored
// object as it was written.
func TestHandedOverPodsAreNotTouched(t *testing.T) {
	w := &world{}
	w.inv = invariants{pods: map[string]*model.Pod{}, surge: map[string]bool{}}
	w.World = testworld.New(t, testworld.Options{Check: w.inv.commit, Server: func(cfg *apiserver.Config) {
		cfg.Store.CheckMutations = true
	}})
	w.startController(DefaultConfig())
	require.True(t, w.dsc.podControl.Shared, "the DaemonSet controller hands its pods over")
	for i := range 3 {
		_, err := w.Store.Create(testworld.ReadyNode(fmt.Sprintf("node-%d", i), nil, nil))
		require.NoError(t, err)
	}
	_, err := w.Store.Create(newDaemonSet("agent", "agent:v1"))
	require.NoError(t, err)
	w.Run(30 * time.Second)
	cur := w.ds("agent").DeepCopy()
	cur.Spec.Template.Spec.Containers[0].Image = "agent:v2"
	_, err = w.Store.Update(cur)
	require.NoError(t, err)
	w.Run(2 * time.Minute)
	st := w.ds("agent").Status
	require.Equal(t, int32(3), st.UpdatedNumberScheduled, "the rollout replaced every pod: %s", statusLine(st))
	assert.Empty(t, w.Store.MutationViolations())
}
