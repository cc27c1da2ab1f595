package daemonset

import (
	"time"

	"github.com/reconsim/reconsim/vtime"
)

// ControlleeExpectations are the creations and deletions a DaemonSet still expects to observe
// (upstream ControlleeExpectations).
type ControlleeExpectations struct {
	add, del  int64
	timestamp vtime.Time
}

// Fulfilled reports whether every expected creation and deletion has been observed.
func (e *ControlleeExpectations) Fulfilled() bool { return e.add <= 0 && e.del <= 0 }

// Get returns the outstanding creations and deletions.
func (e *ControlleeExpectations) Get() (add, del int64) { return e.add, e.del }

// ControllerExpectations is upstream controller.ControllerExpectations on virtual time: per
// DaemonSet key, the number of pod creations and deletions asked for and not yet seen through
// the informer. A DaemonSet is synced again only once they are all seen, or once they have
// been outstanding longer than the timeout (a lost watch event must not block it forever).
type ControllerExpectations struct {
	now     func() vtime.Time
	timeout time.Duration
	byKey   map[string]*ControlleeExpectations
}

// NewControllerExpectations returns an empty store reading time from now.
func NewControllerExpectations(now func() vtime.Time, timeout time.Duration) *ControllerExpectations {
	return &ControllerExpectations{now: now, timeout: timeout, byKey: map[string]*ControlleeExpectations{}}
}

// GetExpectations returns the expectations of key, if any.
func (r *ControllerExpectations) GetExpectations(key string) (*ControlleeExpectations, bool) {
	e, ok := r.byKey[key]
	return e, ok
}

// SatisfiedExpectations reports whether key may be synced: it has no expectations, they are
// fulfilled, or they have expired (upstream SatisfiedExpectations).
func (r *ControllerExpectations) SatisfiedExpectations(key string) bool {
	e, ok := r.byKey[key]
	if !ok {
		return true
	}
	if e.Fulfilled() {
		return true
	}
	return r.now().Sub(e.timestamp) > r.timeout
}

// SetExpectations replaces the expectations of key, timestamped now.
func (r *ControllerExpectations) SetExpectations(key string, add, del int) {
	r.byKey[key] = &ControlleeExpectations{add: int64(add), del: int64(del), timestamp: r.now()}
}

// LowerExpectations takes add creations and del deletions off key's expectations (upstream
// LowerExpectations; the timestamp is kept).
func (r *ControllerExpectations) LowerExpectations(key string, add, del int) {
	if e, ok := r.byKey[key]; ok {
		e.add -= int64(add)
		e.del -= int64(del)
	}
}

// CreationObserved records one observed creation.
func (r *ControllerExpectations) CreationObserved(key string) { r.LowerExpectations(key, 1, 0) }

// DeletionObserved records one observed deletion.
func (r *ControllerExpectations) DeletionObserved(key string) { r.LowerExpectations(key, 0, 1) }

// DeleteExpectations forgets key.
func (r *ControllerExpectations) DeleteExpectations(key string) { delete(r.byKey, key) }

// failedPodsBackoff is client-go flowcontrol.Backoff as the DaemonSet controller uses it for
// failed daemon pods (no jitter), on virtual time: per id, a delay that starts at initial and
// doubles up to max on every Next, forgotten once unused for twice max.
type failedPodsBackoff struct {
	now          func() vtime.Time
	initial, max time.Duration
	entries      map[string]*backoffEntry
}

type backoffEntry struct {
	backoff    time.Duration
	lastUpdate vtime.Time
}

func newFailedPodsBackoff(now func() vtime.Time, initial, max time.Duration) *failedPodsBackoff {
	return &failedPodsBackoff{now: now, initial: initial, max: max, entries: map[string]*backoffEntry{}}
}

func (b *failedPodsBackoff) hasExpired(eventTime, lastUpdate vtime.Time) bool {
	return eventTime.Sub(lastUpdate) > 2*b.max
}

// Get returns the current delay of id, 0 if it has none.
func (b *failedPodsBackoff) Get(id string) time.Duration {
	if e, ok := b.entries[id]; ok {
		return e.backoff
	}
	return 0
}

// Next moves id's delay on: initial for a new or expired entry, else doubled up to max.
func (b *failedPodsBackoff) Next(id string, eventTime vtime.Time) {
	e, ok := b.entries[id]
	if !ok || b.hasExpired(eventTime, e.lastUpdate) {
		b.entries[id] = &backoffEntry{backoff: b.initial, lastUpdate: eventTime}
		return
	}
	e.lastUpdate = eventTime
	e.backoff = min(2*e.backoff, b.max)
}

// IsInBackOffSinceUpdate reports whether eventTime lies within id's delay after its last
// update (upstream IsInBackOffSinceUpdate).
func (b *failedPodsBackoff) IsInBackOffSinceUpdate(id string, eventTime vtime.Time) bool {
	e, ok := b.entries[id]
	if !ok || b.hasExpired(eventTime, e.lastUpdate) {
		return false
	}
	return eventTime.Sub(e.lastUpdate) < e.backoff
}

// GC drops the entries that have expired (upstream Backoff.GC).
func (b *failedPodsBackoff) GC() {
	now := b.now()
	for id, e := range b.entries { //detlint:ordered deleting expired entries; the order does not matter
		if b.hasExpired(now, e.lastUpdate) {
			delete(b.entries, id)
		}
	}
}
