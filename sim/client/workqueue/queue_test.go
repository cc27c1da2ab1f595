package workqueue

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reconsim/reconsim/sim"
	"github.com/reconsim/reconsim/vtime"
)

// runProc runs body in a process on a fresh kernel until the world drains and fails the test
// if the run ends any other way.
func runProc(t *testing.T, k *sim.Kernel, body func(p *sim.Proc)) {
	t.Helper()
	k.Spawn("test", body)
	out := k.Run(sim.Limits{MaxTime: vtime.FromDuration(time.Hour)})
	require.Equal(t, sim.StopDrained, out.Reason, "run ended with %s: %s %v", out.Reason, out.Detail, out.Err)
}

// modelQueue is the reference semantics of queue.go, written as plainly as possible.
type modelQueue struct {
	queue      []int
	dirty      map[int]bool
	processing map[int]bool
}

func (m *modelQueue) add(x int) {
	if m.dirty[x] {
		return
	}
	m.dirty[x] = true
	if m.processing[x] {
		return
	}
	m.queue = append(m.queue, x)
}

func (m *modelQueue) get() int {
	x := m.queue[0]
	m.queue = m.queue[1:]
	m.processing[x] = true
	delete(m.dirty, x)
	return x
}

func (m *modelQueue) done(x int) {
	delete(m.processing, x)
	if m.dirty[x] {
		m.queue = append(m.queue, x)
	}
}

// TestQueueMatchesModel drives the queue with seeded random Add/Get/Done sequences and checks
// every result against the reference model: fairness, stinginess and exclusivity together.
func TestQueueMatchesModel(t *testing.T) {
	for seed := uint64(1); seed <= 20; seed++ {
		t.Run(fmt.Sprint("seed=", seed), func(t *testing.T) {
			k := sim.New(seed)
			r := k.Rand("model")
			q := New[int](k, "model")
			m := &modelQueue{dirty: map[int]bool{}, processing: map[int]bool{}}
			var inFlight []int
			runProc(t, k, func(p *sim.Proc) {
				for step := 0; step < 2000; step++ {
					switch op := r.IntN(3); {
					case op == 0:
						x := r.IntN(10)
						q.Add(x)
						m.add(x)
					case op == 1 && len(m.queue) > 0:
						got, shutdown := q.Get(p)
						require.False(t, shutdown)
						want := m.get()
						require.Equal(t, want, got, "step %d", step)
						require.NotContains(t, inFlight, got, "item handed out twice at step %d", step)
						inFlight = append(inFlight, got)
					case op == 2 && len(inFlight) > 0:
						i := r.IntN(len(inFlight))
						x := inFlight[i]
						inFlight = slices.Delete(inFlight, i, i+1)
						q.Done(x)
						m.done(x)
					}
					require.Equal(t, len(m.queue), q.Len(), "step %d", step)
					require.Equal(t, len(m.dirty), q.Stats().Depth, "step %d", step)
				}
			})
		})
	}
}

// TestQueueReleasesABurst: a burst of more than burstItems distinct items (some added again
// while being processed) comes out as the model says, the queue's array is released once the
// last dirty item is handed out, and the queue goes on working.
func TestQueueReleasesABurst(t *testing.T) {
	k := sim.New(1)
	q := New[int](k, "burst")
	m := &modelQueue{dirty: map[int]bool{}, processing: map[int]bool{}}
	const n = 3 * burstItems
	runProc(t, k, func(p *sim.Proc) {
		for x := range n {
			q.Add(x)
			m.add(x)
		}
		readded := map[int]bool{}
		for i := 0; len(m.queue) > 0; i++ {
			got, _ := q.Get(p)
			require.Equal(t, m.get(), got, "get %d", i)
			if got%100 == 0 && got < n && !readded[got] {
				readded[got] = true
				// Added again while processing: queued again by Done, with a new value
				// beside it so that the burst is not over yet.
				q.Add(got)
				m.add(got)
				q.Add(n + got)
				m.add(n + got)
			}
			q.Done(got)
			m.done(got)
			require.Equal(t, len(m.queue), q.Len(), "get %d", i)
			require.Equal(t, len(m.dirty), q.Stats().Depth, "get %d", i)
		}
		assert.False(t, bool(q.burst), "the burst is over")
		assert.Nil(t, q.ready.blocks, "the burst's blocks are released")
		q.Add(7)
		got, _ := q.Get(p)
		assert.Equal(t, 7, got)
		q.Done(got)
	})
}

// TestFair: distinct items come out in the order they were added.
func TestFair(t *testing.T) {
	k := sim.New(1)
	r := k.Rand("fair")
	q := New[int](k, "fair")
	want := r.Perm(100)
	var got []int
	runProc(t, k, func(p *sim.Proc) {
		for _, x := range want {
			q.Add(x)
		}
		for range want {
			x, _ := q.Get(p)
			got = append(got, x)
			q.Done(x)
		}
	})
	assert.Equal(t, want, got)
}

// TestStingy: adding an item that is already queued does not queue it again.
func TestStingy(t *testing.T) {
	k := sim.New(1)
	q := New[string](k, "stingy")
	runProc(t, k, func(p *sim.Proc) {
		for range 5 {
			q.Add("a")
		}
		q.Add("b")
		q.Add("a")
		require.Equal(t, 2, q.Len())
		x, _ := q.Get(p)
		assert.Equal(t, "a", x)
		q.Done(x)
		x, _ = q.Get(p)
		assert.Equal(t, "b", x)
		q.Done(x)
		assert.Equal(t, 0, q.Len())
		assert.Equal(t, uint64(2), q.Stats().Adds)
	})
}

// TestExclusive: with several workers taking random time per item and a producer re-adding
// items at random, no item is ever processed by two workers at once, and every add made while
// an item is being processed leads to exactly one more processing after it.
func TestExclusive(t *testing.T) {
	k := sim.New(7)
	r := k.Rand("exclusive")
	q := New[int](k, "exclusive")
	busy := map[int]string{}
	processed := map[int]int{}
	addsWhileBusy := map[int]int{}
	for w := range 4 {
		name := fmt.Sprint("worker-", w)
		k.Spawn(name, func(p *sim.Proc) {
			for {
				x, shutdown := q.Get(p)
				if shutdown {
					return
				}
				if other, ok := busy[x]; ok {
					t.Errorf("item %d processed by %s and %s at %s", x, other, name, k.Now())
				}
				busy[x] = name
				processed[x]++
				p.Sleep(time.Duration(1+r.IntN(50)) * time.Millisecond)
				delete(busy, x)
				q.Done(x)
			}
		})
	}
	adds := 0
	k.Spawn("producer", func(p *sim.Proc) {
		for range 500 {
			x := r.IntN(8)
			if _, ok := busy[x]; ok {
				addsWhileBusy[x]++
			}
			q.Add(x)
			adds++
			p.Sleep(time.Duration(r.IntN(10)) * time.Millisecond)
		}
		p.Sleep(time.Second)
		q.ShutDown()
	})
	out := k.Run(sim.Limits{MaxTime: vtime.FromDuration(time.Hour)})
	require.Equal(t, sim.StopDrained, out.Reason, out.Detail)
	total := 0
	for _, n := range processed {
		total += n
	}
	assert.Greater(t, total, 8, "workers processed too little for the test to mean anything")
	assert.LessOrEqual(t, total, adds)
	assert.Empty(t, busy)
	assert.Equal(t, 0, q.Len())
}

// TestReAddDuringProcessingRunsOnceMore: any number of adds while an item is being processed
// make it run exactly once more, after Done and not before.
func TestReAddDuringProcessingRunsOnceMore(t *testing.T) {
	for _, readds := range []int{1, 2, 5} {
		t.Run(fmt.Sprint("readds=", readds), func(t *testing.T) {
			k := sim.New(1)
			q := New[string](k, "readd")
			runProc(t, k, func(p *sim.Proc) {
				q.Add("a")
				x, _ := q.Get(p)
				for range readds {
					q.Add("a")
				}
				require.Equal(t, 0, q.Len(), "re-added item must wait for Done")
				q.Done(x)
				require.Equal(t, 1, q.Len())
				x, _ = q.Get(p)
				assert.Equal(t, "a", x)
				q.Done(x)
				assert.Equal(t, 0, q.Len(), "exactly once more")
			})
		})
	}
}

// TestWakeful: Get parks while the queue is empty, and waiting workers are served in the order
// they started to wait.
func TestWakeful(t *testing.T) {
	k := sim.New(1)
	q := New[int](k, "wake")
	var served []string
	for _, name := range []string{"w0", "w1", "w2"} {
		k.Spawn(name, func(p *sim.Proc) {
			x, shutdown := q.Get(p)
			if !shutdown {
				served = append(served, fmt.Sprintf("%s:%d@%s", name, x, k.Now()))
				q.Done(x)
			}
		})
	}
	k.Spawn("producer", func(p *sim.Proc) {
		p.Sleep(time.Second)
		q.Add(10)
		p.Sleep(time.Second)
		q.Add(11)
		q.Add(12)
	})
	out := k.Run(sim.Limits{})
	require.Equal(t, sim.StopDrained, out.Reason)
	assert.Equal(t, []string{"w0:10@t=1.000s", "w1:11@t=2.000s", "w2:12@t=2.000s"}, served)
}

// TestShutDownWakesWaitingWorkers: ShutDown wakes every parked Get, which reports shutdown;
// items queued before the shutdown are still handed out first; later adds are dropped.
func TestShutDownWakesWaitingWorkers(t *testing.T) {
	k := sim.New(1)
	q := New[int](k, "shutdown")
	results := map[string]bool{}
	for _, name := range []string{"w0", "w1"} {
		k.Spawn(name, func(p *sim.Proc) {
			_, shutdown := q.Get(p)
			results[name] = shutdown
		})
	}
	var afterShutdown []string
	k.Spawn("closer", func(p *sim.Proc) {
		p.Sleep(time.Second)
		q.ShutDown()
		require.True(t, q.ShuttingDown())
		q.Add(1)
		assert.Equal(t, 0, q.Len(), "Add after ShutDown must be dropped")
	})
	out := k.Run(sim.Limits{})
	require.Equal(t, sim.StopDrained, out.Reason)
	assert.Equal(t, map[string]bool{"w0": true, "w1": true}, results)

	k2 := sim.New(1)
	q2 := New[int](k2, "drain-queued")
	runProc(t, k2, func(p *sim.Proc) {
		q2.Add(1)
		q2.ShutDown()
		x, shutdown := q2.Get(p)
		afterShutdown = append(afterShutdown, fmt.Sprint(x, shutdown))
		q2.Done(x)
		x, shutdown = q2.Get(p)
		afterShutdown = append(afterShutdown, fmt.Sprint(x, shutdown))
	})
	assert.Equal(t, []string{"1 false", "0 true"}, afterShutdown)
}

// TestShutDownWithDrainWaitsForDone: ShutDownWithDrain returns only after the item being
// processed is marked Done.
func TestShutDownWithDrainWaitsForDone(t *testing.T) {
	k := sim.New(1)
	q := New[int](k, "drain")
	var drainedAt vtime.Time
	k.Spawn("worker", func(p *sim.Proc) {
		q.Add(1)
		x, _ := q.Get(p)
		p.Sleep(3 * time.Second)
		q.Done(x)
	})
	k.Spawn("closer", func(p *sim.Proc) {
		p.Sleep(time.Second)
		q.ShutDownWithDrain(p)
		drainedAt = k.Now()
	})
	out := k.Run(sim.Limits{})
	require.Equal(t, sim.StopDrained, out.Reason)
	assert.Equal(t, vtime.FromDuration(3*time.Second), drainedAt)
}

// TestKilledWaiterDoesNotLoseWakeup: a worker killed after it was woken but before it ran
// passes the item on to the next waiting worker.
func TestKilledWaiterDoesNotLoseWakeup(t *testing.T) {
	k := sim.New(1)
	q := New[int](k, "kill")
	var got []string
	w0 := k.Spawn("w0", func(p *sim.Proc) {
		x, _ := q.Get(p)
		got = append(got, fmt.Sprint("w0:", x))
	})
	k.Spawn("w1", func(p *sim.Proc) {
		x, _ := q.Get(p)
		got = append(got, fmt.Sprint("w1:", x))
	})
	k.Spawn("producer", func(p *sim.Proc) {
		p.Sleep(time.Second)
		q.Add(5)  // wakes w0 ...
		w0.Kill() // ... which dies before it runs
	})
	out := k.Run(sim.Limits{})
	require.Equal(t, sim.StopDrained, out.Reason)
	assert.Equal(t, []string{"w1:5"}, got)
}

// TestStatsWorkAndQueueDuration: the duration metrics follow virtual time.
func TestStatsWorkAndQueueDuration(t *testing.T) {
	k := sim.New(1)
	q := New[int](k, "stats")
	var mid Stats
	runProc(t, k, func(p *sim.Proc) {
		q.Add(1)
		p.Sleep(2 * time.Second)
		x, _ := q.Get(p)
		p.Sleep(3 * time.Second)
		mid = q.Stats()
		q.Done(x)
	})
	s := q.Stats()
	assert.Equal(t, 3*time.Second, mid.LongestRunningProcessor)
	assert.Equal(t, 3*time.Second, mid.UnfinishedWork)
	assert.Equal(t, 2*time.Second, s.QueueDurationTotal)
	assert.Equal(t, 3*time.Second, s.WorkDurationTotal)
	assert.Equal(t, time.Duration(0), s.LongestRunningProcessor)
	assert.Equal(t, Stats{Name: "stats", Adds: 1, Gets: 1, Dones: 1, QueueDurationTotal: 2 * time.Second, WorkDurationTotal: 3 * time.Second}, s)
}

func BenchmarkWorkqueueAddGetDone(b *testing.B) {
	k := sim.New(1)
	q := New[int](k, "bench")
	k.Spawn("bench", func(p *sim.Proc) {
		for i := 0; b.Loop(); i++ {
			q.Add(i & 1023)
			x, _ := q.Get(p)
			q.Done(x)
		}
	})
	k.Run(sim.Limits{})
}
