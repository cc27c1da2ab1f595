package apiserver

import (
	"slices"
	"time"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/vtime"
)

// histEvent is one write as the watch cache records it: the object after the write (for a
// DELETED event, the last state carrying the deletion's revision) and the state before it.
type histEvent struct {
	rv   uint64
	typ  EventType
	obj  model.Object
	prev model.Object // nil for ADDED
}

// history is one kind's watch-cache event window: a ring buffer that resizes the way
// upstream's does ([apiserver@HEAD] pkg/storage/cacher/watch_cache_history.go,
// resizeCacheLocked): when full, it doubles (up to the upper bound) if its oldest event is
// younger than eventFreshDuration, and halves (down to the lower bound) if even the newest
// quarter is older than that; otherwise the oldest event is dropped.
type history struct {
	buf []histEvent // len(buf) is the capacity
	// ats are the events' record times, for the freshness rule, at the same places as buf.
	// Every add reads two of them (the oldest event's and the newest quarter's first), far
	// apart in the ring: in an array of their own, eight share a cache line, where in buf
	// each read was a cache line (and, for the quarter, a miss) of its own.
	ats          []vtime.Time
	start, end   int // absolute indices: events start..end-1 are held
	lower, upper int
	fresh        time.Duration

	// triggerOf is the value of the kind's trigger field, nil when the kind has none. Then
	// byTrigger lists, per value, the absolute indices (ascending) of the events whose object
	// or previous state has that value: the only events a watch pinned to the value can be
	// sent, so its replay need not look at the others. Indices below start are dropped
	// lazily; indexed counts the entries still listed, for the sweep that bounds them.
	triggerOf func(model.Object) string
	byTrigger map[string]*eventIndices
	indexed   int
}

// eventIndices is an ascending list of absolute event indices; entries before head are gone.
type eventIndices struct {
	idx  []int
	head int
}

func newHistory(lower, upper int, fresh time.Duration, triggerOf func(model.Object) string) *history {
	h := &history{buf: make([]histEvent, lower), ats: make([]vtime.Time, lower), lower: lower, upper: upper, fresh: fresh, triggerOf: triggerOf}
	if triggerOf != nil {
		h.byTrigger = make(map[string]*eventIndices)
	}
	return h
}

func (h *history) size() int     { return h.end - h.start }
func (h *history) capacity() int { return len(h.buf) }
func (h *history) full() bool    { return h.size() == len(h.buf) }

// at returns the event at absolute index i (start <= i < end).
func (h *history) at(i int) *histEvent { return &h.buf[i%len(h.buf)] }

// recordedAt returns the record time of the event at absolute index i (start <= i < end).
func (h *history) recordedAt(i int) vtime.Time { return h.ats[i%len(h.ats)] }

// add appends e, recorded at time at, resizing or dropping the oldest event first as
// upstream does.
func (h *history) add(e histEvent, at vtime.Time) {
	h.resize(at)
	if h.full() {
		// The oldest event's place is the new one's (end-start is the capacity): writing e
		// over it lets the dropped objects be collected.
		h.start++
	}
	i := h.end % len(h.buf)
	h.buf[i], h.ats[i] = e, at
	if h.triggerOf != nil {
		h.index(&e)
	}
	h.end++
}

// index lists the event at absolute index end under its object's and its previous state's
// trigger values.
func (h *history) index(e *histEvent) {
	v := h.triggerOf(e.obj)
	h.listUnder(v)
	if e.prev != nil {
		if pv := h.triggerOf(e.prev); pv != v {
			h.listUnder(pv)
		}
	}
	// Lists of values no longer written keep their dropped entries until a sweep. At most
	// 2*capacity entries are live, so sweeping past 4*capacity keeps the index O(capacity),
	// and at least capacity events pass between sweeps: O(1) amortized.
	if h.indexed > 4*len(h.buf)+1024 {
		h.sweepIndex()
	}
}

func (h *history) listUnder(v string) {
	l := h.byTrigger[v]
	if l == nil {
		l = &eventIndices{}
		h.byTrigger[v] = l
	}
	h.indexed -= l.prune(h.start)
	l.idx = append(l.idx, h.end)
	h.indexed++
}

// prune drops the entries below start, returning how many it dropped.
func (l *eventIndices) prune(start int) int {
	dropped := 0
	for l.head < len(l.idx) && l.idx[l.head] < start {
		l.head++
		dropped++
	}
	if l.head > 0 && l.head*2 >= len(l.idx) {
		n := copy(l.idx, l.idx[l.head:])
		l.idx, l.head = l.idx[:n], 0
	}
	return dropped
}

// sweepIndex prunes every list and forgets the values whose lists are empty.
func (h *history) sweepIndex() {
	for v, l := range h.byTrigger { //detlint:ordered each list is pruned on its own; order cannot matter
		h.indexed -= l.prune(h.start)
		if l.head == len(l.idx) {
			delete(h.byTrigger, v)
		}
	}
}

// eventsWith returns the absolute indices, ascending, of the held events from index from on
// whose object or previous state has trigger value v. It needs the index (triggerOf set).
func (h *history) eventsWith(v string, from int) []int {
	l := h.byTrigger[v]
	if l == nil {
		return nil
	}
	live := l.idx[l.head:]
	i, _ := slices.BinarySearch(live, max(from, h.start))
	return live[i:]
}

func (h *history) resize(now vtime.Time) {
	if !h.full() {
		return
	}
	capacity := len(h.buf)
	if now.Sub(h.recordedAt(h.start)) < h.fresh {
		if grown := min(capacity*2, h.upper); grown != capacity {
			h.setCapacity(grown)
		}
		return
	}
	if now.Sub(h.recordedAt(h.end-capacity/4)) > h.fresh {
		if shrunk := max(capacity/2, h.lower); shrunk != capacity {
			h.setCapacity(shrunk)
		}
	}
}

// setCapacity moves the held events into a ring of the new capacity; shrinking keeps the
// newest events (doCacheResizeLocked).
func (h *history) setCapacity(capacity int) {
	buf, ats := make([]histEvent, capacity), make([]vtime.Time, capacity)
	if capacity < h.size() {
		h.start = h.end - capacity
	}
	for i := h.start; i < h.end; i++ {
		buf[i%capacity], ats[i%capacity] = *h.at(i), h.recordedAt(i)
	}
	h.buf, h.ats = buf, ats
}

// dropped reports whether any event has left the window: until then, a watch may start from
// any revision.
func (h *history) dropped() bool { return h.start > 0 }

// oldestRV is the revision of the oldest held event (0 if none).
func (h *history) oldestRV() uint64 {
	if h.size() == 0 {
		return 0
	}
	return h.at(h.start).rv
}

// firstAfter returns the absolute index of the first held event with revision > rv.
func (h *history) firstAfter(rv uint64) int {
	lo, hi := h.start, h.end
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if h.at(mid).rv <= rv {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo
}
