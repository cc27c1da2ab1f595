package sim

// FreeList keeps objects a caller is done with for its next ones to reuse: a stack, so the
// object taken is the one put last (its memory is the likeliest to be in cache). Like the
// kernel, it is for one thread. The kernel's idle coroutines, the clients' spare requests and
// API Priority and Fairness's finished requests are kept in one each.
type FreeList[T any] struct {
	spare []*T
}

// Take returns the object put last and forgets it, or nil when the list is empty.
func (l *FreeList[T]) Take() *T {
	n := len(l.spare)
	if n == 0 {
		return nil
	}
	x := l.spare[n-1]
	l.spare[n-1] = nil // the list no longer keeps x alive
	l.spare = l.spare[:n-1]
	return x
}

// Put keeps x for a later Take. The caller must not use x afterwards.
func (l *FreeList[T]) Put(x *T) { l.spare = append(l.spare, x) }

// Len is the number of objects kept.
func (l *FreeList[T]) Len() int { return len(l.spare) }
