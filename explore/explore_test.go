package explore

import (
	"context"
	_ "embed"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/scenarios"
	"github.com/reconsim/reconsim/sim"
	"github.com/reconsim/reconsim/sim/client"
	"github.com/reconsim/reconsim/sim/cluster"
	"github.com/reconsim/reconsim/vtime"
)

// planted is a controller with the bug Sieve's intermediate-state testing finds: at 30 s it
// creates a pod bound to worker-0 (3 of its 4 CPUs), then records that it did by creating the
// namespace planted-done. It checks only the record, not for its pod, so a restart between
// the two writes makes it create the pod a second time: worker-0 is then asked for 6 CPUs,
// which breaks node-within-allocatable.
type planted struct {
	k    *sim.Kernel
	c    *client.Client
	proc *sim.Proc
}

func (p *planted) Start() {
	p.proc = p.k.Spawn("planted-controller", func(ctx *sim.Proc) {
		ctx.SleepUntil(vtime.FromDuration(30 * time.Second))
		if _, err := p.c.Get(ctx, model.KindNamespace, "", "planted-done"); err == nil {
			return
		}
		pod := &model.Pod{ObjectMeta: model.ObjectMeta{GenerateName: "planted-", Namespace: "default", Labels: map[string]string{"app": "planted"}}}
		pod.Spec.NodeName = "worker-0"
		pod.Spec.Containers = []model.Container{{Name: "c", Image: "planted:1", Resources: model.ResourceRequirements{
			Requests: model.ResourceList{model.ResourceCPU: resource.MustParse("3"), model.ResourceMemory: resource.MustParse("1Gi")}}}}
		if _, err := p.c.Create(ctx, pod); err != nil {
			return
		}
		_, _ = p.c.Create(ctx, &model.Namespace{ObjectMeta: model.ObjectMeta{Name: "planted-done"}})
	})
}

func (p *planted) Stop() {
	if p.proc != nil {
		p.proc.Kill()
	}
}

var plantedController = cluster.Controller{Name: "planted-controller", Build: func(k *sim.Kernel, c *client.Client, _ *client.SharedInformerFactory) (cluster.Runnable, error) {
	return &planted{k: k, c: c}, nil
}}

//go:embed testdata/planted.yaml
var plantedScenario string

func search(t *testing.T, opts Options) *Result {
	t.Helper()
	opts.Controllers = []cluster.Controller{plantedController}
	opts.Jobs = 2
	s, err := Prepare(context.Background(), "planted.yaml", []byte(plantedScenario), "", opts)
	require.NoError(t, err)
	runs, err := s.Execute(context.Background())
	require.NoError(t, err)
	res, err := s.Finish(context.Background(), runs)
	require.NoError(t, err)
	return res
}

// TestIntermediateStrategyFindsPlantedBug: restarting each controller right after each of its
// writes finds the planted double create; random search, given as many runs, does not.
func TestIntermediateStrategyFindsPlantedBug(t *testing.T) {
	targeted := search(t, Options{Strategy: StrategyIntermediate, Seed: 1, MaxShrinkRuns: 10})
	assert.Equal(t, 2, targeted.ReferenceWrites["planted-controller"], "the reference run sees the two writes")
	require.Len(t, targeted.Findings, 1, "%+v", targeted.Summary)
	f := targeted.Findings[0]
	assert.Equal(t, scenarios.InvariantNodeWithinAllocatable, f.Invariant)
	assert.Equal(t, "intermediate-planted-controller-1", f.FirstRun, "the restart right after the first write")
	assert.Equal(t, 1, f.Runs, "only that decision point")
	require.Len(t, f.Reproducer.Faults, 1)
	assert.Equal(t, Fault{Action: "controller-restart", Write: 1, By: "planted-controller", Component: "planted-controller"}, f.Reproducer.Faults[0])
	assert.True(t, f.Reproducer.Verified)
	assert.Contains(t, string(f.Reproducer.yaml), "at: {write: 1, by: planted-controller}")

	budget := targeted.Summary.ByStrategy[StrategyIntermediate].Runs
	require.Greater(t, budget, 10)
	random := search(t, Options{Strategy: StrategyRandom, Runs: budget, Seed: 1, MaxShrinkRuns: 10})
	assert.Equal(t, budget, random.Summary.ByStrategy[StrategyRandom].Runs)
	assert.Empty(t, random.Findings, "random restarts in a 2-minute window miss the gap between two writes")
	restarts := random.Summary.ByAction["controller-restart"].Runs
	assert.Equal(t, budget, restarts, "every random run restarted something")
}

// TestPlanIsAFunctionOfSeedAndIndex: the random runs' faults and seeds depend only on the
// explore seed and the run index.
func TestPlanIsAFunctionOfSeedAndIndex(t *testing.T) {
	scn, _, err := scenarios.ParseWith("planted.yaml", []byte(plantedScenario), "", scenarios.ParseOptions{Controllers: []string{"planted-controller"}})
	require.NoError(t, err)
	a, err := plan(scn, StrategyRandom, 20, 7, nil)
	require.NoError(t, err)
	b, err := plan(scn, StrategyRandom, 30, 7, nil)
	require.NoError(t, err)
	assert.Equal(t, a, b[:21], "more runs only append")
	c, err := plan(scn, StrategyRandom, 20, 8, nil)
	require.NoError(t, err)
	assert.NotEqual(t, a[1].Seed, c[1].Seed, "another explore seed draws other runs")
	for _, r := range a[1:] {
		require.Len(t, r.Faults, 1)
		assert.GreaterOrEqual(t, r.Faults[0].At, Duration(0))
		assert.LessOrEqual(t, r.Faults[0].At, Duration(2*time.Minute))
	}
}

// TestRenderedRunsParse: every fault kind renders to a timeline entry the loader accepts.
func TestRenderedRunsParse(t *testing.T) {
	src, err := newSource("planted.yaml", []byte(plantedScenario), "")
	require.NoError(t, err)
	faults := []Fault{
		{Action: "node-crash", At: Duration(time.Second), Nodes: []string{"worker-0"}, Heal: Duration(time.Minute)},
		{Action: "node-partition", At: Duration(2 * time.Second), Nodes: []string{"worker-1"}},
		{Action: "node-recover", At: Duration(3 * time.Second), Nodes: []string{"worker-1"}},
		{Action: "node-delete", At: Duration(4 * time.Second), Nodes: []string{"worker-1"}},
		{Action: "kubelet-stall", At: Duration(5 * time.Second), Nodes: []string{"worker-0"}, For: Duration(time.Second)},
		{Action: "controller-restart", Write: 2, By: "replicaset-controller", Component: "replicaset-controller", Downtime: Duration(time.Second)},
		{Action: "watch-stall", At: Duration(6 * time.Second), Component: "kube-scheduler", For: Duration(time.Second)},
		{Action: "watch-coalesce", Write: 1, By: "kube-scheduler", Component: "kube-scheduler", For: Duration(time.Second)},
		{Action: "api-errors", At: Duration(7 * time.Second), Code: 503, For: Duration(time.Second), Clients: []string{"kubelet/*"}},
		{Action: "api-latency", At: Duration(8 * time.Second), Latency: Duration(time.Second), For: Duration(time.Second)},
	}
	data, err := src.render(variant{seed: 42, faults: faults, dropped: []int{0}})
	require.NoError(t, err)
	scn, _, err := scenarios.ParseWith("rendered.yaml", data, "", scenarios.ParseOptions{Controllers: []string{"planted-controller"}})
	require.NoError(t, err, "%s", data)
	assert.Equal(t, uint64(42), scn.Seed)
	assert.Empty(t, scn.Objects, "objects[0] dropped")
	require.Len(t, scn.Timeline, len(faults)+1, "each fault, plus the crash's heal")
	assert.Equal(t, "explore-fault-1-heal", scn.Timeline[1].Name)
	assert.Equal(t, 2, scn.Timeline[6].At.Write)
	assert.True(t, strings.HasPrefix(string(data), "apiVersion:"), "the original's keys and order")
}

// fragile writes once, and panics when it is started a second time in a run (after a
// restart).
type fragile struct {
	k      *sim.Kernel
	c      *client.Client
	starts map[*sim.Kernel]int
}

func (f *fragile) Start() {
	f.starts[f.k]++
	if f.starts[f.k] > 1 {
		f.k.Spawn("fragile", func(*sim.Proc) { panic("fragile started twice") })
		return
	}
	f.k.Spawn("fragile", func(p *sim.Proc) {
		_, _ = f.c.Create(p, &model.Namespace{ObjectMeta: model.ObjectMeta{Name: "fragile"}})
	})
}

func (f *fragile) Stop() {}

// TestPanicIsAFinding: a run whose simulation panics is a finding with its seed and a
// reproducer, and the search goes on.
func TestPanicIsAFinding(t *testing.T) {
	starts := map[*sim.Kernel]int{} // Jobs 1: one run at a time
	ctrl := cluster.Controller{Name: "planted-controller", Build: func(k *sim.Kernel, c *client.Client, _ *client.SharedInformerFactory) (cluster.Runnable, error) {
		return &fragile{k: k, c: c, starts: starts}, nil
	}}
	text := strings.Replace(plantedScenario, "  invariants:", "  controllers: [planted-controller, replicaset-controller]\n  invariants:", 1)
	s, err := Prepare(context.Background(), "panic.yaml", []byte(text), "", Options{Strategy: StrategyIntermediate, Jobs: 1, Controllers: []cluster.Controller{ctrl}, MaxShrinkRuns: 5})
	require.NoError(t, err)
	runs, err := s.Execute(context.Background())
	require.NoError(t, err)
	require.Greater(t, len(runs), 2, "the search goes on past the panic")
	res, err := s.Finish(context.Background(), runs)
	require.NoError(t, err)
	require.Len(t, res.Findings, 1)
	f := res.Findings[0]
	assert.Equal(t, InvariantPanic, f.Invariant)
	assert.Contains(t, f.Message, "fragile started twice")
	assert.Equal(t, "intermediate-planted-controller-1", f.FirstRun)
	assert.Equal(t, 1, f.Runs)
	assert.True(t, f.Reproducer.Verified)
	assert.Contains(t, runs[1].Error, "fragile started twice")
}
