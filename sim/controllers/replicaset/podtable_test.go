package replicaset

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim/client"
	"github.com/reconsim/reconsim/vtime"
)

// TestPodTableMirrorsPods applies random adds, updates, deletes, tombstones and cache resets
// to the table and to a plain map of pods, and checks after every step that the candidates
// of every owner and namespace are what claimCandidates computes from the pods themselves:
// the owned pods of the namespace and its orphans, sorted by name, with facts equal to a
// fresh factsOf.
func TestPodTableMirrorsPods(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	namespaces := []string{"a", "b"}
	owners := []string{"uid-1", "uid-2", ""}
	table := newPodTable()
	pods := map[string]*model.Pod{}
	randomPod := func(name string) *model.Pod {
		p := &model.Pod{}
		p.Namespace = namespaces[rng.IntN(len(namespaces))]
		p.Name = name
		p.UID = fmt.Sprintf("pod-%d", rng.IntN(1000))
		p.Labels = map[string]string{"app": []string{"x", "y"}[rng.IntN(2)]}
		if owner := owners[rng.IntN(len(owners))]; owner != "" {
			p.OwnerReferences = []model.OwnerReference{{Kind: model.KindReplicaSet, Name: owner, UID: owner, Controller: model.Ptr(true)}}
		}
		if rng.IntN(4) == 0 {
			p.DeletionTimestamp = model.Ptr(vtime.Time(5))
		}
		p.Status.Phase = []string{model.PodRunning, model.PodPending, model.PodSucceeded}[rng.IntN(3)]
		if rng.IntN(2) == 0 {
			p.Status.Conditions = []model.PodCondition{{Type: model.PodReady, Status: model.ConditionTrue, LastTransitionTime: vtime.Time(rng.IntN(100))}}
		}
		return p
	}
	for step := 0; step < 3000; step++ {
		name := fmt.Sprintf("p%02d", rng.IntN(40))
		key := model.KeyOf(namespaces[0], name)
		for _, ns := range namespaces {
			if _, ok := pods[model.KeyOf(ns, name)]; ok {
				key = model.KeyOf(ns, name)
			}
		}
		switch op := rng.IntN(10); {
		case op < 6:
			p := randomPod(name)
			if old, ok := pods[key]; ok {
				p.Namespace = old.Namespace
				table.OnUpdate(old, p)
			} else {
				table.OnAdd(p, false)
			}
			pods[model.Key(p)] = p
		case op < 8:
			if old, ok := pods[key]; ok {
				delete(pods, key)
				table.OnDelete(old)
			}
		case op < 9:
			if old, ok := pods[key]; ok {
				delete(pods, key)
				table.OnDelete(client.DeletedFinalStateUnknown{Key: key, Obj: old})
			}
		default:
			if rng.IntN(20) == 0 {
				table.OnCacheReset()
				clear(pods)
			}
		}
		for _, ns := range namespaces {
			for _, uid := range owners[:2] {
				var want []podFacts
				for _, p := range pods {
					ref := model.ControllerOf(p)
					if p.Namespace == ns && (ref == nil || ref.UID == uid) {
						want = append(want, factsOf(p, nil))
					}
				}
				slices.SortFunc(want, func(a, b podFacts) int { return strings.Compare(a.name, b.name) })
				got := table.candidates(nil, uid, ns)
				require.Len(t, got, len(want), "step %d ns %s uid %s", step, ns, uid)
				for i := range got {
					require.NotNil(t, got[i].labels)
					require.Equal(t, got[i].pod.Labels, got[i].labels.labels)
					g := got[i]
					g.labels = nil
					require.Equal(t, want[i], g, "step %d ns %s uid %s", step, ns, uid)
				}
			}
		}
	}
	require.LessOrEqual(t, len(table.labelSets), 2, "label sets are released with their last pod")
}
