package sim

import "github.com/reconsim/reconsim/vtime"

// event is one scheduled callback. Events are stored by value in eventHeap so that scheduling
// allocates nothing once the heap has grown.
type event struct {
	at   vtime.Time
	seq  uint64
	h    Handler
	arg  uint64
	hold bool // counted in Kernel.holds until it fires
}

// before reports whether e fires before o: (at, seq) order, in which no two events tie.
func (e *event) before(o *event) bool {
	return e.at < o.at || e.at == o.at && e.seq < o.seq
}

// eventHeap is a binary min-heap on (at, seq) over a value slice. It does not use
// container/heap: the interface calls cost more than the whole event loop is allowed. Both
// operations move a hole rather than swapping events (an event is 48 bytes with a pointer in
// it), and pop sinks its hole to a leaf along the earlier child before placing the last event
// (Floyd's bottom-up deletion): the last event nearly always belongs near the bottom, so this
// takes one comparison per level instead of two. The order of (at, seq) is total, so the
// events pop in the same order whatever shape the heap has.
type eventHeap []event

func (h *eventHeap) push(e event) {
	s := append(*h, event{})
	siftUp(s, len(s)-1, e)
	*h = s
}

// siftUp places e at the hole i or above it, moving the hole's ancestors that e comes before
// down into it.
func siftUp(s []event, i int, e event) {
	for i > 0 {
		parent := (i - 1) / 2
		if !e.before(&s[parent]) {
			break
		}
		s[i] = s[parent]
		i = parent
	}
	s[i] = e
}

func (h *eventHeap) pop() event {
	s := *h
	top := s[0]
	last := len(s) - 1
	x := s[last]
	s[last] = event{} // drop the Handler reference for the GC
	s = s[:last]
	if n := len(s); n > 0 {
		i := 0
		for {
			child := 2*i + 1
			if child >= n {
				break
			}
			if right := child + 1; right < n && s[right].before(&s[child]) {
				child = right
			}
			s[i] = s[child]
			i = child
		}
		siftUp(s, i, x)
	}
	*h = s
	return top
}
