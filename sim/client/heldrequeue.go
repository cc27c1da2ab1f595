package client

import (
	"time"

	"github.com/reconsim/reconsim/sim"
	"github.com/reconsim/reconsim/vtime"
)

// HeldRequeue adds keys to a queue after a delay, like the delaying queue's AddAfter, but each
// pending requeue is pending work (a kernel hold): a run is not quiescent while a controller
// still has a scheduled reason to act, such as a Job's pod-failure back-off or a CronJob's next
// schedule time. The earliest requeue of a key wins; a key has at most one pending requeue.
type HeldRequeue struct {
	k       *sim.Kernel
	add     func(key string)
	pending map[string]*heldEntry
}

type heldEntry struct {
	timer *sim.Timer
	at    vtime.Time
}

// NewHeldRequeue returns a requeuer that calls add(key) when a key's delay is over.
func NewHeldRequeue(k *sim.Kernel, add func(key string)) *HeldRequeue {
	return &HeldRequeue{k: k, add: add, pending: map[string]*heldEntry{}}
}

// AddAfter schedules add(key) after d (at once for d <= 0), unless an earlier one is pending.
func (h *HeldRequeue) AddAfter(key string, d time.Duration) {
	if d <= 0 {
		h.add(key)
		return
	}
	at := h.k.Now().Add(d)
	e := h.pending[key]
	if e == nil {
		e = &heldEntry{}
		e.timer = h.k.NewTimer(func() {
			delete(h.pending, key)
			h.add(key)
		})
		h.pending[key] = e
	} else if e.at <= at {
		return
	}
	e.at = at
	e.timer.ResetAt(at)
}

// Forget cancels the key's pending requeue, if any.
func (h *HeldRequeue) Forget(key string) {
	if e := h.pending[key]; e != nil {
		e.timer.Stop()
		delete(h.pending, key)
	}
}

// Stop cancels every pending requeue (a stopped controller holds nothing).
func (h *HeldRequeue) Stop() {
	for key, e := range h.pending { //detlint:ordered stopping timers in any order changes nothing observable
		e.timer.Stop()
		delete(h.pending, key)
	}
}
