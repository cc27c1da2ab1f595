package sim

import (
	"bytes"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/reconsim/reconsim/vtime"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestEventsFireInTimeThenSequenceOrder(t *testing.T) {
	k := New(1)
	var got []string
	add := func(at time.Duration, name string) {
		k.Schedule(vtime.FromDuration(at), HandlerFunc(func(uint64) { got = append(got, name) }), 0, false)
	}
	add(3*time.Second, "c")
	add(1*time.Second, "a1")
	add(2*time.Second, "b")
	add(1*time.Second, "a2") // same time as a1, scheduled later: fires after it
	add(0, "zero")
	out := k.Run(Limits{})
	assert.Equal(t, []string{"zero", "a1", "a2", "b", "c"}, got)
	assert.Equal(t, StopDrained, out.Reason)
	assert.Equal(t, vtime.FromDuration(3*time.Second), k.Now())
	assert.Equal(t, uint64(5), k.EventsProcessed())
}

func TestScheduleInThePastRunsNow(t *testing.T) {
	k := New(1)
	var at vtime.Time
	k.Schedule(vtime.FromDuration(time.Second), HandlerFunc(func(uint64) {
		k.Schedule(0, HandlerFunc(func(uint64) { at = k.Now() }), 0, false)
	}), 0, false)
	k.Run(Limits{})
	assert.Equal(t, vtime.FromDuration(time.Second), at)
}

func TestStopConditions(t *testing.T) {
	tick := func(k *Kernel) { k.Every(time.Second, func() {}) }
	tests := []struct {
		name   string
		setup  func(k *Kernel)
		limits Limits
		reason StopReason
		at     vtime.Time
	}{
		{"drained", func(k *Kernel) { k.After(time.Second, func() {}) }, Limits{}, StopDrained, vtime.FromDuration(time.Second)},
		{"time limit", tick, Limits{MaxTime: vtime.FromDuration(10500 * time.Millisecond)}, StopTimeLimit, vtime.FromDuration(10500 * time.Millisecond)},
		{"event limit", tick, Limits{MaxEvents: 7}, StopEventLimit, vtime.FromDuration(7 * time.Second)},
		{"quiescent: only idle ticks", tick, Limits{QuiescenceWindow: 30 * time.Second, MaxTime: vtime.FromDuration(time.Hour)}, StopQuiescent, vtime.FromDuration(30 * time.Second)},
		{"explicit stop", func(k *Kernel) {
			tick(k)
			k.After(5*time.Second, func() { k.Stop("enough") })
		}, Limits{MaxTime: vtime.FromDuration(time.Hour)}, StopExplicit, vtime.FromDuration(5 * time.Second)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			k := New(1)
			tc.setup(k)
			out := k.Run(tc.limits)
			assert.Equal(t, tc.reason, out.Reason, out.Detail)
			assert.Equal(t, tc.at, out.At)
			assert.NotEmpty(t, out.Detail)
		})
	}
}

func TestQuiescenceWaitsForHoldsAndActivity(t *testing.T) {
	k := New(1)
	k.Every(time.Second, func() {})
	// A held timer 100s out keeps the run alive past the 30s window...
	k.After(100*time.Second, func() { k.MarkActivity() })
	out := k.Run(Limits{QuiescenceWindow: 30 * time.Second, MaxTime: vtime.FromDuration(time.Hour)})
	require.Equal(t, StopQuiescent, out.Reason)
	// ...and the activity it marks at 100s moves quiescence to 130s.
	assert.Equal(t, vtime.FromDuration(130*time.Second), out.At)
}

func TestProcessesBlockAndInterleave(t *testing.T) {
	k := New(1)
	var log []string
	say := func(p *Proc, s string) { log = append(log, fmt.Sprintf("%s %s %s", p.Now(), p.Name(), s)) }
	waiter := k.Spawn("waiter", func(p *Proc) {
		say(p, "park")
		p.Park()
		say(p, "woken")
	})
	k.Spawn("sleeper", func(p *Proc) {
		say(p, "sleep 2s")
		p.Sleep(2 * time.Second)
		say(p, "unpark waiter")
		assert.True(t, waiter.Unpark())
		assert.False(t, waiter.Unpark(), "a second Unpark of a process that is no longer parked does nothing")
		p.Sleep(time.Second)
		say(p, "done")
	})
	out := k.Run(Limits{})
	assert.Equal(t, StopDrained, out.Reason)
	assert.Equal(t, []string{
		"t=0.000s waiter park",
		"t=0.000s sleeper sleep 2s",
		"t=2.000s sleeper unpark waiter",
		"t=2.000s waiter woken",
		"t=3.000s sleeper done",
	}, log)
	assert.True(t, waiter.Finished())
}

func TestWakeResumesAParkedProcessInTheCurrentEvent(t *testing.T) {
	k := New(1)
	var log []string
	waiter := k.Spawn("waiter", func(p *Proc) {
		p.Park()
		log = append(log, "woken at "+p.Now().String())
		p.Park()
	})
	k.After(time.Second, func() {
		log = append(log, "handler")
		events := k.EventsProcessed()
		assert.True(t, waiter.Wake())
		assert.Equal(t, events, k.EventsProcessed(), "no event of its own")
		log = append(log, "handler again")
		assert.True(t, waiter.Parked())
	})
	k.After(2*time.Second, func() {
		assert.True(t, waiter.Unpark())
		assert.False(t, waiter.Wake(), "a process with a pending wake-up is not parked")
	})
	k.Run(Limits{})
	assert.Equal(t, []string{"handler", "woken at t=1.000s", "handler again"}, log)
	assert.True(t, waiter.Finished())
	assert.False(t, waiter.Wake(), "a finished process is not parked")
}

func TestParkedProcessesDoNotHoldOffQuiescence(t *testing.T) {
	k := New(1)
	k.Spawn("worker", func(p *Proc) { p.Park() })
	k.Every(time.Second, func() {})
	out := k.Run(Limits{QuiescenceWindow: 10 * time.Second})
	assert.Equal(t, StopQuiescent, out.Reason)
	assert.Equal(t, 0, k.Holds())
}

func TestSleepHoldsIdleDoesNot(t *testing.T) {
	k := New(1)
	k.Spawn("sleeper", func(p *Proc) { p.Sleep(time.Minute) })
	k.Spawn("idler", func(p *Proc) {
		for {
			p.Idle(time.Second)
		}
	})
	out := k.Run(Limits{QuiescenceWindow: 10 * time.Second})
	// The sleep (a hold) lasts 60s; quiescence can only be declared after it.
	assert.Equal(t, StopQuiescent, out.Reason)
	assert.Equal(t, vtime.FromDuration(60*time.Second), out.At)
}

func TestProcessPanicEndsRunNamingProcessTimeAndSeed(t *testing.T) {
	k := New(42)
	k.Spawn("bad-worker", func(p *Proc) {
		p.Sleep(1500 * time.Millisecond)
		var workers []string
		_ = workers[len(workers)+1] // a runtime panic (index out of range), not an explicit one
	})
	k.Every(time.Second, func() {})
	out := k.Run(Limits{MaxTime: vtime.FromDuration(time.Hour)})
	require.Equal(t, StopError, out.Reason)
	var pp *ProcPanic
	require.ErrorAs(t, out.Err, &pp)
	assert.Equal(t, "bad-worker", pp.Proc)
	assert.Equal(t, vtime.FromDuration(1500*time.Millisecond), pp.At)
	assert.Equal(t, uint64(42), pp.Seed)
	assert.Contains(t, out.Err.Error(), `process "bad-worker" panicked at t=1.500s (seed 42)`)
	assert.Contains(t, pp.Stack, "kernel_test.go", "the stack is the panicking process's own")
}

func TestKillUnwindsRunningDefers(t *testing.T) {
	k := New(1)
	cleaned := false
	reached := false
	victim := k.Spawn("victim", func(p *Proc) {
		defer func() { cleaned = true }()
		p.Sleep(time.Hour)
		reached = true
	})
	k.Spawn("killer", func(p *Proc) {
		p.Sleep(time.Second)
		victim.Kill()
	})
	k.Schedule(vtime.FromDuration(2*time.Second), HandlerFunc(func(uint64) {
		assert.Equal(t, 0, k.Holds(), "the victim's hour-long sleep stopped holding when it was killed")
	}), 0, false)
	out := k.Run(Limits{})
	assert.Equal(t, StopDrained, out.Reason)
	assert.True(t, cleaned)
	assert.False(t, reached)
	assert.True(t, victim.Finished())
	assert.Equal(t, vtime.FromDuration(time.Hour), k.Now(), "its stale wake-up still fires, harmlessly")
}

// TestCoroutinesAreReused checks the kernel's coroutine pool: a process that returns leaves
// its coroutine to the next one, which runs from the start with its own state; a killed
// process whose deferred call blocks unwinds anyway and frees its coroutine; and the pool
// keeps at most maxPooledCoroutines idle coroutines.
func TestCoroutinesAreReused(t *testing.T) {
	k := New(1)
	var order []string
	first := k.Spawn("first", func(p *Proc) {
		p.Sleep(time.Second)
		order = append(order, "first")
	})
	victim := k.Spawn("victim", func(p *Proc) {
		defer func() {
			order = append(order, "victim unwinds")
			p.Sleep(time.Second) // a blocking call while unwinding unwinds on
			order = append(order, "victim slept while unwinding")
		}()
		p.Sleep(time.Hour)
	})
	k.Spawn("spawner", func(p *Proc) {
		p.Sleep(2 * time.Second)
		victim.Kill()
		require.Equal(t, 1, k.coroutines.Len(), "first's coroutine is pooled; victim unwinds after this")
		for i := range 3 {
			k.Spawn(fmt.Sprintf("second-%d", i), func(p *Proc) {
				p.Sleep(time.Duration(i) * time.Second)
				order = append(order, p.Name())
			})
		}
	})
	out := k.Run(Limits{})
	require.Equal(t, StopDrained, out.Reason, "%v", out.Err)
	assert.Equal(t, []string{"first", "victim unwinds", "second-0", "second-1", "second-2"}, order)
	assert.True(t, first.Finished())
	assert.True(t, victim.Finished())
	assert.Equal(t, 3, k.coroutines.Len(), "three coroutines served six processes")

	burst := New(1)
	for i := range maxPooledCoroutines + 10 {
		burst.Spawn(fmt.Sprintf("p%d", i), func(p *Proc) { p.Sleep(time.Second) })
	}
	burst.Run(Limits{})
	assert.Equal(t, maxPooledCoroutines, burst.coroutines.Len(), "the pool is bounded")
}

// TestCloseEndsEveryCoroutine: after Close no goroutine of the kernel is left, whether its
// process was parked, sleeping, idling, killed while unwinding or finished (pooled), so that
// nothing of a finished run stays reachable; blocked bodies unwind as killed ones do, and
// what they emit while unwinding reaches no writer.
func TestCloseEndsEveryCoroutine(t *testing.T) {
	before := runtime.NumGoroutine()
	k := New(1)
	var trace bytes.Buffer
	k.Trace().SetWriter(&trace)
	unwound := 0
	var procs []*Proc
	for i := range 50 {
		procs = append(procs, k.Spawn(fmt.Sprintf("p%d", i), func(p *Proc) {
			defer func() {
				unwound++
				k.Emit("test", "unwound", p.Name(), 0, "")
				p.Sleep(time.Second) // a blocking call while unwinding unwinds on
			}()
			switch i % 4 {
			case 0:
				p.Park()
			case 1:
				p.Sleep(time.Hour)
			case 2:
				p.Idle(time.Hour)
			default: // returns: its coroutine is pooled
			}
		}))
	}
	out := k.Run(Limits{MaxTime: vtime.FromDuration(time.Minute)})
	require.Equal(t, StopTimeLimit, out.Reason, "%v", out.Err)
	require.Greater(t, runtime.NumGoroutine(), before+30, "the blocked processes' coroutines are goroutines")
	written := trace.String()
	k.Close()
	assert.LessOrEqual(t, runtime.NumGoroutine(), before, "Close leaves no goroutine")
	assert.Equal(t, 50, unwound, "every body unwound (or returned)")
	assert.Equal(t, written, trace.String(), "lines emitted while unwinding go to no writer")
	for _, p := range procs {
		assert.True(t, p.Finished(), p.Name())
	}
	k.Close() // a second Close does nothing
}

func TestKillSelf(t *testing.T) {
	k := New(1)
	after := false
	k.Spawn("suicidal", func(p *Proc) {
		p.Kill()
		after = true
	})
	out := k.Run(Limits{})
	assert.Equal(t, StopDrained, out.Reason)
	assert.False(t, after)
}

func TestProcIsAContext(t *testing.T) {
	k := New(1)
	var fromCtx *Proc
	p := k.Spawn("ctx", func(p *Proc) {
		fromCtx = ProcFromContext(p)
		require.Nil(t, p.Done())
		require.NoError(t, p.Err())
	})
	k.Run(Limits{})
	assert.Same(t, p, fromCtx)
	assert.Panics(t, func() { ProcFromContext(t.Context()) })
	assert.Same(t, p, ProcFromContext(WithProc(t.Context(), p)))
}

func TestTimerResetStopAndHolds(t *testing.T) {
	k := New(1)
	fired := []vtime.Time{}
	tm := k.NewTimer(func() { fired = append(fired, k.Now()) })
	tm.Reset(10 * time.Second)
	assert.Equal(t, 1, k.Holds())
	tm.Reset(5 * time.Second) // moved: only the latest arming fires
	assert.Equal(t, 1, k.Holds())
	k.After(time.Second, func() {
		at, ok := tm.When()
		assert.True(t, ok)
		assert.Equal(t, vtime.FromDuration(5*time.Second), at)
	})
	k.Run(Limits{})
	assert.Equal(t, []vtime.Time{vtime.FromDuration(5 * time.Second)}, fired)
	assert.Equal(t, 0, k.Holds())

	tm.Reset(time.Second)
	assert.True(t, tm.Stop())
	assert.False(t, tm.Stop())
	assert.Equal(t, 0, k.Holds())
	k.Run(Limits{})
	assert.Len(t, fired, 1, "a stopped timer does not fire")
}

func TestRandStreamsAreSeededPerComponent(t *testing.T) {
	draw := func(seed uint64, name string) []uint64 {
		r := New(seed).Rand(name)
		return []uint64{r.Uint64(), r.Uint64(), r.Uint64()}
	}
	assert.Equal(t, draw(7, "scheduler"), draw(7, "scheduler"))
	assert.NotEqual(t, draw(7, "scheduler"), draw(8, "scheduler"))
	assert.NotEqual(t, draw(7, "scheduler"), draw(7, "kubelet"))
}

func TestTraceFormatAndHash(t *testing.T) {
	var sb strings.Builder
	k := New(1)
	k.Trace().SetWriter(&sb)
	k.After(1500*time.Millisecond, func() { k.Emit("kube-apiserver", "create", "Pod default/web-1", 12, "phase=Pending") })
	k.After(2*time.Second, func() { k.Emit("kubelet/n1", "start", "Pod default/web-1", 0, "") })
	k.Run(Limits{})
	assert.Equal(t, "1.500000 kube-apiserver create Pod default/web-1 rv=12 phase=Pending\n2.000000 kubelet/n1 start Pod default/web-1\n", sb.String())
	assert.Equal(t, uint64(2), k.Trace().Lines())

	k2 := New(1)
	k2.After(1500*time.Millisecond, func() { k2.Emit("kube-apiserver", "create", "Pod default/web-1", 12, "phase=Pending") })
	k2.After(2*time.Second, func() { k2.Emit("kubelet/n1", "start", "Pod default/web-1", 0, "") })
	k2.Run(Limits{})
	assert.Equal(t, k.Trace().Hash(), k2.Trace().Hash(), "the hash does not depend on whether lines are written")
}

func TestEmitRefIsEmitOfTheRef(t *testing.T) {
	for _, c := range []struct {
		kind, namespace, name, ref string
		rv                         uint64
		detail                     string
	}{
		{"Pod", "default", "web-1", "Pod default/web-1", 12, "phase=Pending"},
		{"Lease", "kube-node-lease", "n-1", "Lease kube-node-lease/n-1", 7, ""},
		{"Node", "", "n1", "Node n1", 0, "ready"},
		{"Namespace", "", "", "Namespace ", 0, ""},
	} {
		var ref, parts strings.Builder
		k1, k2 := New(1), New(1)
		k1.Trace().SetWriter(&ref)
		k2.Trace().SetWriter(&parts)
		k1.Emit("kube-apiserver", "update", c.ref, c.rv, c.detail)
		k2.EmitRef("kube-apiserver", "update", c.kind, c.namespace, c.name, c.rv, c.detail)
		assert.Equal(t, ref.String(), parts.String(), c.ref)
		assert.Equal(t, k1.Trace().Hash(), k2.Trace().Hash(), c.ref)
	}
}

// TestAppendSecondsIsAppendFloat holds the trace's time formatting to strconv's: on the
// halfway times and the edges of the integer path, and on random times across the range.
func TestAppendSecondsIsAppendFloat(t *testing.T) {
	times := []vtime.Time{0, 1, 499, 500, 501, 999, 1000, 1500, 2500, 999_999_499, 999_999_500,
		999_999_501, 1e9, 1e9 + 500, 180e9, 180_003_095_000, 1e15 - 1, 1e15, 1e15 + 500, -1, -500, vtime.Never}
	r := NewRand(7, "seconds")
	for i := 0; i < 200_000; i++ {
		times = append(times, vtime.Time(r.Int64N(1e15)), vtime.Time(r.Int64N(1e12/1000)*1000+500), vtime.Time(r.Int64N(4e12)))
	}
	for _, now := range times {
		want := strconv.AppendFloat(nil, now.Seconds(), 'f', 6, 64)
		if got := appendSeconds(nil, now); string(got) != string(want) {
			t.Fatalf("%d ns: %s, strconv says %s", int64(now), got, want)
		}
	}
}

func TestHeapOrderProperty(t *testing.T) {
	// Property: whatever order events are scheduled in, they pop sorted by (time, seq).
	r := NewRand(99, "heap-property")
	for round := 0; round < 200; round++ {
		k := New(1)
		type rec struct {
			at  vtime.Time
			seq int
		}
		var got []rec
		n := 1 + r.IntN(300)
		for i := 0; i < n; i++ {
			at := vtime.Time(r.IntN(50))
			i := i
			k.Schedule(at, HandlerFunc(func(uint64) { got = append(got, rec{k.Now(), i}) }), 0, false)
		}
		k.Run(Limits{})
		require.Len(t, got, n)
		for i := 1; i < len(got); i++ {
			prev, cur := got[i-1], got[i]
			ok := prev.at < cur.at || (prev.at == cur.at && prev.seq < cur.seq)
			require.Truef(t, ok, "round %d: %v then %v", round, prev, cur)
		}
	}
}

func TestDistSampleAndValidate(t *testing.T) {
	r := NewRand(1, "dist")
	cases := []struct {
		d        Dist
		min, max time.Duration
	}{
		{Constant(5 * time.Millisecond), 5 * time.Millisecond, 5 * time.Millisecond},
		{Dist{Kind: DistUniform, Min: time.Second, Max: 2 * time.Second}, time.Second, 2 * time.Second},
		{Dist{Kind: DistExponential, Min: time.Millisecond, Mean: 10 * time.Millisecond, Max: time.Second}, time.Millisecond, time.Second},
		{Dist{Kind: DistLogNormal, Median: time.Second, P99: 4 * time.Second, Max: 30 * time.Second}, 0, 30 * time.Second},
	}
	for _, c := range cases {
		require.NoError(t, c.d.Validate(), c.d.String())
		for i := 0; i < 1000; i++ {
			v := c.d.Sample(r)
			require.GreaterOrEqual(t, v, c.min, c.d.String())
			require.LessOrEqual(t, v, c.max, c.d.String())
		}
	}
	// The log-normal's median and p99 are what was asked for (within sampling error).
	ln := Dist{Kind: DistLogNormal, Median: time.Second, P99: 4 * time.Second}
	below1, below4 := 0, 0
	const n = 20000
	for i := 0; i < n; i++ {
		v := ln.Sample(r)
		if v <= time.Second {
			below1++
		}
		if v <= 4*time.Second {
			below4++
		}
	}
	assert.InDelta(t, 0.5, float64(below1)/n, 0.02)
	assert.InDelta(t, 0.99, float64(below4)/n, 0.005)

	bad := []Dist{
		{Kind: "gamma"},
		{Kind: DistUniform},
		{Kind: DistExponential, Mean: time.Millisecond, Min: time.Second},
		{Kind: DistLogNormal, Median: time.Second, P99: time.Millisecond},
		{Kind: DistConstant, Value: -time.Second},
		{Kind: DistUniform, Min: 2 * time.Second, Max: time.Second},
	}
	for _, d := range bad {
		assert.Error(t, d.Validate(), d.String())
	}
}

// TestHeapInterleavedOrder pushes and pops events in random interleavings (times with many
// ties, so that the sequence numbers decide) and checks every pop against the earliest event
// still pending, found by a scan.
func TestHeapInterleavedOrder(t *testing.T) {
	r := NewRand(5, "heap-interleaved")
	for round := 0; round < 300; round++ {
		var h eventHeap
		var pending []event
		seq := uint64(0)
		for step := 0; step < 400; step++ {
			if len(pending) == 0 || r.IntN(3) != 0 {
				seq++
				e := event{at: vtime.Time(r.IntN(40)), seq: seq, arg: seq}
				h.push(e)
				pending = append(pending, e)
				continue
			}
			first := 0
			for i := range pending {
				if pending[i].before(&pending[first]) {
					first = i
				}
			}
			got := h.pop()
			require.Equal(t, pending[first].seq, got.seq, "round %d step %d", round, step)
			require.Equal(t, pending[first].at, got.at, "round %d step %d", round, step)
			pending = append(pending[:first], pending[first+1:]...)
			require.Len(t, h, len(pending))
		}
	}
}

// TestTraceReusesTheTimeOfTheLastLine emits lines of random lengths (long ones grow the
// buffer) at times that often repeat, and checks every line against its own formatting.
func TestTraceReusesTheTimeOfTheLastLine(t *testing.T) {
	r := NewRand(3, "trace-times")
	var sb strings.Builder
	var tr Trace
	tr.init()
	tr.SetWriter(&sb)
	var want strings.Builder
	now := vtime.Time(0)
	for i := 0; i < 5000; i++ {
		if r.IntN(3) == 0 {
			now += vtime.Time(r.Int64N(3e9))
		}
		object := strings.Repeat("x", r.IntN(400))
		tr.Emit(now, "kube-apiserver", "update", object, uint64(i+1), "")
		want.WriteString(string(appendSeconds(nil, now)) + " kube-apiserver update " + object + " rv=" + strconv.Itoa(i+1) + "\n")
	}
	require.True(t, want.String() == sb.String(), "the lines differ from their own formatting")
}

// TestKernelFiresInTimeThenSequenceOrder drives the kernel with seeded scripts in which events
// schedule more events (for now, for the past, for later, with Schedule and with a reserved
// sequence number) and checks every event fired against the earliest pending one by (time,
// sequence), found by a scan of a mirror of everything scheduled: the events for now that the
// kernel keeps apart from its heap must fire exactly where one heap would fire them.
func TestKernelFiresInTimeThenSequenceOrder(t *testing.T) {
	for seed := range uint64(40) {
		r := NewRand(seed, "kernel-order")
		k := New(seed)
		var pending []event
		var reserved []uint64
		var fired, fromCurrent int
		var h HandlerFunc
		schedule := func() {
			at := k.now + vtime.Time(r.IntN(4)) - 1 // the past, now, or up to 2 ns later
			if r.IntN(3) == 0 {
				at = k.now
			}
			hold := r.IntN(2) == 0
			if r.IntN(4) == 0 {
				reserved = append(reserved, k.Reserve())
			}
			switch {
			case len(reserved) > 0 && r.IntN(3) == 0:
				i := r.IntN(len(reserved))
				seq := reserved[i]
				reserved = append(reserved[:i], reserved[i+1:]...)
				k.ScheduleReserved(at, seq, h, seq, hold)
				pending = append(pending, event{at: max(at, k.now), seq: seq})
			default:
				k.Schedule(at, h, k.seq+1, hold)
				pending = append(pending, event{at: max(at, k.now), seq: k.seq})
			}
		}
		h = func(seq uint64) {
			first := 0
			for i := range pending {
				if pending[i].before(&pending[first]) {
					first = i
				}
			}
			require.Equal(t, pending[first].seq, seq, "seed %d event %d", seed, fired)
			require.Equal(t, pending[first].at, k.now, "seed %d event %d", seed, fired)
			pending = append(pending[:first], pending[first+1:]...)
			fired++
			if len(k.current) > 0 {
				fromCurrent++
			}
			require.Equal(t, len(pending), k.Pending())
			if fired < 2000 {
				for range min(r.IntN(4), 2) {
					schedule()
				}
			}
		}
		for range 20 {
			schedule()
		}
		k.Run(Limits{})
		require.Empty(t, pending, "seed %d", seed)
		require.Zero(t, k.Holds(), "seed %d", seed)
		require.Greater(t, fromCurrent, 100, "seed %d: the script must keep events for now", seed)
	}
}
