package gc

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reconsim/reconsim/sim"
	"github.com/reconsim/reconsim/vtime"
)

// TestEventQueueOrderAndShutdown: events come out in the order they were added, a parked Get
// is woken by an Add, events queued before ShutDown are still handed out, and then Get reports
// shutdown; an Add after ShutDown is dropped.
func TestEventQueueOrderAndShutdown(t *testing.T) {
	k := sim.New(1)
	q := &eventQueue{}
	evs := []event{{eventType: addEvent}, {eventType: updateEvent}, {eventType: deleteEvent}}
	var got []event
	var gotAt []vtime.Time
	shutdown := false
	k.Spawn("consumer", func(p *sim.Proc) {
		for {
			ev, quit := q.Get(p)
			if quit {
				shutdown = true
				return
			}
			got = append(got, ev)
			gotAt = append(gotAt, k.Now())
		}
	})
	k.After(time.Second, func() { q.Add(evs[0]) })
	k.After(2*time.Second, func() {
		q.Add(evs[1])
		q.Add(evs[2])
		q.ShutDown()
		q.Add(event{})
	})
	k.Run(sim.Limits{})
	require.Equal(t, evs, got)
	assert.Equal(t, []vtime.Time{vtime.Time(0).Add(time.Second), vtime.Time(0).Add(2 * time.Second), vtime.Time(0).Add(2 * time.Second)}, gotAt)
	assert.True(t, shutdown)
	assert.Equal(t, 0, q.Len())
}

// TestEventQueueKilledWaiterPassesTheSignalOn: a waiter killed after it was signalled but
// before it ran hands the wake-up to the next waiter, so the event is not stranded.
func TestEventQueueKilledWaiterPassesTheSignalOn(t *testing.T) {
	k := sim.New(1)
	q := &eventQueue{}
	var first *sim.Proc
	var got event
	first = k.Spawn("first", func(p *sim.Proc) { q.Get(p) })
	k.Spawn("second", func(p *sim.Proc) { got, _ = q.Get(p) })
	ev := event{eventType: addEvent, identity: objectReference{UID: "u1"}}
	k.After(time.Second, func() {
		q.Add(ev) // signals first
		first.Kill()
	})
	k.Run(sim.Limits{})
	assert.Equal(t, ev, got)
}
