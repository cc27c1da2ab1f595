package workqueue

// burstItems is the size past which an emptied queue releases its memory. Go maps do not
// shrink, so once a burst is handed out (an informer's first list queues every object of the
// cluster at once) the queue replaces its map and array with small ones.
const burstItems = 1024

// burst remembers that a queue's map grew past burstItems (see there).
type burst bool

// grew notes that the map now holds n items.
func (b *burst) grew(n int) {
	if n > burstItems {
		*b = true
	}
}

// drained reports whether the map, now holding n items, should be released: it held a burst
// and is empty. It clears the mark when it says so.
func (b *burst) drained(n int) bool {
	if *b && n == 0 {
		*b = false
		return true
	}
	return false
}

// fifo holds items handed out oldest first, from index head on. Popping advances head; the
// slice is compacted when the dead prefix dominates.
type fifo[T any] struct {
	items []T
	head  int
}

func (f *fifo[T]) len() int { return len(f.items) - f.head }

func (f *fifo[T]) push(item T) {
	if f.head > 0 && f.head >= len(f.items)/2 && len(f.items) == cap(f.items) {
		n := copy(f.items, f.items[f.head:])
		var zero T
		for i := n; i < len(f.items); i++ {
			f.items[i] = zero
		}
		f.items = f.items[:n]
		f.head = 0
	}
	f.items = append(f.items, item)
}

// pop removes the oldest item; the fifo must not be empty.
func (f *fifo[T]) pop() T {
	item := f.items[f.head]
	var zero T
	f.items[f.head] = zero
	f.head++
	if f.head == len(f.items) {
		f.items = f.items[:0]
		f.head = 0
	}
	return item
}

// UniqueFIFO is a deduplicated FIFO list with no processes and no processing state: the
// input a worker drains itself when it serves more than one list (upstream's per-worker
// channels, fed from work queues, in taint eviction). Adding an item that is already waiting
// does nothing; Pop hands out the oldest. Like Typed, an emptied list that held a burst
// releases its memory. The zero value is an empty list.
type UniqueFIFO[T comparable] struct {
	items   fifo[T]
	members map[T]struct{}
	burst   burst
}

// Add appends item unless it is already waiting; it reports whether it appended.
func (u *UniqueFIFO[T]) Add(item T) bool {
	if _, ok := u.members[item]; ok {
		return false
	}
	if u.members == nil {
		u.members = make(map[T]struct{})
	}
	u.members[item] = struct{}{}
	u.items.push(item)
	u.burst.grew(len(u.members))
	return true
}

// Len returns the number of items waiting.
func (u *UniqueFIFO[T]) Len() int { return u.items.len() }

// Pop removes and returns the oldest item; ok is false when the list is empty.
func (u *UniqueFIFO[T]) Pop() (item T, ok bool) {
	if u.items.len() == 0 {
		return item, false
	}
	item = u.items.pop()
	delete(u.members, item)
	if u.burst.drained(len(u.members)) {
		u.items, u.members = fifo[T]{}, nil
	}
	return item, true
}
