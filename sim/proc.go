package sim

import (
	"context"
	"fmt"
	"iter"
	"runtime/debug"
	"time"

	"github.com/reconsim/reconsim/vtime"
)

// Proc is a simulated process: a coroutine that runs ordinary blocking Go. It runs only when
// the kernel resumes it, and returns control when it blocks (Sleep, Park). Procs are not safe
// to use from goroutines; everything happens on the kernel.
//
// A Proc is also a context.Context, so blocking client code can take the usual ctx parameter
// and find the process it runs in with ProcFromContext. Its Done channel is nil: cancellation
// in the simulator is Kill, not a channel.
type Proc struct {
	// The fields resume, Fire and block read come first. A Proc is 64 bytes, one cache line
	// of its size class's aligned slots (TestProcIsOneCacheLine): at 96 bytes, every other
	// Proc straddled two lines. The switches to and from the coroutine are called through
	// the Proc itself (next, yield), not through the coroutine's record, which a process
	// touched once every 10 s would find out of the cache at each switch.
	k *Kernel
	// next resumes the coroutine that runs the body, and yield gives control back from it:
	// the functions of the coroutine from the kernel's pool that runs the body, set from the
	// first resume until the body returns.
	next    func() (struct{}, bool)
	yield   func(struct{}) bool
	gen     uint64 // incremented at every block; wake-up events carry it to detect staleness
	parked  bool
	holding bool // the current block is pending work: one kernel hold is ours to release
	started bool
	done    bool
	killed  bool
	// returned is set by the coroutine when the body has returned (or unwound).
	returned bool

	name string
	body func(p *Proc)
}

// ProcPanic is the error a run ends with when a process panics.
type ProcPanic struct {
	Proc  string
	At    vtime.Time
	Seed  uint64
	Value any
	Stack string
}

func (e *ProcPanic) Error() string {
	return fmt.Sprintf("process %q panicked at %s (seed %d): %v", e.Proc, e.At, e.Seed, e.Value)
}

type killSignal struct{}

// Spawn creates a process that starts running body at the current virtual time (after the
// events already scheduled for now). The name appears in traces and panic reports.
func (k *Kernel) Spawn(name string, body func(p *Proc)) *Proc {
	p := &Proc{k: k, name: name, body: body}
	k.procs++
	p.wakeAt(k.now, true)
	return p
}

// Running returns the process that is running now, or nil when the kernel itself is running
// (an event handler outside any process).
func (k *Kernel) Running() *Proc { return k.running }

// Name returns the process name.
func (p *Proc) Name() string { return p.name }

// Kernel returns the kernel the process runs on.
func (p *Proc) Kernel() *Kernel { return p.k }

// Now returns the current virtual time.
func (p *Proc) Now() vtime.Time { return p.k.now }

// Finished reports whether the body has returned (or the process was killed).
func (p *Proc) Finished() bool { return p.done }

// Fire resumes the process; it implements Handler for wake-up events. Stale wake-ups (from a
// block the process has since left) are ignored.
func (p *Proc) Fire(arg uint64) {
	if p.done || arg != p.gen {
		return
	}
	p.releaseHold()
	if p.killed {
		p.finishKill()
		return
	}
	p.parked = false
	p.resume()
}

func (p *Proc) resume() {
	k := p.k
	if k.running != nil {
		panic("sim: a process resumed another process directly")
	}
	if !p.started {
		p.started = true
		c := k.takeCoroutine()
		c.proc = p
		p.next = c.next
	}
	k.running = p
	p.next()
	k.running = nil
	if p.returned {
		p.done = true
		p.k.procs--
		p.next, p.yield = nil, nil
		k.putCoroutine(k.returned)
		k.returned = nil
	}
	if k.panicked != nil {
		k.fail(k.panicked)
		k.panicked = nil
	}
}

// coroutine is an iter.Pull coroutine that runs one process body after another. A fresh
// coroutine starts on a small stack that grows, by copying, the first time a body calls
// something deep (formatting an Event, serving an API request); with a process per pod worker,
// eviction and request fan-out that growth was 6% of a large run's CPU. A body that returns
// leaves its coroutine, stack and all, to the kernel's pool for the next process.
type coroutine struct {
	next func() (struct{}, bool)
	stop func()
	proc *Proc // the process it runs now; nil while pooled
	// slot is its index in the kernel's active list while it runs a process.
	slot int
}

// maxPooledCoroutines bounds the idle coroutines a kernel keeps (each holds a goroutine and
// its stack): enough for the bursts of short processes a large run spawns at one instant.
const maxPooledCoroutines = 1024

func (k *Kernel) takeCoroutine() *coroutine {
	c := k.coroutines.Take()
	if c == nil {
		c = &coroutine{}
		c.next, c.stop = iter.Pull(c.loop)
	}
	c.slot = len(k.active)
	k.active = append(k.active, c)
	return c
}

func (k *Kernel) putCoroutine(c *coroutine) {
	last := k.active[len(k.active)-1]
	k.active[c.slot], last.slot = last, c.slot
	k.active[len(k.active)-1] = nil
	k.active = k.active[:len(k.active)-1]
	c.proc = nil
	if k.coroutines.Len() >= maxPooledCoroutines {
		c.stop()
		return
	}
	k.coroutines.Put(c)
}

// Close ends the run for good: every process still blocked unwinds as a killed one does
// (its deferred calls run) and every coroutine, busy or pooled, ends. A coroutine is a
// goroutine parked until the kernel resumes it, so without Close the processes a run leaves
// blocked (nearly all of them: the controllers, the kubelets' loops, the pod workers) keep
// their stacks, and with them the whole simulated cluster, reachable for as long as the
// program lives: while a run's outputs are written, and after every run of a sweep. Lines
// emitted while unwinding go to no writer (the trace a run reported is complete); the hash
// still counts them. The kernel must not run again after Close. Close from inside a process
// does nothing; a second Close does nothing.
func (k *Kernel) Close() {
	if k.running != nil {
		return
	}
	k.trace.SetWriter(nil)
	for len(k.active) > 0 {
		c := k.active[len(k.active)-1]
		k.active[len(k.active)-1] = nil
		k.active = k.active[:len(k.active)-1]
		p := c.proc
		p.killed = true
		k.running = p
		c.stop()
		k.running = nil
		p.done = true
		p.next, p.yield = nil, nil
	}
	for c := k.coroutines.Take(); c != nil; c = k.coroutines.Take() {
		c.stop()
	}
	k.heap = nil
	k.current, k.currentHead = nil, 0
	k.returned, k.panicked = nil, nil
}

// loop runs the body of each process the coroutine is given, yielding to the kernel in
// between; it ends when the kernel stops it (the pool is full). The process blocks through
// its own copy of yield (Proc.block), and a process that returns leaves the coroutine in
// Kernel.returned for resume to pool.
func (c *coroutine) loop(yield func(struct{}) bool) {
	for {
		p := c.proc
		p.yield = yield
		p.run()
		p.returned = true
		p.k.returned = c
		if !yield(struct{}{}) {
			return
		}
	}
}

// run calls the user's body and turns panics into a recorded failure so that the kernel can
// report which process failed, where and when. A kill unwinds the body with killSignal.
func (p *Proc) run() {
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(killSignal); ok {
				return
			}
			p.k.panicked = &ProcPanic{Proc: p.name, At: p.k.now, Seed: p.k.seed, Value: r, Stack: string(debug.Stack())}
		}
	}()
	p.body(p)
}

// block gives control back to the kernel until a wake-up carrying the current generation.
func (p *Proc) block() {
	if p.k.running != p {
		panic(fmt.Sprintf("sim: process %q blocked while not running", p.name))
	}
	if p.killed {
		// Unwinding after a kill: a deferred call that blocks unwinds on instead.
		panic(killSignal{})
	}
	if !p.yield(struct{}{}) {
		panic(killSignal{})
	}
	if p.killed {
		panic(killSignal{})
	}
}

// Sleep blocks the process for d of virtual time. The sleep is pending work (a hold): use it
// for latencies and retry waits, not for periodic loops (see Idle).
func (p *Proc) Sleep(d time.Duration) {
	p.wakeAt(p.k.now.Add(d), true)
	p.block()
}

// wakeAt starts a new block generation and schedules its wake-up. The process, not the event,
// owns the hold, so that a killed process's stale wake-up holds nothing.
func (p *Proc) wakeAt(at vtime.Time, hold bool) {
	p.gen++
	p.releaseHold()
	if hold {
		p.k.Hold()
		p.holding = true
	}
	p.k.Schedule(at, p, p.gen, false)
}

func (p *Proc) releaseHold() {
	if p.holding {
		p.holding = false
		p.k.Release()
	}
}

// Idle blocks the process for d like Sleep, but without a hold: the wait does not keep the
// run from being quiescent. Periodic loops (heartbeats, monitors, resync) idle between
// iterations.
func (p *Proc) Idle(d time.Duration) {
	p.wakeAt(p.k.now.Add(d), false)
	p.block()
}

// SleepUntil blocks until virtual time t (a hold); it returns at once if t is not later than now.
func (p *Proc) SleepUntil(t vtime.Time) {
	if t <= p.k.now {
		return
	}
	p.Sleep(t.Sub(p.k.now))
}

// Park blocks the process until some other code calls Unpark. A parked process is not pending
// work: a world whose processes are all parked can be quiescent.
func (p *Proc) Park() {
	p.gen++
	p.parked = true
	p.block()
}

// Unpark makes a parked process runnable at the current time and reports whether it was
// parked. Unpark on a process that is not parked does nothing.
func (p *Proc) Unpark() bool {
	if !p.parked || p.done {
		return false
	}
	p.parked = false
	p.holding = true
	p.k.Hold()
	p.k.Schedule(p.k.now, p, p.gen, false)
	return true
}

// Wake resumes a parked process at once, inside the current event, and reports whether it
// was parked; Unpark instead schedules the resumption as an event of its own. It is for an
// event handler that stands where the process's wake-up event would have been: a handler that
// does part of the process's work on the kernel and wakes the process only when there is more
// (the process then runs exactly as that wake-up would have run it, with no event or coroutine
// switch spent when there is nothing more). It must be called from the kernel, not from inside
// a process.
func (p *Proc) Wake() bool {
	if !p.parked || p.done {
		return false
	}
	p.parked = false
	p.releaseHold()
	p.resume()
	return true
}

// Parked reports whether the process is blocked in Park.
func (p *Proc) Parked() bool { return p.parked }

// Kill ends the process: the next time it would run, it unwinds instead (deferred calls run)
// and never runs again. A process may kill itself; Kill returns normally only when called
// from outside it.
func (p *Proc) Kill() {
	if p.done || p.killed {
		return
	}
	p.killed = true
	if p.k.running == p {
		panic(killSignal{})
	}
	// A new generation makes any pending wake-up stale; the unwinding runs on the kernel.
	p.parked = false
	p.wakeAt(p.k.now, true)
}

func (p *Proc) finishKill() {
	if !p.started {
		p.done = true
		p.k.procs--
		return
	}
	// Resumed with killed set, the body unwinds from the block it is in (deferred calls run,
	// on the kernel as before) and its coroutine goes back to the pool.
	p.resume()
	if !p.done {
		panic(fmt.Sprintf("sim: killed process %q did not unwind", p.name))
	}
}

// Deadline implements context.Context; a process has none.
func (p *Proc) Deadline() (time.Time, bool) { return time.Time{}, false }

// Done implements context.Context. It returns nil: a process is stopped with Kill.
func (p *Proc) Done() <-chan struct{} { return nil }

// Err implements context.Context.
func (p *Proc) Err() error {
	if p.killed {
		return context.Canceled
	}
	return nil
}

type procKey struct{}

// Value implements context.Context; the process is its own value under an internal key.
func (p *Proc) Value(key any) any {
	if _, ok := key.(procKey); ok {
		return p
	}
	return nil
}

// WithProc returns a context derived from parent that carries p.
func WithProc(parent context.Context, p *Proc) context.Context {
	return context.WithValue(parent, procKey{}, p)
}

// ProcFromContext returns the process a context belongs to. Blocking simulator calls need one;
// calling them from a context without a process is a programming error and panics with a
// message saying so.
func ProcFromContext(ctx context.Context) *Proc {
	if p, ok := ctx.(*Proc); ok {
		return p
	}
	if ctx != nil {
		if p, ok := ctx.Value(procKey{}).(*Proc); ok {
			return p
		}
	}
	panic("sim: blocking call outside a simulated process (the context carries no *sim.Proc)")
}
