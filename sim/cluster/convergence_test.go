package cluster

import (
	"testing"

	"github.com/stretchr/testify/assert"
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
