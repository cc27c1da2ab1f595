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

// fifoBlock is the most items one block of a FIFO holds. A queue that an informer's first list
// fills with every pod of the cluster (150,000 in scale-5k) grows by whole blocks instead of
// doubling one array, and frees the blocks as they are handed out: doubling copied every item
// again at each step and left each old array behind (61 MiB of scale-5k's allocations, in
// taint eviction's and node lifecycle's pod queues).
const fifoBlock = 256

// FIFO holds items handed out oldest first: blocks[0][head:], then the later blocks in order.
// The last block grows by append up to fifoBlock items, so that a short queue holds a small
// array, as a plain slice would; a full last block is followed by a new one. A block handed out
// entirely is dropped, except the last one, which is reused from its start. It is the list
// under Typed and UniqueFIFO, and under queues of their own that need neither deduplication nor
// processing state (the garbage collector's graph changes). The zero value is empty.
type FIFO[T any] struct {
	blocks [][]T
	head   int
	n      int
}

// Len returns the number of items waiting.
func (f *FIFO[T]) Len() int { return f.n }

// Push appends item.
func (f *FIFO[T]) Push(item T) {
	last := len(f.blocks) - 1
	if last < 0 || (len(f.blocks[last]) == cap(f.blocks[last]) && cap(f.blocks[last]) >= fifoBlock) {
		f.blocks = append(f.blocks, nil)
		last++
		if last > 0 {
			f.blocks[last] = make([]T, 0, fifoBlock)
		}
	}
	f.blocks[last] = append(f.blocks[last], item)
	f.n++
}

// Pop removes and returns the oldest item; the FIFO must not be empty.
func (f *FIFO[T]) Pop() T {
	b := f.blocks[0]
	item := b[f.head]
	var zero T
	b[f.head] = zero
	f.head++
	f.n--
	if f.head == len(b) {
		f.head = 0
		if len(f.blocks) == 1 {
			f.blocks[0] = b[:0]
		} else {
			f.blocks[0] = nil
			f.blocks = f.blocks[1:]
		}
	}
	return item
}

// UniqueFIFO is a deduplicated FIFO list with no processes and no processing state: the
// input a worker drains itself when it serves more than one list (upstream's per-worker
// channels, fed from work queues, in taint eviction). Adding an item that is already waiting
// does nothing; Pop hands out the oldest. Like Typed, an emptied list that held a burst
// releases its memory. The zero value is an empty list.
type UniqueFIFO[T comparable] struct {
	items   FIFO[T]
	members map[T]struct{}
	burst   burst
	// reserve is the size of a burst announced by Reserve, for which the next Add makes
	// members.
	reserve int
}

// Reserve is Typed.Reserve for the list: the next Add into the empty list makes its set of
// members for n items.
func (u *UniqueFIFO[T]) Reserve(n int) {
	if n > burstItems && len(u.members) == 0 {
		u.reserve = n
	}
}

// Add appends item unless it is already waiting; it reports whether it appended.
func (u *UniqueFIFO[T]) Add(item T) bool {
	if _, ok := u.members[item]; ok {
		return false
	}
	if u.members == nil || u.reserve > 0 && len(u.members) == 0 {
		u.members = make(map[T]struct{}, u.reserve)
	}
	u.reserve = 0
	u.members[item] = struct{}{}
	u.items.Push(item)
	u.burst.grew(len(u.members))
	return true
}

// Len returns the number of items waiting.
func (u *UniqueFIFO[T]) Len() int { return u.items.Len() }

// Pop removes and returns the oldest item; ok is false when the list is empty.
func (u *UniqueFIFO[T]) Pop() (item T, ok bool) {
	if u.items.Len() == 0 {
		return item, false
	}
	item = u.items.Pop()
	delete(u.members, item)
	if u.burst.drained(len(u.members)) {
		u.items, u.members = FIFO[T]{}, nil
	}
	return item, true
}
