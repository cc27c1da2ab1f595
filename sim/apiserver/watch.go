package apiserver

import (
	"fmt"
	"math"
	"slices"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/vtime"
)

// EventType is the type of a watch event.
type EventType string

// The watch event types ([apimachinery@HEAD] pkg/watch/watch.go).
const (
	Added    EventType = "ADDED"
	Modified EventType = "MODIFIED"
	Deleted  EventType = "DELETED"
	// Bookmark carries only a resourceVersion: every event of the watched kind up to it has
	// been sent. Its Object is an empty object of the kind whose metadata.resourceVersion is
	// set, as upstream's bookmark events are.
	Bookmark EventType = "BOOKMARK"
)

// WatchEvent is one event delivered to a watcher. Object is shared and immutable. A DELETED
// event carries the object's last state with the deletion's resourceVersion.
type WatchEvent struct {
	Type            EventType
	Object          model.Object
	ResourceVersion uint64
}

// WatchSink receives a watch's events. Both methods are called on the kernel (from an event
// handler, never inside the write that caused the event and never inside a process), one
// watch's events in revision order.
type WatchSink interface {
	// OnWatchEvent delivers one event.
	OnWatchEvent(ev WatchEvent)
	// OnWatchClosed is called once when the server ends the watch: err nil for a normal end
	// (the server dropped a watcher whose buffer overflowed, or CloseWatches with nil), or the
	// error given to CloseWatches. It is not called after Stop.
	OnWatchClosed(err error)
}

// Watch is one open watch. Stop it when done; the server may end it first (OnWatchClosed).
type Watch struct {
	store   *Store
	ks      *kindStore
	client  string
	sink    WatchSink
	match   matcher
	all     bool // match selects everything: events pass unchanged
	chanCap int  // undelivered events a stalled watch may hold before it is closed

	queue     []queuedEvent
	head      int
	lastAt    vtime.Time // delivery time of the newest queued event: delivery stays monotone
	lastRV    uint64     // revision of the newest queued event or bookmark
	scheduled bool
	gen       uint64 // generation of the pending delivery event; bumped to cancel it

	stalledUntil vtime.Time
	// coalesceUntil: before it, events about an object already queued replace the queued one
	// (CoalesceWatches).
	coalesceUntil vtime.Time
	closing       bool // the server ended the watch; only the close notice is left to deliver
	stopped       bool // Stop was called or the close was delivered
	registered    bool // was added to the kind's dispatch lists
	removed       bool // taken out of them (or never to be added)
}

// queuedEvent is an event waiting for its delivery time; isClose marks the close notice.
type queuedEvent struct {
	at      vtime.Time
	ev      WatchEvent
	isClose bool
	err     error
}

// Stop ends the watch: nothing is delivered after Stop returns, and OnWatchClosed is not
// called. Stop may be called more than once, and from inside the sink.
func (w *Watch) Stop() {
	if w.stopped {
		return
	}
	w.stopped = true
	w.gen++
	w.queue, w.head = nil, 0
	w.store.removeWatch(w)
	w.store.forgetClosing(w)
}

// Client returns the client name the watch was opened with ("" through Store.Watch).
func (w *Watch) Client() string { return w.client }

// Kind returns the watched kind.
func (w *Watch) Kind() model.Kind { return w.ks.info.Kind }

// Pending returns the number of events queued and not yet delivered.
func (w *Watch) Pending() int { return len(w.queue) - w.head }

// Watch opens a watch on kind for the objects opts selects, starting after revision fromRV
// (0: from now, with no initial state; upstream would first send the current objects, a
// client here lists instead). Events newer than fromRV that the kind's history still holds are
// replayed first. Errors: a fromRV older than the history's window is 410 Expired
// ("too old resource version: <fromRV> (<oldest-1>)"); a fromRV newer than the current
// revision is 504 with cause ResourceVersionTooLarge; an unsupported field selector is 400;
// an unknown kind is 404. Watch is WatchAs with client "".
func (s *Store) Watch(kind model.Kind, opts model.ListOptions, fromRV uint64, sink WatchSink) (*Watch, error) {
	return s.WatchAs("", kind, opts, fromRV, sink)
}

// WatchAs is Watch on behalf of a named client: StallWatches and CloseWatches select watches
// by this name.
func (s *Store) WatchAs(client string, kind model.Kind, opts model.ListOptions, fromRV uint64, sink WatchSink) (*Watch, error) {
	if sink == nil {
		return nil, apierrors.NewBadRequest("watch needs a sink")
	}
	ks, err := s.kind(kind)
	if err != nil {
		return nil, err
	}
	m, err := compileMatcher(&ks.info, ks.strat, opts)
	if err != nil {
		return nil, err
	}
	if fromRV > s.rev {
		return nil, errTooLargeResourceVersion(fromRV, s.rev)
	}
	h := ks.hist
	if fromRV > 0 && h.dropped() && fromRV < h.oldestRV()-1 {
		// watch_cache_history.go: a start older than the oldest held event is 410 Expired.
		s.watchStats.Expired++
		return nil, apierrors.NewResourceExpired(fmt.Sprintf("too old resource version: %d (%d)", fromRV, h.oldestRV()-1))
	}
	w := &Watch{store: s, ks: ks, client: client, sink: sink, match: m, all: m.everything()}
	w.chanCap = s.watchChanSize(ks, m.triggered)
	now := s.k.Now()
	w.lastAt = now
	w.stalledUntil = s.stallFor(client, now)
	if fromRV == 0 {
		w.lastRV = s.rev
	} else {
		w.lastRV = fromRV
		first := h.firstAfter(fromRV)
		if m.triggered && h.triggerOf != nil {
			// Only events with the pinned value in their object or previous state can
			// match: replay just those, in the same order.
			for _, i := range h.eventsWith(m.triggerValue, first) {
				if w.closing {
					break
				}
				w.offer(h.at(i))
			}
		} else {
			for i := first; i < h.end && !w.closing; i++ {
				w.offer(h.at(i))
			}
		}
	}
	s.watchStats.Opened++
	if !w.closing {
		ks.addWatch(w)
		s.watchers++
	}
	return w, nil
}

// watchChanSize is upstream's suggestedWatchChannelSize
// ([apiserver@HEAD] pkg/storage/cacher/watch_cache_history.go): about one second of history
// (capacity / eventFreshDuration), at least 10, at most 10 for a watch using the kind's
// trigger index, 1000 for other watches of an indexed kind, 100 for unindexed kinds.
func (s *Store) watchChanSize(ks *kindStore, triggerUsed bool) int {
	if s.cfg.WatchChanSize > 0 {
		return s.cfg.WatchChanSize
	}
	const (
		minWatchChanSize                        = 10
		maxWatchChanSizeWithIndexAndTrigger     = 10
		maxWatchChanSizeWithIndexWithoutTrigger = 1000
		maxWatchChanSizeWithoutIndex            = 100
	)
	size := int(math.Ceil(float64(ks.hist.capacity()) / ks.hist.fresh.Seconds()))
	size = max(size, minWatchChanSize)
	indexExists := ks.strat.triggerField != ""
	limit := maxWatchChanSizeWithoutIndex
	switch {
	case indexExists && triggerUsed:
		limit = maxWatchChanSizeWithIndexAndTrigger
	case indexExists:
		limit = maxWatchChanSizeWithIndexWithoutTrigger
	}
	return min(size, limit)
}

// offer converts a recorded event for this watcher and queues it. The conversion is the
// cacher's (cache_watcher.go convertToWatchEvent): with a selector, an object that starts
// matching arrives as ADDED and one that stops matching as DELETED (its previous state with
// the event's revision).
func (w *Watch) offer(e *histEvent) {
	if w.closing || w.stopped {
		return
	}
	typ, obj := e.typ, e.obj
	if !w.all {
		cur := e.typ != Deleted && w.match.matches(e.obj)
		old := e.prev != nil && w.match.matches(e.prev)
		switch {
		case cur && !old:
			typ = Added
		case cur && old:
			typ = Modified
		case !cur && old:
			typ = Deleted
			if e.typ != Deleted {
				obj = withResourceVersion(e.prev, e.rv)
			}
		default:
			return
		}
	}
	w.enqueue(WatchEvent{Type: typ, Object: obj, ResourceVersion: e.rv})
}

// enqueue queues ev for delivery after the watch delay. A stalled watch whose buffer is full
// is closed instead, as the cacher drops a watcher it cannot send to
// (cache_watcher.go add: "we simply terminate it").
func (w *Watch) enqueue(ev WatchEvent) {
	s := w.store
	now := s.k.Now()
	if now < w.coalesceUntil {
		var keep bool
		if ev, keep = w.coalesce(ev); !keep {
			return
		}
	} else if now < w.stalledUntil && w.Pending() >= w.chanCap {
		s.watchStats.ClosedOverflow++
		w.close(nil)
		return
	}
	at := now.Add(s.watchDelay.Sample(s.watchRand))
	if at < w.lastAt {
		at = w.lastAt
	}
	w.lastAt = at
	w.lastRV = ev.ResourceVersion
	w.queue = append(w.queue, queuedEvent{at: at, ev: ev})
	if !w.scheduled {
		w.schedule()
	}
}

// coalesce takes the queued event about ev's object (same UID), if any, out of the queue and
// returns the one event that stands for both, keep false when nothing is left to deliver (an
// object added and deleted inside the window). The merged event keeps ev's object and
// revision, so the queue stays in revision order.
func (w *Watch) coalesce(ev WatchEvent) (WatchEvent, bool) {
	if ev.Type == Bookmark || ev.Object == nil {
		return ev, true
	}
	m := ev.Object.Meta()
	for i := w.head; i < len(w.queue); i++ {
		q := w.queue[i]
		if q.isClose || q.ev.Type == Bookmark || q.ev.Object == nil {
			continue
		}
		qm := q.ev.Object.Meta()
		if qm.UID != m.UID || qm.Name != m.Name || qm.Namespace != m.Namespace {
			continue
		}
		w.queue = append(w.queue[:i], w.queue[i+1:]...)
		switch {
		case q.ev.Type == Added && ev.Type == Deleted:
			return ev, false
		case q.ev.Type == Added:
			ev.Type = Added
		}
		return ev, true
	}
	return ev, true
}

// CoalesceWatches makes every open watch whose client name match accepts deliver nothing
// before until and, meanwhile, keep only the newest event of each object: when the window
// ends the client sees each changed object's last state once (ADDED for an object created in
// the window, DELETED for one deleted in it, nothing for one created and deleted in it), and
// never the intermediate states. It is the "unobserved state" perturbation of Sieve (OSDI'22,
// section 4.2). Watches opened during the window are not coalesced. An until not later than
// now ends the window.
func (s *Store) CoalesceWatches(match func(client string) bool, until vtime.Time) {
	if match == nil {
		return
	}
	for _, ks := range s.kindList {
		for _, w := range ks.watchers {
			if match(w.client) {
				w.coalesceUntil = until
				w.setStall(max(until, w.stalledUntil))
			}
		}
	}
}

// close ends the watch from the server side: pending events are dropped, the watch leaves
// dispatch, and OnWatchClosed(err) is delivered once the watch is no longer stalled.
func (w *Watch) close(err error) {
	if w.closing || w.stopped {
		return
	}
	w.closing = true
	w.store.removeWatch(w)
	// Out of dispatch, but a stall may still hold its close notice back: keep it reachable.
	w.store.closingWatches = append(w.store.closingWatches, w)
	now := w.store.k.Now()
	at := max(now, w.lastAt)
	clear(w.queue)
	w.queue, w.head = append(w.queue[:0], queuedEvent{at: at, isClose: true, err: err}), 0
	w.reschedule()
}

// schedule arms the delivery event for the head of the queue. A delivery in flight is pending
// work (a hold); one that waits for a stall to end is not, since whoever stalled the watch owns
// its end, and a stall until vtime.Never arms nothing: ending it (StallWatches) re-arms.
func (w *Watch) schedule() {
	at, hold := w.queue[w.head].at, true
	if w.stalledUntil > at {
		at, hold = w.stalledUntil, false
	}
	if at == vtime.Never {
		return
	}
	w.scheduled = true
	w.store.k.Schedule(at, (*watchDelivery)(w), w.gen, hold)
}

// reschedule cancels any armed delivery and arms one for the current head.
func (w *Watch) reschedule() {
	w.gen++
	w.scheduled = false
	if w.Pending() > 0 {
		w.schedule()
	}
}

// setStall makes the watch deliver nothing before until (a time not later than now ends a
// stall).
func (w *Watch) setStall(until vtime.Time) {
	if w.stopped {
		return
	}
	w.stalledUntil = until
	w.reschedule()
}

// watchDelivery is the kernel's handle on a Watch (sim.Handler), kept off Watch's own
// method set so that callers cannot trigger deliveries.
type watchDelivery Watch

// Fire delivers the watch's due events.
func (d *watchDelivery) Fire(gen uint64) { (*Watch)(d).deliver(gen) }

// deliver delivers every queued event that is due.
func (w *Watch) deliver(gen uint64) {
	if gen != w.gen || w.stopped {
		return
	}
	w.scheduled = false
	s := w.store
	now := s.k.Now()
	for w.head < len(w.queue) {
		if now < w.stalledUntil {
			break
		}
		q := w.queue[w.head]
		if q.at > now {
			break
		}
		w.queue[w.head] = queuedEvent{}
		w.head++
		if q.isClose {
			w.stopped = true
			w.queue, w.head = nil, 0
			s.forgetClosing(w)
			w.sink.OnWatchClosed(q.err)
			return
		}
		s.watchStats.Delivered++
		w.sink.OnWatchEvent(q.ev)
		if w.stopped {
			return
		}
	}
	if w.head == len(w.queue) {
		w.queue, w.head = w.queue[:0], 0
		return
	}
	if w.head >= 64 && w.head*2 >= len(w.queue) {
		n := copy(w.queue, w.queue[w.head:])
		clear(w.queue[n:])
		w.queue, w.head = w.queue[:n], 0
	}
	if !w.scheduled {
		w.schedule()
	}
}

// maxStallRules bounds the stall rules remembered for watches opened later; past it the
// oldest are forgotten (watches already open keep their stall).
const maxStallRules = 1024

// stallFor is the stall a watch opened now by client starts with: the end time of the newest
// rule that matches the client, if that is still ahead.
func (s *Store) stallFor(client string, now vtime.Time) vtime.Time {
	for i := len(s.stalls) - 1; i >= 0; i-- {
		if st := s.stalls[i]; st.match(client) {
			if st.until > now {
				return st.until
			}
			return 0
		}
	}
	return 0
}

// stallRule keeps stalling watches opened by matching clients until a time.
type stallRule struct {
	match func(client string) bool
	until vtime.Time
}

// StallWatches stops deliveries to every watch whose client name match accepts until the
// virtual time until (vtime.Never: until called again), including watches those clients open
// meanwhile: the hook for a watch-stall fault or a network partition. Events keep queueing; a
// stalled watch whose queue exceeds its channel size is closed (OnWatchClosed(nil), delivered
// when the stall ends), and its client re-watches from its last revision, getting 410 if that
// has left the history. A later call overrides earlier ones for the clients it matches; an
// until not later than now ends their stall and delivers what is due at once. The newest
// 1024 calls still in force are remembered for watches opened later.
func (s *Store) StallWatches(match func(client string) bool, until vtime.Time) {
	if match == nil {
		return
	}
	now := s.k.Now()
	s.stalls = append(s.stalls, stallRule{match: match, until: until})
	// Rules older than the oldest active one can no longer decide anything: every active
	// rule, and every override of one, is newer.
	oldestActive := len(s.stalls)
	for i, st := range s.stalls {
		if st.until > now {
			oldestActive = i
			break
		}
	}
	if len(s.stalls)-oldestActive > maxStallRules {
		oldestActive = len(s.stalls) - maxStallRules
	}
	kept := copy(s.stalls, s.stalls[oldestActive:])
	clear(s.stalls[kept:])
	s.stalls = s.stalls[:kept]
	for _, ks := range s.kindList {
		for _, w := range ks.watchers {
			if match(w.client) {
				w.setStall(until)
			}
		}
	}
	for _, w := range s.closingWatches {
		if match(w.client) {
			w.setStall(until)
		}
	}
}

// forgetClosing drops w from the watches whose close notice is still to be delivered.
func (s *Store) forgetClosing(w *Watch) {
	if i := slices.Index(s.closingWatches, w); i >= 0 {
		s.closingWatches = slices.Delete(s.closingWatches, i, i+1)
	}
}

// CloseWatches ends every open watch whose client name match accepts, as a server restart or
// a dropped connection does: queued events are dropped and OnWatchClosed(err) is delivered.
// It returns how many watches it closed.
func (s *Store) CloseWatches(match func(client string) bool, err error) int {
	if match == nil {
		return 0
	}
	var victims []*Watch
	for _, ks := range s.kindList {
		for _, w := range ks.watchers {
			if match(w.client) {
				victims = append(victims, w)
			}
		}
	}
	for _, w := range victims {
		w.close(err)
	}
	return len(victims)
}

// sendBookmarks queues a BOOKMARK at the current revision for every watch that has not been
// sent anything up to it, as the cacher does about once a minute (cache_watcher.go
// nextBookmarkTime; client-go watches always ask for bookmarks).
func (s *Store) sendBookmarks() {
	rev := s.rev
	for _, ks := range s.kindList {
		ks.dispatching = true
		// One bookmark object per kind and round, shared by its watchers as every event's
		// object is (WatchEvent): 500 kubelets' pod watches took a new empty Pod each minute.
		var obj model.Object
		for _, w := range ks.watchers {
			if w.lastRV >= rev || w.closing {
				continue
			}
			if obj == nil {
				obj = ks.info.New()
				obj.Meta().ResourceVersion = rev
			}
			s.watchStats.Bookmarks++
			w.enqueue(WatchEvent{Type: Bookmark, Object: obj, ResourceVersion: rev})
		}
		ks.dispatching = false
		ks.sweep()
	}
}

// WatchStats are the store's cumulative watch counters.
type WatchStats struct {
	Opened         uint64 // watches opened
	Expired        uint64 // watch starts refused with 410 Expired
	ClosedOverflow uint64 // watches closed because a stalled watcher's buffer overflowed
	Delivered      uint64 // events delivered (bookmarks included)
	Bookmarks      uint64 // bookmarks queued
}
