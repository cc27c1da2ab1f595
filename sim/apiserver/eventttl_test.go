package apiserver

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim"
)

// TestEventTTLFromLastWrite: an Event goes EventTTL after its last write, one written again
// in between lives on, and the queue of expiries (one per write, in blocks of
// eventExpiryBlock) outlasts its blocks: more Events than two blocks all go on time, and a
// write allocates about once per block.
func TestEventTTLFromLastWrite(t *testing.T) {
	k, s := newTestStore(t, func(c *StoreConfig) { c.EventTTL = time.Minute })
	n := 2*eventExpiryBlock + 3
	for i := range n {
		ev := storedEvent()
		ev.ResourceVersion, ev.Name = 0, fmt.Sprintf("e-%d", i)
		mustCreate(t, s, ev)
	}
	run(k, 30*time.Second)
	again, err := s.Get(model.KindEvent, "default", "e-1")
	require.NoError(t, err)
	changed := copyOf(again.(*model.Event))
	changed.Count++ // an update that changes nothing is not a write
	_, err = s.Update(changed)
	require.NoError(t, err)
	run(k, 31*time.Second) // 61 s: all but e-1 are gone
	events := func() []string {
		var names []string
		for i := range n {
			if _, err := s.Get(model.KindEvent, "default", fmt.Sprintf("e-%d", i)); err == nil {
				names = append(names, fmt.Sprintf("e-%d", i))
			}
		}
		return names
	}
	require.Equal(t, []string{"e-1"}, events())
	run(k, 31*time.Second) // 92 s: e-1's second write expired
	require.Empty(t, events())

	ks, err := s.kind(model.KindEvent)
	require.NoError(t, err)
	allocs := testing.AllocsPerRun(n, func() { s.expireEvent(ks, objKey{namespace: "default", name: "x"}, 1) })
	require.Less(t, allocs, 4.0/eventExpiryBlock)
	late := storedEvent() // written after the queue emptied and refilled
	late.ResourceVersion = 0
	mustCreate(t, s, late)
	run(k, time.Minute+time.Second)
	_, err = s.Get(model.KindEvent, "default", late.Name)
	require.True(t, apierrors.IsNotFound(err), "%v", err)
}

// TestEventExpiryFiresInItsWritesPlace: a queued expiry fires where a kernel event scheduled
// at its write would, not where the queue put it in the heap (when the expiry before it
// fired). e-2, written a second before a check is scheduled for e-2's expiry instant, is gone
// when the check runs; a check scheduled for that instant before e-2's write runs while e-2
// is still there. e-1's expiry, a second before e-2's and after both checks were scheduled,
// is what puts e-2's into the heap.
func TestEventExpiryFiresInItsWritesPlace(t *testing.T) {
	k, s := newTestStore(t, func(c *StoreConfig) { c.EventTTL = time.Minute })
	create := func(name string) {
		ev := storedEvent()
		ev.ResourceVersion, ev.Name = 0, name
		mustCreate(t, s, ev)
	}
	present := func() bool {
		_, err := s.Get(model.KindEvent, "default", "e-2")
		return err == nil
	}
	var before, after []bool
	create("e-1")
	run(k, time.Second) // 1 s
	expiry2 := k.Now().Add(time.Minute)
	k.Schedule(expiry2, sim.HandlerFunc(func(uint64) { before = append(before, present()) }), 0, false)
	create("e-2")
	run(k, time.Second) // 2 s
	k.Schedule(expiry2, sim.HandlerFunc(func(uint64) { after = append(after, present()) }), 0, false)
	run(k, time.Minute)
	require.Equal(t, []bool{true}, before)
	require.Equal(t, []bool{false}, after)
}
