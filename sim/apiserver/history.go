package apiserver

import (
	"time"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim"
)

// histEvent is one write as the watch cache records it: the object after the write (for a
// DELETED event, the last state carrying the deletion's revision) and the state before it.
type histEvent struct {
	rv   uint64
	typ  EventType
	obj  model.Object
	prev model.Object // nil for ADDED
	at   sim.Time     // record time, for the history's freshness rule
}

// history is one kind's watch-cache event window: a ring buffer that resizes the way
// upstream's does ([apiserver@HEAD] pkg/storage/cacher/watch_cache_history.go,
// resizeCacheLocked): when full, it doubles (up to the upper bound) if its oldest event is
// younger than eventFreshDuration, and halves (down to the lower bound) if even the newest
// quarter is older than that; otherwise the oldest event is dropped.
type history struct {
	buf          []histEvent // len(buf) is the capacity
	start, end   int         // absolute indices: events start..end-1 are held
	lower, upper int
	fresh        time.Duration
}

func newHistory(lower, upper int, fresh time.Duration) *history {
	return &history{buf: make([]histEvent, lower), lower: lower, upper: upper, fresh: fresh}
}

func (h *history) size() int     { return h.end - h.start }
func (h *history) capacity() int { return len(h.buf) }
func (h *history) full() bool    { return h.size() == len(h.buf) }

// at returns the event at absolute index i (start <= i < end).
func (h *history) at(i int) *histEvent { return &h.buf[i%len(h.buf)] }

// add appends e, resizing or dropping the oldest event first as upstream does.
func (h *history) add(e histEvent) {
	h.resize(e.at)
	if h.full() {
		*h.at(h.start) = histEvent{} // let the dropped objects be collected
		h.start++
	}
	h.buf[h.end%len(h.buf)] = e
	h.end++
}

func (h *history) resize(now sim.Time) {
	if !h.full() {
		return
	}
	capacity := len(h.buf)
	if now.Sub(h.at(h.start).at) < h.fresh {
		if grown := min(capacity*2, h.upper); grown != capacity {
			h.setCapacity(grown)
		}
		return
	}
	if now.Sub(h.at(h.end-capacity/4).at) > h.fresh {
		if shrunk := max(capacity/2, h.lower); shrunk != capacity {
			h.setCapacity(shrunk)
		}
	}
}

// setCapacity moves the held events into a ring of the new capacity; shrinking keeps the
// newest events (doCacheResizeLocked).
func (h *history) setCapacity(capacity int) {
	buf := make([]histEvent, capacity)
	if capacity < h.size() {
		h.start = h.end - capacity
	}
	for i := h.start; i < h.end; i++ {
		buf[i%capacity] = *h.at(i)
	}
	h.buf = buf
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
