package record

import (
	"fmt"
	"hash/maphash"
	"math/rand/v2"
	"slices"
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

var testSeed = maphash.MakeSeed()

// testKey is s as an lru key: the spam key of an event whose source component is s.
func testKey(s string) lruKey { return hashedTestKey(s, maphash.String(testSeed, s)) }

// hashedTestKey is s as an lru key with the given hash.
func hashedTestKey(s string, hash uint64) lruKey {
	return lruKey{ev: &model.Event{Source: model.EventSource{Component: s}}, kind: keySpam, hash: hash}
}

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
					l.find(testKey(op[1:]))
					continue
				}
				l.add(testKey(op), i)
			}
			for _, k := range tt.present {
				assert.NotNil(t, l.find(testKey(k)), k)
			}
			for _, k := range tt.absent {
				assert.Nil(t, l.find(testKey(k)), k)
			}
			assert.Equal(t, 3, l.len)
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
	c := NewCorrelator(fakeClock{}, CorrelatorOptions{}, NewNames())
	k := c.keysOf(ev)
	same := func(want string, key lruKey) {
		t.Helper()
		assert.Equal(t, want, key.String())
		assert.Equal(t, maphash.String(c.seed, want), key.hash, "the hash of the joined string")
	}
	same(strings.Join([]string{"kubelet", "node-a", "Pod", "shop", "web-1", "", "uid-1", "v1", "Warning", "BackOff", "Back-off restarting"}, ""), k.event)
	same(strings.Join([]string{"kubelet", "node-a", string(o.Kind), o.Namespace, o.Name, o.UID, o.APIVersion, "Warning"}, ""), k.spam)
	agg, local := k.aggregateKeys()
	same(strings.Join([]string{"kubelet", "node-a", "Pod", "shop", "web-1", "uid-1", "v1", "Warning", "BackOff", "kubelet", "node-a"}, ""), agg)
	assert.Equal(t, "Back-off restarting", local)
	assert.Zero(t, testing.AllocsPerRun(20, func() { c.keysOf(ev) }), "keys are not built")
}

// TestKeysAreEqualAsJoinedStrings holds lruKey.equal to the equality of the joined strings
// upstream compares, for events whose fields split the same string differently, differ in
// one byte, or in length: seeded random fields, nearly all of one letter, so that many
// keys join to one string.
func TestKeysAreEqualAsJoinedStrings(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 7))
	field := func() string {
		if rng.IntN(16) == 0 {
			return "b"
		}
		return strings.Repeat("a", rng.IntN(3))
	}
	event := func() *model.Event {
		return &model.Event{
			InvolvedObject: model.ObjectReference{Kind: model.Kind(field()), Namespace: field(), Name: field(), UID: field(), APIVersion: field()},
			Source:         model.EventSource{Component: field(), Host: field()},
			Type:           field(), Reason: field(), Message: field(),
			ReportingController: field(), ReportingInstance: field(),
		}
	}
	c := NewCorrelator(fakeClock{}, CorrelatorOptions{}, NewNames())
	var equal, unequal int
	for range 20000 {
		a, b := c.keysOf(event()), c.keysOf(event())
		for _, pair := range [][2]lruKey{{a.event, b.event}, {a.spam, b.spam}, {a.aggregate, b.aggregate}, {a.event, b.aggregate}} {
			x, y := pair[0], pair[1]
			want := x.String() == y.String()
			require.Equal(t, want, x.equal(y), "%q and %q", x.String(), y.String())
			require.Equal(t, want, joinEqual([]string{x.String()}, []string{y.String()}))
			if want {
				require.Equal(t, x.hash, y.hash)
				equal++
			} else {
				unequal++
			}
		}
	}
	require.Greater(t, equal, 1000)
	require.Greater(t, unequal, 1000)
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
			out = append(out, fmt.Sprintf("%s=%d/%s", e.key.String(), e.value.count, e.value.name))
		}
		return out
	}
	assert.Equal(t, run(false), run(true))
}

// TestLRUFullAddReusesEvicted: adding a new key to a full cache reuses the evicted entry's
// storage, allocating nothing, and keeps groupcache's order (the new key the most recent).
func TestLRUFullAddReusesEvicted(t *testing.T) {
	l := newLRU[int](3)
	var keys []lruKey
	for _, s := range []string{"a", "b", "c", "d", "e", "f", "g"} {
		keys = append(keys, testKey(s))
	}
	for i, k := range keys[:3] {
		l.add(k, i)
	}
	i := 3
	allocs := testing.AllocsPerRun(50, func() {
		l.add(keys[i%len(keys)], i)
		i++
	})
	assert.Zero(t, allocs)
	assert.Equal(t, 3, l.len)
	var order []lruKey
	for e := l.head; e != nil; e = e.next {
		order = append(order, e.key)
		assert.Same(t, e, l.lookup(e.key))
	}
	last := i - 1
	assert.Equal(t, []lruKey{keys[last%7], keys[(last-1)%7], keys[(last-2)%7]}, order)
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
			out = append(out, fmt.Sprintf("%s=%d", e.key.String(), e.value.count))
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
		keys := c.keysOf(event(obj, ""))
		e := c.aggregates.lookup(keys.aggregate)
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

// TestLRUByHashIsAnLRUByString holds the cache keyed by hashes, with its chains of keys that
// share a hash, to groupcache's cache keyed by the strings (a list in recency order here):
// seeded random finds and adds over few keys, with hashes that collide often (two values, or
// one), give the same results, the same entries in the same order, and the same evictions.
func TestLRUByHashIsAnLRUByString(t *testing.T) {
	for _, hashes := range []uint64{1, 2, 1 << 63} {
		rng := rand.New(rand.NewPCG(uint64(hashes), 7))
		l := newLRU[int](5)
		var order []string // most recent first
		values := map[string]int{}
		toFront := func(k string) {
			order = slices.DeleteFunc(order, func(s string) bool { return s == k })
			order = slices.Insert(order, 0, k)
		}
		for op := range 5000 {
			s := strings.Repeat("k", 1+rng.IntN(12))
			key := hashedTestKey(s, maphash.String(testSeed, s)%hashes)
			if rng.IntN(2) == 0 {
				e := l.find(key)
				_, ok := values[s]
				require.Equal(t, ok, e != nil, "op %d find %s", op, s)
				if ok {
					require.Equal(t, values[s], e.value)
					toFront(s)
				}
			} else {
				e := l.add(key, op)
				require.Equal(t, key, e.key)
				values[s] = op
				toFront(s)
				if len(order) > 5 {
					delete(values, order[5])
					order = order[:5]
				}
			}
			var got []string
			for e := l.head; e != nil; e = e.next {
				got = append(got, e.key.String())
				require.Same(t, e, l.lookup(e.key))
			}
			require.Equal(t, order, got, "op %d", op)
			require.Equal(t, len(order), l.len)
		}
	}
}
