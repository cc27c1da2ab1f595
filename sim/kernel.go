package sim

import (
	"fmt"
	"time"

	"github.com/reconsim/reconsim/vtime"
)

// Handler is the target of a scheduled event. Fire runs on the kernel, never concurrently with
// anything else; arg is the value given when the event was scheduled. Implementing Handler on a
// long-lived pointer (instead of scheduling closures) keeps scheduling free of allocations.
type Handler interface {
	Fire(arg uint64)
}

// HandlerFunc adapts a function to Handler.
type HandlerFunc func(arg uint64)

// Fire calls f(arg).
func (f HandlerFunc) Fire(arg uint64) { f(arg) }

// StopReason says why Run returned.
type StopReason string

// The reasons Run can stop for.
const (
	StopTimeLimit  StopReason = "time-limit"  // the next event lies beyond Limits.MaxTime
	StopEventLimit StopReason = "event-limit" // Limits.MaxEvents events were processed
	StopQuiescent  StopReason = "quiescent"   // no holds and no activity for QuiescenceWindow
	StopDrained    StopReason = "drained"     // no events left at all
	StopExplicit   StopReason = "stopped"     // someone called Stop
	StopError      StopReason = "error"       // a process panicked; Outcome.Err says which
)

// Limits bound a Run. A zero field means "no limit" (or, for QuiescenceWindow, "never stop for
// quiescence").
type Limits struct {
	MaxTime          vtime.Time
	MaxEvents        uint64
	QuiescenceWindow time.Duration
}

// Outcome is what Run reports.
type Outcome struct {
	Reason StopReason
	Detail string     // human-readable elaboration (the Stop message, the limit that was hit)
	Err    error      // non-nil only for StopError: a *ProcPanic
	At     vtime.Time // the virtual time at which the run stopped
}

// Kernel is the event loop. The zero value is not usable; call New.
type Kernel struct {
	now  vtime.Time
	seq  uint64
	heap eventHeap
	// current holds, from currentHead on, the events scheduled for the instant it is now, in
	// the order they were scheduled, so in sequence order: a fifth of a large run's events (a
	// process unparked, a tick's work handed on) are for now, and in the heap each one rose
	// past nearly every ancestor on its push (no event is earlier) and sank to a leaf on its
	// pop. The heap keeps the rest; next merges the two by (time, sequence), so they fire in
	// the order one heap would give them. The clock moves only when current is empty, as its
	// events are for now.
	current      []event
	currentHead  int
	seed         uint64
	events       uint64
	holds        int
	lastActivity vtime.Time
	running      *Proc

	stopped    bool
	stopReason StopReason
	stopDetail string
	err        error

	trace Trace
	procs int
	// coroutines are idle coroutines for new processes (takeCoroutine).
	coroutines FreeList[coroutine]
	// active are the coroutines running a process (started, not returned), for Close.
	active []*coroutine
	// returned is the coroutine whose process returned in the switch that just ended, for
	// resume to pool; panicked is the failure of a process that panicked in it.
	returned *coroutine
	panicked *ProcPanic
}

// New returns a kernel at time 0 whose random streams derive from seed.
func New(seed uint64) *Kernel {
	k := &Kernel{seed: seed}
	k.heap = make(eventHeap, 0, 1024)
	k.trace.init()
	return k
}

// Now returns the current virtual time.
func (k *Kernel) Now() vtime.Time { return k.now }

// Seed returns the seed the kernel was created with.
func (k *Kernel) Seed() uint64 { return k.seed }

// EventsProcessed returns how many events have fired so far.
func (k *Kernel) EventsProcessed() uint64 { return k.events }

// Pending returns the number of scheduled events that have not fired yet.
func (k *Kernel) Pending() int { return len(k.heap) + len(k.current) - k.currentHead }

// Holds returns the number of outstanding holds (see the package doc on quiescence).
func (k *Kernel) Holds() int { return k.holds }

// Trace returns the kernel's trace.
func (k *Kernel) Trace() *Trace { return &k.trace }

// Schedule arranges for h.Fire(arg) at virtual time at (clamped to now if earlier). Events at
// the same time fire in the order they were scheduled. If hold is true the event counts as
// pending work until it fires, which keeps the run from being declared quiescent.
func (k *Kernel) Schedule(at vtime.Time, h Handler, arg uint64, hold bool) {
	if at < k.now {
		at = k.now
	}
	k.seq++
	if hold {
		k.holds++
	}
	if at == k.now {
		k.current = append(k.current, event{at: at, seq: k.seq, h: h, arg: arg, hold: hold})
		return
	}
	k.heap.push(event{at: at, seq: k.seq, h: h, arg: arg, hold: hold})
}

// After runs fn after d of virtual time, as pending work (a hold).
func (k *Kernel) After(d time.Duration, fn func()) {
	k.Schedule(k.now.Add(d), HandlerFunc(func(uint64) { fn() }), 0, true)
}

// Hold records one unit of pending work; the caller must Release it exactly once.
func (k *Kernel) Hold() { k.holds++ }

// Release ends a Hold.
func (k *Kernel) Release() {
	if k.holds <= 0 {
		panic("sim: Release without Hold")
	}
	k.holds--
}

// MarkActivity records that something significant changed now; quiescence is measured from
// the latest mark.
func (k *Kernel) MarkActivity() { k.lastActivity = k.now }

// LastActivity returns the time of the latest MarkActivity (or of the start of Run).
func (k *Kernel) LastActivity() vtime.Time { return k.lastActivity }

// Stop ends Run after the current event, with StopExplicit and the given detail.
func (k *Kernel) Stop(detail string) {
	if k.stopped {
		return
	}
	k.stopped = true
	k.stopReason = StopExplicit
	k.stopDetail = detail
}

// Run fires events in (time, sequence) order until a limit, quiescence, Stop, a process panic
// or an empty heap ends it. Run may be called again after it returns (for example with a
// later MaxTime); a run stopped by Stop or an error stays stopped.
func (k *Kernel) Run(lim Limits) Outcome {
	if k.running != nil {
		panic("sim: Run called from inside a process")
	}
	if k.events == 0 {
		k.lastActivity = k.now
	}
	for !k.stopped {
		var next vtime.Time
		nowPending := k.currentHead < len(k.current)
		switch {
		case nowPending:
			next = k.now
		case len(k.heap) > 0:
			next = k.heap[0].at
		default:
			return k.outcome(StopDrained, "no events left")
		}
		if lim.QuiescenceWindow > 0 && k.holds == 0 {
			deadline := k.lastActivity.Add(lim.QuiescenceWindow)
			if next > deadline {
				if deadline > k.now {
					k.now = deadline
				}
				return k.outcome(StopQuiescent, fmt.Sprintf("nothing significant happened for %s and no work is pending", lim.QuiescenceWindow))
			}
		}
		if lim.MaxTime > 0 && next > lim.MaxTime {
			if lim.MaxTime > k.now {
				k.now = lim.MaxTime
			}
			return k.outcome(StopTimeLimit, fmt.Sprintf("reached the virtual-time limit %s", lim.MaxTime.Duration()))
		}
		if lim.MaxEvents > 0 && k.events >= lim.MaxEvents {
			return k.outcome(StopEventLimit, fmt.Sprintf("processed the event limit of %d events", lim.MaxEvents))
		}
		// With nothing pending for now the heap's top is next, popped here without next's
		// call: the bare loop (BenchmarkKernel) is that case alone.
		var ev event
		if nowPending {
			ev = k.next()
		} else {
			ev = k.heap.pop()
		}
		k.now = ev.at
		k.events++
		if ev.hold {
			k.holds--
		}
		ev.h.Fire(ev.arg)
	}
	return k.outcome(k.stopReason, k.stopDetail)
}

// next removes and returns the earliest pending event by (time, sequence): current's first, or
// the heap's top when that is for now too and was scheduled before it (ScheduleReserved), or is
// the only one pending.
func (k *Kernel) next() event {
	if k.currentHead == len(k.current) {
		return k.heap.pop()
	}
	e := &k.current[k.currentHead]
	if len(k.heap) > 0 && k.heap[0].before(e) {
		return k.heap.pop()
	}
	ev := *e
	*e = event{} // drop the Handler reference for the GC
	k.currentHead++
	if k.currentHead == len(k.current) {
		k.current, k.currentHead = k.current[:0], 0
	}
	return ev
}

func (k *Kernel) outcome(r StopReason, detail string) Outcome {
	o := Outcome{Reason: r, Detail: detail, At: k.now}
	if r == StopError {
		o.Err = k.err
	}
	return o
}

// fail stops the run with an error (a process panic).
func (k *Kernel) fail(err error) {
	if k.stopped && k.stopReason == StopError {
		return
	}
	k.stopped = true
	k.stopReason = StopError
	k.stopDetail = err.Error()
	k.err = err
}
