package operator

import (
	"time"

	"k8s.io/utils/clock"

	"github.com/reconsim/reconsim/sim"
)

// Clock returns a k8s.io/utils/clock.Clock on mgr's virtual time, for code that takes a clock
// (as controller-runtime and client-go code often does). Now and Since read virtual time;
// Sleep blocks the calling simulated process (it must be a Reconcile's); AfterFunc runs f in
// virtual time. After, NewTimer, Tick and NewTicker hand out channels, and a channel receive
// would block the whole simulation (one process runs at a time): they panic saying so; use
// Result.RequeueAfter instead.
func Clock(mgr Manager) clock.Clock {
	m, ok := mgr.(*manager)
	if !ok {
		panic("operator.Clock: the Manager must be the one the simulator passed to setup")
	}
	return virtualClock{k: m.env.Kernel}
}

type virtualClock struct{ k *sim.Kernel }

var _ clock.Clock = virtualClock{}

func (c virtualClock) Now() time.Time                  { return epoch.Add(c.k.Now().Duration()) }
func (c virtualClock) Since(t time.Time) time.Duration { return c.Now().Sub(t) }

func (c virtualClock) Sleep(d time.Duration) {
	p := c.k.Running()
	if p == nil {
		panic("operator.Clock: Sleep outside a simulated process (call it from Reconcile)")
	}
	p.Sleep(d)
}

func (c virtualClock) AfterFunc(d time.Duration, f func()) clock.Timer {
	t := &funcTimer{}
	c.k.After(d, func() {
		if !t.stopped {
			t.fired = true
			f()
		}
	})
	return t
}

const noChannels = "operator.Clock: channel-based timers (After, NewTimer, Tick, NewTicker) cannot be used in the simulation: receiving from one would block every simulated process; return a reconcile.Result with RequeueAfter instead"

func (c virtualClock) After(time.Duration) <-chan time.Time { panic(noChannels) }
func (c virtualClock) NewTimer(time.Duration) clock.Timer   { panic(noChannels) }
func (c virtualClock) Tick(time.Duration) <-chan time.Time  { panic(noChannels) }
func (c virtualClock) NewTicker(time.Duration) clock.Ticker { panic(noChannels) }

// funcTimer is AfterFunc's timer: Stop prevents f from running if it has not yet.
type funcTimer struct{ stopped, fired bool }

func (t *funcTimer) C() <-chan time.Time { return nil }
func (t *funcTimer) Stop() bool {
	was := !t.stopped && !t.fired
	t.stopped = true
	return was
}
func (t *funcTimer) Reset(time.Duration) bool {
	panic("operator.Clock: Reset of an AfterFunc timer is not supported")
}
