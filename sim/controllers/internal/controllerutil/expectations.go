package controllerutil

import (
	"slices"
	"time"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/vtime"
)

// ExpectationsTimeout is how long a controller waits for the watch events it expects before it
// syncs anyway (upstream controller_utils.go ExpectationsTimeout = 5 * time.Minute). It guards
// against a dropped watch event leaving a controller asleep forever.
const ExpectationsTimeout = 5 * time.Minute

// ControlleeExpectations counts the creations and deletions one controller still expects to
// observe, and when the expectation was set (upstream ControlleeExpectations).
type ControlleeExpectations struct {
	add       int64
	del       int64
	timestamp vtime.Time
}

// Fulfilled reports whether no creations and no deletions are outstanding (add <= 0 and
// del <= 0; observations beyond what was expected drive the counts negative, which still
// counts as fulfilled).
func (e *ControlleeExpectations) Fulfilled() bool { return e.add <= 0 && e.del <= 0 }

// GetExpectations returns the outstanding creation and deletion counts.
func (e *ControlleeExpectations) GetExpectations() (add, del int64) { return e.add, e.del }

// Timestamp returns the virtual time the expectation was last set.
func (e *ControlleeExpectations) Timestamp() vtime.Time { return e.timestamp }

// ControllerExpectations maps a controller key ("namespace/name") to what it expects to see
// before its next sync may create or delete anything (upstream ControllerExpectations). Times
// come from the virtual clock now; records older than ttl count as satisfied.
//
// Once set, expectations can only be lowered (by observations) until they are set again.
type ControllerExpectations struct {
	now     func() vtime.Time
	ttl     time.Duration
	records map[string]*ControlleeExpectations
}

// NewControllerExpectations returns an empty store that reads time from now and expires
// records after ttl (upstream: ExpectationsTimeout).
func NewControllerExpectations(now func() vtime.Time, ttl time.Duration) *ControllerExpectations {
	return &ControllerExpectations{now: now, ttl: ttl, records: make(map[string]*ControlleeExpectations)}
}

// GetExpectations returns the record for key and whether there is one. The record is live:
// it changes as observations arrive.
func (r *ControllerExpectations) GetExpectations(key string) (*ControlleeExpectations, bool) {
	e, ok := r.records[key]
	return e, ok
}

// SatisfiedExpectations reports whether the controller may act (upstream
// SatisfiedExpectations): true when there is no record (a new controller, or one whose record
// was deleted), when the record is fulfilled, or when it is older than the TTL (expired);
// false only while a record still waits for observations within the TTL.
func (r *ControllerExpectations) SatisfiedExpectations(key string) bool {
	e, ok := r.records[key]
	if !ok {
		return true
	}
	if e.Fulfilled() {
		return true
	}
	return r.isExpired(e)
}

// isExpired is upstream's clock.Since(timestamp) > ExpectationsTimeout: strictly older.
func (r *ControllerExpectations) isExpired(e *ControlleeExpectations) bool {
	return r.now().Sub(e.timestamp) > r.ttl
}

// DeleteExpectations forgets the record for key.
func (r *ControllerExpectations) DeleteExpectations(key string) { delete(r.records, key) }

// SetExpectations replaces the record for key with add creations and del deletions, stamped
// now (upstream SetExpectations: existing expectations are forgotten).
func (r *ControllerExpectations) SetExpectations(key string, add, del int) {
	r.records[key] = &ControlleeExpectations{add: int64(add), del: int64(del), timestamp: r.now()}
}

// ExpectCreations replaces the record for key with adds expected creations.
func (r *ControllerExpectations) ExpectCreations(key string, adds int) {
	r.SetExpectations(key, adds, 0)
}

// ExpectDeletions replaces the record for key with dels expected deletions.
func (r *ControllerExpectations) ExpectDeletions(key string, dels int) {
	r.SetExpectations(key, 0, dels)
}

// LowerExpectations decrements the counts of an existing record; it does nothing when there
// is no record (and never changes the timestamp).
func (r *ControllerExpectations) LowerExpectations(key string, add, del int) {
	if e, ok := r.records[key]; ok {
		e.add -= int64(add)
		e.del -= int64(del)
	}
}

// RaiseExpectations increments the counts of an existing record; it does nothing when there
// is no record.
func (r *ControllerExpectations) RaiseExpectations(key string, add, del int) {
	if e, ok := r.records[key]; ok {
		e.add += int64(add)
		e.del += int64(del)
	}
}

// CreationObserved records one observed creation for key.
func (r *ControllerExpectations) CreationObserved(key string) { r.LowerExpectations(key, 1, 0) }

// DeletionObserved records one observed deletion for key.
func (r *ControllerExpectations) DeletionObserved(key string) { r.LowerExpectations(key, 0, 1) }

// UIDTrackingControllerExpectations is ControllerExpectations that remembers which pods it
// expects to be deleted (upstream UIDTrackingControllerExpectations), so that a pod seen first
// with a deletionTimestamp and later as gone counts as one deletion, not two.
type UIDTrackingControllerExpectations struct {
	*ControllerExpectations
	// uids holds, per controller key, the pod keys whose deletion is still expected.
	uids map[string]map[string]struct{}
}

// NewUIDTrackingControllerExpectations wraps ce.
func NewUIDTrackingControllerExpectations(ce *ControllerExpectations) *UIDTrackingControllerExpectations {
	return &UIDTrackingControllerExpectations{ControllerExpectations: ce, uids: make(map[string]map[string]struct{})}
}

// GetUIDs returns the pod keys whose deletion key still expects, sorted; nil when none are
// tracked.
func (u *UIDTrackingControllerExpectations) GetUIDs(key string) []string {
	set, ok := u.uids[key]
	if !ok {
		return nil
	}
	out := make([]string, 0, len(set))
	for k := range set { //detlint:ordered sorted below
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// ExpectDeletions replaces the tracked pod keys for key with podKeys and the record with
// len(distinct podKeys) expected deletions (upstream: existing keys are clobbered).
func (u *UIDTrackingControllerExpectations) ExpectDeletions(key string, podKeys []string) {
	set := make(map[string]struct{}, len(podKeys))
	for _, k := range podKeys {
		set[k] = struct{}{}
	}
	u.uids[key] = set
	u.ControllerExpectations.ExpectDeletions(key, len(set))
}

// DeletionObserved records the deletion of the pod namespace/name (pod key
// model.KeyOf(namespace, name)) for key, once: only a tracked pod key lowers the expectation,
// and it is then no longer tracked. It takes the pod's name rather than its key so that the
// key is built only for a controller that tracks deletions, and then without escaping (every
// pod deletion a ReplicaSet observes comes here).
func (u *UIDTrackingControllerExpectations) DeletionObserved(key, namespace, name string) {
	set, ok := u.uids[key]
	if !ok {
		return
	}
	podKey := model.KeyOf(namespace, name)
	if _, ok := set[podKey]; !ok {
		return
	}
	u.ControllerExpectations.DeletionObserved(key)
	delete(set, podKey)
}

// DeleteExpectations forgets both the record and the tracked pod keys for key.
func (u *UIDTrackingControllerExpectations) DeleteExpectations(key string) {
	u.ControllerExpectations.DeleteExpectations(key)
	delete(u.uids, key)
}
