package daemonset

import (
	"time"

	"github.com/reconsim/reconsim/vtime"
)

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
