package cluster

import (
	_ "embed"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/report"
	"github.com/reconsim/reconsim/scenarios"
	"github.com/reconsim/reconsim/sim"
	"github.com/reconsim/reconsim/sim/client"
	"github.com/reconsim/reconsim/vtime"
)

// oneShot is a test controller that runs act once, at a virtual time.
type oneShot struct {
	k    *sim.Kernel
	at   time.Duration
	act  func(p *sim.Proc)
	proc *sim.Proc
}

func (o *oneShot) Start() {
	o.proc = o.k.Spawn("one-shot", func(p *sim.Proc) {
		p.SleepUntil(vtime.FromDuration(o.at))
		o.act(p)
	})
}

func (o *oneShot) Stop() { o.proc.Kill() }

func oneShotController(name string, at time.Duration, act func(p *sim.Proc, c *client.Client)) Controller {
	return Controller{Name: name, Build: func(k *sim.Kernel, c *client.Client, _ *client.SharedInformerFactory) (Runnable, error) {
		return &oneShot{k: k, at: at, act: func(p *sim.Proc) { act(p, c) }}, nil
	}}
}

func invariantResult(t *testing.T, res *report.Result, name string) report.ExpectationResult {
	t.Helper()
	for _, e := range res.Expectations {
		if e.Name == InvariantPrefix+name {
			return e
		}
	}
	t.Fatalf("no result for invariant %s in %+v", name, res.Expectations)
	return report.ExpectationResult{}
}

//go:embed testdata/stateful-set.yaml
var statefulSetScenario string

// TestStatefulSetOrdinalOnce: a controller that force-deletes the StatefulSet's pods on
// partitioned nodes makes the set run an ordinal twice (the partitioned kubelets keep their
// copies running); without it the invariant holds.
func TestStatefulSetOrdinalOnce(t *testing.T) {
	scn := parseScenario(t, statefulSetScenario)
	res, err := checkedRun(t, scn, Options{})
	require.NoError(t, err)
	assert.True(t, invariantResult(t, res, scenarios.InvariantStatefulSetOrdinalOnce).Passed, "upstream rules keep the ordinal single")

	forceDelete := oneShotController("force-deleter", 3*time.Minute, func(p *sim.Proc, c *client.Client) {
		pods, _, err := c.List(p, model.KindPod, model.ListOptions{Namespace: "default"})
		require.NoError(t, err)
		for _, o := range pods {
			if pod := o.(*model.Pod); pod.Spec.NodeName != "worker-2" {
				require.NoError(t, c.Delete(p, model.KindPod, "default", pod.Name, model.DeleteOptions{GracePeriodSeconds: model.Ptr(int64(0))}))
			}
		}
	})
	res, err = checkedRun(t, parseScenario(t, statefulSetScenario), Options{Controllers: []Controller{forceDelete}})
	require.NoError(t, err)
	r := invariantResult(t, res, scenarios.InvariantStatefulSetOrdinalOnce)
	assert.False(t, r.Passed)
	assert.Regexp(t, `pod default/db-\d \(StatefulSet db\) runs on 2 nodes at once: worker-[01], worker-2`, r.Message)
	assert.False(t, res.Passed, "a broken invariant fails the run")
}

//go:embed testdata/pdb.yaml
var pdbScenario string

// TestPDBRespected: an eviction the API server allows because a controller wrote a wrong
// disruptionsAllowed into the budget's status (while the disruption controller is down and
// cannot correct it) breaks pdb-respected; an eviction it refuses does not.
func TestPDBRespected(t *testing.T) {
	evict := func(corrupt bool) Controller {
		return oneShotController("evictor", time.Minute, func(p *sim.Proc, c *client.Client) {
			pods, _, err := c.List(p, model.KindPod, model.ListOptions{Namespace: "default"})
			require.NoError(t, err)
			if corrupt {
				obj, err := c.Get(p, model.KindPodDisruptionBudget, "default", "web")
				require.NoError(t, err)
				pdb := obj.(*model.PodDisruptionBudget)
				pdb.Status.DisruptionsAllowed = 3
				_, err = c.UpdateStatus(p, pdb)
				require.NoError(t, err)
			}
			err = c.Evict(p, "default", pods[0].Meta().Name, nil)
			assert.Equal(t, corrupt, err == nil, "evicted: %v", err)
		})
	}
	res, err := checkedRun(t, parseScenario(t, pdbScenario), Options{Controllers: []Controller{evict(false)}})
	require.NoError(t, err)
	assert.True(t, invariantResult(t, res, scenarios.InvariantPDBRespected).Passed)

	res, err = checkedRun(t, parseScenario(t, pdbScenario), Options{Controllers: []Controller{evict(true)}})
	require.NoError(t, err)
	r := invariantResult(t, res, scenarios.InvariantPDBRespected)
	assert.False(t, r.Passed)
	assert.Contains(t, r.Message, "left 2 healthy pods under PodDisruptionBudget default/web, which wants 3")
}

// TestConvergesInvariant: a scenario that never converges breaks converges; one that does
// within settle holds it.
func TestConvergesInvariant(t *testing.T) {
	scn := loadBuiltin(t, "impossible-spec")
	scn.Explore = &scenarios.Explore{Invariants: []string{scenarios.InvariantConverges}, Settle: time.Minute}
	res, err := checkedRun(t, scn, Options{})
	require.NoError(t, err)
	r := invariantResult(t, res, scenarios.InvariantConverges)
	assert.False(t, r.Passed)
	assert.Contains(t, r.Message, "had not converged")

	scn = loadBuiltin(t, "node-failure")
	scn.Explore = &scenarios.Explore{Invariants: []string{scenarios.InvariantConverges}, Settle: 10 * time.Minute}
	res, err = checkedRun(t, scn, Options{})
	require.NoError(t, err)
	assert.True(t, invariantResult(t, res, scenarios.InvariantConverges).Passed)
	scn.Explore.Settle = time.Minute
	res, err = checkedRun(t, scn, Options{})
	require.NoError(t, err)
	r = invariantResult(t, res, scenarios.InvariantConverges)
	assert.False(t, r.Passed, "node-failure takes about 5m50s to converge after the crash")
	assert.Contains(t, r.Message, "later than settle (1m0s)")
}

// TestNoLostUpdateChecksTheStore: the end-of-run check compares each object's last
// acknowledged write with what the store returns.
func TestNoLostUpdateChecksTheStore(t *testing.T) {
	scn := loadBuiltin(t, "node-failure")
	scn.Explore = &scenarios.Explore{Invariants: []string{scenarios.InvariantNoLostUpdate}}
	res, err := checkedRun(t, scn, Options{})
	require.NoError(t, err)
	assert.True(t, invariantResult(t, res, scenarios.InvariantNoLostUpdate).Passed)

	w, err := build(scn, 1, Options{})
	require.NoError(t, err)
	require.NoError(t, w.createObjects())
	w.inv.written["ReplicaSet/default/web"] = 1 // an acknowledged write the store does not hold
	w.inv.checkWritten()
	assert.Contains(t, w.inv.failed[scenarios.InvariantNoLostUpdate], "ReplicaSet default/web: the last acknowledged write has resourceVersion 1, a read returns")
}

//go:embed testdata/at-write.yaml
var atWriteScenario string

// TestAtWrite: an entry at {write: k, by: C} runs right after C's k-th acknowledged write,
// and never when C writes fewer times.
func TestAtWrite(t *testing.T) {
	var trace strings.Builder
	var writes map[string]int
	res, err := checkedRun(t, parseScenario(t, atWriteScenario), Options{Trace: &trace, Writes: func(c map[string]int) { writes = c }})
	require.NoError(t, err)
	var ran []string
	for _, c := range res.Convergence {
		ran = append(ran, c.Name)
	}
	assert.Equal(t, []string{"start", "second"}, ran)
	assert.Greater(t, writes["replicaset-controller"], 3)
	assert.Equal(t, writes["kube-controller-manager"], writes["replicaset-controller"]+writes["garbage-collector-controller"]+writes["endpointslice-controller"]+
		writes["deployment-controller"]+writes["statefulset-controller"]+writes["daemonset-controller"]+writes["disruption-controller"]+
		writes["node-lifecycle-controller"]+writes["taint-eviction-controller"]+writes["pod-garbage-collector-controller"]+writes["horizontal-pod-autoscaler-controller"],
		"kube-controller-manager counts every controller's writes")
	// The restart comes right after the second pod creation: between the two, no third.
	lines := strings.Split(trace.String(), "\n")
	creates, stopAt := 0, -1
	for i, l := range lines {
		if strings.Contains(l, "component-stop") && strings.Contains(l, "replicaset-controller") {
			stopAt = i
			break
		}
		if strings.Contains(l, "kube-apiserver create Pod ") { // only the ReplicaSet controller creates pods here
			creates++
		}
	}
	require.GreaterOrEqual(t, stopAt, 0, "the restart ran")
	assert.Equal(t, 2, creates, "the restart follows the second write")
}

// TestPodBoundOnceSeesAMove feeds the observer's commit hook pod writes: binding a pod or
// keeping its node passes; moving it, or unbinding it (which the API server's validation
// forbids as well), breaks pod-bound-once.
func TestPodBoundOnceSeesAMove(t *testing.T) {
	pod := func(node string, rv uint64) model.Object {
		p := &model.Pod{}
		p.Namespace, p.Name, p.UID, p.ResourceVersion = "default", "a", "uid-a", rv
		p.Spec.NodeName = node
		return p
	}
	cases := []struct {
		name     string
		old, new model.Object
		want     string
	}{
		{"created bound", nil, pod("n1", 2), ""},
		{"bound", pod("", 1), pod("n1", 2), ""},
		{"stays on its node", pod("n1", 1), pod("n1", 2), ""},
		{"deleted", pod("n1", 1), nil, ""},
		{"moves", pod("n1", 1), pod("n2", 2), `pod default/a moved from node n1 to "n2"`},
		{"unbound", pod("n1", 1), pod("", 2), `pod default/a moved from node n1 to ""`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o := newObserver(&world{k: sim.New(1)})
			o.checkInvariants(model.KindPod, c.old, c.new)
			if c.want == "" {
				assert.Empty(t, o.violations)
				return
			}
			require.Len(t, o.violations, 1)
			assert.Contains(t, o.violations[0], c.want)
		})
	}
}
