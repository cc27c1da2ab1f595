package replicaset

import (
	"sort"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/vtime"
)

// at returns the virtual instant s seconds into the run.
func at(s float64) vtime.Time { return vtime.Time(s * float64(time.Second)) }

// rankPod is a pod builder for ranking tests: a Running, Ready pod on node-a, created at 0 and
// Ready since 0, with no restarts; options change one thing each.
func rankPod(uid string, opts ...func(*model.Pod)) *model.Pod {
	p := &model.Pod{}
	p.Name, p.Namespace, p.UID = uid, "ns", uid
	p.Spec.NodeName = "node-a"
	p.Status.Phase = model.PodRunning
	p.Status.Conditions = []model.PodCondition{{Type: model.PodReady, Status: model.ConditionTrue, LastTransitionTime: 0}}
	p.Status.ContainerStatuses = []model.ContainerStatus{{Name: "c"}}
	for _, o := range opts {
		o(p)
	}
	return p
}

func unassigned(p *model.Pod) { p.Spec.NodeName = "" }
func onNode(n string) func(*model.Pod) {
	return func(p *model.Pod) { p.Spec.NodeName = n }
}
func phase(ph string) func(*model.Pod) { return func(p *model.Pod) { p.Status.Phase = ph } }
func notReady(p *model.Pod) {
	p.Status.Conditions = []model.PodCondition{{Type: model.PodReady, Status: model.ConditionFalse}}
}
func readySince(t vtime.Time) func(*model.Pod) {
	return func(p *model.Pod) { p.Status.Conditions[0].LastTransitionTime = t }
}
func cost(v string) func(*model.Pod) {
	return func(p *model.Pod) { p.Annotations = map[string]string{PodDeletionCostAnnotation: v} }
}
func restarts(n int32) func(*model.Pod) {
	return func(p *model.Pod) { p.Status.ContainerStatuses[0].RestartCount = n }
}
func created(t vtime.Time) func(*model.Pod) { return func(p *model.Pod) { p.CreationTimestamp = t } }

// TestActivePodsWithRanksLessRules checks each rule with a pair of pods that tie on every
// earlier rule: "first" must be deleted before "second", and the reverse must not hold.
func TestActivePodsWithRanksLessRules(t *testing.T) {
	now := at(1000)
	tests := []struct {
		name                  string
		first, second         *model.Pod
		firstRank, secondRank int
	}{
		{name: "1 unassigned before assigned", first: rankPod("b", unassigned), second: rankPod("a")},
		// Rule 1 only separates unassigned from assigned pods; here rule 7 decides.
		{name: "1 two different nodes do not decide", first: rankPod("a", onNode("x"), restarts(1)), second: rankPod("b", onNode("y"))},
		{name: "2 pending before running", first: rankPod("b", phase(model.PodPending)), second: rankPod("a")},
		{name: "2 pending before unknown", first: rankPod("b", phase(model.PodPending)), second: rankPod("a", phase(model.PodUnknown))},
		{name: "2 unknown before running", first: rankPod("b", phase(model.PodUnknown)), second: rankPod("a")},
		{name: "2 empty phase ranks as pending", first: rankPod("b", phase("")), second: rankPod("a", phase(model.PodUnknown))},
		{name: "3 not ready before ready", first: rankPod("b", notReady), second: rankPod("a")},
		{name: "4 lower deletion cost first", first: rankPod("b", cost("-5")), second: rankPod("a", cost("3"))},
		{name: "4 missing cost is 0, above a negative cost", first: rankPod("b", cost("-1")), second: rankPod("a")},
		{name: "4 invalid cost (leading +) is 0", first: rankPod("b", cost("-1")), second: rankPod("a", cost("+7"))},
		{name: "5 more co-located pods first", first: rankPod("b"), second: rankPod("a"), firstRank: 3, secondRank: 1},
		// Ready 10s ago (log2(1e10 ns) = 33) against ready 1000s ago (log2(1e12) = 39).
		{name: "6 ready for less time first", first: rankPod("b", readySince(at(990))), second: rankPod("a", readySince(at(0)))},
		// 600s and 700s ago are both in the 2^39 ns bucket: the UID decides.
		{name: "6 same log2 bucket: lower UID first", first: rankPod("a", readySince(at(400))), second: rankPod("b", readySince(at(300)))},
		{name: "7 more restarts first", first: rankPod("b", restarts(4)), second: rankPod("a", restarts(1))},
		{name: "8 newer first", first: rankPod("b", created(at(990))), second: rankPod("a", created(at(0)))},
		{name: "8 same log2 bucket: lower UID first", first: rankPod("a", created(at(400))), second: rankPod("b", created(at(300)))},
		{name: "8 created now ranks -1, before older", first: rankPod("b", created(now)), second: rankPod("a", created(at(999)))},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := ActivePodsWithRanks{Pods: []*model.Pod{tc.first, tc.second}, Rank: []int{tc.firstRank, tc.secondRank}, Now: now}
			assert.True(t, s.Less(0, 1), "first should be deleted before second")
			assert.False(t, s.Less(1, 0), "second must not be deleted before first")
		})
	}
}

func TestActivePodsWithRanksIdenticalPodsAreNotLess(t *testing.T) {
	a, b := rankPod("a"), rankPod("a")
	s := ActivePodsWithRanks{Pods: []*model.Pod{a, b}, Rank: []int{0, 0}, Now: at(10)}
	assert.False(t, s.Less(0, 1))
	assert.False(t, s.Less(1, 0))
}

func TestLogarithmicRankDiff(t *testing.T) {
	now := at(100)
	tests := []struct {
		name   string
		t1, t2 vtime.Time
		want   int64
	}{
		{"same instant", at(50), at(50), 0},
		{"both now", now, now, 0},
		{"now against 1ns ago", now, now - 1, -1}, // -1 - log2(1)=0
		{"2s against 1s ago", now - vtime.Time(2*time.Second), now - vtime.Time(time.Second), 1}, // 30 - 29
		{"future counts as now", now + 5, now, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, logarithmicRankDiff(tc.t1, tc.t2, now))
		})
	}
}

func TestGetPodsToDeleteRanksAndTakesTheFirst(t *testing.T) {
	now := at(1000)
	pods := []*model.Pod{
		rankPod("p-old-ready", created(at(0)), readySince(at(10))),
		rankPod("p-pending", phase(model.PodPending), notReady),
		rankPod("p-unassigned", unassigned, phase(model.PodPending), notReady),
		rankPod("p-notready", notReady),
		rankPod("p-crowded", onNode("node-b"), created(at(0)), readySince(at(10))),
		rankPod("p-new-ready", created(at(990)), readySince(at(995)), onNode("node-c")),
	}
	// Related pods: node-a holds p-old-ready, p-pending and p-notready (3 active pods);
	// node-b holds p-crowded and three others (4); node-c holds p-new-ready (1).
	related := append([]*model.Pod{}, pods...)
	related = append(related, rankPod("other-1", onNode("node-b")), rankPod("other-2", onNode("node-b")), rankPod("other-3", onNode("node-b")))
	got := getPodsToDelete(append([]*model.Pod{}, pods...), related, 5, now)
	names := make([]string, len(got))
	for i, p := range got {
		names[i] = p.Name
	}
	// Rule 1 puts the unassigned pod first; rule 2 then the Pending one; rule 3 the Running
	// but not Ready one. The three Ready Running pods are then ordered by rule 5: p-crowded
	// (rank 4), p-old-ready (rank 3), p-new-ready (rank 1) — rank wins over p-new-ready being
	// the newest.
	require.Equal(t, []string{"p-unassigned", "p-pending", "p-notready", "p-crowded", "p-old-ready"}, names)
}

func TestGetPodsToDeleteAllSkipsSorting(t *testing.T) {
	pods := []*model.Pod{rankPod("b"), rankPod("a", unassigned)}
	got := getPodsToDelete(pods, nil, 2, at(1))
	// Unsorted: the input order is kept when every pod goes.
	assert.Equal(t, "b", got[0].Name)
	assert.Equal(t, "a", got[1].Name)
}

func TestRankCountsOnlyActiveRelatedPods(t *testing.T) {
	deleting := rankPod("gone", onNode("n1"))
	deleting.DeletionTimestamp = model.Ptr(at(1))
	related := []*model.Pod{
		rankPod("r1", onNode("n1")),
		deleting,
		rankPod("done", onNode("n1"), phase(model.PodSucceeded)),
		rankPod("r2", onNode("n2")),
		rankPod("u1", unassigned),
		rankPod("u2", unassigned),
	}
	r := getPodsRankedByRelatedPodsOnSameNode([]*model.Pod{rankPod("x", onNode("n1")), rankPod("y", unassigned), rankPod("z", onNode("n3"))}, related, at(5))
	assert.Equal(t, []int{1, 2, 0}, r.Rank)
	sort.Sort(r)
	assert.Equal(t, "y", r.Pods[0].Name, "the unassigned pod sorts first and carries its rank with it")
	assert.Equal(t, 2, r.Rank[0])
}
