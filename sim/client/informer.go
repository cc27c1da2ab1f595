package client

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim"
	"github.com/reconsim/reconsim/sim/apiserver"
)

// Watch timeouts, client-go tools/cache/reflector.go: each watch asks for a server timeout
// drawn uniformly from [defaultMinWatchTimeout, 2×defaultMinWatchTimeout].
const (
	minWatchTimeout = 5 * time.Minute
	maxWatchTimeout = 2 * minWatchTimeout
	// veryShortWatch: a watch that ends normally this quickly with no events is treated as an
	// error (reflector.go handleWatch, "very short watch").
	veryShortWatch = time.Second
)

// EventHandler receives an informer's notifications (upstream ResourceEventHandler). Handlers
// run on the kernel or the informer's process, synchronously; they should only enqueue work.
// Objects are shared with the cache and must not be modified.
type EventHandler interface {
	// OnAdd is called for an object new to the cache; isInInitialList is true while the
	// informer is filling its cache for the first time.
	OnAdd(obj model.Object, isInInitialList bool)
	// OnUpdate is called for an object already in the cache; a resync calls it with
	// oldObj == newObj (same resourceVersion).
	OnUpdate(oldObj, newObj model.Object)
	// OnDelete is called with the deleted object, or with a DeletedFinalStateUnknown when the
	// delete was missed while the watch was broken and found by a relist.
	OnDelete(obj any)
}

// KeyedEventHandler is implemented by handlers that keep their own state by an object's key
// (model.Key: "namespace/name", or "name" for a cluster-scoped object). The informer calls
// these methods instead of EventHandler's, with the key the cache files the object under: a
// string it already holds, so that the handler does not build the same key again on every
// event. An update's key is both versions' key; a delete's is the key of the object or of
// the tombstone (DeletedFinalStateUnknown.Key). The EventHandler methods stay for callers
// that deliver without a key, and must do what the keyed ones do with model.Key's key
// (KeyedEventHandlerFuncs does both).
type KeyedEventHandler interface {
	EventHandler
	OnAddKeyed(key string, obj model.Object, isInInitialList bool)
	OnUpdateKeyed(key string, oldObj, newObj model.Object)
	OnDeleteKeyed(key string, obj any)
}

// ListSizeHandler is implemented by handlers that size their state for a list before its
// objects arrive: OnListSize(n) comes just before the n OnAdd calls of a list into an empty
// cache (an informer's first list, or a relist after Stop). It is a hint for presizing maps,
// with no upstream counterpart; nothing else may depend on it.
type ListSizeHandler interface {
	OnListSize(n int)
}

// CacheResetHandler is implemented by handlers that keep their own mirror of the cache: Stop
// clears the cache without an OnDelete per object, and calls OnCacheReset instead, so that the
// mirror can be cleared too before the next Run lists everything again.
type CacheResetHandler interface {
	OnCacheReset()
}

// EventHandlerFuncs adapts functions to EventHandler (and ListSizeHandler); nil functions are
// skipped.
type EventHandlerFuncs struct {
	AddFunc      func(obj model.Object, isInInitialList bool)
	UpdateFunc   func(oldObj, newObj model.Object)
	DeleteFunc   func(obj any)
	ListSizeFunc func(n int)
}

// OnListSize calls ListSizeFunc if set.
func (f EventHandlerFuncs) OnListSize(n int) {
	if f.ListSizeFunc != nil {
		f.ListSizeFunc(n)
	}
}

// OnAdd calls AddFunc if set.
func (f EventHandlerFuncs) OnAdd(obj model.Object, isInInitialList bool) {
	if f.AddFunc != nil {
		f.AddFunc(obj, isInInitialList)
	}
}

// OnUpdate calls UpdateFunc if set.
func (f EventHandlerFuncs) OnUpdate(oldObj, newObj model.Object) {
	if f.UpdateFunc != nil {
		f.UpdateFunc(oldObj, newObj)
	}
}

// OnDelete calls DeleteFunc if set.
func (f EventHandlerFuncs) OnDelete(obj any) {
	if f.DeleteFunc != nil {
		f.DeleteFunc(obj)
	}
}

// KeyedEventHandlerFuncs adapts functions to KeyedEventHandler (and ListSizeHandler); nil
// functions are skipped. Its EventHandler methods build the key with model.Key (DeletedKey for
// a delete).
type KeyedEventHandlerFuncs struct {
	AddFunc      func(key string, obj model.Object, isInInitialList bool)
	UpdateFunc   func(key string, oldObj, newObj model.Object)
	DeleteFunc   func(key string, obj any)
	ListSizeFunc func(n int)
}

// OnListSize calls ListSizeFunc if set.
func (f KeyedEventHandlerFuncs) OnListSize(n int) {
	if f.ListSizeFunc != nil {
		f.ListSizeFunc(n)
	}
}

// OnAddKeyed calls AddFunc if set.
func (f KeyedEventHandlerFuncs) OnAddKeyed(key string, obj model.Object, isInInitialList bool) {
	if f.AddFunc != nil {
		f.AddFunc(key, obj, isInInitialList)
	}
}

// OnUpdateKeyed calls UpdateFunc if set.
func (f KeyedEventHandlerFuncs) OnUpdateKeyed(key string, oldObj, newObj model.Object) {
	if f.UpdateFunc != nil {
		f.UpdateFunc(key, oldObj, newObj)
	}
}

// OnDeleteKeyed calls DeleteFunc if set.
func (f KeyedEventHandlerFuncs) OnDeleteKeyed(key string, obj any) {
	if f.DeleteFunc != nil {
		f.DeleteFunc(key, obj)
	}
}

// OnAdd calls AddFunc, if set, with model.Key(obj).
func (f KeyedEventHandlerFuncs) OnAdd(obj model.Object, isInInitialList bool) {
	if f.AddFunc != nil {
		f.AddFunc(model.Key(obj), obj, isInInitialList)
	}
}

// OnUpdate calls UpdateFunc, if set, with model.Key(newObj).
func (f KeyedEventHandlerFuncs) OnUpdate(oldObj, newObj model.Object) {
	if f.UpdateFunc != nil {
		f.UpdateFunc(model.Key(newObj), oldObj, newObj)
	}
}

// OnDelete calls DeleteFunc, if set, with DeletedKey(obj).
func (f KeyedEventHandlerFuncs) OnDelete(obj any) {
	if f.DeleteFunc != nil {
		f.DeleteFunc(DeletedKey(obj), obj)
	}
}

// DeletedKey is the key of what OnDelete received (upstream
// DeletionHandlingMetaNamespaceKeyFunc): a tombstone's Key, an object's model.Key, and ""
// for anything else.
func DeletedKey(obj any) string {
	switch o := obj.(type) {
	case DeletedFinalStateUnknown:
		return o.Key
	case *DeletedFinalStateUnknown:
		if o != nil {
			return o.Key
		}
	case model.Object:
		if o != nil {
			return model.Key(o)
		}
	}
	return ""
}

// DeletedFinalStateUnknown is what OnDelete gets for an object that disappeared while the
// informer was not watching: Obj is the last state the cache knew (upstream
// cache.DeletedFinalStateUnknown).
type DeletedFinalStateUnknown struct {
	Key string
	Obj model.Object
}

// ObjectAs is ObjectOf for handlers that want one kind: ok is false when obj is neither a T
// nor a tombstone holding one.
func ObjectAs[T model.Object](obj any) (T, bool) {
	var zero T
	o, ok := ObjectOf(obj)
	if !ok {
		return zero, false
	}
	t, ok := o.(T)
	return t, ok
}

// ObjectOf unwraps what OnDelete received: the object itself, or the last known state inside
// a DeletedFinalStateUnknown. ok is false for anything else.
func ObjectOf(obj any) (model.Object, bool) {
	switch o := obj.(type) {
	case model.Object:
		return o, o != nil
	case DeletedFinalStateUnknown:
		return o.Obj, o.Obj != nil
	case *DeletedFinalStateUnknown:
		if o == nil {
			return nil, false
		}
		return o.Obj, o.Obj != nil
	}
	return nil, false
}

// InformerStats count an informer's traffic with the server.
type InformerStats struct {
	Kind model.Kind
	// Lists counts LIST calls that succeeded; Relists those after the first.
	Lists, Relists uint64
	// Watches counts watches opened; WatchEvents the events they delivered (bookmarks too).
	Watches, WatchEvents uint64
	// WatchTimeouts counts watches ended by their timeout; WatchExpired those ended or refused
	// with 410 Expired; Errors every other failure of a list or watch.
	WatchTimeouts, WatchExpired, Errors uint64
	// Resyncs counts resync rounds.
	Resyncs uint64
}

// Informer keeps a local cache of one kind in step with the server through list and watch,
// notifies handlers of every change, and serves the cache as a lister with indexes (upstream
// SharedIndexInformer with its Reflector and DeltaFIFO, delivering deltas synchronously).
type Informer struct {
	// What every watch event reads or writes comes first, in one cache line
	// (TestInformerWatchEventFieldsShareALine): an informer's events come seconds apart, after
	// its memory has left the processor's caches.
	store    *store
	handlers []handler
	// The current watch. watchGen tags its sink so events from a watch the informer has left
	// are ignored.
	watchGen uint64
	lastRV   uint64
	// watchEventsTotal counts the watch events delivered (InformerStats.WatchEvents, which
	// Stats fills from it).
	watchEventsTotal uint64
	running          bool
	watchEnded       bool
	synced           bool
	watchTimeout     bool

	c      *Client
	opts   model.ListOptions
	resync time.Duration

	k       *sim.Kernel
	rand    *rand.Rand
	backoff *backoffManager
	proc    *sim.Proc
	waiters []*sim.Proc

	watch    *apiserver.Watch
	watchErr error
	// watchStartEvents is watchEventsTotal when the current watch started: the watch has
	// delivered the difference.
	watchStartEvents uint64
	watchTimer       *sim.Timer
	resyncTimer      *sim.Timer

	// stats are the counters but WatchEvents (watchEventsTotal), and the kind (Kind).
	stats InformerStats
}

// NewInformer returns a stopped informer for kind, selecting with opts, that resyncs every
// resync (0: never). Call Run to start it.
func NewInformer(c *Client, kind model.Kind, opts model.ListOptions, resync time.Duration) *Informer {
	return &Informer{c: c, opts: opts, resync: resync, store: newStore(), stats: InformerStats{Kind: kind}}
}

// handler is a registered EventHandler with, when it is one, the same handler as a
// KeyedEventHandler (found once, at registration, rather than asserted per event).
type handler struct {
	EventHandler
	keyed KeyedEventHandler
}

// Kind returns the informer's kind.
func (inf *Informer) Kind() model.Kind { return inf.stats.Kind }

// Options returns the list options the informer selects with.
func (inf *Informer) Options() model.ListOptions { return inf.opts }

// Stats returns the informer's counters.
func (inf *Informer) Stats() InformerStats {
	s := inf.stats
	s.WatchEvents = inf.watchEventsTotal
	return s
}

// AddEventHandler registers h. If the cache already holds objects, h first gets OnAdd for each
// of them, in key order, with isInInitialList true (as upstream replays to late handlers).
// A KeyedEventHandler gets its keyed calls.
func (inf *Informer) AddEventHandler(h EventHandler) {
	kh, _ := h.(KeyedEventHandler)
	inf.handlers = append(inf.handlers, handler{EventHandler: h, keyed: kh})
	for _, e := range slices.Clone(inf.store.all()) {
		if kh != nil {
			kh.OnAddKeyed(e.key, e.obj, true)
		} else {
			h.OnAdd(e.obj, true)
		}
	}
}

// notifyAdd calls every handler's OnAdd (OnAddKeyed with key for a keyed one), in order.
func (inf *Informer) notifyAdd(key string, obj model.Object, initial bool) {
	for _, h := range inf.handlers {
		if kh := h.keyed; kh != nil {
			kh.OnAddKeyed(key, obj, initial)
		} else {
			h.OnAdd(obj, initial)
		}
	}
}

// notifyUpdate calls every handler's OnUpdate (OnUpdateKeyed with key for a keyed one).
func (inf *Informer) notifyUpdate(key string, oldObj, newObj model.Object) {
	for _, h := range inf.handlers {
		if kh := h.keyed; kh != nil {
			kh.OnUpdateKeyed(key, oldObj, newObj)
		} else {
			h.OnUpdate(oldObj, newObj)
		}
	}
}

// notifyDelete calls every handler's OnDelete (OnDeleteKeyed with key for a keyed one).
func (inf *Informer) notifyDelete(key string, obj any) {
	for _, h := range inf.handlers {
		if kh := h.keyed; kh != nil {
			kh.OnDeleteKeyed(key, obj)
		} else {
			h.OnDelete(obj)
		}
	}
}

// AddIndexers adds indexes beside the built-in ones, indexing what is already cached. It
// returns an error, adding nothing, if a name is already taken.
func (inf *Informer) AddIndexers(ix Indexers) error {
	names := make([]string, 0, len(ix))
	for name := range ix { //detlint:ordered names are checked, then sorted before use
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		if err := inf.checkIndex(name, ix[name]); err != nil {
			return err
		}
	}
	for _, name := range names {
		inf.store.addIndex(name, ix[name], nil)
	}
	return nil
}

// AddIndexer adds one index as AddIndexers does, with unchanged: a cheap test that two
// versions of an object have equal values of fn, so that an update it passes keeps the
// entry's values without calling fn (which builds new slices). An update it fails calls fn
// and compares, as for an index without one. unchanged(old, cur) must be true only when
// fn(old) and fn(cur) are equal; nil means no such test.
func (inf *Informer) AddIndexer(name string, fn IndexFunc, unchanged func(old, cur model.Object) bool) error {
	if err := inf.checkIndex(name, fn); err != nil {
		return err
	}
	inf.store.addIndex(name, fn, unchanged)
	return nil
}

// checkIndex is the error of adding an index name with function fn, if any.
func (inf *Informer) checkIndex(name string, fn IndexFunc) error {
	if inf.store.hasIndex(name) {
		return fmt.Errorf("informer %s: index %q already exists", inf.Kind(), name)
	}
	if fn == nil {
		return fmt.Errorf("informer %s: index %q has no function", inf.Kind(), name)
	}
	return nil
}

// Run starts the reflector process on k; it does nothing if the informer is running. After
// Stop, Run starts it again from an empty cache.
func (inf *Informer) Run(k *sim.Kernel) {
	if inf.running {
		return
	}
	inf.running = true
	if inf.k == nil {
		inf.k = k
		inf.rand = k.Rand("informer/" + inf.c.name + "/" + inf.describe())
		inf.watchTimer = k.NewIdleTimer(inf.onWatchTimeout)
		if inf.resync > 0 {
			inf.resyncTimer = k.NewIdleTimer(inf.onResync)
		}
	}
	inf.backoff = newBackoffManager(inf.rand, k.Now())
	inf.proc = k.Spawn(inf.c.name+"/reflector/"+inf.describe(), inf.reflect)
	if inf.resyncTimer != nil {
		inf.resyncTimer.Reset(inf.resync)
	}
}

// describe names the informer in process names and traces: the kind, and the namespace and
// selectors when set.
func (inf *Informer) describe() string {
	var b strings.Builder
	b.WriteString(string(inf.Kind()))
	if inf.opts.Namespace != "" {
		b.WriteString("/" + inf.opts.Namespace)
	}
	if inf.opts.LabelSelector != nil && !inf.opts.LabelSelector.Empty() {
		b.WriteString("?l=" + inf.opts.LabelSelector.String())
	}
	if inf.opts.FieldSelector != nil && !inf.opts.FieldSelector.Empty() {
		b.WriteString("?f=" + inf.opts.FieldSelector.String())
	}
	return b.String()
}

// Stop ends the reflector and its watch, stops resyncs and clears the cache (a component
// restart). Handlers stay registered. Stop on a stopped informer does nothing. Stop must not be
// called from inside one of the informer's own handlers.
func (inf *Informer) Stop() {
	if !inf.running {
		return
	}
	inf.running = false
	inf.synced = false
	inf.endWatch()
	if inf.resyncTimer != nil {
		inf.resyncTimer.Stop()
	}
	inf.proc.Kill()
	inf.proc = nil
	inf.store.clear()
	inf.lastRV = 0
	for _, h := range inf.handlers {
		if r, ok := h.EventHandler.(CacheResetHandler); ok {
			r.OnCacheReset()
		}
	}
}

// Running reports whether Run was called and Stop was not.
func (inf *Informer) Running() bool { return inf.running }

// HasSynced reports whether the first list since Run has been delivered to the handlers.
func (inf *Informer) HasSynced() bool { return inf.synced }

// WaitForSync parks the calling process until HasSynced.
func (inf *Informer) WaitForSync(ctx context.Context) {
	p := sim.ProcFromContext(ctx)
	for !inf.synced {
		inf.waiters = append(inf.waiters, p)
		p.Park()
	}
}

// LastSyncResourceVersion returns the resourceVersion the cache reflects.
func (inf *Informer) LastSyncResourceVersion() uint64 { return inf.lastRV }

// Get returns the cached object namespace/name (name alone for cluster-scoped kinds).
func (inf *Informer) Get(namespace, name string) (model.Object, bool) {
	return inf.store.get(model.KeyOf(namespace, name))
}

// GetKeyed is Get that also returns the object's key (model.Key), the string the cache files
// it under, for a caller that keeps the object by key without building it.
func (inf *Informer) GetKeyed(namespace, name string) (model.Object, string, bool) {
	if e, ok := inf.store.items[model.KeyOf(namespace, name)]; ok {
		return e.obj, e.key, true
	}
	return nil, "", false
}

// EntryRef remembers where one key's entry is in an informer's cache, for a caller that reads
// the same key again and again (GetByKeyRef). Its zero value remembers nothing.
type EntryRef struct {
	e        *entry
	removals uint64
}

// GetByKeyRef is GetByKey(key) for a caller that keeps ref for this informer and key alone:
// while the cache has removed no key since ref was filled, the entry ref holds is still key's
// (an update replaces an entry's object in place, and only a removal drops an entry), and its
// object is the answer without a lookup by the key, whose hash and probe read memory a pass
// over hundreds of nodes finds cold. Otherwise it looks key up and fills ref with the entry
// found, or clears it.
func (inf *Informer) GetByKeyRef(key string, ref *EntryRef) (model.Object, bool) {
	s := inf.store
	if ref.e != nil && ref.removals == s.removals {
		return ref.e.obj, true
	}
	e, ok := s.items[key]
	if !ok {
		*ref = EntryRef{}
		return nil, false
	}
	*ref = EntryRef{e: e, removals: s.removals}
	return e.obj, true
}

// GetByKey is Get for a key already built with model.KeyOf ("namespace/name", or "name" for
// cluster-scoped objects); callers that look the same object up repeatedly keep the key and
// save building it each time.
func (inf *Informer) GetByKey(key string) (model.Object, bool) {
	return inf.store.get(key)
}

// List returns the cached objects whose labels sel matches (nil: all), sorted by key.
func (inf *Informer) List(sel labels.Selector) []model.Object {
	entries := inf.store.all()
	out := make([]model.Object, 0, len(entries))
	for _, e := range entries {
		if sel == nil || sel.Matches(labels.Set(e.obj.Meta().Labels)) {
			out = append(out, e.obj)
		}
	}
	return out
}

// ListNamespace is List restricted to one namespace, through the namespace index.
func (inf *Informer) ListNamespace(namespace string, sel labels.Selector) []model.Object {
	entries := inf.store.byIndex(IndexNamespace, namespace)
	out := make([]model.Object, 0, len(entries))
	for _, e := range entries {
		if sel == nil || sel.Matches(labels.Set(e.obj.Meta().Labels)) {
			out = append(out, e.obj)
		}
	}
	return out
}

// ByIndex returns the cached objects with value under the named index, sorted by key. Asking
// for an index that does not exist is a programming error and panics.
func (inf *Informer) ByIndex(indexName, value string) []model.Object {
	entries := inf.indexEntries(indexName, value)
	out := make([]model.Object, len(entries))
	for i, e := range entries {
		out[i] = e.obj
	}
	return out
}

// ByIndexKeyed is ByIndex that also returns each object's key (model.Key), the cache's own
// strings, at the same positions.
func (inf *Informer) ByIndexKeyed(indexName, value string) ([]model.Object, []string) {
	entries := inf.indexEntries(indexName, value)
	objs := make([]model.Object, len(entries))
	keys := make([]string, len(entries))
	for i, e := range entries {
		objs[i], keys[i] = e.obj, e.key
	}
	return objs, keys
}

// indexEntries are the entries with value under the named index, sorted by key; it panics for
// an index that does not exist.
func (inf *Informer) indexEntries(indexName, value string) []*entry {
	if !inf.store.hasIndex(indexName) {
		panic(fmt.Sprintf("informer %s: no index named %q", inf.Kind(), indexName))
	}
	return inf.store.byIndex(indexName, value)
}

// Len returns the number of cached objects.
func (inf *Informer) Len() int { return len(inf.store.items) }

// reflect is the reflector process: ListAndWatch until stopped, waiting a backoff between
// attempts whether they failed or not (client-go Reflector.RunWithContext over
// wait.BackoffUntil with sliding=true).
func (inf *Informer) reflect(p *sim.Proc) {
	for {
		if err := inf.listAndWatch(p); err != nil {
			inf.stats.Errors++
			inf.k.Emit(inf.c.name, "reflector-error", inf.describe(), inf.lastRV, err.Error())
		}
		p.Sleep(inf.backoff.next(inf.k.Now()))
	}
}

var errVeryShortWatch = errors.New("very short watch: the watch ended within a second without events")

// listAndWatch lists, replaces the cache, and then watches from the list's resourceVersion
// until the watch cannot continue (client-go Reflector.ListAndWatch and watch).
func (inf *Informer) listAndWatch(p *sim.Proc) error {
	items, keys, rv, err := inf.c.listShared(p, inf.Kind(), inf.opts)
	if err != nil {
		return fmt.Errorf("list %s: %w", inf.Kind(), err)
	}
	inf.stats.Lists++
	if inf.stats.Lists > 1 {
		inf.stats.Relists++
	}
	inf.k.Emit(inf.c.name, "list", inf.describe(), rv, fmt.Sprintf("items=%d", len(items)))
	inf.replace(items, keys, rv)

	for {
		inf.watchGen++
		sink := &watchSink{inf: inf, gen: inf.watchGen}
		w, err := inf.c.Watch(p, inf.Kind(), inf.opts, inf.lastRV, sink)
		if err != nil {
			if apierrors.IsTooManyRequests(err) {
				// isWatchErrorRetriable: back off and watch again without listing.
				p.Sleep(inf.backoff.next(inf.k.Now()))
				continue
			}
			if isExpired(err) {
				// Too old to resume: the outer loop relists after its backoff.
				inf.stats.WatchExpired++
				inf.k.Emit(inf.c.name, "watch-expired", inf.describe(), inf.lastRV, err.Error())
				return nil
			}
			return fmt.Errorf("watch %s from rv %d: %w", inf.Kind(), inf.lastRV, err)
		}
		inf.stats.Watches++
		start := inf.k.Now()
		inf.watch = w
		inf.watchEnded, inf.watchTimeout, inf.watchErr = false, false, nil
		inf.watchStartEvents = inf.watchEventsTotal
		inf.watchTimer.Reset(minWatchTimeout + time.Duration(inf.rand.Int64N(int64(maxWatchTimeout-minWatchTimeout)+1)))
		for !inf.watchEnded {
			p.Park()
		}
		inf.watchTimer.Stop()
		inf.watch = nil
		switch err := inf.watchErr; {
		case inf.watchTimeout:
			inf.stats.WatchTimeouts++
		case err == nil:
			if inf.k.Now().Sub(start) < veryShortWatch && inf.watchEventsTotal == inf.watchStartEvents {
				return errVeryShortWatch
			}
		case isExpired(err):
			// The outer loop relists after its backoff.
			inf.stats.WatchExpired++
			inf.k.Emit(inf.c.name, "watch-expired", inf.describe(), inf.lastRV, err.Error())
			return nil
		case apierrors.IsTooManyRequests(err):
			p.Sleep(inf.backoff.next(inf.k.Now()))
		default:
			inf.stats.Errors++
			inf.k.Emit(inf.c.name, "watch-error", inf.describe(), inf.lastRV, err.Error())
			return nil
		}
	}
}

func isExpired(err error) bool { return apierrors.IsResourceExpired(err) || apierrors.IsGone(err) }

// replace applies a LIST result with DeltaFIFO.Replace + processDeltas semantics: every listed
// object is an update if cached and an add if not (in list order), then every cached object
// missing from the list is deleted and reported as DeletedFinalStateUnknown (in key order).
// keys are the items' keys when the server gave them (shared: the cache keeps them, so the
// informers of one kind hold one string per object), else nil.
func (inf *Informer) replace(items []model.Object, keys []string, rv uint64) {
	initial := !inf.synced
	if len(inf.store.items) == 0 {
		// Nothing cached (the first list, or a relist of an empty cache): every listed
		// object is an add, and nothing can be missing from the list.
		inf.store.reserve(len(items))
		if len(items) > 0 {
			for _, h := range inf.handlers {
				if ls, ok := h.EventHandler.(ListSizeHandler); ok {
					ls.OnListSize(len(items))
				}
			}
		}
		for i, obj := range items {
			inf.applyAt(listKey(keys, i, obj), nil, obj, initial) // a list names each object once
		}
		inf.replaced(rv)
		return
	}
	listed := make(map[string]struct{}, len(items))
	for i, obj := range items {
		key := listKey(keys, i, obj)
		listed[key] = struct{}{}
		inf.apply(key, obj, initial)
	}
	if len(inf.store.items) > len(listed) {
		var gone []string
		for _, e := range inf.store.all() {
			if _, ok := listed[e.key]; !ok {
				gone = append(gone, e.key)
			}
		}
		for _, key := range gone {
			old, _ := inf.store.remove(key)
			inf.notifyDelete(key, DeletedFinalStateUnknown{Key: key, Obj: old})
		}
	}
	inf.replaced(rv)
}

// listKey is the key of a list's i-th item: the server's, or built when it gave none.
func listKey(keys []string, i int, obj model.Object) string {
	if keys != nil {
		return keys[i]
	}
	return model.Key(obj)
}

// replaced finishes a replace: the list's resourceVersion, and the first list wakes whoever
// waits for the cache to sync.
func (inf *Informer) replaced(rv uint64) {
	inf.lastRV = rv
	if !inf.synced {
		inf.synced = true
		ws := inf.waiters
		inf.waiters = nil
		for _, w := range ws {
			w.Unpark()
		}
	}
}

// apply stores obj and notifies: OnUpdate if the key was cached, OnAdd if not.
func (inf *Informer) apply(key string, obj model.Object, initial bool) {
	inf.applyAt(key, inf.store.items[key], obj, initial)
}

// applyAt is apply with key's entry already looked up (store.lookup).
func (inf *Informer) applyAt(key string, e *entry, obj model.Object, initial bool) {
	old, existed := inf.store.putAt(key, e, obj)
	if existed {
		inf.notifyUpdate(key, old, obj)
	} else {
		inf.notifyAdd(key, obj, initial)
	}
}

// watchSink receives one watch's events; it goes deaf once the informer moves on.
type watchSink struct {
	inf *Informer
	gen uint64
}

func (s *watchSink) current() bool {
	return s.inf.running && s.gen == s.inf.watchGen && !s.inf.watchEnded
}

// OnWatchEvent applies one event to the cache and notifies the handlers.
func (s *watchSink) OnWatchEvent(ev apiserver.WatchEvent) {
	if !s.current() {
		return
	}
	inf := s.inf
	inf.watchEventsTotal++
	key, e := inf.store.lookup(ev.Object)
	switch ev.Type {
	case "ADDED", "MODIFIED":
		inf.applyAt(key, e, ev.Object, false)
	case "DELETED":
		if e != nil {
			inf.store.removeAt(key, e)
		}
		inf.notifyDelete(key, ev.Object)
	}
	if ev.ResourceVersion > inf.lastRV {
		inf.lastRV = ev.ResourceVersion
	}
}

// OnWatchClosed ends the watch and wakes the reflector.
func (s *watchSink) OnWatchClosed(err error) {
	if !s.current() {
		return
	}
	s.inf.watchErr = err
	s.inf.finishWatch()
}

func (inf *Informer) onWatchTimeout() {
	if inf.watch == nil || inf.watchEnded {
		return
	}
	inf.watchTimeout = true
	inf.endWatch()
}

// endWatch stops the current watch, if any, and wakes the reflector.
func (inf *Informer) endWatch() {
	inf.watchGen++ // anything the old watch still says is ignored
	if inf.watchTimer != nil {
		inf.watchTimer.Stop()
	}
	if inf.watch != nil {
		w := inf.watch
		inf.watch = nil
		w.Stop()
	}
	inf.finishWatch()
}

func (inf *Informer) finishWatch() {
	inf.watchEnded = true
	if inf.proc != nil {
		inf.proc.Unpark()
	}
}

// onResync delivers OnUpdate(obj, obj) for every cached object, in key order, to every
// handler, then rearms (SharedIndexInformer resync through DeltaFIFO.Resync).
func (inf *Informer) onResync() {
	if !inf.running {
		return
	}
	inf.resyncTimer.Reset(inf.resync)
	if !inf.synced {
		return
	}
	inf.stats.Resyncs++
	for _, e := range slices.Clone(inf.store.all()) {
		inf.notifyUpdate(e.key, e.obj, e.obj)
	}
}
