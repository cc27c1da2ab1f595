package scheduler

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim"
	"github.com/reconsim/reconsim/vtime"
)

// randomCluster fills w with nodes and pods drawn from r and plays a minute of churn: pods
// created and deleted, nodes cordoned, tainted, resized and relabelled. It returns after
// running the world for the given virtual time.
func randomCluster(t testing.TB, w *world, r *rand.Rand, nodes, pods int, runFor time.Duration) {
	taintKeys := []string{"dedicated", model.TaintNodeUnreachable, "spot"}
	effects := []model.TaintEffect{model.TaintEffectNoSchedule, model.TaintEffectNoExecute, model.TaintEffectPreferNoSchedule}
	zones := []string{"a", "b", "c"}
	randomTaints := func() []model.Taint {
		var out []model.Taint
		if r.IntN(3) == 0 {
			out = append(out, model.Taint{Key: taintKeys[r.IntN(len(taintKeys))], Effect: effects[r.IntN(len(effects))]})
		}
		return out
	}
	for i := range nodes {
		n := testNode(fmt.Sprintf("node-%02d", i), fmt.Sprintf("%d", 2+r.IntN(6)), fmt.Sprintf("%dGi", 4+r.IntN(12)), 5+r.IntN(20))
		n.UID = ""
		n.Labels = map[string]string{"zone": zones[r.IntN(len(zones))]}
		n.Spec.Taints = randomTaints()
		n.Spec.Unschedulable = r.IntN(8) == 0
		_, err := w.Store.Create(n)
		require.NoError(t, err)
	}
	newPod := func(i int) *model.Pod {
		p := testPod(fmt.Sprintf("pod-%03d", i), "cpu", fmt.Sprintf("%dm", 100*(1+r.IntN(20))), "memory", fmt.Sprintf("%dMi", 128*(1+r.IntN(16))))
		p.UID = ""
		if r.IntN(4) == 0 {
			p.Spec.Tolerations = []model.Toleration{{Key: taintKeys[r.IntN(len(taintKeys))], Operator: TolerationOpExists}}
		}
		if r.IntN(5) == 0 {
			p.Spec.NodeSelector = map[string]string{"zone": zones[r.IntN(len(zones))]}
		}
		if r.IntN(6) == 0 {
			p.Spec.Priority = model.Ptr(int32(r.IntN(3) * 100))
		}
		return p
	}
	next := 0
	for ; next < pods; next++ {
		_, err := w.Store.Create(newPod(next))
		require.NoError(t, err)
	}
	end := w.K.Now().Add(runFor)
	for w.K.Now() < end {
		step := time.Duration(100+r.IntN(900)) * time.Millisecond
		w.Run(step)
		switch r.IntN(4) {
		case 0:
			_, err := w.Store.Create(newPod(next))
			require.NoError(t, err)
			next++
		case 1:
			name := fmt.Sprintf("pod-%03d", r.IntN(next))
			_, err := w.Store.Delete(model.KindPod, "default", name, model.DeleteOptions{GracePeriodSeconds: model.Ptr(int64(0))})
			if err != nil {
				require.Contains(t, err.Error(), "not found")
			}
		case 2:
			obj, err := w.Store.Get(model.KindNode, "", fmt.Sprintf("node-%02d", r.IntN(nodes)))
			require.NoError(t, err)
			n := obj.DeepCopyObject().(*model.Node)
			n.Spec.Unschedulable = r.IntN(4) == 0
			n.Spec.Taints = randomTaints()
			n.Labels = map[string]string{"zone": zones[r.IntN(len(zones))]}
			_, err = w.Store.Update(n)
			require.NoError(t, err)
		case 3:
			obj, err := w.Store.Get(model.KindNode, "", fmt.Sprintf("node-%02d", r.IntN(nodes)))
			require.NoError(t, err)
			n := obj.DeepCopyObject().(*model.Node)
			// Allocatable only grows: shrinking it under bound pods is the kubelet's problem,
			// and would break the capacity invariant without any scheduler fault.
			cpu := n.Status.Allocatable[model.ResourceCPU]
			cpu.Add(resource.MustParse(fmt.Sprintf("%d", 1+r.IntN(3))))
			n.Status.Allocatable[model.ResourceCPU] = cpu
			_, err = w.Store.UpdateStatus(n)
			require.NoError(t, err)
		}
	}
}

// TestRandomClustersKeepInvariants checks, over random clusters with churn, the invariants of
// checkInvariants after every step (resourceVersions grow, a pod is bound once and never
// moved, no node holds more than its allocatable) and that the scheduler's books balance.
func TestRandomClustersKeepInvariants(t *testing.T) {
	for seed := uint64(1); seed <= 12; seed++ {
		t.Run(fmt.Sprintf("seed-%d", seed), func(t *testing.T) {
			w := newWorldConfig(t, seed, DefaultConfig())
			r := sim.NewRand(seed, "random-cluster")
			randomCluster(t, w, r, 8, 40, time.Minute)
			st := w.s.Stats()
			assert.Equal(t, st.Attempts, st.Scheduled+st.Unschedulable+st.Errors+attemptsInFlight(w), "every attempt ends one way")
			bound := 0
			for _, p := range w.pods() {
				if p.Spec.NodeName != "" {
					bound++
				}
			}
			assert.Positive(t, bound)
			q := w.s.QueueLengths()
			pending := len(w.pods()) - bound
			assert.LessOrEqual(t, q.Active+q.Backoff+q.Unschedulable, pending, "the queue holds only unbound pods")
		})
	}
}

// attemptsInFlight counts the attempts not finished yet (a cycle or a binding in progress).
func attemptsInFlight(w *world) uint64 {
	n := 0
	for _, p := range w.s.queue.pods { //detlint:ordered counting
		if p.where == inFlight {
			n++
		}
	}
	return uint64(n)
}

func TestSameSeedSameTrace(t *testing.T) {
	run := func(seed uint64) (uint64, string) {
		w := newWorldConfig(t, seed, DefaultConfig())
		randomCluster(t, w, sim.NewRand(seed, "random-cluster"), 10, 60, 30*time.Second)
		return w.K.Trace().Hash(), w.placement()
	}
	h1, p1 := run(3)
	h2, p2 := run(3)
	assert.Equal(t, h1, h2)
	assert.Equal(t, p1, p2)
}

// BenchmarkSchedulePod measures one scheduling cycle's algorithm (filters, scores, selection)
// on clusters of growing size, half full.
func BenchmarkSchedulePod(b *testing.B) {
	for _, n := range []int{100, 1000, 5000} {
		b.Run(fmt.Sprintf("nodes=%d", n), func(b *testing.B) {
			nodes := make([]*NodeInfo, n)
			for i := range nodes {
				nodes[i] = nodeInfoWith(testNode(fmt.Sprintf("n%05d", i), "8", "32Gi", 110),
					testPod(fmt.Sprintf("a%05d", i), "cpu", "2", "memory", "8Gi"), testPod(fmt.Sprintf("b%05d", i), "cpu", "2", "memory", "8Gi"))
			}
			pod := testPod("p", "cpu", "500m", "memory", "1Gi")
			r := sim.NewRand(1, "bench")
			next := 0
			b.ResetTimer()
			for range b.N {
				s := newCycleState(pod)
				if _, _, _, err := schedulePod(s, nodes, 0, &next, r); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkSchedulerWorld schedules 1000 pods on 100 nodes through the API server, informers,
// queue and binder, and reports simulated pods per wall second and the virtual time taken.
func BenchmarkSchedulerWorld(b *testing.B) {
	const nodes, pods = 100, 1000
	var virtual time.Duration
	for range b.N {
		w := newWorldConfig(b, 1, DefaultConfig())
		w.K.Trace().SetWriter(nil)
		for i := range nodes {
			n := testNode(fmt.Sprintf("n%03d", i), "32", "128Gi", 110)
			n.UID = ""
			if _, err := w.Store.Create(n); err != nil {
				b.Fatal(err)
			}
		}
		for i := range pods {
			p := testPod(fmt.Sprintf("p%04d", i), "cpu", "500m", "memory", "1Gi")
			p.UID = ""
			if _, err := w.Store.Create(p); err != nil {
				b.Fatal(err)
			}
		}
		out := w.K.Run(sim.Limits{MaxTime: vtime.FromDuration(10 * time.Minute), QuiescenceWindow: 5 * time.Second})
		if w.s.Stats().Scheduled != pods {
			b.Fatalf("scheduled %d of %d pods (%s)", w.s.Stats().Scheduled, pods, out.Reason)
		}
		virtual = w.K.LastActivity().Duration()
	}
	b.ReportMetric(float64(pods*b.N)/b.Elapsed().Seconds(), "pods/s")
	b.ReportMetric(virtual.Seconds(), "virtual-s")
}

// TestOwnerSelectorKeptAcrossStatusUpdates: the default spreading selector of a ReplicaSet's
// pod is the ReplicaSet's selector, parsed once: a status update (a new version with the same
// immutable selector) keeps the parsed selector, and the cache then holds the new version.
func TestOwnerSelectorKeptAcrossStatusUpdates(t *testing.T) {
	w := newWorldConfig(t, 1, DefaultConfig())
	rs := &model.ReplicaSet{}
	rs.Namespace, rs.Name = "default", "web"
	rs.Spec.Replicas = model.Ptr(int32(1))
	rs.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}
	rs.Spec.Template.Labels = map[string]string{"app": "web"}
	rs.Spec.Template.Spec.Containers = []model.Container{{Name: "app", Image: "app:1"}}
	obj, err := w.Store.Create(rs)
	require.NoError(t, err)
	created := obj.(*model.ReplicaSet)
	w.Run(time.Second)
	pod := testPod("web-1", "cpu", "100m")
	pod.Labels = map[string]string{"app": "web"}
	pod.OwnerReferences = []model.OwnerReference{{APIVersion: "apps/v1", Kind: model.KindReplicaSet, Name: "web", UID: created.UID, Controller: model.Ptr(true)}}
	l := w.s.listers
	first := l.defaultSelector(pod)
	require.Equal(t, "app=web", first.String())
	require.Equal(t, 1, l.ownerSelectors.Len())

	updated := created.DeepCopy()
	updated.Status.Replicas = 1
	_, err = w.Store.UpdateStatus(updated)
	require.NoError(t, err)
	w.Run(time.Second)
	current, ok := w.s.listers.replicaSets.Get("default", "web")
	require.True(t, ok)
	require.NotSame(t, created, current, "the informer holds a new version")
	parsed := 0
	got, _ := l.ownerSelectors.GetSame(string(created.UID), current, sameOwnerSelector, func(model.Object) (labels.Selector, error) {
		parsed++
		return nil, nil
	})
	require.Zero(t, parsed, "the status update keeps the parsed selector")
	require.Equal(t, "app=web", got.String())
	require.Equal(t, "app=web", l.defaultSelector(pod).String())
	require.False(t, sameOwnerSelector(current, &model.Pod{}), "only ReplicaSets and StatefulSets have an owner selector")
}
