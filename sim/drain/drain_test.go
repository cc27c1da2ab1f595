package drain

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim"
	"github.com/reconsim/reconsim/sim/apiserver"
	"github.com/reconsim/reconsim/sim/client"
	"github.com/reconsim/reconsim/vtime"
)

func TestOptionsValidate(t *testing.T) {
	def := DefaultOptions()
	require.NoError(t, def.Validate())
	assert.Equal(t, -1, def.GracePeriodSeconds, "kubectl's --grace-period default")
	assert.Equal(t, time.Duration(0), def.Timeout, "kubectl's --timeout default: forever")
	assert.True(t, def.IgnoreAllDaemonSets, "the model's deliberate default")
	tests := []struct {
		name   string
		mutate func(o *Options)
		want   string
	}{
		{"negative timeout", func(o *Options) { o.Timeout = -time.Second }, "--timeout"},
		{"huge grace", func(o *Options) { o.GracePeriodSeconds = 1 << 30 }, "--grace-period"},
		{"negative skip", func(o *Options) { o.SkipWaitForDeleteTimeoutSeconds = -1 }, "--skip-wait-for-delete-timeout"},
		{"bad selector", func(o *Options) { o.PodSelector = "a in (" }, "--pod-selector"},
	}
	for _, tc := range tests {
		o := DefaultOptions()
		tc.mutate(&o)
		assert.ErrorContains(t, o.Validate(), tc.want, tc.name)
	}
}

func TestNewErrors(t *testing.T) {
	k := sim.New(1)
	c := client.New(apiserver.NewServer(k, apiserver.DefaultConfig()), "kubectl", client.Config{QPS: -1})
	_, err := New(nil, "n", DefaultOptions())
	assert.Error(t, err)
	_, err = New(c, "", DefaultOptions())
	assert.Error(t, err)
	bad := DefaultOptions()
	bad.Timeout = -1
	_, err = New(c, "n", bad)
	assert.Error(t, err)

	d, err := New(c, "missing", DefaultOptions())
	require.NoError(t, err)
	var first, second error
	k.Spawn("drain", func(p *sim.Proc) {
		first = d.Run(p)
		second = d.Run(p)
	})
	k.Run(sim.Limits{MaxTime: vtime.Time(time.Second)})
	assert.ErrorContains(t, first, `nodes "missing" not found`)
	assert.ErrorContains(t, second, "Run called twice")
	assert.Equal(t, PhaseFailed, d.Status().Phase)
}

// TestBlockedDrainLetsTheWorldBeQuiescent checks that a drain a budget blocks for good does
// not keep the run alive: its retries are idle waits, so the kernel stops as quiescent, and
// the drainer's status says what it is waiting for.
func TestBlockedDrainLetsTheWorldBeQuiescent(t *testing.T) {
	w := newWorld(t)
	w.addNode("node-x", false)
	for _, name := range []string{"a", "b"} {
		p := &model.Pod{}
		p.Name, p.Namespace, p.Labels = name, testNS, map[string]string{"app": "db"}
		p.Spec.NodeName = "node-x"
		p.Spec.Containers = []model.Container{{Name: "db", Image: "registry.example/db:1"}}
		created, err := w.Store.Create(p)
		require.NoError(t, err)
		p = created.(*model.Pod).DeepCopy()
		p.Status.Phase = model.PodRunning
		p.Status.Conditions = []model.PodCondition{{Type: model.PodReady, Status: model.ConditionTrue}}
		_, err = w.Store.UpdateStatus(p)
		require.NoError(t, err)
	}
	pdb := &model.PodDisruptionBudget{}
	pdb.Name, pdb.Namespace = "db-pdb", testNS
	pdb.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": "db"}}
	pdb.Spec.MinAvailable = model.Ptr(intstr.FromInt32(2))
	_, err := w.Store.Create(pdb)
	require.NoError(t, err)
	w.Run(time.Second)

	opts := DefaultOptions()
	opts.Force = true
	w.startDrain("node-x", opts)
	out := w.K.Run(sim.Limits{MaxTime: w.K.Now().Add(time.Hour), QuiescenceWindow: time.Minute})
	require.Equal(t, sim.StopQuiescent, out.Reason, out.Detail)
	assert.Less(t, out.At.Duration(), 5*time.Minute, "stopped long before the time limit")

	st := w.drainers[0].Status()
	assert.Equal(t, PhaseEvicting, st.Phase)
	assert.True(t, st.Cordoned)
	require.Len(t, st.Pods, 2)
	for _, p := range st.Pods {
		assert.Equal(t, PodWaiting, p.State, p.Name)
		assert.GreaterOrEqual(t, p.Refusals, 10, p.Name)
		assert.Contains(t, p.LastRefusal, "The disruption budget db-pdb needs 2 healthy pods and has 2 currently")
	}
	assert.NotContains(t, w.drainErr, "node-x", "Run has not returned")
}
