package apiserver

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim"
	"github.com/reconsim/reconsim/vtime"
)

func TestWatchDeliversInRevisionOrderAcrossObjects(t *testing.T) {
	k, s := newTestStore(t, nil)
	rec := &recorder{k: k}
	_, err := s.Watch(model.KindPod, model.ListOptions{}, 0, rec)
	require.NoError(t, err)

	a := mustCreate(t, s, newPod("a"))
	b := mustCreate(t, s, newPod("b"))
	upd := copyOf(a)
	upd.Labels = map[string]string{"x": "1"}
	_, err = s.Update(upd)
	require.NoError(t, err)
	mustCreate(t, s, newReplicaSet("rs", 1)) // another kind: not delivered, but takes a revision
	_, err = s.Delete(model.KindPod, "default", "b", model.DeleteOptions{})
	require.NoError(t, err)

	assert.Empty(t, rec.events, "events are delivered on the kernel, never inside the write")
	run(k, time.Second)
	assert.Equal(t, []string{
		"ADDED default/a@5",
		"ADDED default/b@6",
		"MODIFIED default/a@7",
		"MODIFIED default/b@9", // the unscheduled pod is marked with grace 0 ...
		"DELETED default/b@10", // ... then removed
	}, summary(rec.nonBookmarks()))
	last := rec.nonBookmarks()[4]
	assert.Equal(t, b.UID, last.Object.Meta().UID, "DELETED carries the last state")
	assert.Equal(t, uint64(10), last.Object.Meta().ResourceVersion, "with the deletion's revision")
}

func TestWatchDelay(t *testing.T) {
	t.Run("constant delay", func(t *testing.T) {
		k, s := newTestStore(t, func(c *StoreConfig) { c.WatchDelay = sim.Constant(20 * time.Millisecond) })
		rec := &recorder{k: k}
		_, err := s.Watch(model.KindPod, model.ListOptions{}, 0, rec)
		require.NoError(t, err)
		k.After(time.Second, func() { mustCreate(t, s, newPod("a")) })
		run(k, 2*time.Second)
		require.Len(t, rec.events, 1)
		assert.Equal(t, vtime.FromDuration(time.Second+20*time.Millisecond), rec.events[0].at)
	})
	t.Run("random delay stays monotone", func(t *testing.T) {
		k, s := newTestStore(t, func(c *StoreConfig) {
			c.WatchDelay = sim.Dist{Kind: sim.DistUniform, Min: time.Millisecond, Max: 50 * time.Millisecond}
		})
		rec := &recorder{k: k}
		_, err := s.Watch(model.KindPod, model.ListOptions{}, 0, rec)
		require.NoError(t, err)
		writeAt := map[uint64]vtime.Time{}
		for i := range 200 {
			k.After(time.Duration(i)*time.Millisecond, func() {
				p := mustCreate(t, s, newPod(fmt.Sprintf("p%03d", i)))
				writeAt[p.ResourceVersion] = k.Now()
			})
		}
		run(k, 2*time.Second)
		require.Len(t, rec.events, 200)
		var prevAt vtime.Time
		var prevRV uint64
		spread := map[time.Duration]bool{}
		for _, d := range rec.events {
			lag := d.at.Sub(writeAt[d.ev.ResourceVersion])
			assert.GreaterOrEqual(t, lag, time.Millisecond)
			assert.GreaterOrEqual(t, d.at, prevAt, "delivery times never go backwards")
			assert.Greater(t, d.ev.ResourceVersion, prevRV, "revision order")
			prevAt, prevRV = d.at, d.ev.ResourceVersion
			spread[lag] = true
		}
		assert.Greater(t, len(spread), 10, "the delay is drawn per event")
	})
}

func TestLabelFilteredWatchTurnsMatchChangesIntoAddedAndDeleted(t *testing.T) {
	k, s := newTestStore(t, nil)
	rec := &recorder{k: k}
	_, err := s.Watch(model.KindPod, model.ListOptions{LabelSelector: labels.SelectorFromSet(labels.Set{"app": "web"})}, 0, rec)
	require.NoError(t, err)

	p := mustCreate(t, s, newPod("p")) // no labels: not delivered
	set := func(lbl map[string]string) *model.Pod {
		cur, _ := s.Get(model.KindPod, "default", "p")
		upd := copyOf(cur.(*model.Pod))
		upd.Labels = lbl
		got, err := s.Update(upd)
		require.NoError(t, err)
		return got.(*model.Pod)
	}
	set(map[string]string{"app": "web"})              // starts matching: ADDED
	set(map[string]string{"app": "web", "v": "2"})    // still matching: MODIFIED
	stopped := set(map[string]string{"app": "batch"}) // stops matching: DELETED
	set(map[string]string{"app": "batch", "v": "3"})  // still not matching: nothing
	mustCreate(t, s, newPod("q"))                     // not matching: nothing
	run(k, time.Second)

	evs := rec.nonBookmarks()
	assert.Equal(t, []string{"ADDED default/p@6", "MODIFIED default/p@7", "DELETED default/p@8"}, summary(evs))
	del := evs[2].Object
	assert.Equal(t, "web", del.Meta().Labels["app"], "DELETED carries the state that matched")
	assert.Equal(t, stopped.ResourceVersion, del.Meta().ResourceVersion, "with the event's revision")
	assert.Equal(t, p.UID, del.Meta().UID)
}

func TestWatchFromRevisionReplaysHistory(t *testing.T) {
	k, s := newTestStore(t, nil)
	first := mustCreate(t, s, newPod("a"))
	mustCreate(t, s, newPod("b"))
	mustCreate(t, s, newPod("c"))
	rec := &recorder{k: k}
	_, err := s.Watch(model.KindPod, model.ListOptions{}, first.ResourceVersion, rec)
	require.NoError(t, err)
	run(k, time.Second)
	assert.Equal(t, []string{"ADDED default/b@6", "ADDED default/c@7"}, summary(rec.nonBookmarks()))

	_, err = s.Watch(model.KindPod, model.ListOptions{}, s.Revision()+1, rec)
	require.Error(t, err)
	assert.True(t, apierrors.IsTimeout(err), "%v", err)
	assert.Contains(t, err.Error(), "Too large resource version")
}

func TestWatchFromTooOldRevisionIsExpired(t *testing.T) {
	k, s := newTestStore(t, func(c *StoreConfig) { c.HistoryLowerBound, c.HistoryUpperBound = 4, 4 })
	rec := &recorder{k: k}
	// Nothing dropped yet: any start revision works.
	_, err := s.Watch(model.KindPod, model.ListOptions{}, 1, rec)
	require.NoError(t, err)

	var rvs []uint64
	for i := range 6 {
		rvs = append(rvs, mustCreate(t, s, newPod(fmt.Sprintf("p%d", i))).ResourceVersion)
	}
	// History holds the last 4 events: rvs[2..5]. A watch may start at rvs[2]-1 or later.
	events, capacity := s.HistorySize(model.KindPod)
	assert.Equal(t, 4, events)
	assert.Equal(t, 4, capacity)

	_, err = s.Watch(model.KindPod, model.ListOptions{}, rvs[2]-2, rec)
	require.True(t, apierrors.IsResourceExpired(err), "%v", err)
	assert.Equal(t, fmt.Sprintf("too old resource version: %d (%d)", rvs[2]-2, rvs[2]-1), err.Error())
	assert.Equal(t, int32(410), err.(apierrors.APIStatus).Status().Code)
	assert.Equal(t, uint64(1), s.WatchStats().Expired)

	ok := &recorder{k: k}
	_, err = s.Watch(model.KindPod, model.ListOptions{}, rvs[2]-1, ok)
	require.NoError(t, err)
	run(k, time.Second)
	assert.Len(t, ok.nonBookmarks(), 4)
}

func TestHistoryResizesWithinBounds(t *testing.T) {
	tests := []struct {
		name         string
		spacing      time.Duration
		writes       int
		wantCapacity int
		wantEvents   int
	}{
		{"burst grows to the upper bound", 0, 100, 16, 16},
		{"fresh events grow it", time.Second, 12, 16, 12},
		{"stale events never shrink below the lower bound", 100 * time.Second, 30, 4, 4},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			k, s := newTestStore(t, func(c *StoreConfig) {
				c.HistoryLowerBound, c.HistoryUpperBound = 4, 16
				c.EventFreshDuration = 75 * time.Second
			})
			for i := range tc.writes {
				k.After(time.Duration(i)*tc.spacing, func() { mustCreate(t, s, newPod(fmt.Sprintf("p%03d", i))) })
			}
			run(k, time.Duration(tc.writes+1)*tc.spacing+time.Second)
			events, capacity := s.HistorySize(model.KindPod)
			assert.Equal(t, tc.wantCapacity, capacity)
			assert.Equal(t, tc.wantEvents, events)
		})
	}

	// Grown by a burst, the history halves back once even its newest quarter is stale.
	k, s := newTestStore(t, func(c *StoreConfig) { c.HistoryLowerBound, c.HistoryUpperBound = 4, 16 })
	for i := range 40 {
		mustCreate(t, s, newPod(fmt.Sprintf("burst%02d", i)))
	}
	_, capacity := s.HistorySize(model.KindPod)
	require.Equal(t, 16, capacity)
	for i := range 3 {
		k.After(time.Duration(i+1)*100*time.Second, func() { mustCreate(t, s, newPod(fmt.Sprintf("late%d", i))) })
	}
	run(k, 400*time.Second)
	events, capacity := s.HistorySize(model.KindPod)
	assert.Equal(t, 4, capacity, "16 -> 8 -> 4, never below the lower bound")
	assert.Equal(t, 4, events)
}

func TestStalledWatcherOverflowIsClosed(t *testing.T) {
	k, s := newTestStore(t, func(c *StoreConfig) {
		c.WatchChanSize = 3
		c.HistoryLowerBound, c.HistoryUpperBound = 4, 4
	})
	slow, healthy := &recorder{k: k}, &recorder{k: k}
	ws, err := s.WatchAs("kubelet-n1", model.KindPod, model.ListOptions{}, 0, slow)
	require.NoError(t, err)
	_, err = s.WatchAs("kube-controller-manager", model.KindPod, model.ListOptions{}, 0, healthy)
	require.NoError(t, err)
	lastSeen := s.Revision()

	s.StallWatches(func(c string) bool { return c == "kubelet-n1" }, vtime.FromDuration(10*time.Second))
	for i := range 6 {
		k.After(time.Duration(i+1)*time.Second, func() { mustCreate(t, s, newPod(fmt.Sprintf("p%d", i))) })
	}
	run(k, 9*time.Second)
	assert.Len(t, healthy.nonBookmarks(), 6)
	assert.Empty(t, slow.events, "nothing reaches a stalled watcher")
	assert.Equal(t, 0, slow.closed, "the close notice waits for the stall to end")
	assert.Equal(t, uint64(1), s.WatchStats().ClosedOverflow)
	assert.Equal(t, 1, s.ActiveWatches())

	run(k, 2*time.Second)
	assert.Empty(t, slow.events, "queued events of a closed watch are dropped")
	assert.Equal(t, 1, slow.closed)
	assert.NoError(t, slow.closeErr, "an overflow is a normal close: the client re-watches")
	assert.Equal(t, 0, ws.Pending())

	// Re-watching from the last revision it saw fails: that has left the history.
	_, err = s.WatchAs("kubelet-n1", model.KindPod, model.ListOptions{}, lastSeen, slow)
	assert.True(t, apierrors.IsResourceExpired(err), "%v", err)
}

func TestStallWithinBufferDeliversEverythingAfterwards(t *testing.T) {
	k, s := newTestStore(t, nil)
	rec := &recorder{k: k}
	_, err := s.WatchAs("scheduler", model.KindPod, model.ListOptions{}, 0, rec)
	require.NoError(t, err)
	s.StallWatches(func(c string) bool { return c == "scheduler" }, vtime.FromDuration(5*time.Second))
	k.After(time.Second, func() { mustCreate(t, s, newPod("a")) })
	k.After(2*time.Second, func() { mustCreate(t, s, newPod("b")) })
	// A watch opened during the stall is stalled too.
	late := &recorder{k: k}
	k.After(3*time.Second, func() {
		_, err := s.WatchAs("scheduler", model.KindPod, model.ListOptions{}, 0, late)
		require.NoError(t, err)
		mustCreate(t, s, newPod("c"))
	})
	run(k, 10*time.Second)
	require.Equal(t, []string{"ADDED default/a@5", "ADDED default/b@6", "ADDED default/c@7"}, summary(rec.nonBookmarks()))
	for _, d := range rec.events {
		assert.Equal(t, vtime.FromDuration(5*time.Second), d.at)
	}
	require.Len(t, late.events, 1)
	assert.Equal(t, vtime.FromDuration(5*time.Second), late.events[0].at)

	// Ending a stall early releases the queue at once.
	s.StallWatches(func(string) bool { return true }, k.Now().Add(time.Hour))
	k.After(time.Second, func() { mustCreate(t, s, newPod("d")) })
	run(k, 2*time.Second)
	assert.Len(t, rec.nonBookmarks(), 3)
	s.StallWatches(func(string) bool { return true }, k.Now())
	run(k, time.Second)
	assert.Len(t, rec.nonBookmarks(), 4)
}

func TestStopEndsDeliveryWithoutClose(t *testing.T) {
	k, s := newTestStore(t, nil)
	rec := &recorder{k: k}
	w, err := s.Watch(model.KindPod, model.ListOptions{}, 0, rec)
	require.NoError(t, err)
	mustCreate(t, s, newPod("a"))
	w.Stop()
	w.Stop()
	mustCreate(t, s, newPod("b"))
	run(k, time.Second)
	assert.Empty(t, rec.events)
	assert.Equal(t, 0, rec.closed)
	assert.Equal(t, 0, s.ActiveWatches())

	// Stop from inside the sink stops at once.
	k2, s2 := newTestStore(t, nil)
	var w2 *Watch
	inner := &recorder{k: k2}
	inner.onEvent = func(WatchEvent) { w2.Stop() }
	w2, err = s2.Watch(model.KindPod, model.ListOptions{}, 0, inner)
	require.NoError(t, err)
	mustCreate(t, s2, newPod("a"))
	mustCreate(t, s2, newPod("b"))
	run(k2, time.Second)
	assert.Len(t, inner.events, 1)
}

func TestCloseWatches(t *testing.T) {
	k, s := newTestStore(t, nil)
	a, b := &recorder{k: k}, &recorder{k: k}
	_, err := s.WatchAs("a", model.KindPod, model.ListOptions{}, 0, a)
	require.NoError(t, err)
	_, err = s.WatchAs("b", model.KindNode, model.ListOptions{}, 0, b)
	require.NoError(t, err)
	mustCreate(t, s, newPod("p"))
	restart := apierrors.NewServiceUnavailable("apiserver restarting")
	assert.Equal(t, 1, s.CloseWatches(func(c string) bool { return c == "a" }, restart))
	run(k, time.Second)
	assert.Empty(t, a.events)
	assert.Equal(t, 1, a.closed)
	assert.Equal(t, restart, a.closeErr)
	assert.Equal(t, 0, b.closed)
	assert.Equal(t, 1, s.ActiveWatches())
}

func TestBookmarksAdvanceQuietWatchers(t *testing.T) {
	k, s := newTestStore(t, nil)
	pods, pods2 := &recorder{k: k}, &recorder{k: k}
	_, err := s.Watch(model.KindPod, model.ListOptions{}, 0, pods)
	require.NoError(t, err)
	_, err = s.Watch(model.KindPod, model.ListOptions{}, 0, pods2)
	require.NoError(t, err)
	k.After(time.Second, func() { mustCreate(t, s, newLease("n1")) })
	run(k, 2*time.Minute)
	require.Len(t, pods.events, 1)
	require.Len(t, pods2.events, 1)
	ev := pods.events[0]
	assert.Same(t, ev.ev.Object, pods2.events[0].ev.Object, "a round's bookmark object is shared by the kind's watchers")
	assert.Equal(t, Bookmark, ev.ev.Type)
	assert.Equal(t, s.Revision(), ev.ev.ResourceVersion)
	assert.Equal(t, s.Revision(), ev.ev.Object.Meta().ResourceVersion)
	assert.Equal(t, model.KindPod, ev.ev.Object.GetKind())
	assert.Equal(t, vtime.FromDuration(time.Second+time.Minute+DefaultWatchDelay), ev.at)

	// With nothing new, no more bookmarks, and the run can drain.
	out := k.Run(sim.Limits{MaxTime: k.Now().Add(time.Hour)})
	assert.Equal(t, sim.StopDrained, out.Reason)
	assert.Len(t, pods.events, 1)

	_, s2 := newTestStore(t, func(c *StoreConfig) { c.BookmarkFrequency = -1 })
	assert.Nil(t, s2.bookmarkTimer)
}

func TestTriggerIndexedWatch(t *testing.T) {
	k, s := newTestStore(t, nil)
	n1, n2 := &recorder{k: k}, &recorder{k: k}
	_, err := s.WatchAs("kubelet-n1", model.KindPod, model.ListOptions{FieldSelector: fields.OneTermEqualSelector("spec.nodeName", "n1")}, 0, n1)
	require.NoError(t, err)
	_, err = s.WatchAs("kubelet-n2", model.KindPod, model.ListOptions{FieldSelector: fields.OneTermEqualSelector("spec.nodeName", "n2")}, 0, n2)
	require.NoError(t, err)

	p := mustCreate(t, s, newPod("p")) // unbound: neither kubelet
	bind := copyOf(p)
	bind.Spec.NodeName = "n1"
	bound, err := s.Update(bind)
	require.NoError(t, err)
	_, err = s.Delete(model.KindPod, "default", "p", model.DeleteOptions{})
	require.NoError(t, err)
	run(k, time.Second)
	assert.Equal(t, []string{"ADDED default/p@6", "MODIFIED default/p@7"}, summary(n1.nonBookmarks()))
	assert.Empty(t, n2.events)
	assert.Equal(t, bound.Meta().UID, n1.events[0].ev.Object.Meta().UID)

	// The kubelet's final delete reaches it as DELETED.
	_, err = s.Delete(model.KindPod, "default", "p", model.DeleteOptions{GracePeriodSeconds: model.Ptr(int64(0))})
	require.NoError(t, err)
	run(k, time.Second)
	assert.Equal(t, Deleted, n1.nonBookmarks()[len(n1.nonBookmarks())-1].Type)

	// Upstream's channel sizes: 10 with the trigger, up to 1000 for indexed kinds without it,
	// up to 100 for unindexed kinds.
	podsKS, _ := s.kind(model.KindPod)
	rsKS, _ := s.kind(model.KindReplicaSet)
	assert.Equal(t, 10, s.watchChanSize(podsKS, true))
	assert.Equal(t, 10, s.watchChanSize(podsKS, false), "a small history suggests the minimum")
	podsKS.hist.setCapacity(100 * 1024)
	rsKS.hist.setCapacity(100 * 1024)
	assert.Equal(t, 10, s.watchChanSize(podsKS, true))
	assert.Equal(t, 1000, s.watchChanSize(podsKS, false))
	assert.Equal(t, 100, s.watchChanSize(rsKS, false))
}

func TestWatchErrors(t *testing.T) {
	_, s := newTestStore(t, nil)
	rec := &recorder{}
	_, err := s.Watch(model.KindPod, model.ListOptions{FieldSelector: fields.OneTermEqualSelector("spec.nope", "x")}, 0, rec)
	assert.True(t, apierrors.IsBadRequest(err), "%v", err)
	_, err = s.Watch("Widget", model.ListOptions{}, 0, rec)
	assert.True(t, apierrors.IsNotFound(err), "%v", err)
	_, err = s.Watch(model.KindPod, model.ListOptions{}, 0, nil)
	assert.True(t, apierrors.IsBadRequest(err), "%v", err)
}

func TestStallUntilNeverAsAPartition(t *testing.T) {
	k, s := newTestStore(t, nil)
	isKubelet := func(c string) bool { return c == "kubelet-n1" }
	rec := &recorder{k: k}
	_, err := s.WatchAs("kubelet-n1", model.KindPod, model.ListOptions{}, 0, rec)
	require.NoError(t, err)
	s.StallWatches(isKubelet, vtime.Never) // the partition starts
	k.After(time.Second, func() { mustCreate(t, s, newPod("a")) })
	out := k.Run(sim.Limits{QuiescenceWindow: time.Hour, MaxTime: vtime.FromDuration(24 * time.Hour)})
	assert.NotEqual(t, sim.StopTimeLimit, out.Reason, "a stall until Never leaves nothing in the heap")
	assert.Less(t, out.At, vtime.FromDuration(2*time.Hour), "and is not pending work")
	assert.Empty(t, rec.events)

	// A watch the kubelet opens during the partition is stalled too.
	during := &recorder{k: k}
	_, err = s.WatchAs("kubelet-n1", model.KindPod, model.ListOptions{}, 0, during)
	require.NoError(t, err)
	mustCreate(t, s, newPod("b"))
	run(k, time.Second)
	assert.Empty(t, during.events)

	s.StallWatches(isKubelet, k.Now()) // the partition heals
	run(k, time.Second)
	assert.Equal(t, []string{"ADDED default/a@5", "ADDED default/b@6"}, summary(rec.nonBookmarks()))
	assert.Equal(t, []string{"ADDED default/b@6"}, summary(during.nonBookmarks()))

	// After the heal, new watches are not stalled.
	after := &recorder{k: k}
	_, err = s.WatchAs("kubelet-n1", model.KindPod, model.ListOptions{}, 0, after)
	require.NoError(t, err)
	mustCreate(t, s, newPod("c"))
	run(k, time.Second)
	assert.Len(t, after.nonBookmarks(), 1)
}

func TestStallRulesArePrunedAndBounded(t *testing.T) {
	k, s := newTestStore(t, nil)
	for i := range 5 {
		name := fmt.Sprintf("c%d", i)
		s.StallWatches(func(c string) bool { return c == name }, k.Now().Add(time.Second))
	}
	assert.Len(t, s.stalls, 5)
	k.After(2*time.Second, func() {})
	run(k, 3*time.Second)
	s.StallWatches(func(string) bool { return false }, k.Now())
	assert.Empty(t, s.stalls, "expired rules and their overrides are dropped")

	for i := range maxStallRules + 10 {
		name := fmt.Sprintf("n%d", i)
		s.StallWatches(func(c string) bool { return c == name }, vtime.Never)
	}
	assert.Len(t, s.stalls, maxStallRules)
	assert.Equal(t, vtime.Never, s.stallFor(fmt.Sprintf("n%d", maxStallRules+9), k.Now()))
	assert.Equal(t, vtime.Time(0), s.stallFor("n0", k.Now()), "the oldest rules are forgotten first")
}

func TestPartitionedWatcherThatOverflowsLearnsOfTheCloseWhenItHeals(t *testing.T) {
	k, s := newTestStore(t, func(c *StoreConfig) { c.WatchChanSize = 2 })
	isKubelet := func(c string) bool { return c == "kubelet-n1" }
	rec := &recorder{k: k}
	_, err := s.WatchAs("kubelet-n1", model.KindPod, model.ListOptions{}, 0, rec)
	require.NoError(t, err)
	s.StallWatches(isKubelet, vtime.Never)
	for i := range 3 {
		mustCreate(t, s, newPod(fmt.Sprintf("p%d", i)))
	}
	run(k, time.Minute)
	assert.Equal(t, 0, rec.closed)
	assert.Len(t, s.closingWatches, 1)

	s.StallWatches(isKubelet, k.Now())
	run(k, time.Second)
	assert.Equal(t, 1, rec.closed)
	assert.Empty(t, rec.events)
	assert.Empty(t, s.closingWatches)
}

func TestStoppingTriggeredWatchesLeavesTheIndexClean(t *testing.T) {
	k, s := newTestStore(t, nil)
	sel := model.ListOptions{FieldSelector: fields.OneTermEqualSelector("spec.nodeName", "n1")}
	a, b := &recorder{k: k}, &recorder{k: k}
	wa, err := s.WatchAs("a", model.KindPod, sel, 0, a)
	require.NoError(t, err)
	wb, err := s.WatchAs("b", model.KindPod, sel, 0, b)
	require.NoError(t, err)
	ks, _ := s.kind(model.KindPod)
	require.Len(t, ks.triggered["n1"], 2)
	wa.Stop()
	assert.Len(t, ks.triggered["n1"], 1)
	pod := newPod("p")
	pod.Spec.NodeName = "n1"
	mustCreate(t, s, pod)
	run(k, time.Second)
	assert.Empty(t, a.events)
	assert.Len(t, b.nonBookmarks(), 1)
	wb.Stop()
	assert.NotContains(t, ks.triggered, "n1")
	assert.Empty(t, ks.watchers)
	assert.Equal(t, 0, s.ActiveWatches())
}

// TestCoalesceWatchesDeliversOnlyLastStates: during a coalescing window a watcher gets
// nothing; when it ends, each object changed in it arrives once, in its last state, in
// revision order; an object created and deleted inside the window never shows; a watcher of
// another client sees every event as it happens.
func TestCoalesceWatchesDeliversOnlyLastStates(t *testing.T) {
	k, s := newTestStore(t, nil)
	a := mustCreate(t, s, newPod("a"))
	mustCreate(t, s, newPod("b"))
	slow, other := &recorder{k: k}, &recorder{k: k}
	_, err := s.WatchAs("kube-controller-manager", model.KindPod, model.ListOptions{}, 0, slow)
	require.NoError(t, err)
	_, err = s.WatchAs("kube-scheduler", model.KindPod, model.ListOptions{}, 0, other)
	require.NoError(t, err)
	s.CoalesceWatches(func(c string) bool { return c == "kube-controller-manager" }, vtime.FromDuration(5*time.Second))
	label := func(p *model.Pod, v string) {
		cur, err := s.Get(model.KindPod, "default", p.Name)
		require.NoError(t, err)
		next := cur.DeepCopyObject().(*model.Pod)
		next.Labels = map[string]string{"v": v}
		_, err = s.Update(next)
		require.NoError(t, err)
	}
	k.After(1*time.Second, func() { label(a, "1") })
	k.After(2*time.Second, func() { mustCreate(t, s, newPod("c")) })
	k.After(3*time.Second, func() { label(a, "2") })
	k.After(3*time.Second, func() { mustCreate(t, s, newPod("tmp")) })
	k.After(4*time.Second, func() {
		_, err := s.Delete(model.KindPod, "default", "tmp", model.DeleteOptions{GracePeriodSeconds: model.Ptr(int64(0))})
		require.NoError(t, err)
		_, err = s.Delete(model.KindPod, "default", "b", model.DeleteOptions{GracePeriodSeconds: model.Ptr(int64(0))})
		require.NoError(t, err)
	})
	run(k, 4500*time.Millisecond)
	assert.Empty(t, slow.nonBookmarks(), "nothing before the window ends")
	assert.Len(t, other.nonBookmarks(), 8, "the other client sees every event (a pod deletion is a MODIFIED, then a DELETED)")
	run(k, time.Second)
	got := summary(slow.nonBookmarks())
	require.Len(t, got, 3, "%v", got)
	assert.Equal(t, "ADDED default/c@8", got[0])
	assert.Regexp(t, `^MODIFIED default/a@\d+$`, got[1])
	assert.Regexp(t, `^DELETED default/b@\d+$`, got[2])
	last := slow.nonBookmarks()[1].Object.(*model.Pod)
	assert.Equal(t, "2", last.Labels["v"], "a's last state only")

	// After the window, events flow one by one again.
	k.After(time.Second, func() { label(a, "3") })
	k.After(2*time.Second, func() { label(a, "4") })
	run(k, 3*time.Second)
	assert.Len(t, slow.nonBookmarks(), 5)
}

// TestSweepKeepsTheOpenWatchesInOrder opens general and node-pinned pod watches, and removes
// them over seeded steps: one at a time (Stop), and many at once inside a dispatch (stalled
// watches whose buffers overflow on the same write, more than sweep finds by address). After
// every step the dispatch lists hold exactly the watches not removed, in the order they were
// opened.
func TestSweepKeepsTheOpenWatchesInOrder(t *testing.T) {
	for seed := range uint64(8) {
		rng := rand.New(rand.NewPCG(seed, 3))
		k, s := newTestStore(t, func(c *StoreConfig) { c.WatchChanSize = 1 })
		ks, _ := s.kind(model.KindPod)
		var opened []*Watch
		open := func() {
			i := len(opened)
			opts := model.ListOptions{}
			if i%3 == 0 {
				opts.FieldSelector = fields.OneTermEqualSelector("spec.nodeName", fmt.Sprintf("n%d", i%2))
			}
			w, err := s.WatchAs(fmt.Sprintf("c%d", i), model.KindPod, opts, 0, &recorder{k: k})
			require.NoError(t, err)
			opened = append(opened, w)
		}
		for range 40 {
			open()
		}
		writes, bulk := 0, 0
		write := func(node string) {
			pod := newPod(fmt.Sprintf("p%d", writes))
			pod.Spec.NodeName = node
			mustCreate(t, s, pod)
			writes++
		}
		for step := range 60 {
			switch rng.IntN(4) {
			case 0, 1:
				opened[rng.IntN(len(opened))].Stop()
			case 2:
				open()
			case 3:
				// Stall a share of the clients: two writes overflow their buffers of one, and
				// they are closed inside the second write's dispatch.
				m := 1 + rng.IntN(3)
				s.StallWatches(func(client string) bool {
					n, err := strconv.Atoi(client[1:])
					return err == nil && n%m == 0
				}, vtime.Never)
				before := s.ActiveWatches()
				node := fmt.Sprintf("n%d", rng.IntN(2))
				write(node)
				write(node)
				bulk = max(bulk, before-s.ActiveWatches())
				s.StallWatches(func(string) bool { return true }, k.Now())
			}
			run(k, time.Second)
			var watchers, general []*Watch
			triggered := map[string][]*Watch{}
			for _, w := range opened {
				if w.removed {
					continue
				}
				watchers = append(watchers, w)
				if w.match.triggered {
					triggered[w.match.triggerValue] = append(triggered[w.match.triggerValue], w)
				} else {
					general = append(general, w)
				}
			}
			require.True(t, slices.Equal(watchers, ks.watchers), "seed %d step %d: watchers", seed, step)
			require.True(t, slices.Equal(general, ks.general), "seed %d step %d: general", seed, step)
			require.Equal(t, len(triggered), len(ks.triggered), "seed %d step %d: trigger values", seed, step)
			for v, list := range triggered {
				require.True(t, slices.Equal(list, ks.triggered[v]), "seed %d step %d: watches of %s", seed, step, v)
			}
			require.Empty(t, ks.unwatched, "seed %d step %d", seed, step)
			require.Equal(t, len(watchers), s.ActiveWatches(), "seed %d step %d", seed, step)
		}
		require.Greater(t, bulk, sweepByAddress, "seed %d: no dispatch removed more watches than sweep finds by address", seed)
	}
}
