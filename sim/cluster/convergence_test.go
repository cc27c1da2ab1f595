package cluster

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/vtime"
)

func testRS(replicas, ready int32) *model.ReplicaSet {
	return &model.ReplicaSet{
		ObjectMeta: model.ObjectMeta{Name: "web", Namespace: "default", UID: "rs-1", Generation: 1},
		Spec:       model.ReplicaSetSpec{Replicas: &replicas, Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}},
		Status:     model.ReplicaSetStatus{Replicas: ready, ReadyReplicas: ready, AvailableReplicas: ready, ObservedGeneration: 1},
	}
}

func testPod(name, node, phase string, ready bool) *model.Pod {
	st := model.ConditionFalse
	if ready {
		st = model.ConditionTrue
	}
	return &model.Pod{
		ObjectMeta: model.ObjectMeta{Name: name, Namespace: "default", OwnerReferences: []model.OwnerReference{
			{Kind: model.KindReplicaSet, Name: "web", UID: "rs-1", Controller: model.Ptr(true)},
		}},
		Spec:   model.PodSpec{NodeName: node},
		Status: model.PodStatus{Phase: phase, Conditions: []model.PodCondition{{Type: model.PodReady, Status: st}}},
	}
}

func TestConvergenceFollowsPodsStatusAndGroundTruth(t *testing.T) {
	c := newConvergence()
	c.setNodeUp("n1", true)
	c.setNodeUp("n2", true)
	assert.True(t, c.converged(), "an empty cluster is converged")

	c.observe(testRS(2, 0), false)
	assert.False(t, c.converged(), "a ReplicaSet with no pods is not")
	assert.Equal(t, []string{"ReplicaSet default/web"}, c.unsatisfied())

	c.observe(testPod("a", "", model.PodPending, false), false)
	c.observe(testPod("b", "", model.PodPending, false), false)
	assert.Equal(t, 2, c.pending)
	c.observe(testPod("a", "n1", model.PodRunning, true), false)
	c.observe(testPod("b", "n2", model.PodRunning, true), false)
	assert.Equal(t, 0, c.pending)
	assert.False(t, c.converged(), "pods ready but the ReplicaSet status has not caught up")
	c.observe(testRS(2, 2), false)
	assert.True(t, c.converged())

	// The node dies: the API has not noticed, but the pods no longer serve.
	c.setNodeUp("n2", false)
	assert.False(t, c.converged())
	c.setNodeUp("n2", true)
	assert.True(t, c.converged())
	c.setNodeUp("n2", false)

	// Eviction: the pod terminates, a replacement runs on n1.
	b := testPod("b", "n2", model.PodRunning, true)
	b.DeletionTimestamp = model.Ptr(vtime.Time(1))
	c.observe(b, false)
	c.observe(testPod("c", "", model.PodPending, false), false)
	assert.False(t, c.converged())
	c.observe(testPod("c", "n1", model.PodRunning, true), false)
	assert.True(t, c.converged(), "the terminating pod on the dead node does not count against convergence")
	c.observe(b, true)
	assert.True(t, c.converged())

	// Deleting the ReplicaSet removes it from the picture.
	c.observe(testRS(3, 2), false)
	assert.False(t, c.converged())
	c.observe(testRS(3, 2), true)
	assert.True(t, c.converged())
}

// TestConvergenceUpdateInPlaceMatchesRemoveAndAdd is a property test of observePod's in-place
// update (a new version of a pod on the same node under the same owner): on random
// sequences of pod versions (nodes up and down, owners of every kind, phases, readiness,
// deletions), the counts, the tracks, the indexes and the serving callbacks are what
// removing the old version and adding the new one give.
func TestConvergenceUpdateInPlaceMatchesRemoveAndAdd(t *testing.T) {
	owners := []model.OwnerReference{
		{Kind: model.KindReplicaSet, Name: "web", UID: "rs-1", Controller: model.Ptr(true)},
		{Kind: model.KindReplicaSet, Name: "api", UID: "rs-2", Controller: model.Ptr(true)},
		{Kind: model.KindStatefulSet, Name: "db", UID: "ss-1", Controller: model.Ptr(true)},
		{Kind: model.KindJob, Name: "batch", UID: "job-1", Controller: model.Ptr(true)},
		{Kind: model.KindReplicaSet, Name: "web", UID: "rs-1"}, // not a controller
	}
	phases := []string{model.PodPending, model.PodRunning, model.PodSucceeded, model.PodFailed, ""}
	for seed := uint64(1); seed <= 50; seed++ {
		r := rand.New(rand.NewPCG(seed, 3))
		fast, slow := newConvergence(), newConvergence()
		var fastCalls, slowCalls []string
		fast.onServing = func(t *rsTrack) { fastCalls = append(fastCalls, fmt.Sprint(t.name, t.good)) }
		slow.onServing = func(t *rsTrack) { slowCalls = append(slowCalls, fmt.Sprint(t.name, t.good)) }
		for _, c := range []*convergence{fast, slow} {
			c.setNodeUp("n1", true)
			c.setNodeUp("n2", true)
			c.observe(testRS(3, 3), false)
			rs2 := testRS(2, 2)
			rs2.Name, rs2.UID = "api", "rs-2"
			c.observe(rs2, false)
		}
		for i := range 400 {
			p := testPod(fmt.Sprint("p", r.IntN(6)), []string{"", "n1", "n2", "n3"}[r.IntN(4)], phases[r.IntN(len(phases))], r.IntN(3) > 0)
			p.OwnerReferences = nil
			if k := r.IntN(len(owners) + 1); k < len(owners) {
				p.OwnerReferences = []model.OwnerReference{owners[k]}
			}
			if r.IntN(8) == 0 {
				p.DeletionTimestamp = model.Ptr(vtime.Time(i))
			}
			deleted := r.IntN(10) == 0
			if r.IntN(30) == 0 {
				node, up := []string{"n1", "n2"}[r.IntN(2)], r.IntN(2) == 0
				fast.setNodeUp(node, up)
				slow.setNodeUp(node, up)
			}
			fast.observePod(p, deleted)
			// What observePod did before the in-place update: remove, then add afresh.
			slow.observePod(p, true)
			if !deleted {
				slow.observePod(p, false)
			}
			require.Equal(t, slow.pending, fast.pending, "seed %d step %d", seed, i)
			require.Equal(t, slow.unsettled, fast.unsettled, "seed %d step %d", seed, i)
			require.Equal(t, slow.rs, fast.rs, "seed %d step %d", seed, i)
			require.Equal(t, slow.pods, fast.pods, "seed %d step %d", seed, i)
			require.Equal(t, nonEmptySets(slow.podsOn), nonEmptySets(fast.podsOn), "seed %d step %d", seed, i)
			require.Equal(t, nonEmptySets(slow.podsOf), nonEmptySets(fast.podsOf), "seed %d step %d", seed, i)
		}
		require.Equal(t, slowCalls, fastCalls, "seed %d: the serving callbacks", seed)
	}
}

// nonEmptySets drops the empty sets of an index (removePod leaves some behind).
func nonEmptySets(m map[string]map[string]struct{}) map[string]map[string]struct{} {
	out := map[string]map[string]struct{}{}
	//detlint:ordered copying into a map
	for k, v := range m {
		if len(v) > 0 {
			out[k] = v
		}
	}
	return out
}
