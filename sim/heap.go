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

// eventHeap is a binary min-heap on (at, seq) over a value slice. It does not use
// container/heap: the interface calls cost more than the whole event loop is allowed.
type eventHeap []event

func (h eventHeap) less(i, j int) bool {
	if h[i].at != h[j].at {
		return h[i].at < h[j].at
	}
	return h[i].seq < h[j].seq
}

func (h *eventHeap) push(e event) {
	*h = append(*h, e)
	s := *h
	i := len(s) - 1
	for i > 0 {
		parent := (i - 1) / 2
		if !s.less(i, parent) {
			break
		}
		s[i], s[parent] = s[parent], s[i]
		i = parent
	}
}

func (h *eventHeap) pop() event {
	s := *h
	top := s[0]
	last := len(s) - 1
	s[0] = s[last]
	s[last] = event{} // drop the Handler reference for the GC
	s = s[:last]
	i := 0
	for {
		left := 2*i + 1
		if left >= len(s) {
			break
		}
		smallest := left
		if right := left + 1; right < len(s) && s.less(right, left) {
			smallest = right
		}
		if !s.less(smallest, i) {
			break
		}
		s[i], s[smallest] = s[smallest], s[i]
		i = smallest
	}
	*h = s
	return top
}
