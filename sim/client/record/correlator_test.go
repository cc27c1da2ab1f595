package record

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

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
	agg, local := k.aggregate()
	assert.Equal(t, strings.Join([]string{"kubelet", "node-a", "Pod", "shop", "web-1", "uid-1", "v1", "Warning", "BackOff", "kubelet", "node-a"}, ""), agg)
	assert.Equal(t, "Back-off restarting", local)
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
