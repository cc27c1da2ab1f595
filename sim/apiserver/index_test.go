package apiserver

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/reconsim/reconsim/model"
)

func TestCompareKeysIsKeyStringOrder(t *testing.T) {
	tests := []struct{ a, b objKey }{
		{objKey{"a", "x"}, objKey{"a-b", "x"}}, // '/' > '-'
		{objKey{"a", "x"}, objKey{"a.b", "x"}},
		{objKey{"a", "x"}, objKey{"a0", "x"}}, // '/' < '0'
		{objKey{"a", "x"}, objKey{"a", "y"}},
		{objKey{"ab", "x"}, objKey{"a", "zzz"}},
		{objKey{"", "node-1"}, objKey{"", "node-10"}},
		{objKey{"", "a"}, objKey{"a", "a"}},      // a cluster-scoped key against a namespaced one
		{objKey{"a", "b/c"}, objKey{"a/b", "c"}}, // slashes inside: equal strings
		{objKey{"a", "x"}, objKey{"a/b", "c"}},
	}
	sign := func(c int) int { return max(-1, min(1, c)) }
	for _, tc := range tests {
		want := strings.Compare(model.KeyOf(tc.a.namespace, tc.a.name), model.KeyOf(tc.b.namespace, tc.b.name))
		assert.Equal(t, want, sign(compareKeys(tc.a, tc.b)), "%v vs %v", tc.a, tc.b)
		assert.Equal(t, -want, sign(compareKeys(tc.b, tc.a)), "%v vs %v", tc.b, tc.a)
	}
	r := rand.New(rand.NewPCG(1, 2))
	part := func() string {
		const alphabet = "a-./0z"
		b := make([]byte, r.IntN(4))
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		return string(b)
	}
	for range 20000 {
		a, b := objKey{part(), part()}, objKey{part(), part()}
		want := strings.Compare(model.KeyOf(a.namespace, a.name), model.KeyOf(b.namespace, b.name))
		require.Equal(t, want, sign(compareKeys(a, b)), "%q vs %q", a, b)
	}
}

// podWorkload drives random pod writes that move pods between trigger values: creates on a
// node or unbound, bindings, label and phase changes, graceful and immediate deletes, over
// namespaces whose key order differs from (namespace, name) order.
type podWorkload struct {
	t     *testing.T
	s     *Store
	r     *rand.Rand
	nodes []string
}

var workloadNamespaces = []string{"a", "a-b", "default"}

func newPodWorkload(t *testing.T, s *Store, seed uint64) *podWorkload {
	for _, ns := range workloadNamespaces {
		if _, err := s.Get(model.KindNamespace, "", ns); err != nil {
			mustCreate(t, s, &model.Namespace{ObjectMeta: model.ObjectMeta{Name: ns}})
		}
	}
	return &podWorkload{t: t, s: s, r: rand.New(rand.NewPCG(seed, 7)), nodes: []string{"", "n1", "n2", "n3"}}
}

func (w *podWorkload) step() {
	r := w.r
	ns := workloadNamespaces[r.IntN(len(workloadNamespaces))]
	name := fmt.Sprintf("p%d", r.IntN(12))
	cur, err := w.s.Get(model.KindPod, ns, name)
	if err != nil {
		p := newPod(name)
		p.Namespace = ns
		p.Spec.NodeName = w.nodes[r.IntN(len(w.nodes))]
		p.Labels = map[string]string{"tier": []string{"web", "db"}[r.IntN(2)]}
		_, err := w.s.Create(p)
		require.NoError(w.t, err)
		return
	}
	pod := copyOf(cur.(*model.Pod))
	switch r.IntN(5) {
	case 0:
		if pod.Spec.NodeName == "" {
			pod.Spec.NodeName = w.nodes[1+r.IntN(len(w.nodes)-1)]
		}
		_, err = w.s.Update(pod)
	case 1:
		pod.Labels = map[string]string{"tier": []string{"web", "db"}[r.IntN(2)]}
		_, err = w.s.Update(pod)
	case 2:
		pod.Status.Phase = []string{model.PodRunning, model.PodSucceeded}[r.IntN(2)]
		_, err = w.s.UpdateStatus(pod)
	default:
		opts := model.DeleteOptions{}
		if r.IntN(2) == 0 {
			opts.GracePeriodSeconds = model.Ptr(int64(0))
		}
		_, err = w.s.Delete(model.KindPod, ns, name, opts)
	}
	require.NoError(w.t, err)
}

// TestListByTriggerIndexMatchesScan checks that a List served from the spec.nodeName index
// returns exactly what a scan of every pod selects, in the same order, with the same
// resourceVersion, and that the index holds every pod once under its current node.
func TestListByTriggerIndexMatchesScan(t *testing.T) {
	_, s := newTestStore(t, nil)
	w := newPodWorkload(t, s, 3)
	web := labels.SelectorFromSet(labels.Set{"tier": "web"})
	checked := 0
	for step := range 600 {
		w.step()
		if step%5 != 0 {
			continue
		}
		all, allRV, err := s.List(model.KindPod, model.ListOptions{})
		require.NoError(t, err)
		ks := s.kinds[model.KindPod]
		indexed := 0
		for v, keys := range ks.byTrigger { //detlint:ordered counting and checking membership only
			require.NotEmpty(t, keys, "empty index entries are dropped")
			for k := range keys { //detlint:ordered checking membership only
				obj := ks.objects[k]
				require.NotNil(t, obj, "the index holds only stored keys")
				require.Equal(t, v, obj.(*model.Pod).Spec.NodeName)
				indexed++
			}
		}
		require.Equal(t, len(ks.objects), indexed)
		for _, node := range append(slices.Clone(w.nodes), "nowhere") {
			for _, opts := range []model.ListOptions{
				{FieldSelector: fields.OneTermEqualSelector("spec.nodeName", node)},
				{FieldSelector: fields.OneTermEqualSelector("spec.nodeName", node), LabelSelector: web},
				{FieldSelector: fields.OneTermEqualSelector("spec.nodeName", node), Namespace: "a"},
				{FieldSelector: fields.ParseSelectorOrDie("spec.nodeName==" + node + ",status.phase!=Succeeded")},
				{FieldSelector: fields.ParseSelectorOrDie("spec.nodeName=n1,spec.nodeName=" + node)},
				{FieldSelector: fields.ParseSelectorOrDie("spec.nodeName=" + node + ",spec.nodeName!=n2")},
			} {
				got, rv, err := s.List(model.KindPod, opts)
				require.NoError(t, err)
				require.Equal(t, allRV, rv)
				var want []model.Object
				for _, obj := range all {
					pod := obj.(*model.Pod)
					podFields := fields.Set{"spec.nodeName": pod.Spec.NodeName, "status.phase": pod.Status.Phase}
					if opts.FieldSelector.Matches(podFields) && (opts.LabelSelector == nil || opts.LabelSelector.Matches(labels.Set(pod.Labels))) &&
						(opts.Namespace == "" || pod.Namespace == opts.Namespace) {
						want = append(want, obj)
					}
				}
				require.Equal(t, len(want), len(got), "%v", opts)
				for i := range want {
					require.Same(t, want[i], got[i], "%v item %d", opts, i)
				}
				require.NotNil(t, got, "an empty list is empty, not nil")
				checked += len(got)
			}
		}
	}
	assert.Greater(t, checked, 1000, "the lists selected pods")

	// Nodes are indexed by metadata.name.
	for _, name := range []string{"b", "a", "c"} {
		mustCreate(t, s, newNode(name))
	}
	got, _, err := s.List(model.KindNode, model.ListOptions{FieldSelector: fields.OneTermEqualSelector("metadata.name", "a")})
	require.NoError(t, err)
	require.Len(t, got, 1)
	assert.Equal(t, "a", got[0].Meta().Name)
	_, err = s.Delete(model.KindNode, "", "a", model.DeleteOptions{})
	require.NoError(t, err)
	got, _, err = s.List(model.KindNode, model.ListOptions{FieldSelector: fields.OneTermEqualSelector("metadata.name", "a")})
	require.NoError(t, err)
	assert.Empty(t, got)
}

// TestWatchReplayByTriggerIndexMatchesLive opens, at random points, watches pinned to a node
// from a past revision, whose start is replayed from the history through its trigger index,
// and checks that each sees exactly what a watch with the same selector open since the
// beginning saw after that revision.
func TestWatchReplayByTriggerIndexMatchesLive(t *testing.T) {
	k, s := newTestStore(t, func(c *StoreConfig) {
		c.WatchDelay.Kind, c.WatchDelay.Min, c.WatchDelay.Max = "uniform", 0, 30*time.Millisecond
	})
	w := newPodWorkload(t, s, 5)
	selectors := map[string]fields.Selector{}
	var order []string
	for _, node := range w.nodes {
		for _, sel := range []string{"spec.nodeName=" + node, "spec.nodeName=" + node + ",status.phase!=Succeeded"} {
			selectors[sel] = fields.ParseSelectorOrDie(sel)
			order = append(order, sel)
		}
	}
	live := map[string]*recorder{}
	for _, sel := range order {
		live[sel] = &recorder{k: k}
		_, err := s.Watch(model.KindPod, model.ListOptions{FieldSelector: selectors[sel]}, 0, live[sel])
		require.NoError(t, err)
	}
	start := s.Revision()
	type replay struct {
		sel    string
		fromRV uint64
		rec    *recorder
	}
	var replays []replay
	for step := range 800 {
		w.step()
		if step%20 == 19 {
			sel := order[w.r.IntN(len(order))]
			from := start + uint64(w.r.IntN(int(s.Revision()-start)+1))
			rec := &recorder{k: k}
			_, err := s.Watch(model.KindPod, model.ListOptions{FieldSelector: selectors[sel]}, from, rec)
			require.NoError(t, err)
			replays = append(replays, replay{sel, from, rec})
		}
	}
	run(k, time.Second)
	replayed := 0
	for _, rp := range replays {
		var want []WatchEvent
		for _, ev := range live[rp.sel].nonBookmarks() {
			if ev.ResourceVersion > rp.fromRV {
				want = append(want, ev)
			}
		}
		got := rp.rec.nonBookmarks()
		require.Equal(t, summary(want), summary(got), "%s from %d", rp.sel, rp.fromRV)
		for i := range want {
			if want[i].Type != Deleted {
				require.Same(t, want[i].Object, got[i].Object)
			}
		}
		replayed += len(got)
	}
	assert.Greater(t, replayed, 500, "the replays had events")
}

// TestHistoryTriggerIndexStaysBounded writes pods on ever new nodes through a small history:
// the index forgets the values whose events have all left it.
func TestHistoryTriggerIndexStaysBounded(t *testing.T) {
	_, s := newTestStore(t, func(c *StoreConfig) { c.HistoryLowerBound, c.HistoryUpperBound = 100, 100 })
	h := s.kinds[model.KindPod].hist
	limit := 4*h.capacity() + 1024 + 2
	for i := range 20000 {
		p := newPod(fmt.Sprintf("p%d", i))
		p.Spec.NodeName = fmt.Sprintf("node-%d", i)
		mustCreate(t, s, p)
		_, err := s.Delete(model.KindPod, "default", p.Name, model.DeleteOptions{GracePeriodSeconds: model.Ptr(int64(0))})
		require.NoError(t, err)
		require.LessOrEqual(t, h.indexed, limit)
		require.LessOrEqual(t, len(h.byTrigger), limit)
	}
	// What is left still replays: the newest pod's events are held.
	assert.NotEmpty(t, h.eventsWith("node-19999", h.start))
	assert.Empty(t, h.eventsWith("node-0", h.start))
}

// TestListOrderMatchesScan checks that the lists answered from a kind's list order (every
// object, and the selective lists once the order is built) return exactly what a scan of every
// object selects, sorted by key, whether the order was built before or after the writes
// since the last list; and that ListKeyed's keys are the items' keys.
func TestListOrderMatchesScan(t *testing.T) {
	_, s := newTestStore(t, nil)
	w := newPodWorkload(t, s, 11)
	web := labels.SelectorFromSet(labels.Set{"tier": "web"})
	ks := s.kinds[model.KindPod]
	scan := func(opts model.ListOptions) []model.Object {
		var keys []objKey
		for k, obj := range ks.objects { //detlint:ordered the keys are sorted below
			pod := obj.(*model.Pod)
			if (opts.Namespace == "" || pod.Namespace == opts.Namespace) &&
				(opts.LabelSelector == nil || opts.LabelSelector.Matches(labels.Set(pod.Labels))) &&
				(opts.FieldSelector == nil || opts.FieldSelector.Matches(fields.Set{"status.phase": pod.Status.Phase})) {
				keys = append(keys, k)
			}
		}
		slices.SortFunc(keys, compareKeys)
		out := make([]model.Object, len(keys))
		for i, k := range keys {
			out[i] = ks.objects[k]
		}
		return out
	}
	fromOrder, checked := 0, 0
	for step := range 800 {
		w.step()
		if step%3 == 0 {
			// Every third step lists everything first, so the selective lists below find the
			// order built; the other steps find it dropped after a create or a delete.
			_, _, err := s.List(model.KindPod, model.ListOptions{})
			require.NoError(t, err)
		}
		if ks.listed != nil {
			fromOrder++
		}
		for _, opts := range []model.ListOptions{
			{},
			{Namespace: "a"},
			{Namespace: "a-b", LabelSelector: web},
			{Namespace: "default", FieldSelector: fields.OneTermNotEqualSelector("status.phase", model.PodSucceeded)},
			{Namespace: "none"},
			{LabelSelector: web},
			{FieldSelector: fields.OneTermEqualSelector("status.phase", model.PodRunning)},
		} {
			want := scan(opts)
			got, keys, rv, err := s.ListKeyed(model.KindPod, opts)
			require.NoError(t, err)
			require.Equal(t, s.Revision(), rv)
			require.Len(t, got, len(want), "%v", opts)
			require.Len(t, keys, len(want), "%v", opts)
			for i := range want {
				require.Same(t, want[i], got[i], "%v item %d", opts, i)
				require.Equal(t, model.Key(want[i]), keys[i], "%v key %d", opts, i)
			}
			require.NotNil(t, got, "an empty list is empty, not nil")
			checked += len(got)
		}
	}
	assert.Greater(t, checked, 2000, "the lists selected pods")
	assert.Greater(t, fromOrder, 200, "selective lists found the order built")
}
