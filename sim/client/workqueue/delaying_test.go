package workqueue

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reconsim/reconsim/sim"
	"github.com/reconsim/reconsim/vtime"
)

// collectReady spawns a worker that records "<item>@<time>" for every item it gets.
func collectReady[T comparable](k *sim.Kernel, q TypedInterface[T], got *[]string) {
	k.Spawn("collector", func(p *sim.Proc) {
		for {
			x, shutdown := q.Get(p)
			if shutdown {
				return
			}
			*got = append(*got, fmt.Sprintf("%v@%s", x, k.Now()))
			q.Done(x)
		}
	})
}

// TestAddAfterOnlyMovesEarlier: a second AddAfter for a waiting item can bring it forward but
// never push it back.
func TestAddAfterOnlyMovesEarlier(t *testing.T) {
	tests := []struct {
		name   string
		first  time.Duration
		second time.Duration
		want   string
	}{
		{"later second call is ignored", time.Second, 5 * time.Second, "a@t=1.000s"},
		{"earlier second call wins", 5 * time.Second, time.Second, "a@t=1.000s"},
		{"equal calls give one item", 2 * time.Second, 2 * time.Second, "a@t=2.000s"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k := sim.New(1)
			q := NewDelaying[string](k, "after")
			var got []string
			collectReady(k, q, &got)
			q.AddAfter("a", tt.first)
			q.AddAfter("a", tt.second)
			k.After(time.Minute, q.ShutDown)
			k.Run(sim.Limits{})
			assert.Equal(t, []string{tt.want}, got)
		})
	}
}

// TestAddAfterNonPositiveIsAdd: AddAfter with d <= 0 queues the item at once.
func TestAddAfterNonPositiveIsAdd(t *testing.T) {
	for _, d := range []time.Duration{0, -time.Second} {
		k := sim.New(1)
		q := NewDelaying[string](k, "now")
		q.AddAfter("a", d)
		assert.Equal(t, 1, q.Len(), "d=%s", d)
		assert.Equal(t, 0, q.Stats().Waiting)
	}
}

// TestAddAfterOrder: delayed items become ready in readyAt order, ties in insertion order,
// and an item already queued is not queued twice when its delay ends.
func TestAddAfterOrder(t *testing.T) {
	k := sim.New(3)
	r := k.Rand("order")
	q := NewDelaying[int](k, "order")
	var got []string
	collectReady(k, q, &got)
	type entry struct {
		item int
		d    time.Duration
	}
	var entries []entry
	for i := range 50 {
		e := entry{i, time.Duration(1+r.IntN(5)) * time.Second}
		entries = append(entries, e)
		q.AddAfter(e.item, e.d)
	}
	k.After(time.Minute, q.ShutDown)
	k.Run(sim.Limits{})
	var want []string
	for d := time.Second; d <= 5*time.Second; d += time.Second {
		for _, e := range entries {
			if e.d == d {
				want = append(want, fmt.Sprintf("%d@%s", e.item, vtime.FromDuration(d)))
			}
		}
	}
	assert.Equal(t, want, got)
}

// TestDelayedItemsAreNotHolds: a pending delayed item does not count as pending work, so a far
// future requeue lets the world become quiescent.
func TestDelayedItemsAreNotHolds(t *testing.T) {
	k := sim.New(1)
	q := NewDelaying[string](k, "idle")
	q.AddAfter("a", 1000*time.Second)
	assert.Equal(t, 0, k.Holds())
	out := k.Run(sim.Limits{QuiescenceWindow: 10 * time.Second})
	assert.Equal(t, sim.StopQuiescent, out.Reason)
	assert.Equal(t, 1, q.Stats().Waiting)
}

// TestShutDownDropsDelayedItems: items still waiting at ShutDown never arrive.
func TestShutDownDropsDelayedItems(t *testing.T) {
	k := sim.New(1)
	q := NewDelaying[string](k, "drop")
	q.AddAfter("a", time.Second)
	q.ShutDown()
	q.AddAfter("b", time.Second)
	out := k.Run(sim.Limits{})
	assert.Equal(t, sim.StopDrained, out.Reason)
	assert.Equal(t, 0, q.Len())
	assert.Equal(t, 0, q.Stats().Waiting)
}

// TestRateLimitingQueue: AddRateLimited waits the limiter's delay, Forget resets it, and
// NumRequeues reports it.
func TestRateLimitingQueue(t *testing.T) {
	k := sim.New(1)
	q := NewRateLimiting[string](k, "rl", NewItemExponentialFailureRateLimiter[string](time.Second, time.Minute))
	var got []string
	collectReady(k, q, &got)
	q.AddRateLimited("a") // 1s
	k.After(2*time.Second, func() {
		q.AddRateLimited("a") // 2s -> ready at 4s
		require.Equal(t, 2, q.NumRequeues("a"))
		q.Forget("a")
		require.Equal(t, 0, q.NumRequeues("a"))
		q.AddRateLimited("b") // 1s -> ready at 3s
	})
	k.After(time.Minute, q.ShutDown)
	k.Run(sim.Limits{})
	assert.Equal(t, []string{"a@t=1.000s", "b@t=3.000s", "a@t=4.000s"}, got)
	assert.Equal(t, uint64(3), q.Stats().Retries)
}

// TestAddAfterMatchesModel drives AddAfter with seeded random items, times and delays and
// checks every item becomes ready exactly when a plain model says: at the earliest readyAt
// asked for since it last became ready, ties in first-insertion order, d <= 0 at once.
func TestAddAfterMatchesModel(t *testing.T) {
	for seed := uint64(1); seed <= 10; seed++ {
		t.Run(fmt.Sprint("seed=", seed), func(t *testing.T) {
			k := sim.New(seed)
			r := k.Rand("delaying-model")
			q := NewDelaying[int](k, "model")
			var got []string
			collectReady(k, q, &got)

			type pending struct {
				readyAt vtime.Time
				seq     int
			}
			model := map[int]pending{}
			seq := 0
			var want []string
			// flush moves model items due before `until` to want, in (readyAt, seq) order.
			flush := func(until vtime.Time) {
				for {
					best, found := 0, false
					for item, p := range model { //detlint:ordered the minimum is unique by (readyAt, seq)
						if p.readyAt >= until {
							continue
						}
						if !found || p.readyAt < model[best].readyAt || (p.readyAt == model[best].readyAt && p.seq < model[best].seq) {
							best, found = item, true
						}
					}
					if !found {
						return
					}
					want = append(want, fmt.Sprintf("%d@%s", best, model[best].readyAt))
					delete(model, best)
				}
			}
			k.Spawn("driver", func(p *sim.Proc) {
				for range 300 {
					p.Sleep(time.Duration(1+r.IntN(5)) * time.Millisecond)
					flush(k.Now())
					item := r.IntN(6)
					// Delays end half a millisecond off the driver's grid so that no item
					// becomes ready at the instant of an AddAfter.
					d := time.Duration(r.IntN(20))*time.Millisecond - 500*time.Microsecond
					if r.IntN(5) == 0 {
						d = 0
					}
					q.AddAfter(item, d)
					if d <= 0 {
						want = append(want, fmt.Sprintf("%d@%s", item, k.Now()))
						continue
					}
					readyAt := k.Now().Add(d)
					if old, ok := model[item]; ok {
						if readyAt < old.readyAt {
							model[item] = pending{readyAt, old.seq}
						}
						continue
					}
					seq++
					model[item] = pending{readyAt, seq}
				}
				p.Sleep(time.Second)
				flush(k.Now())
				q.ShutDown()
			})
			out := k.Run(sim.Limits{MaxTime: vtime.FromDuration(time.Hour)})
			require.Equal(t, sim.StopDrained, out.Reason)
			require.Greater(t, len(want), 50)
			assert.Equal(t, want, got)
		})
	}
}
