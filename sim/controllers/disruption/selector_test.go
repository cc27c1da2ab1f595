package disruption

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/reconsim/reconsim/model"
)

func createPDB(t testing.TB, w *world, name string, matchLabels map[string]string) {
	pdb := &model.PodDisruptionBudget{}
	pdb.Name, pdb.Namespace = name, testNS
	pdb.Spec.Selector = &metav1.LabelSelector{MatchLabels: matchLabels}
	if _, err := w.Store.Create(pdb); err != nil {
		t.Fatalf("create pdb: %v", err)
	}
}

// TestSelectorFollowsBudgetUpdates: the parsed selector is kept per budget version, so a
// budget whose selector changes matches by its new selector at once, and replaced versions do
// not pile up in the cache.
func TestSelectorFollowsBudgetUpdates(t *testing.T) {
	w := newWorld(t, DefaultConfig())
	createPDB(t, w, "budget", map[string]string{"app": "web"})
	w.Run(time.Second)
	pod := &model.Pod{ObjectMeta: model.ObjectMeta{Name: "db-0", Namespace: testNS, Labels: map[string]string{"app": "db"}}}
	assert.Nil(t, w.dc.getPdbForPod(pod))

	for i, app := range []string{"db", "web", "db"} {
		obj, err := w.Store.Get(model.KindPodDisruptionBudget, testNS, "budget")
		require.NoError(t, err)
		pdb := obj.(*model.PodDisruptionBudget).DeepCopy()
		pdb.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": app}}
		_, err = w.Store.Update(pdb)
		require.NoError(t, err)
		w.Run(time.Second)
		got := w.dc.getPdbForPod(pod)
		if app == "db" {
			require.NotNil(t, got, "update %d", i)
			assert.Equal(t, "budget", got.Name)
		} else {
			assert.Nil(t, got, "update %d", i)
		}
		assert.LessOrEqual(t, w.dc.selectors.Len(), 1, "update %d: replaced versions are forgotten", i)
	}
	_, err := w.Store.Delete(model.KindPodDisruptionBudget, testNS, "budget", model.DeleteOptions{})
	require.NoError(t, err)
	w.Run(time.Second)
	assert.Nil(t, w.dc.getPdbForPod(pod))
	assert.Zero(t, w.dc.selectors.Len(), "a deleted budget's selector is forgotten")
}

// BenchmarkPodEventWithBudgets measures the pod event handler (it runs for every pod add and
// update, resyncs included) in a namespace with 10 budgets, one of which covers the pod.
func BenchmarkPodEventWithBudgets(b *testing.B) {
	w := newWorld(b, DefaultConfig())
	for i := range 10 {
		createPDB(b, w, fmt.Sprintf("budget-%d", i), map[string]string{"app": fmt.Sprintf("app-%d", i)})
	}
	w.Run(time.Second)
	pod := &model.Pod{ObjectMeta: model.ObjectMeta{Name: "p", Namespace: testNS, Labels: map[string]string{"app": "app-7"}}}
	b.ReportAllocs()
	for b.Loop() {
		w.dc.updatePod(pod)
	}
	if got := w.dc.getPdbForPod(pod); got == nil || got.Name != "budget-7" {
		b.Fatalf("budget %v", got)
	}
}
