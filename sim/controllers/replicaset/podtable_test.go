package replicaset

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

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
	requireLabelSetCounts(t, table)
}

// requireLabelSetCounts checks that every label set of the table counts the facts that
// refer to it, and that every fact's set is the table's set for those labels.
func requireLabelSetCounts(t *testing.T, table *podTable) {
	t.Helper()
	refs := map[*labelSet]int{}
	for _, facts := range table.groups {
		for i := range facts {
			refs[facts[i].labels]++
			require.Same(t, table.labelSets[facts[i].labels.canonical], facts[i].labels)
		}
	}
	for canonical, ls := range table.labelSets {
		require.Equal(t, refs[ls], ls.pods, "label set %q", canonical)
	}
}

// TestPodTableStatusUpdateAllocatesNothing: an update that keeps a pod's labels and group (a
// status change, most of what the informer delivers) replaces its facts in place, keeping its
// label set, without building a key or a canonical label string.
func TestPodTableStatusUpdateAllocatesNothing(t *testing.T) {
	table := newPodTable()
	newPod := func(phase string) *model.Pod {
		p := &model.Pod{}
		p.Namespace, p.Name = "ns", "web-1"
		p.Labels = map[string]string{"app": "web", "tier": "front"}
		p.OwnerReferences = []model.OwnerReference{{Kind: model.KindReplicaSet, Name: "web", UID: "uid-1", Controller: model.Ptr(true)}}
		p.Status.Phase = phase
		return p
	}
	pending, running := newPod(model.PodPending), newPod(model.PodRunning)
	table.OnAdd(pending, false)
	ls := table.candidates(nil, "uid-1", "ns")[0].labels
	cur := pending
	allocs := testing.AllocsPerRun(100, func() {
		next := running
		if cur == running {
			next = pending
		}
		table.OnUpdate(cur, next)
		cur = next
	})
	require.Zero(t, allocs)
	got := table.candidates(nil, "uid-1", "ns")
	require.Len(t, got, 1)
	require.Same(t, ls, got[0].labels)
	require.Equal(t, 1, ls.pods)
	requireLabelSetCounts(t, table)
}

// TestClaimOwnPodsAllocatesNothing: a sync whose pods are all its ReplicaSet's own and
// selected claims them on the fast path, without making a ControllerRefManager (nor anything
// else); a pod that needs the manager still gets it (an owned pod the selector no longer
// matches is released, which here fails without a client).
func TestClaimOwnPodsAllocatesNothing(t *testing.T) {
	table := newPodTable()
	rs := &model.ReplicaSet{}
	rs.Namespace, rs.Name, rs.UID = "ns", "web", "uid-1"
	rs.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}
	for i := range 5 {
		p := &model.Pod{}
		p.Namespace, p.Name = "ns", fmt.Sprintf("web-%d", i)
		p.Labels = map[string]string{"app": "web"}
		p.OwnerReferences = []model.OwnerReference{{Kind: model.KindReplicaSet, Name: "web", UID: "uid-1", Controller: model.Ptr(true)}}
		table.OnAdd(p, false)
	}
	facts := table.candidates(nil, "uid-1", "ns")
	pods := make([]*podFacts, 0, len(facts))
	rsc := &Controller{}
	sel, err := metav1.LabelSelectorAsSelector(rs.Spec.Selector)
	require.NoError(t, err)
	matcher := newLabelMatcher(newPodSelector(rs.Spec.Selector, sel))
	allocs := testing.AllocsPerRun(20, func() {
		pods = pods[:0]
		for i := range facts {
			pods = append(pods, &facts[i])
		}
		claimed, err := rsc.claimPods(context.Background(), rs, matcher, pods)
		if err != nil || len(claimed) != len(facts) {
			t.Fatalf("claimed %d of %d: %v", len(claimed), len(facts), err)
		}
	})
	require.Zero(t, allocs)
}

// TestSplitActiveFactsIsFilterAndCount holds splitActiveFacts' single pass to the two upstream
// passes it replaces on random facts: FilterActivePods (the active pods, in order) and the
// count of FilterClaimedPods over FilterTerminatingPods.
func TestSplitActiveFactsIsFilterAndCount(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 2))
	rs := &model.ReplicaSet{}
	rs.UID = "uid-1"
	sel, err := metav1.LabelSelectorAsSelector(&metav1.LabelSelector{MatchLabels: map[string]string{"app": "x"}})
	require.NoError(t, err)
	ps := newPodSelector(&metav1.LabelSelector{MatchLabels: map[string]string{"app": "x"}}, sel)
	sets := []*labelSet{{labels: map[string]string{"app": "x"}}, {labels: map[string]string{"app": "y"}}}
	for round := 0; round < 200; round++ {
		all := make([]podFacts, rng.IntN(30))
		for i := range all {
			all[i] = podFacts{
				name:          fmt.Sprintf("p%02d", i),
				labels:        sets[rng.IntN(len(sets))],
				hasController: rng.IntN(3) > 0,
				deleting:      rng.IntN(3) == 0,
				finished:      rng.IntN(4) == 0,
			}
			if all[i].hasController {
				all[i].controllerUID = []string{"uid-1", "uid-2"}[rng.IntN(2)]
			}
		}
		var wantActive []*podFacts
		wantTerminating := 0
		for i := range all {
			f := &all[i]
			if !f.finished && !f.deleting {
				wantActive = append(wantActive, f)
			}
		}
		for i := range all {
			f := &all[i]
			if f.deleting && !f.finished && f.hasController && f.controllerUID == rs.UID && ps.matches(f.labels.labels) {
				wantTerminating++
			}
		}
		active, terminating := splitActiveFacts(nil, rs, newLabelMatcher(ps), all)
		require.Equal(t, wantActive, active, "round %d", round)
		require.Equal(t, wantTerminating, terminating, "round %d", round)
	}
}
