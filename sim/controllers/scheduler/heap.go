package scheduler

// podHeap is a binary min-heap of queued pods under a less function, tracking each item's index
// so that a pod can be removed or re-positioned in O(log n) (upstream backend/heap keyed by
// pod). Items belong to at most one heap at a time.
type podHeap struct {
	items []*queuedPodInfo
	less  func(a, b *queuedPodInfo) bool
}

func (h *podHeap) Len() int { return len(h.items) }

func (h *podHeap) swap(i, j int) {
	h.items[i], h.items[j] = h.items[j], h.items[i]
	h.items[i].heapIndex = i
	h.items[j].heapIndex = j
}

func (h *podHeap) up(i int) {
	for i > 0 {
		parent := (i - 1) / 2
		if !h.less(h.items[i], h.items[parent]) {
			return
		}
		h.swap(i, parent)
		i = parent
	}
}

func (h *podHeap) down(i int) {
	n := len(h.items)
	for {
		left := 2*i + 1
		if left >= n {
			return
		}
		smallest := left
		if right := left + 1; right < n && h.less(h.items[right], h.items[left]) {
			smallest = right
		}
		if !h.less(h.items[smallest], h.items[i]) {
			return
		}
		h.swap(i, smallest)
		i = smallest
	}
}

// Push adds p.
func (h *podHeap) Push(p *queuedPodInfo) {
	p.heapIndex = len(h.items)
	h.items = append(h.items, p)
	h.up(p.heapIndex)
}

// Peek returns the smallest item, or nil.
func (h *podHeap) Peek() *queuedPodInfo {
	if len(h.items) == 0 {
		return nil
	}
	return h.items[0]
}

// Pop removes and returns the smallest item, or nil when empty.
func (h *podHeap) Pop() *queuedPodInfo {
	if len(h.items) == 0 {
		return nil
	}
	return h.Remove(h.items[0])
}

// Remove takes p out of the heap and returns it. p must be in this heap.
func (h *podHeap) Remove(p *queuedPodInfo) *queuedPodInfo {
	i := p.heapIndex
	last := len(h.items) - 1
	if i != last {
		h.swap(i, last)
	}
	h.items[last] = nil
	h.items = h.items[:last]
	if i != last {
		h.down(i)
		h.up(i)
	}
	p.heapIndex = -1
	return p
}

// Fix restores the order after p's key changed.
func (h *podHeap) Fix(p *queuedPodInfo) {
	h.down(p.heapIndex)
	h.up(p.heapIndex)
}
