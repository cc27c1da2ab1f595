package apiserver

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/reconsim/reconsim/model"
)

// TestEventTTLFromLastWrite: an Event goes EventTTL after its last write, one written again
// in between lives on, and expiries (one per write, from blocks of eventExpiryBlock) outlast
// their blocks: more Events than a block all go on time.
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
	allocs := testing.AllocsPerRun(eventExpiryBlock, func() { s.expireEvent(ks, objKey{namespace: "default", name: "x"}, 1) })
	require.Less(t, allocs, 1.0)
}
