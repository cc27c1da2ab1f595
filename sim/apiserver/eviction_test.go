package apiserver

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim"
	"github.com/reconsim/reconsim/vtime"
)

// runningPod creates pod name with labels app=web, binds it to node-a and sets its phase and
// readiness through the status subresource, as the kubelet would.
func runningPod(t *testing.T, s *Store, name, phase string, ready bool) *model.Pod {
	t.Helper()
	pod := newPod(name)
	pod.Labels = map[string]string{"app": "web"}
	created := mustCreate(t, s, pod)
	bound := copyOf(created)
	bound.Spec.NodeName = "node-a"
	out, err := s.Update(bound)
	require.NoError(t, err)
	st := copyOf(out.(*model.Pod))
	st.Status.Phase = phase
	readyStatus := model.ConditionFalse
	if ready {
		readyStatus = model.ConditionTrue
	}
	st.Status.Conditions = append(st.Status.Conditions, model.PodCondition{Type: model.PodReady, Status: readyStatus})
	out, err = s.UpdateStatus(st)
	require.NoError(t, err)
	return out.(*model.Pod)
}

// budget creates a PodDisruptionBudget selecting sel and gives it status as the disruption
// controller would (observedGeneration current unless stale is set).
func budget(t *testing.T, s *Store, name string, sel map[string]string, status model.PodDisruptionBudgetStatus, stale bool) *model.PodDisruptionBudget {
	t.Helper()
	pdb := &model.PodDisruptionBudget{
		ObjectMeta: model.ObjectMeta{Name: name, Namespace: "default"},
		Spec: model.PodDisruptionBudgetSpec{
			MinAvailable: model.Ptr(intstr.FromInt32(2)),
			Selector:     &metav1.LabelSelector{MatchLabels: sel},
		},
	}
	created := mustCreate(t, s, pdb)
	assert.Equal(t, int64(1), created.Generation, "budgets track generation")
	st := copyOf(created)
	st.Status = status
	if !stale {
		st.Status.ObservedGeneration = created.Generation
	}
	out, err := s.UpdateStatus(st)
	require.NoError(t, err)
	return out.(*model.PodDisruptionBudget)
}

func getPod(t *testing.T, s *Store, name string) *model.Pod {
	t.Helper()
	obj, err := s.Get(model.KindPod, "default", name)
	require.NoError(t, err)
	return obj.(*model.Pod)
}

func getPDB(t *testing.T, s *Store, name string) *model.PodDisruptionBudget {
	t.Helper()
	obj, err := s.Get(model.KindPodDisruptionBudget, "default", name)
	require.NoError(t, err)
	return obj.(*model.PodDisruptionBudget)
}

func disruptionTarget(pod *model.Pod) *model.PodCondition {
	for i := range pod.Status.Conditions {
		if pod.Status.Conditions[i].Type == model.PodDisruptionTarget {
			return &pod.Status.Conditions[i]
		}
	}
	return nil
}

func TestEvictWithoutBudgetDeletesGracefully(t *testing.T) {
	k, s := newTestStore(t, nil)
	k.After(10*time.Second, func() {
		runningPod(t, s, "web-1", model.PodRunning, true)
		budget(t, s, "other", map[string]string{"app": "db"}, model.PodDisruptionBudgetStatus{DisruptionsAllowed: 0}, false)
		out, err := s.Evict("default", "web-1", &model.Eviction{ObjectMeta: model.ObjectMeta{Name: "web-1", Namespace: "default"}})
		require.NoError(t, err)
		pod := out.(*model.Pod)
		require.NotNil(t, pod.DeletionTimestamp, "the pod is marked, not removed: the kubelet has its grace period")
		assert.Equal(t, vtime.FromDuration(40*time.Second), *pod.DeletionTimestamp, "now + terminationGracePeriodSeconds 30")
		assert.Equal(t, int64(30), *pod.DeletionGracePeriodSeconds)
		c := disruptionTarget(getPod(t, s, "web-1"))
		require.NotNil(t, c, "upstream addConditionAndDeletePod marks the pod DisruptionTarget")
		assert.Equal(t, model.ConditionTrue, c.Status)
		assert.Equal(t, "EvictionByEvictionAPI", c.Reason)
		assert.Equal(t, "Eviction API: evicting", c.Message)
		assert.Equal(t, int32(0), getPDB(t, s, "other").Status.DisruptionsAllowed, "a budget that does not select the pod is untouched")
	})
	run(k, 20*time.Second)
}

func TestEvictHonoursDeleteOptions(t *testing.T) {
	_, s := newTestStore(t, nil)
	pod := runningPod(t, s, "web-1", model.PodRunning, true)
	stale := pod.ResourceVersion - 1
	_, err := s.Evict("default", "web-1", &model.Eviction{DeleteOptions: &model.DeleteOptions{Preconditions: &model.Preconditions{ResourceVersion: &stale}}})
	require.Error(t, err)
	assert.True(t, apierrors.IsConflict(err), "%v", err)
	assert.Nil(t, getPod(t, s, "web-1").DeletionTimestamp)

	out, err := s.Evict("default", "web-1", &model.Eviction{DeleteOptions: &model.DeleteOptions{GracePeriodSeconds: model.Ptr(int64(0))}})
	require.NoError(t, err)
	assert.Equal(t, "web-1", out.Meta().Name)
	_, err = s.Get(model.KindPod, "default", "web-1")
	assert.True(t, apierrors.IsNotFound(err), "grace 0 removes the pod at once")
}

func TestEvictRefusedByBudget(t *testing.T) {
	for _, tc := range []struct {
		name        string
		status      model.PodDisruptionBudgetStatus
		stale       bool
		wantCause   string
		wantForbids bool
	}{
		{
			name:      "no disruptions allowed",
			status:    model.PodDisruptionBudgetStatus{DisruptionsAllowed: 0, CurrentHealthy: 2, DesiredHealthy: 2, ExpectedPods: 2},
			wantCause: "The disruption budget web-pdb needs 2 healthy pods and has 2 currently",
		},
		{
			name:      "status not yet observed",
			status:    model.PodDisruptionBudgetStatus{DisruptionsAllowed: 3},
			stale:     true,
			wantCause: "The disruption budget web-pdb is still being processed by the server.",
		},
		{
			name:        "negative disruptions allowed",
			status:      model.PodDisruptionBudgetStatus{DisruptionsAllowed: -1},
			wantForbids: true,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, s := newTestStore(t, nil)
			runningPod(t, s, "web-1", model.PodRunning, true)
			before := budget(t, s, "web-pdb", map[string]string{"app": "web"}, tc.status, tc.stale)
			_, err := s.Evict("default", "web-1", &model.Eviction{})
			require.Error(t, err)
			if tc.wantForbids {
				assert.True(t, apierrors.IsForbidden(err), "%v", err)
			} else {
				assert.True(t, apierrors.IsTooManyRequests(err), "%v", err)
				assert.Equal(t, "Cannot evict pod as it would violate the pod's disruption budget.", err.Error())
				status := err.(apierrors.APIStatus).Status()
				require.NotNil(t, status.Details)
				require.Len(t, status.Details.Causes, 1)
				assert.Equal(t, metav1.CauseType("DisruptionBudget"), status.Details.Causes[0].Type)
				assert.Equal(t, tc.wantCause, status.Details.Causes[0].Message)
				_, retry := apierrors.SuggestsClientDelay(err)
				assert.False(t, retry, "no Retry-After: the client does not retry by itself")
			}
			pod := getPod(t, s, "web-1")
			assert.Nil(t, pod.DeletionTimestamp, "a refused eviction deletes nothing")
			assert.Nil(t, disruptionTarget(pod))
			assert.Equal(t, before.ResourceVersion, getPDB(t, s, "web-pdb").ResourceVersion, "a refused eviction writes no budget")
		})
	}
}

func TestEvictAllowedDecrementsBudget(t *testing.T) {
	k, s := newTestStore(t, nil)
	k.After(5*time.Second, func() {
		runningPod(t, s, "web-1", model.PodRunning, true)
		runningPod(t, s, "web-2", model.PodRunning, true)
		budget(t, s, "web-pdb", map[string]string{"app": "web"}, model.PodDisruptionBudgetStatus{
			DisruptionsAllowed: 1, CurrentHealthy: 3, DesiredHealthy: 2, ExpectedPods: 3,
			Conditions: []model.Condition{{Type: model.DisruptionAllowedCondition, Status: model.ConditionTrue, Reason: model.SufficientPodsReason, LastTransitionTime: vtime.FromDuration(time.Second)}},
		}, false)
	})
	k.After(7*time.Second, func() {
		out, err := s.Evict("default", "web-1", &model.Eviction{})
		require.NoError(t, err)
		assert.NotNil(t, out.Meta().DeletionTimestamp, "deleted gracefully")

		pdb := getPDB(t, s, "web-pdb")
		assert.Equal(t, int32(0), pdb.Status.DisruptionsAllowed)
		assert.Equal(t, map[string]vtime.Time{"web-1": vtime.FromDuration(7 * time.Second)}, pdb.Status.DisruptedPods)
		require.Len(t, pdb.Status.Conditions, 1)
		c := pdb.Status.Conditions[0]
		assert.Equal(t, model.ConditionFalse, c.Status, "DisruptionAllowed turns False at 0")
		assert.Equal(t, model.InsufficientPodsReason, c.Reason)
		assert.Equal(t, vtime.FromDuration(7*time.Second), c.LastTransitionTime)
		assert.Equal(t, int64(1), pdb.Generation, "a status update does not move generation")

		_, err = s.Evict("default", "web-2", &model.Eviction{})
		assert.True(t, apierrors.IsTooManyRequests(err), "the budget is used up: %v", err)
		assert.Nil(t, getPod(t, s, "web-2").DeletionTimestamp)

		// A pod already being deleted is not charged again.
		_, err = s.Evict("default", "web-1", &model.Eviction{})
		require.NoError(t, err)
		assert.Len(t, getPDB(t, s, "web-pdb").Status.DisruptedPods, 1)
	})
	run(k, 10*time.Second)
}

func TestEvictTwoBudgetsIs500(t *testing.T) {
	_, s := newTestStore(t, nil)
	runningPod(t, s, "web-1", model.PodRunning, true)
	budget(t, s, "a", map[string]string{"app": "web"}, model.PodDisruptionBudgetStatus{DisruptionsAllowed: 5}, false)
	budget(t, s, "b", map[string]string{"app": "web"}, model.PodDisruptionBudgetStatus{DisruptionsAllowed: 5}, false)
	_, err := s.Evict("default", "web-1", &model.Eviction{})
	require.Error(t, err)
	status := err.(apierrors.APIStatus).Status()
	assert.Equal(t, int32(http.StatusInternalServerError), status.Code)
	assert.Equal(t, metav1.StatusFailure, status.Status)
	assert.Equal(t, "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.", status.Message)
	assert.Nil(t, getPod(t, s, "web-1").DeletionTimestamp)
	assert.Equal(t, int32(5), getPDB(t, s, "a").Status.DisruptionsAllowed)
	assert.Equal(t, int32(5), getPDB(t, s, "b").Status.DisruptionsAllowed)
}

func TestEvictPodsThatIgnoreBudgets(t *testing.T) {
	for _, tc := range []struct {
		name      string
		phase     string
		ready     bool
		policy    *string
		status    model.PodDisruptionBudgetStatus
		wantError bool
	}{
		{name: "succeeded pod", phase: model.PodSucceeded},
		{name: "failed pod", phase: model.PodFailed},
		{name: "pending pod", phase: model.PodPending},
		{name: "unready pod, AlwaysAllow", phase: model.PodRunning, policy: model.Ptr(model.AlwaysAllow),
			status: model.PodDisruptionBudgetStatus{CurrentHealthy: 1, DesiredHealthy: 2}},
		{name: "unready pod, budget met", phase: model.PodRunning,
			status: model.PodDisruptionBudgetStatus{CurrentHealthy: 2, DesiredHealthy: 2}},
		{name: "unready pod, budget not met", phase: model.PodRunning,
			status: model.PodDisruptionBudgetStatus{CurrentHealthy: 1, DesiredHealthy: 2}, wantError: true},
		{name: "unready pod, IfHealthyBudget, budget not met", phase: model.PodRunning, policy: model.Ptr(model.IfHealthyBudget),
			status: model.PodDisruptionBudgetStatus{CurrentHealthy: 1, DesiredHealthy: 2}, wantError: true},
		{name: "ready pod, budget met but no disruptions allowed", phase: model.PodRunning, ready: true,
			status: model.PodDisruptionBudgetStatus{CurrentHealthy: 2, DesiredHealthy: 2}, wantError: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, s := newTestStore(t, nil)
			runningPod(t, s, "web-1", tc.phase, tc.ready)
			pdb := budget(t, s, "web-pdb", map[string]string{"app": "web"}, tc.status, false)
			if tc.policy != nil {
				p := copyOf(pdb)
				p.Spec.UnhealthyPodEvictionPolicy = tc.policy
				_, err := s.Update(p)
				require.NoError(t, err)
				p = copyOf(getPDB(t, s, "web-pdb"))
				p.Status.ObservedGeneration = p.Generation
				_, err = s.UpdateStatus(p)
				require.NoError(t, err)
			}
			_, err := s.Evict("default", "web-1", &model.Eviction{})
			if tc.wantError {
				assert.True(t, apierrors.IsTooManyRequests(err), "%v", err)
				assert.Nil(t, getPod(t, s, "web-1").DeletionTimestamp)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, int32(0), getPDB(t, s, "web-pdb").Status.DisruptionsAllowed, "the budget is not charged")
			assert.Empty(t, getPDB(t, s, "web-pdb").Status.DisruptedPods)
			obj, err := s.Get(model.KindPod, "default", "web-1")
			if err == nil {
				assert.NotNil(t, obj.Meta().DeletionTimestamp)
			} else {
				assert.True(t, apierrors.IsNotFound(err), "finished pods go at once: %v", err)
			}
		})
	}
}

func TestEvictBudgetSelectors(t *testing.T) {
	_, s := newTestStore(t, nil)
	runningPod(t, s, "web-1", model.PodRunning, true)
	// An empty selector matches nothing in the eviction path, so neither budget applies
	// (with both, it would be a 500).
	budget(t, s, "empty", map[string]string{}, model.PodDisruptionBudgetStatus{}, false)
	nilSel := mustCreate(t, s, &model.PodDisruptionBudget{ObjectMeta: model.ObjectMeta{Name: "nil", Namespace: "default"}})
	assert.Nil(t, nilSel.Spec.Selector)
	_, err := s.Evict("default", "web-1", &model.Eviction{})
	require.NoError(t, err)
	assert.NotNil(t, getPod(t, s, "web-1").DeletionTimestamp)
}

func TestEvictBadRequests(t *testing.T) {
	_, s := newTestStore(t, nil)
	runningPod(t, s, "web-1", model.PodRunning, true)
	for _, tc := range []struct {
		name string
		ns   string
		pod  string
		ev   *model.Eviction
		is   func(error) bool
	}{
		{"nil eviction", "default", "web-1", nil, apierrors.IsBadRequest},
		{"name mismatch", "default", "web-1", &model.Eviction{ObjectMeta: model.ObjectMeta{Name: "web-2"}}, apierrors.IsBadRequest},
		{"namespace mismatch", "default", "web-1", &model.Eviction{ObjectMeta: model.ObjectMeta{Namespace: "other"}}, apierrors.IsBadRequest},
		{"missing pod", "default", "nope", &model.Eviction{}, apierrors.IsNotFound},
		{"bad propagation", "default", "web-1", &model.Eviction{DeleteOptions: &model.DeleteOptions{PropagationPolicy: model.Ptr(model.DeletionPropagation("Sideways"))}}, apierrors.IsInvalid},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := s.Evict(tc.ns, tc.pod, tc.ev)
			require.Error(t, err)
			assert.True(t, tc.is(err), "%v", err)
		})
	}
	assert.Nil(t, getPod(t, s, "web-1").DeletionTimestamp)
}

func TestServerEvictionSubresource(t *testing.T) {
	k, srv := newTestServer(t, nil)
	s := srv.Store()
	runningPod(t, s, "web-1", model.PodRunning, true)
	runningPod(t, s, "web-2", model.PodRunning, true)
	budget(t, s, "web-pdb", map[string]string{"app": "web"}, model.PodDisruptionBudgetStatus{DisruptionsAllowed: 1, CurrentHealthy: 2, DesiredHealthy: 1}, false)
	var first, second, wrongVerb, wrongKind Response
	k.Spawn("drain", func(p *sim.Proc) {
		first = srv.Do(p, &Request{Verb: model.VerbCreate, Kind: model.KindPod, Subresource: SubresourceEviction, Namespace: "default", Name: "web-1",
			Object: &model.Eviction{ObjectMeta: model.ObjectMeta{Name: "web-1", Namespace: "default"}}})
		second = srv.Do(p, &Request{Verb: model.VerbCreate, Kind: model.KindPod, Subresource: SubresourceEviction,
			Object: &model.Eviction{ObjectMeta: model.ObjectMeta{Name: "web-2", Namespace: "default"}}})
		wrongVerb = srv.Do(p, &Request{Verb: model.VerbGet, Kind: model.KindPod, Subresource: SubresourceEviction, Namespace: "default", Name: "web-1"})
		wrongKind = srv.Do(p, &Request{Verb: model.VerbCreate, Kind: model.KindNode, Subresource: SubresourceEviction, Name: "node-a", Object: &model.Eviction{}})
	})
	k.Run(sim.Limits{})
	require.NoError(t, first.Err)
	assert.Equal(t, "web-1", first.Object.Meta().Name)
	assert.Equal(t, first.Object.Meta().ResourceVersion, first.ResourceVersion)
	assert.True(t, apierrors.IsTooManyRequests(second.Err), "%v", second.Err)
	assert.True(t, apierrors.IsMethodNotSupported(wrongVerb.Err), "%v", wrongVerb.Err)
	assert.True(t, apierrors.IsNotFound(wrongKind.Err), "%v", wrongKind.Err)
	assert.Equal(t, map[string]vtime.Time{"web-1": vtime.FromDuration(5 * time.Millisecond)}, getPDB(t, s, "web-pdb").Status.DisruptedPods, "recorded when served, after the create service time")
}
