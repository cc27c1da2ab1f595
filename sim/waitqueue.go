package sim

// WaitQueue is a FIFO of processes parked until another process signals them: the simulated
// counterpart of a sync.Cond's waiter list, for the blocking Get of a queue. The zero value is
// an empty queue.
type WaitQueue struct {
	waiters []*Proc
}

// Len returns the number of processes waiting.
func (w *WaitQueue) Len() int { return len(w.waiters) }

// Wait parks p at the back of the queue until Signal or Broadcast wakes it. If p is killed
// while parked, it leaves the queue and, when pending.Len() > 0 (work is waiting that the
// signal meant for p announced), signals the next waiter, so that no wake-up is lost.
func (w *WaitQueue) Wait(p *Proc, pending interface{ Len() int }) {
	w.waiters = append(w.waiters, p)
	woken := false
	defer func() {
		if woken {
			return
		}
		w.remove(p)
		if pending.Len() > 0 {
			w.Signal()
		}
	}()
	p.Park()
	woken = true
}

// remove drops p from the queue, if it is there.
func (w *WaitQueue) remove(p *Proc) {
	for i, q := range w.waiters {
		if q == p {
			w.waiters = append(w.waiters[:i], w.waiters[i+1:]...)
			return
		}
	}
}

// Signal wakes the longest-waiting process that can still be woken (Unpark succeeds), dropping
// from the queue those that cannot, and reports whether it woke one.
func (w *WaitQueue) Signal() bool {
	for len(w.waiters) > 0 {
		p := w.waiters[0]
		w.waiters[0] = nil
		w.waiters = w.waiters[1:]
		if p.Unpark() {
			return true
		}
	}
	return false
}

// Broadcast wakes every waiting process, longest-waiting first.
func (w *WaitQueue) Broadcast() {
	for len(w.waiters) > 0 {
		w.Signal()
	}
}
