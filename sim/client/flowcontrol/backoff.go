package flowcontrol

import (
	"time"

	"github.com/reconsim/reconsim/vtime"
)

// Backoff is client-go's util/flowcontrol Backoff without jitter, as the kubelet builds it for
// CrashLoopBackOff and image pulls (flowcontrol.NewBackOff(containerBackOffPeriod,
// MaxContainerBackOff) in pkg/kubelet/kubelet.go) and the DaemonSet controller for failed
// daemon pods (pkg/controller/daemon failedPodsBackoff): one entry per key, each holding the
// current delay and the time it was last advanced. Times are virtual; the caller passes "now"
// where upstream reads its clock. The zero value is not usable; call NewBackoff.
type Backoff struct {
	initial time.Duration
	max     time.Duration
	entries map[string]*backoffEntry
}

type backoffEntry struct {
	backoff    time.Duration
	lastUpdate vtime.Time
}

// NewBackoff returns an empty Backoff whose delays start at initial and double up to max.
func NewBackoff(initial, max time.Duration) *Backoff {
	return &Backoff{initial: initial, max: max, entries: map[string]*backoffEntry{}}
}

// hasExpired is flowcontrol's rule for forgetting an entry: more than twice the maximum delay
// passed between the entry's last update and eventTime.
func (b *Backoff) hasExpired(eventTime, lastUpdate vtime.Time) bool {
	return eventTime.Sub(lastUpdate) > 2*b.max
}

// Next advances the delay for id: the initial delay for a new or expired entry (expired judged
// at eventTime), otherwise double the current one, capped at the maximum. The entry's last
// update becomes now.
func (b *Backoff) Next(id string, eventTime, now vtime.Time) {
	e, ok := b.entries[id]
	if !ok || b.hasExpired(eventTime, e.lastUpdate) {
		b.entries[id] = &backoffEntry{backoff: b.initial, lastUpdate: now}
		return
	}
	e.backoff = min(2*e.backoff, b.max)
	e.lastUpdate = now
}

// Get returns the current delay for id, 0 if there is no entry.
func (b *Backoff) Get(id string) time.Duration {
	if e, ok := b.entries[id]; ok {
		return e.backoff
	}
	return 0
}

// IsInBackOffSince reports whether id is still backing off from an event at eventTime: the
// entry exists, has not expired at eventTime, and less than its delay has passed since
// eventTime.
func (b *Backoff) IsInBackOffSince(id string, eventTime, now vtime.Time) bool {
	e, ok := b.entries[id]
	if !ok || b.hasExpired(eventTime, e.lastUpdate) {
		return false
	}
	return now.Sub(eventTime) < e.backoff
}

// IsInBackOffSinceUpdate reports whether id is still backing off at now, measured from the
// entry's last update (flowcontrol Backoff.IsInBackOffSinceUpdate, which the image manager
// uses).
func (b *Backoff) IsInBackOffSinceUpdate(id string, now vtime.Time) bool {
	e, ok := b.entries[id]
	if !ok || b.hasExpired(now, e.lastUpdate) {
		return false
	}
	return now.Sub(e.lastUpdate) < e.backoff
}

// Reset forgets id.
func (b *Backoff) Reset(id string) { delete(b.entries, id) }

// GC forgets every entry that has expired at now (flowcontrol Backoff.GC), so that the table
// stays bounded by the keys in use.
// The result does not depend on the order entries are visited in.
func (b *Backoff) GC(now vtime.Time) {
	for id, e := range b.entries { //detlint:ordered deleting expired entries is order-independent
		if b.hasExpired(now, e.lastUpdate) {
			delete(b.entries, id)
		}
	}
}

// Len returns the number of entries.
func (b *Backoff) Len() int { return len(b.entries) }
