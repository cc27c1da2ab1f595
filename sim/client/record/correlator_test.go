package record

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/vtime"
)

type fakeClock struct{}

func (fakeClock) Now() vtime.Time { return 0 }

// TestLRUEvictsLeastRecentlyUsed: groupcache lru semantics, as client-go's caches use them:
// get and add refresh an entry; adding past the capacity evicts the least recent.
func TestLRUEvictsLeastRecentlyUsed(t *testing.T) {
	tests := []struct {
		name    string
		ops     []string // "a" adds key a, "?a" gets it
		present []string
		absent  []string
	}{
		{name: "oldest evicted", ops: []string{"a", "b", "c", "d"}, present: []string{"b", "c", "d"}, absent: []string{"a"}},
		{name: "get refreshes", ops: []string{"a", "b", "c", "?a", "d"}, present: []string{"a", "c", "d"}, absent: []string{"b"}},
		{name: "add refreshes", ops: []string{"a", "b", "c", "a", "d"}, present: []string{"a", "c", "d"}, absent: []string{"b"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := newLRU[int](3)
			for i, op := range tt.ops {
				if op[0] == '?' {
					l.find(op[1:])
					continue
				}
				l.add(op, i)
			}
			for _, k := range tt.present {
				assert.NotNil(t, l.find(k), k)
			}
			for _, k := range tt.absent {
				assert.Nil(t, l.find(k), k)
			}
			assert.Len(t, l.entries, 3)
		})
	}
}

// TestEventKeysAreUpstreamsJoins checks the keys built together against upstream's
// definitions, each a join of its fields without a separator.
func TestEventKeysAreUpstreamsJoins(t *testing.T) {
	ev := &model.Event{
		InvolvedObject: model.ObjectReference{Kind: "Pod", Namespace: "shop", Name: "web-1", UID: "uid-1", APIVersion: "v1"},
		Source:         model.EventSource{Component: "kubelet", Host: "node-a"},
		Type:           model.EventTypeWarning, Reason: "BackOff", Message: "Back-off restarting",
		ReportingController: "kubelet", ReportingInstance: "node-a",
	}
	o := ev.InvolvedObject
	k := keysOf(ev)
	assert.Equal(t, strings.Join([]string{"kubelet", "node-a", "Pod", "shop", "web-1", "", "uid-1", "v1", "Warning", "BackOff", "Back-off restarting"}, ""), k.event)
	assert.Equal(t, eventKey(ev), k.event)
	assert.Equal(t, strings.Join([]string{"kubelet", "node-a", string(o.Kind), o.Namespace, o.Name, o.UID, o.APIVersion, "Warning"}, ""), k.spam())
	agg, local := k.aggregateKeys()
	assert.Equal(t, strings.Join([]string{"kubelet", "node-a", "Pod", "shop", "web-1", "uid-1", "v1", "Warning", "BackOff", "kubelet", "node-a"}, ""), agg)
	assert.Equal(t, "Back-off restarting", local)
	assert.Equal(t, 1.0, testing.AllocsPerRun(20, func() { keysOf(ev) }), "both keys in one allocation")
}

// TestUpdateStateInPlaceIsAdd checks that UpdateState's update in place of the entry the last
// EventCorrelate logged leaves the logger's cache as a fresh Add of the key would: the same
// entries, in the same recency order, with the same values.
func TestUpdateStateInPlaceIsAdd(t *testing.T) {
	run := func(fast bool) []string {
		c := NewCorrelator(fakeClock{}, CorrelatorOptions{LRUCacheSize: 3}, NewNames())
		for i, name := range []string{"a", "b", "a", "c", "a", "d", "b", "a"} {
			ev := &model.Event{
				ObjectMeta:     model.ObjectMeta{Name: name + ".x", Namespace: "ns"},
				InvolvedObject: model.ObjectReference{Kind: "Pod", Namespace: "ns", Name: name},
				Type:           model.EventTypeNormal, Reason: "R", Message: "m", Count: 1,
			}
			r := c.EventCorrelate(ev)
			if r.Skip {
				continue
			}
			stored := *r.Event
			stored.Count += int32(10 * i) // the server's copy differs from what was sent
			if !fast {
				c.observed = nil
			}
			c.UpdateState(&stored)
		}
		var out []string
		for e := c.logs.head; e != nil; e = e.next {
			out = append(out, fmt.Sprintf("%s=%d/%s", e.key, e.value.count, e.value.name))
		}
		return out
	}
	assert.Equal(t, run(false), run(true))
}

// TestLRUFullAddReusesEvicted: adding a new key to a full cache reuses the evicted entry's
// storage, allocating nothing, and keeps groupcache's order (the new key the most recent).
func TestLRUFullAddReusesEvicted(t *testing.T) {
	l := newLRU[int](3)
	keys := []string{"a", "b", "c", "d", "e", "f", "g"}
	for i, k := range keys[:3] {
		l.add(k, i)
	}
	i := 3
	allocs := testing.AllocsPerRun(50, func() {
		l.add(keys[i%len(keys)], i)
		i++
	})
	assert.Zero(t, allocs)
	assert.Len(t, l.entries, 3)
	var order []string
	for e := l.head; e != nil; e = e.next {
		order = append(order, e.key)
		assert.Same(t, e, l.entries[e.key])
	}
	last := i - 1
	assert.Equal(t, []string{keys[last%7], keys[(last-1)%7], keys[(last-2)%7]}, order)
}

// TestUpdateStateAfterEntryReused: with the event's cache entry reused for another key (the
// other events' updates filled a cache of one), UpdateState of the event adds its key again
// instead of writing into the other key's entry, as a fresh Add would.
func TestUpdateStateAfterEntryReused(t *testing.T) {
	event := func(name string) *model.Event {
		return &model.Event{
			ObjectMeta:     model.ObjectMeta{Name: name + ".x", Namespace: "ns"},
			InvolvedObject: model.ObjectReference{Kind: "Pod", Namespace: "ns", Name: name},
			Type:           model.EventTypeNormal, Reason: "R", Message: "m", Count: 1,
		}
	}
	run := func(fast bool) []string {
		c := NewCorrelator(fakeClock{}, CorrelatorOptions{LRUCacheSize: 1}, NewNames())
		r := c.EventCorrelate(event("a"))
		require.False(t, r.Skip)
		other := event("b")
		other.Count = 7
		c.UpdateState(other) // reuses a's entry for b's key
		stored := *r.Event
		stored.Count = 5
		if !fast {
			c.observed = nil
		}
		c.UpdateState(&stored)
		var out []string
		for e := c.logs.head; e != nil; e = e.next {
			out = append(out, fmt.Sprintf("%s=%d", e.key, e.value.count))
		}
		return out
	}
	assert.Equal(t, run(false), run(true))
}

// TestAggregateRecordsKeepTheirOwnMessages: records whose first message came from the shared
// block (Correlator.oneKey) grow without writing into each other's, and an expired record
// starts afresh though it keeps its storage.
func TestAggregateRecordsKeepTheirOwnMessages(t *testing.T) {
	clock := &vtime.ManualClock{}
	c := NewCorrelator(clock, CorrelatorOptions{}, NewNames())
	event := func(obj, message string) *model.Event {
		return &model.Event{
			ObjectMeta:     model.ObjectMeta{Name: obj + ".x", Namespace: "ns"},
			InvolvedObject: model.ObjectReference{Kind: "Pod", Namespace: "ns", Name: obj},
			Type:           model.EventTypeNormal, Reason: "R", Message: message, Count: 1,
		}
	}
	messages := func(obj string) []string {
		keys := keysOf(event(obj, ""))
		e := c.aggregates.entries[keys.aggregate]
		require.NotNil(t, e, obj)
		return e.value.localKeys
	}
	for _, ev := range []*model.Event{event("a", "a2"), event("b", "b1"), event("c", "c1"), event("a", "a1"), event("b", "b0")} {
		c.EventCorrelate(ev)
	}
	assert.Equal(t, []string{"a1", "a2"}, messages("a"))
	assert.Equal(t, []string{"b0", "b1"}, messages("b"))
	assert.Equal(t, []string{"c1"}, messages("c"))
	clock.T = clock.T.Add(601 * time.Second)
	c.EventCorrelate(event("a", "a3"))
	assert.Equal(t, []string{"a3"}, messages("a"))
	assert.Equal(t, []string{"b0", "b1"}, messages("b"))
}

// TestCorrelateDistinctEventsAllocations bounds the correlator's allocations for an event
// about a new object (every cache adds an entry): its keys, and the cache entries, aggregate
// record, first message and spam limiter only in blocks (about 10 allocations an event before
// they were).
func TestCorrelateDistinctEventsAllocations(t *testing.T) {
	c := NewCorrelator(fakeClock{}, CorrelatorOptions{}, NewNames())
	events := make([]*model.Event, 2000)
	for i := range events {
		obj := fmt.Sprintf("pod-%d", i)
		events[i] = &model.Event{
			ObjectMeta:     model.ObjectMeta{Name: obj + ".x", Namespace: "ns"},
			InvolvedObject: model.ObjectReference{Kind: "Pod", Namespace: "ns", Name: obj},
			Type:           model.EventTypeNormal, Reason: "R", Message: "m", Count: 1,
		}
	}
	i := 0
	allocs := testing.AllocsPerRun(len(events)-1, func() {
		c.EventCorrelate(events[i])
		i++
	})
	// One for the keys, and the three caches' maps growing.
	assert.Less(t, allocs, 2.0)
}
