package sim

import (
	"time"

	"github.com/reconsim/reconsim/vtime"
)

// Timer calls a function at a virtual time that can be moved or cancelled. An armed timer is a
// hold unless it was made with NewIdleTimer. Timer allocates nothing on Reset or Stop.
type Timer struct {
	k     *Kernel
	fn    func()
	gen   uint64
	at    vtime.Time
	armed bool
	idle  bool
}

// NewTimer returns a disarmed timer that calls fn when it fires; while armed it is pending work.
func (k *Kernel) NewTimer(fn func()) *Timer { return &Timer{k: k, fn: fn} }

// InitTimer makes *t a disarmed timer that calls fn, as NewTimer does, for a Timer held by
// value in a longer-lived struct (one allocation fewer per timer). The Timer must not be
// copied afterwards: an armed timer's event points at it.
func (k *Kernel) InitTimer(t *Timer, fn func()) { *t = Timer{k: k, fn: fn} }

// NewIdleTimer is NewTimer for a timer that does not hold off quiescence (periodic work).
func (k *Kernel) NewIdleTimer(fn func()) *Timer { return &Timer{k: k, fn: fn, idle: true} }

// ResetAt arms the timer for virtual time at (now if earlier), replacing any earlier arming.
func (t *Timer) ResetAt(at vtime.Time) {
	if !t.armed && !t.idle {
		t.k.Hold()
	}
	t.armed = true
	t.gen++
	if at < t.k.now {
		at = t.k.now
	}
	t.at = at
	t.k.Schedule(at, t, t.gen, false)
}

// Reset arms the timer for now+d.
func (t *Timer) Reset(d time.Duration) { t.ResetAt(t.k.now.Add(d)) }

// Stop disarms the timer and reports whether it was armed.
func (t *Timer) Stop() bool {
	if !t.armed {
		return false
	}
	t.armed = false
	t.gen++
	if !t.idle {
		t.k.Release()
	}
	return true
}

// When returns the time the timer is armed for, and whether it is armed.
func (t *Timer) When() (vtime.Time, bool) { return t.at, t.armed }

// Fire implements Handler.
func (t *Timer) Fire(gen uint64) {
	if !t.armed || gen != t.gen {
		return
	}
	t.armed = false
	if !t.idle {
		t.k.Release()
	}
	t.fn()
}

// Every calls fn every period, starting one period from now, without holding off quiescence.
// It returns the timer so the caller can Stop it.
func (k *Kernel) Every(period time.Duration, fn func()) *Timer {
	var t *Timer
	t = k.NewIdleTimer(func() {
		t.Reset(period)
		fn()
	})
	t.Reset(period)
	return t
}
