package podgc

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim"
	"github.com/reconsim/reconsim/sim/controllers/internal/controllerutil"
)

// checkTracker asserts that the tracker agrees with the pod cache it mirrors: the same number
// of pods, the same candidates in key order, and the same count of pods per node name; and that
// a pass's listing picks, for every step's predicate, what the whole cache would.
func checkTracker(t *testing.T, gcc *Controller, step int) (candidates int, missingNode bool) {
	t.Helper()
	all := controllerutil.Lister[*model.Pod]{Informer: gcc.podInformer}.List()
	require.Equal(t, len(all), gcc.pods.total, "step %d: pod count", step)
	var want []*model.Pod
	onNode := map[string]int{}
	for _, p := range all {
		if isCandidate(p) {
			want = append(want, p)
		}
		if p.Spec.NodeName != "" {
			onNode[p.Spec.NodeName]++
		}
	}
	require.Equal(t, want, nonEmpty(gcc.pods.candidatePods()), "step %d: candidates", step)
	require.Equal(t, onNode, gcc.pods.onNode, "step %d: pods per node", step)

	existing := map[string]bool{}
	for _, n := range gcc.nodeInformer.List(nil) {
		existing[n.Meta().Name] = true
	}
	listing := gcc.podsForPass(existing)
	predicates := map[string]func(*model.Pod) bool{
		"terminated":  isPodTerminated,
		"terminating": func(p *model.Pod) bool { return p.DeletionTimestamp != nil },
		"orphaned":    func(p *model.Pod) bool { return p.Spec.NodeName != "" && !existing[p.Spec.NodeName] },
		"unscheduled": func(p *model.Pod) bool { return p.DeletionTimestamp != nil && p.Spec.NodeName == "" },
	}
	for name, pred := range predicates { //detlint:ordered each predicate is checked on its own
		require.Equal(t, filterPods(all, pred), filterPods(listing, pred), "step %d: %s", step, name)
	}
	return len(want), gcc.pods.boundToMissingNode(existing)
}

func filterPods(pods []*model.Pod, pred func(*model.Pod) bool) []*model.Pod {
	var out []*model.Pod
	for _, p := range pods {
		if pred(p) {
			out = append(out, p)
		}
	}
	return out
}

func nonEmpty(pods []*model.Pod) []*model.Pod {
	if len(pods) == 0 {
		return nil
	}
	return pods
}

// TestTrackerMirrorsCache plays random churn on pods and nodes (creates, bindings, phase
// changes, graceful and forced deletes, finalizers that keep deleted pods around, node
// deletions, an informer restart) and checks after every step that the tracker agrees with the
// cache and that a pass's listing picks the same pods as the whole cache for every step.
func TestTrackerMirrorsCache(t *testing.T) {
	for seed := uint64(1); seed <= 5; seed++ {
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.GCCheckPeriod = maxPeriod // no pass deletes anything under the test
			w := newWorld(t, cfg)
			r := sim.NewRand(seed, "tracker-test")
			nodes := []string{"n0", "n1", "n2", "n3"}
			for _, name := range nodes {
				n := &model.Node{}
				n.Name = name
				_, err := w.Store.Create(n)
				require.NoError(t, err)
			}
			for _, ns := range []string{"a", "a-b"} {
				nsObj := &model.Namespace{}
				nsObj.Name = ns
				_, err := w.Store.Create(nsObj)
				require.NoError(t, err)
			}
			phases := []string{model.PodPending, model.PodRunning, model.PodSucceeded, model.PodFailed, model.PodUnknown}
			namespaces := []string{"a", "a-b", testNS}
			podKey := func(i int) (string, string) { return namespaces[i%len(namespaces)], fmt.Sprintf("p%02d", i) }
			maxCandidates, missingSteps := 0, 0
			for step := range 300 {
				ns, name := podKey(r.IntN(40))
				obj, err := w.Store.Get(model.KindPod, ns, name)
				switch op := r.IntN(6); {
				case err != nil && op < 5:
					p := benchPod(name)
					p.Namespace = ns
					if r.IntN(3) == 0 {
						p.Finalizers = []string{"example.com/keep"}
					}
					_, err := w.Store.Create(p)
					require.NoError(t, err)
				case err != nil:
				case op == 0 && obj.(*model.Pod).Spec.NodeName == "":
					p := obj.(*model.Pod).DeepCopy()
					p.Spec.NodeName = nodes[r.IntN(len(nodes))]
					_, _ = w.Store.Update(p) // refused for a pod being deleted
				case op <= 2:
					p := obj.(*model.Pod).DeepCopy()
					p.Status.Phase = phases[r.IntN(len(phases))]
					_, _ = w.Store.UpdateStatus(p)
				case op == 3:
					_, _ = w.Store.Delete(model.KindPod, ns, name, model.DeleteOptions{})
				case op == 4:
					p := obj.(*model.Pod).DeepCopy()
					p.Finalizers = nil
					_, _ = w.Store.Update(p) // refused for a pod being deleted
				default:
					_, _ = w.Store.Delete(model.KindPod, ns, name, model.DeleteOptions{GracePeriodSeconds: model.Ptr(int64(0))})
				}
				if step == 150 {
					_, err := w.Store.Delete(model.KindNode, "", "n3", model.DeleteOptions{})
					require.NoError(t, err)
				}
				if step == 200 {
					w.gcc.podInformer.Stop()
					w.gcc.podInformer.Run(w.K)
				}
				w.Run(time.Duration(1+r.IntN(500)) * time.Millisecond)
				candidates, missing := checkTracker(t, w.gcc, step)
				maxCandidates = max(maxCandidates, candidates)
				if missing {
					missingSteps++
				}
			}
			// Both kinds of listing were exercised.
			require.Greater(t, maxCandidates, 3)
			require.Greater(t, missingSteps, 0)
			require.Less(t, missingSteps, 300)
		})
	}
}
