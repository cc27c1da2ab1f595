package controllerutil

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reconsim/reconsim/vtime"
)

func TestSatisfiedExpectations(t *testing.T) {
	tests := []struct {
		name    string
		setup   func(e *UIDTrackingControllerExpectations, c *vtime.ManualClock)
		advance time.Duration
		want    bool
	}{
		{name: "no record", setup: func(*UIDTrackingControllerExpectations, *vtime.ManualClock) {}, want: true},
		{name: "creations outstanding", setup: func(e *UIDTrackingControllerExpectations, _ *vtime.ManualClock) {
			e.ExpectCreations("ns/rs", 3)
			e.CreationObserved("ns/rs")
			e.CreationObserved("ns/rs")
		}, want: false},
		{name: "creations all observed", setup: func(e *UIDTrackingControllerExpectations, _ *vtime.ManualClock) {
			e.ExpectCreations("ns/rs", 2)
			e.CreationObserved("ns/rs")
			e.CreationObserved("ns/rs")
		}, want: true},
		{name: "more observed than expected is still fulfilled", setup: func(e *UIDTrackingControllerExpectations, _ *vtime.ManualClock) {
			e.ExpectCreations("ns/rs", 1)
			e.CreationObserved("ns/rs")
			e.CreationObserved("ns/rs")
		}, want: true},
		{name: "outstanding at exactly the TTL is not expired", setup: func(e *UIDTrackingControllerExpectations, _ *vtime.ManualClock) {
			e.ExpectCreations("ns/rs", 1)
		}, advance: ExpectationsTimeout, want: false},
		{name: "outstanding past the TTL is expired", setup: func(e *UIDTrackingControllerExpectations, _ *vtime.ManualClock) {
			e.ExpectCreations("ns/rs", 1)
		}, advance: ExpectationsTimeout + time.Nanosecond, want: true},
		{name: "deleted record", setup: func(e *UIDTrackingControllerExpectations, _ *vtime.ManualClock) {
			e.ExpectDeletions("ns/rs", []string{"ns/p1"})
			e.DeleteExpectations("ns/rs")
		}, want: true},
		{name: "deletions outstanding", setup: func(e *UIDTrackingControllerExpectations, _ *vtime.ManualClock) {
			e.ExpectDeletions("ns/rs", []string{"ns/p1", "ns/p2"})
			e.DeletionObserved("ns/rs", "ns", "p1")
		}, want: false},
		{name: "untracked pod deletions do not count", setup: func(e *UIDTrackingControllerExpectations, _ *vtime.ManualClock) {
			e.ExpectDeletions("ns/rs", []string{"ns/p1"})
			e.DeletionObserved("ns/rs", "ns", "other")
		}, want: false},
		{name: "a new expectation resets the clock", setup: func(e *UIDTrackingControllerExpectations, c *vtime.ManualClock) {
			e.ExpectCreations("ns/rs", 1)
			c.T = c.T.Add(4 * time.Minute)
			e.ExpectCreations("ns/rs", 1)
		}, advance: 2 * time.Minute, want: false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := &vtime.ManualClock{T: at(100)}
			e := NewUIDTrackingControllerExpectations(NewControllerExpectations(c.Now, ExpectationsTimeout))
			tc.setup(e, c)
			c.T = c.T.Add(tc.advance)
			assert.Equal(t, tc.want, e.SatisfiedExpectations("ns/rs"))
		})
	}
}

func TestUIDTrackingCountsADeleteOnce(t *testing.T) {
	c := &vtime.ManualClock{}
	e := NewUIDTrackingControllerExpectations(NewControllerExpectations(c.Now, ExpectationsTimeout))
	e.ExpectDeletions("ns/rs", []string{"ns/p2", "ns/p1", "ns/p1"})
	rec, ok := e.GetExpectations("ns/rs")
	require.True(t, ok)
	_, del := rec.GetExpectations()
	assert.Equal(t, int64(2), del, "duplicate keys are one deletion")
	assert.Equal(t, []string{"ns/p1", "ns/p2"}, e.GetUIDs("ns/rs"))

	// The pod is seen first with a deletionTimestamp, then as deleted: one observation.
	e.DeletionObserved("ns/rs", "ns", "p1")
	e.DeletionObserved("ns/rs", "ns", "p1")
	_, del = rec.GetExpectations()
	assert.Equal(t, int64(1), del)
	assert.False(t, e.SatisfiedExpectations("ns/rs"))
	assert.Equal(t, []string{"ns/p2"}, e.GetUIDs("ns/rs"))

	e.DeletionObserved("ns/rs", "ns", "p2")
	assert.True(t, e.SatisfiedExpectations("ns/rs"))
	assert.Empty(t, e.GetUIDs("ns/rs"))

	e.DeleteExpectations("ns/rs")
	assert.Nil(t, e.GetUIDs("ns/rs"))
	_, ok = e.GetExpectations("ns/rs")
	assert.False(t, ok)
}

func TestExpectCreationsOverwritesDeletions(t *testing.T) {
	c := &vtime.ManualClock{}
	e := NewControllerExpectations(c.Now, ExpectationsTimeout)
	e.ExpectDeletions("k", 4)
	e.ExpectCreations("k", 2)
	rec, _ := e.GetExpectations("k")
	add, del := rec.GetExpectations()
	assert.Equal(t, [2]int64{2, 0}, [2]int64{add, del})
	e.RaiseExpectations("k", 1, 1)
	e.LowerExpectations("k", 3, 0)
	add, del = rec.GetExpectations()
	assert.Equal(t, [2]int64{0, 1}, [2]int64{add, del})
	// Observations without a record are ignored, and create none.
	e.CreationObserved("none")
	_, ok := e.GetExpectations("none")
	assert.False(t, ok)
}

// TestControllerExpectations was the DaemonSet controller's test of its own copy.
func TestControllerExpectations(t *testing.T) {
	now := vtime.Time(0)
	e := NewControllerExpectations(func() vtime.Time { return now }, 5*time.Minute)
	assert.True(t, e.SatisfiedExpectations("a"), "unknown keys are satisfied")
	e.SetExpectations("a", 2, 1)
	assert.False(t, e.SatisfiedExpectations("a"))
	e.CreationObserved("a")
	e.DeletionObserved("a")
	assert.False(t, e.SatisfiedExpectations("a"))
	e.CreationObserved("a")
	assert.True(t, e.SatisfiedExpectations("a"))

	e.SetExpectations("b", 3, 0)
	e.LowerExpectations("b", 2, 0)
	add, del := must(e.GetExpectations("b")).GetExpectations()
	assert.Equal(t, int64(1), add)
	assert.Equal(t, int64(0), del)
	now = vtime.FromDuration(5 * time.Minute)
	assert.False(t, e.SatisfiedExpectations("b"), "not yet expired at exactly the timeout")
	now = vtime.FromDuration(5*time.Minute + time.Nanosecond)
	assert.True(t, e.SatisfiedExpectations("b"), "expired")
	e.DeleteExpectations("b")
	_, ok := e.GetExpectations("b")
	assert.False(t, ok)
}

func must(e *ControlleeExpectations, ok bool) *ControlleeExpectations {
	if !ok {
		panic("no expectations")
	}
	return e
}

func at(s float64) vtime.Time { return vtime.Time(s * float64(time.Second)) }
