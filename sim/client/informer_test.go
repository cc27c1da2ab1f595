package client

import (
	"context"
	"fmt"
	"testing"
	"time"
	"unsafe"

	"k8s.io/apimachinery/pkg/labels"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim"
	"github.com/reconsim/reconsim/sim/apiserver"
	"github.com/reconsim/reconsim/vtime"
)

// handlerLog records every notification as one line.
type handlerLog struct {
	k     *sim.Kernel
	lines []string
}

func (h *handlerLog) OnAdd(obj model.Object, initial bool) {
	h.lines = append(h.lines, fmt.Sprintf("%s add %s initial=%v", h.k.Now(), model.Key(obj), initial))
}

func (h *handlerLog) OnUpdate(oldObj, newObj model.Object) {
	kind := "update"
	if oldObj == newObj {
		kind = "resync"
	}
	h.lines = append(h.lines, fmt.Sprintf("%s %s %s", h.k.Now(), kind, model.Key(newObj)))
}

func (h *handlerLog) OnDelete(obj any) {
	switch o := obj.(type) {
	case DeletedFinalStateUnknown:
		h.lines = append(h.lines, fmt.Sprintf("%s delete-unknown %s", h.k.Now(), o.Key))
	case model.Object:
		h.lines = append(h.lines, fmt.Sprintf("%s delete %s", h.k.Now(), model.Key(o)))
	}
}

func (h *handlerLog) take() []string {
	l := h.lines
	h.lines = nil
	return l
}

func instantServer(k *sim.Kernel, mutate func(*apiserver.Config)) *apiserver.Server {
	return newServer(k, func(c *apiserver.Config) {
		c.ServiceTime = map[model.Verb]sim.Dist{}
		c.ListItemCost = 0
		c.Store.WatchDelay = sim.Constant(5 * time.Millisecond)
		if mutate != nil {
			mutate(c)
		}
	})
}

func mustCreate(t *testing.T, ctx context.Context, c *Client, obj model.Object) model.Object {
	t.Helper()
	got, err := c.Create(ctx, obj)
	require.NoError(t, err)
	return got
}

// podInformer returns a kernel seeded with seed, an unthrottled client of an instant API
// server, and an informer of pods (resync period resync) whose events go to log.
func podInformer(seed uint64, resync time.Duration) (*sim.Kernel, *Client, *Informer, *handlerLog) {
	k := sim.New(seed)
	c := New(instantServer(k, nil), "test", Config{QPS: -1})
	inf := NewInformer(c, model.KindPod, model.ListOptions{}, resync)
	log := &handlerLog{k: k}
	inf.AddEventHandler(log)
	return k, c, inf, log
}

// TestInformerListThenWatch: the initial list arrives as initial adds; later writes arrive in
// order, one watch delay after each write.
func TestInformerListThenWatch(t *testing.T) {
	k, c, inf, log := podInformer(1, 0)
	var synced vtime.Time
	run(t, k, func(ctx context.Context) {
		p := sim.ProcFromContext(ctx)
		mustCreate(t, ctx, c, newPod("a", nil))
		mustCreate(t, ctx, c, newPod("b", nil))
		inf.Run(k)
		inf.WaitForSync(ctx)
		synced = k.Now()
		require.True(t, inf.HasSynced())
		p.Sleep(time.Second)
		mustCreate(t, ctx, c, newPod("c", nil))
		a, _ := inf.Get("default", "a")
		a = a.DeepCopyObject()
		a.Meta().Labels = map[string]string{"x": "y"}
		_, err := c.Update(ctx, a)
		require.NoError(t, err)
		require.NoError(t, c.Delete(ctx, model.KindPod, "default", "b", model.DeleteOptions{GracePeriodSeconds: model.Ptr[int64](0)}))
		p.Sleep(time.Second)
		inf.Stop()
	})
	assert.Equal(t, vtime.Time(0), synced)
	assert.Equal(t, []string{
		"t=0.000s add default/a initial=true",
		"t=0.000s add default/b initial=true",
		"t=1.005s add default/c initial=false",
		"t=1.005s update default/a",
		"t=1.005s update default/b", // graceful deletion first sets deletionTimestamp
		"t=1.005s delete default/b",
	}, log.take())
	assert.Equal(t, uint64(1), inf.Stats().Lists)
}

// sizeLog is a handlerLog that also records OnListSize.
type sizeLog struct{ handlerLog }

func (h *sizeLog) OnListSize(n int) {
	h.lines = append(h.lines, fmt.Sprintf("%s list-size %d", h.k.Now(), n))
}

// TestInformerListSizeComesBeforeTheAddsOfAListIntoAnEmptyCache: a ListSizeHandler hears the
// size of a list into an empty cache before its adds (the first list, and the list after a
// restart), and nothing for an empty list; EventHandlerFuncs passes it to ListSizeFunc.
func TestInformerListSizeComesBeforeTheAddsOfAListIntoAnEmptyCache(t *testing.T) {
	k := sim.New(1)
	c := New(instantServer(k, nil), "test", Config{QPS: -1})
	inf := NewInformer(c, model.KindPod, model.ListOptions{}, 0)
	log := &sizeLog{handlerLog{k: k}}
	inf.AddEventHandler(log)
	var funcSizes []int
	inf.AddEventHandler(EventHandlerFuncs{ListSizeFunc: func(n int) { funcSizes = append(funcSizes, n) }})
	run(t, k, func(ctx context.Context) {
		p := sim.ProcFromContext(ctx)
		inf.Run(k)
		inf.WaitForSync(ctx)
		inf.Stop()
		mustCreate(t, ctx, c, newPod("a", nil))
		mustCreate(t, ctx, c, newPod("b", nil))
		p.Sleep(time.Second)
		inf.Run(k)
		inf.WaitForSync(ctx)
		inf.Stop()
	})
	assert.Equal(t, []string{
		"t=1.000s list-size 2",
		"t=1.000s add default/a initial=true",
		"t=1.000s add default/b initial=true",
	}, log.take())
	assert.Equal(t, []int{2}, funcSizes)
}

// TestInformerIndexes: the built-in indexes and a custom one follow adds, updates and deletes;
// listers return objects sorted by key.
func TestInformerIndexes(t *testing.T) {
	k := sim.New(1)
	c := New(instantServer(k, nil), "test", Config{QPS: -1})
	inf := NewInformer(c, model.KindPod, model.ListOptions{}, 0)
	require.NoError(t, inf.AddIndexers(Indexers{"image": func(obj model.Object) []string {
		return []string{obj.(*model.Pod).Spec.Containers[0].Image}
	}}))
	require.Error(t, inf.AddIndexers(Indexers{IndexNamespace: NamespaceIndexFunc}), "built-in names are taken")
	keys := func(objs []model.Object) []string {
		out := []string{}
		for _, o := range objs {
			out = append(out, model.Key(o))
		}
		return out
	}
	run(t, k, func(ctx context.Context) {
		p := sim.ProcFromContext(ctx)
		owner := model.OwnerReference{APIVersion: "apps/v1", Kind: model.KindReplicaSet, Name: "rs", UID: "rs-uid", Controller: model.Ptr(true)}
		for i, name := range []string{"p3", "p1", "p2"} {
			pod := newPod(name, map[string]string{"app": "web", "n": fmt.Sprint(i)})
			pod.Spec.NodeName = "node-1"
			if name != "p2" {
				pod.OwnerReferences = []model.OwnerReference{owner}
			}
			mustCreate(t, ctx, c, pod)
		}
		inf.Run(k)
		inf.WaitForSync(ctx)
		assert.Equal(t, []string{"default/p1", "default/p2", "default/p3"}, keys(inf.List(nil)))
		assert.Equal(t, []string{"default/p1", "default/p3"}, keys(inf.ByIndex(IndexOwnerUID, "rs-uid")))
		assert.Equal(t, []string{"default/p1", "default/p2", "default/p3"}, keys(inf.ByIndex(IndexNodeName, "node-1")))
		assert.Equal(t, []string{"default/p1", "default/p2", "default/p3"}, keys(inf.ByIndex(IndexNamespace, "default")))
		assert.Equal(t, []string{"default/p3"}, keys(inf.ByIndex(IndexLabel, LabelIndexValue("n", "0"))))
		assert.Equal(t, []string{"default/p1", "default/p2", "default/p3"}, keys(inf.ByIndex("image", "app:1")))
		sel := labels.SelectorFromSet(labels.Set{"n": "1"})
		assert.Equal(t, []string{"default/p1"}, keys(inf.List(sel)))
		assert.Equal(t, []string{"default/p1"}, keys(inf.ListNamespace("default", sel)))
		assert.Empty(t, inf.ListNamespace("other", nil))

		// Relabel p1 and delete p3: the indexes follow.
		obj, ok := inf.Get("default", "p1")
		require.True(t, ok)
		relabelled := obj.DeepCopyObject().(*model.Pod)
		relabelled.Labels["n"] = "9"
		_, err := c.Update(ctx, relabelled)
		require.NoError(t, err)
		require.NoError(t, c.Delete(ctx, model.KindPod, "default", "p3", model.DeleteOptions{GracePeriodSeconds: model.Ptr[int64](0)}))
		p.Sleep(time.Second)
		assert.Empty(t, inf.ByIndex(IndexLabel, LabelIndexValue("n", "1")))
		assert.Equal(t, []string{"default/p1"}, keys(inf.ByIndex(IndexLabel, LabelIndexValue("n", "9"))))
		assert.Equal(t, []string{"default/p1", "default/p2"}, keys(inf.ByIndex(IndexNodeName, "node-1")))
		assert.Equal(t, []string{"default/p1"}, keys(inf.ByIndex(IndexOwnerUID, "rs-uid")))
		assert.Empty(t, inf.ByIndex(IndexLabel, LabelIndexValue("n", "0")))
		assert.Equal(t, []string{"default/p1", "default/p2"}, keys(inf.List(labels.SelectorFromSet(labels.Set{"app": "web"}))))
		assert.Panics(t, func() { inf.ByIndex("no-such-index", "x") })
		objs, byKeys := inf.ByIndexKeyed(IndexNodeName, "node-1")
		assert.Equal(t, inf.ByIndex(IndexNodeName, "node-1"), objs, "ByIndexKeyed's objects are ByIndex's")
		assert.Equal(t, keys(objs), byKeys, "each with its key")
		assert.Panics(t, func() { inf.ByIndexKeyed("no-such-index", "x") })
		inf.Stop()
	})
}

// TestInformerResync: every resync period each cached object reaches the handlers as
// OnUpdate(obj, obj); the resync timer does not keep the world from quiescence.
func TestInformerResync(t *testing.T) {
	k, c, inf, log := podInformer(1, 30*time.Second)
	k.Spawn("setup", func(p *sim.Proc) {
		mustCreate(t, p, c, newPod("a", nil))
		mustCreate(t, p, c, newPod("b", nil))
		inf.Run(k)
	})
	out := k.Run(sim.Limits{MaxTime: vtime.FromDuration(65 * time.Second)})
	require.Equal(t, sim.StopTimeLimit, out.Reason, out.Detail)
	assert.Equal(t, []string{
		"t=0.000s add default/a initial=true",
		"t=0.000s add default/b initial=true",
		"t=30.000s resync default/a",
		"t=30.000s resync default/b",
		"t=60.000s resync default/a",
		"t=60.000s resync default/b",
	}, log.take())
	assert.Equal(t, uint64(2), inf.Stats().Resyncs)
	out = k.Run(sim.Limits{MaxTime: vtime.FromDuration(time.Hour), QuiescenceWindow: 10 * time.Second})
	assert.Equal(t, sim.StopQuiescent, out.Reason, "resync and the watch timer must not be holds: %s", out.Detail)
}

// TestInformerRelistAfterExpiredDeliversTombstones: a watch that is broken while more writes
// happen than the server's history holds comes back with 410 Expired; the informer relists,
// reports the object deleted meanwhile as DeletedFinalStateUnknown, and the changed one as an
// update.
func TestInformerRelistAfterExpiredDeliversTombstones(t *testing.T) {
	k := sim.New(1)
	srv := instantServer(k, func(c *apiserver.Config) {
		c.Store.HistoryLowerBound = 10
		c.Store.HistoryUpperBound = 10
		c.Store.EventFreshDuration = time.Millisecond
	})
	writer := New(srv, "writer", Config{QPS: -1})
	c := New(srv, "test", Config{QPS: 1, Burst: 2})
	inf := NewInformer(c, model.KindPod, model.ListOptions{}, 0)
	log := &handlerLog{k: k}
	inf.AddEventHandler(log)
	run(t, k, func(ctx context.Context) {
		p := sim.ProcFromContext(ctx)
		mustCreate(t, ctx, writer, newPod("gone", nil))
		mustCreate(t, ctx, writer, newPod("kept", nil))
		inf.Run(k)
		inf.WaitForSync(ctx)
		p.Sleep(time.Minute)
		require.Equal(t, []string{"t=0.000s add default/gone initial=true", "t=0.000s add default/kept initial=true"}, log.take())

		// Break the connection, and keep the client from re-watching for 100s by using up
		// its token bucket, while 30 writes go by.
		inf.endWatch()
		for range 100 {
			c.RateLimiter().limiter.Reserve()
		}
		require.NoError(t, writer.Delete(ctx, model.KindPod, "default", "gone", model.DeleteOptions{GracePeriodSeconds: model.Ptr[int64](0)}))
		for i := range 30 {
			obj, err := writer.Get(ctx, model.KindPod, "default", "kept")
			require.NoError(t, err)
			obj.Meta().Labels = map[string]string{"i": fmt.Sprint(i)}
			_, err = writer.Update(ctx, obj)
			require.NoError(t, err)
		}
		p.Sleep(5 * time.Minute)
		kept, ok := inf.Get("default", "kept")
		require.True(t, ok)
		assert.Equal(t, "29", kept.Meta().Labels["i"])
		_, ok = inf.Get("default", "gone")
		assert.False(t, ok)
		inf.Stop()
	})
	lines := log.take()
	require.Len(t, lines, 2, "%q", lines)
	assert.Contains(t, lines[0], "update default/kept")
	assert.Contains(t, lines[1], "delete-unknown default/gone")
	s := inf.Stats()
	assert.Equal(t, uint64(1), s.WatchExpired)
	assert.Equal(t, uint64(1), s.Relists)
}

// TestInformerWatchTimeoutRewatchesWithoutListing: watches end after 5 to 10 minutes and are
// reopened from the last resourceVersion; no relist happens.
func TestInformerWatchTimeoutRewatchesWithoutListing(t *testing.T) {
	k, c, inf, log := podInformer(3, 0)
	run(t, k, func(ctx context.Context) {
		p := sim.ProcFromContext(ctx)
		inf.Run(k)
		inf.WaitForSync(ctx)
		for i := range 6 {
			p.Sleep(5 * time.Minute)
			mustCreate(t, ctx, c, newPod(fmt.Sprint("p", i), nil))
		}
		p.Sleep(time.Second)
		inf.Stop()
	})
	s := inf.Stats()
	assert.Equal(t, uint64(1), s.Lists)
	assert.GreaterOrEqual(t, s.WatchTimeouts, uint64(3), "30 minutes of 5-10 minute watches")
	assert.LessOrEqual(t, s.WatchTimeouts, uint64(6))
	assert.Equal(t, s.WatchTimeouts+1, s.Watches)
	assert.Len(t, log.take(), 6, "every create seen exactly once across the re-watches")
}

// TestInformerStopAndRestart: Stop clears the cache; Run again relists and re-adds everything
// as an initial list; a handler added late gets the cache replayed.
func TestInformerStopAndRestart(t *testing.T) {
	k, c, inf, log := podInformer(1, 0)
	late := &handlerLog{k: k}
	run(t, k, func(ctx context.Context) {
		p := sim.ProcFromContext(ctx)
		mustCreate(t, ctx, c, newPod("a", nil))
		inf.Run(k)
		inf.WaitForSync(ctx)
		inf.Stop()
		assert.False(t, inf.HasSynced())
		assert.Equal(t, 0, inf.Len())
		p.Sleep(time.Second)
		mustCreate(t, ctx, c, newPod("b", nil))
		inf.Run(k)
		inf.WaitForSync(ctx)
		inf.AddEventHandler(late)
		inf.Stop()
	})
	assert.Equal(t, []string{
		"t=0.000s add default/a initial=true",
		"t=1.000s add default/a initial=true",
		"t=1.000s add default/b initial=true",
	}, log.take())
	assert.Equal(t, []string{"t=1.000s add default/a initial=true", "t=1.000s add default/b initial=true"}, late.take())
}

// TestFactorySharesInformers: one informer per kind and options, started and synced together
// in creation order.
func TestFactorySharesInformers(t *testing.T) {
	k := sim.New(1)
	c := New(instantServer(k, nil), "test", Config{QPS: -1})
	f := NewSharedInformerFactory(c, 0)
	pods := f.For(model.KindPod)
	assert.Same(t, pods, f.For(model.KindPod))
	nodes := f.For(model.KindNode)
	scoped := f.ForOptions(model.KindPod, model.ListOptions{Namespace: "kube-system"})
	assert.NotSame(t, pods, scoped)
	assert.Equal(t, []*Informer{pods, nodes, scoped}, f.Informers())
	run(t, k, func(ctx context.Context) {
		mustCreate(t, ctx, c, newPod("a", nil))
		f.Start(k)
		f.WaitForCacheSync(ctx)
		for _, inf := range f.Informers() {
			assert.True(t, inf.HasSynced(), "%s", inf.Kind())
		}
		assert.Equal(t, 1, pods.Len())
		late := f.For(model.KindReplicaSet)
		assert.True(t, late.Running(), "informers made after Start start at once")
		f.Stop()
	})
}

func TestObjectOf(t *testing.T) {
	pod := newPod("a", nil)
	got, ok := ObjectOf(pod)
	assert.True(t, ok)
	assert.Same(t, pod, got)
	got, ok = ObjectOf(DeletedFinalStateUnknown{Key: "default/a", Obj: pod})
	assert.True(t, ok)
	assert.Same(t, pod, got)
	_, ok = ObjectOf("nonsense")
	assert.False(t, ok)
}

func TestBackoffManager(t *testing.T) {
	b := newBackoffManager(sim.NewRand(1, "backoff"), 0)
	now := vtime.Time(0)
	var got []time.Duration
	for range 8 {
		d := b.next(now)
		got = append(got, d)
		now = now.Add(d)
	}
	base := []time.Duration{800 * time.Millisecond, 1600 * time.Millisecond, 3200 * time.Millisecond, 6400 * time.Millisecond, 12800 * time.Millisecond, 25600 * time.Millisecond, 30 * time.Second, 30 * time.Second}
	for i, d := range got {
		assert.GreaterOrEqual(t, d, base[i], "step %d", i)
		assert.Less(t, d, 2*base[i], "step %d: jitter adds less than 100%%", i)
	}
	reset := b.next(now.Add(3 * time.Minute))
	assert.Less(t, reset, 1600*time.Millisecond, "back to the initial delay after 2 minutes without backoff")
}

// TestInformerRunsAreDeterministic: the same seed gives the same trace, watch timeouts and
// backoff jitter included; another seed gives other watch timeouts.
func TestInformerRunsAreDeterministic(t *testing.T) {
	runOnce := func(seed uint64) (uint64, InformerStats) {
		k := sim.New(seed)
		c := New(instantServer(k, nil), "test", Config{})
		inf := NewInformer(c, model.KindPod, model.ListOptions{}, time.Minute)
		inf.AddEventHandler(&handlerLog{k: k})
		k.Spawn("writer", func(p *sim.Proc) {
			inf.Run(k)
			for i := range 40 {
				p.Sleep(time.Minute)
				mustCreate(t, p, c, newPod(fmt.Sprint("p", i), nil))
				k.Emit("test", "watches", "", 0, fmt.Sprint(inf.Stats().Watches))
			}
			inf.Stop()
		})
		k.Run(sim.Limits{MaxTime: vtime.FromDuration(2 * time.Hour)})
		return k.Trace().Hash(), inf.Stats()
	}
	h1, s1 := runOnce(11)
	h2, s2 := runOnce(11)
	assert.Equal(t, h1, h2)
	assert.Equal(t, s1, s2)
	h3, _ := runOnce(12)
	assert.NotEqual(t, h1, h3, "watch timeouts are drawn from the seeded stream")
}

// keyedLog is a KeyedEventHandler that writes handlerLog's lines from its keyed calls, and
// checks each key against the object's.
type keyedLog struct {
	t     *testing.T
	inf   *Informer
	plain handlerLog
	// checks counts the keys checked, cacheKeys those that are the cache's own string for the
	// object.
	checks, cacheKeys int
}

func (h *keyedLog) checkKey(key string, obj model.Object) {
	require.Equal(h.t, model.Key(obj), key)
	h.checks++
	if e, ok := h.inf.store.items[key]; ok && unsafe.StringData(e.key) == unsafe.StringData(key) {
		h.cacheKeys++
	}
}

func (h *keyedLog) OnAddKeyed(key string, obj model.Object, initial bool) {
	h.checkKey(key, obj)
	h.plain.OnAdd(obj, initial)
}

func (h *keyedLog) OnUpdateKeyed(key string, oldObj, newObj model.Object) {
	h.checkKey(key, newObj)
	h.checkKey(key, oldObj)
	h.plain.OnUpdate(oldObj, newObj)
}

func (h *keyedLog) OnDeleteKeyed(key string, obj any) {
	require.Equal(h.t, DeletedKey(obj), key)
	h.plain.OnDelete(obj)
}

func (h *keyedLog) OnAdd(model.Object, bool) { h.t.Fatal("OnAdd called on a keyed handler") }
func (h *keyedLog) OnUpdate(model.Object, model.Object) {
	h.t.Fatal("OnUpdate called on a keyed handler")
}
func (h *keyedLog) OnDelete(any) { h.t.Fatal("OnDelete called on a keyed handler") }

// TestKeyedHandlersGetTheCacheKeys: a KeyedEventHandler gets the same notifications as a plain
// handler of the same informer (list, replay to a late handler, watch adds, updates and
// deletes, resyncs), through its keyed methods only, each with the object's key, the cache's
// own string wherever the object is cached.
func TestKeyedHandlersGetTheCacheKeys(t *testing.T) {
	k, c, inf, log := podInformer(1, 30*time.Second)
	keyed := &keyedLog{t: t, inf: inf, plain: handlerLog{k: k}}
	late := &keyedLog{t: t, inf: inf, plain: handlerLog{k: k}}
	inf.AddEventHandler(keyed)
	run(t, k, func(ctx context.Context) {
		p := sim.ProcFromContext(ctx)
		mustCreate(t, ctx, c, newPod("a", nil))
		mustCreate(t, ctx, c, newPod("b", nil))
		inf.Run(k)
		inf.WaitForSync(ctx)
		inf.AddEventHandler(late)
		late.plain.take()
		mustCreate(t, ctx, c, newPod("c", nil))
		obj, err := c.Get(ctx, model.KindPod, "default", "a")
		require.NoError(t, err)
		obj.Meta().Labels = map[string]string{"x": "y"}
		_, err = c.Update(ctx, obj)
		require.NoError(t, err)
		require.NoError(t, c.Delete(ctx, model.KindPod, "default", "b", model.DeleteOptions{GracePeriodSeconds: model.Ptr[int64](0)}))
		p.Sleep(40 * time.Second)
		inf.Stop()
	})
	want := log.take()
	require.Len(t, want, 8, "%q", want)
	assert.Equal(t, want, keyed.plain.take())
	assert.Equal(t, want[2:], late.plain.take())
	assert.Equal(t, 11, keyed.checks, "three adds, two updates and two resyncs, two keys each but for the adds")
	assert.Equal(t, keyed.checks, keyed.cacheKeys, "every key of a cached object is the cache's string")
	assert.Equal(t, late.checks, late.cacheKeys)
}

// TestKeyedEventHandlerFuncsWithoutAKey: the adapter's EventHandler methods pass model.Key's
// key, and a tombstone's Key for a delete.
func TestKeyedEventHandlerFuncsWithoutAKey(t *testing.T) {
	var got []string
	f := KeyedEventHandlerFuncs{
		AddFunc:    func(key string, _ model.Object, _ bool) { got = append(got, "add "+key) },
		UpdateFunc: func(key string, _, _ model.Object) { got = append(got, "update "+key) },
		DeleteFunc: func(key string, _ any) { got = append(got, "delete "+key) },
	}
	pod := newPod("a", nil)
	f.OnAdd(pod, false)
	f.OnUpdate(pod, pod)
	f.OnDelete(pod)
	f.OnDelete(DeletedFinalStateUnknown{Key: "default/gone", Obj: pod})
	f.OnDelete(&DeletedFinalStateUnknown{Key: "default/gone2"})
	assert.Equal(t, []string{"add default/a", "update default/a", "delete default/a", "delete default/gone", "delete default/gone2"}, got)
}
