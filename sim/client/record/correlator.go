package record

import (
	"cmp"
	"encoding/json"
	"hash/maphash"
	"slices"
	"strings"
	"time"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim/client/rate"
	"github.com/reconsim/reconsim/vtime"
)

// The EventCorrelator's defaults (client-go v0.37.2 tools/record/events_cache.go).
const (
	// DefaultLRUCacheSize is maxLruCacheEntries: the size of each of the correlator's three
	// caches (spam filter, aggregator, event logger).
	DefaultLRUCacheSize = 4096
	// DefaultAggregateMaxEvents is defaultAggregateMaxEvents: the number of distinct messages
	// for one aggregate key (same source, object, type and reason) after which events are
	// combined.
	DefaultAggregateMaxEvents = 10
	// DefaultAggregateIntervalInSeconds is defaultAggregateIntervalInSeconds: how long after
	// the last similar event the aggregation record starts afresh.
	DefaultAggregateIntervalInSeconds = 600
	// DefaultSpamBurst is defaultSpamBurst: the events a source may send about one object
	// (and type) at once.
	DefaultSpamBurst = 25
	// DefaultSpamQPS is defaultSpamQPS: the spam filter's refill, one event every 5 minutes.
	DefaultSpamQPS = 1. / 300.
)

// aggregatePrefix is what EventAggregatorByReasonMessageFunc puts before the message of a
// combined event.
const aggregatePrefix = "(combined from similar events): "

// CorrelatorOptions are client-go's CorrelatorOptions (tools/record/event.go) that reconsim
// models; a zero field takes its default (populateDefaults).
type CorrelatorOptions struct {
	LRUCacheSize         int
	BurstSize            int
	QPS                  float32
	MaxEvents            int
	MaxIntervalInSeconds int
}

func (o CorrelatorOptions) withDefaults() CorrelatorOptions {
	o.LRUCacheSize = cmp.Or(o.LRUCacheSize, DefaultLRUCacheSize)
	o.BurstSize = cmp.Or(o.BurstSize, DefaultSpamBurst)
	o.QPS = cmp.Or(o.QPS, DefaultSpamQPS)
	o.MaxEvents = cmp.Or(o.MaxEvents, DefaultAggregateMaxEvents)
	o.MaxIntervalInSeconds = cmp.Or(o.MaxIntervalInSeconds, DefaultAggregateIntervalInSeconds)
	return o
}

// CorrelateResult is client-go's EventCorrelateResult.
type CorrelateResult struct {
	// Event is the event after correlation: a new event, or a repeat carrying the name, first
	// timestamp and count of the one it updates (Count > 1 means: send Patch).
	Event *model.Event
	// Patch is the strategic merge patch for a repeat (count, lastTimestamp, message).
	Patch []byte
	// Skip is set when the spam filter dropped the event: nothing is sent.
	Skip bool
}

// Correlator is client-go's EventCorrelator (tools/record/events_cache.go): an aggregator,
// an event logger that turns repeats into count updates, and a per-object spam filter, each
// over an LRU cache. It runs on virtual time and is deterministic.
type Correlator struct {
	clock rate.Clock
	opts  CorrelatorOptions
	names *Names
	// seed hashes the caches' keys (lruKey): each key is hashed once per event, and a hash
	// serves every cache that key is looked up in, the aggregate key's two among them. It is
	// random, as every Go map's own seed is: what a cache holds, finds and evicts depends on
	// the keys' equality alone, never on their hashes, so runs still repeat.
	seed       maphash.Seed
	spam       *lru[rate.Limiter]
	aggregates *lru[aggregateRecord]
	logs       *lru[eventLog]
	// oneKey hands out the first local key of new aggregate records: most aggregate keys
	// (one source, object, type and reason) see one message, and a record's one-element
	// slice comes from this shared block instead of an allocation of its own.
	oneKey []string
	// observed is the event the last EventCorrelate returned when the logger cached it under
	// its own event key, and logged that cache entry: UpdateState of the server's copy of it
	// finds the entry without building and hashing the key again. loggedKey is that key: a
	// full cache reuses an evicted entry for another key, so the entry must still hold it.
	observed  *model.Event
	logged    *lruEntry[eventLog]
	loggedKey lruKey
}

// NewCorrelator returns a correlator with opts (zero fields take the defaults) reading time
// from clock; names gives the names of combined events.
func NewCorrelator(clock rate.Clock, opts CorrelatorOptions, names *Names) *Correlator {
	opts = opts.withDefaults()
	return &Correlator{
		clock:      clock,
		opts:       opts,
		names:      names,
		seed:       maphash.MakeSeed(),
		spam:       newLRU[rate.Limiter](opts.LRUCacheSize),
		aggregates: newLRU[aggregateRecord](opts.LRUCacheSize),
		logs:       newLRU[eventLog](opts.LRUCacheSize),
	}
}

// EventCorrelate aggregates, counts and filters ev, in upstream's order
// (EventCorrelator.EventCorrelate): EventAggregate, then eventObserve, then the spam filter.
// An event the filter skips has still been counted by the logger, as upstream.
func (c *Correlator) EventCorrelate(ev *model.Event) CorrelateResult {
	keys := c.keysOf(ev)
	aggregated, key := c.aggregate(ev, keys)
	observed, patch := c.observe(aggregated, key)
	c.observed = nil
	if aggregated == ev {
		// Cached under its own event key (not the aggregate key of a combined event).
		c.observed, c.logged, c.loggedKey = observed, c.logs.head, key
	}
	// The spam key of the combined or counted event is ev's: they have its source, object and
	// type.
	if c.filter(keys.spam) {
		return CorrelateResult{Skip: true}
	}
	return CorrelateResult{Event: observed, Patch: patch}
}

// UpdateState records the server's copy of an event after a successful write
// (EventCorrelator.UpdateState, eventLogger.updateState). The copy of the event the last
// EventCorrelate returned has its event key, whose cache entry is still the most recent
// unless another event was logged since: then the entry is updated in place.
func (c *Correlator) UpdateState(ev *model.Event) {
	v := eventLog{count: ev.Count, firstTimestamp: ev.FirstTimestamp, name: ev.Name}
	if c.observed != nil && c.logs.head == c.logged && c.logged.key == c.loggedKey && sameEventKey(ev, c.observed) {
		c.logged.value = v
		return
	}
	c.logs.add(c.keysOf(ev).event, v)
}

// sameEventKey reports whether a and b have the same event key: the fields it joins are
// equal.
func sameEventKey(a, b *model.Event) bool {
	return a.Source == b.Source && a.InvolvedObject.Kind == b.InvolvedObject.Kind &&
		a.InvolvedObject.Namespace == b.InvolvedObject.Namespace && a.InvolvedObject.Name == b.InvolvedObject.Name &&
		a.InvolvedObject.UID == b.InvolvedObject.UID && a.InvolvedObject.APIVersion == b.InvolvedObject.APIVersion &&
		a.Type == b.Type && a.Reason == b.Reason && a.Message == b.Message
}

// eventKeys holds an event's three keys, each with its hash. Upstream's keys share a prefix:
// getSpamKey joins source, involved object and type; getEventKey joins the same (with the
// empty fieldPath) and then reason and message; EventAggregatorByReasonFunc's aggregate key
// joins the spam key's fields and then reason, reporting controller and instance. A key here
// is the event and which of the three it is (lruKey): the joined string is never built, and
// the caches keep the event, which the API server keeps anyway, instead of a string of their
// own per event (10 MB of thundering-herd's live heap at its end).
type eventKeys struct {
	// event is getEventKey: source, involved object, type, reason and message, joined
	// without a separator as upstream joins them.
	event lruKey
	// aggregate is the aggregate key.
	aggregate lruKey
	// spam is getSpamKey: source, involved object and type (not reason nor message).
	spam lruKey
	ev   *model.Event
}

// keyKind says which of an event's keys an lruKey is.
type keyKind uint8

// The kinds of keys.
const (
	keySpam keyKind = iota
	keyEvent
	keyAggregate
)

// maxKeyParts is the most fields a key joins (the aggregate key's 12); spamKeyParts are the
// spam key's, the first of every key.
const (
	maxKeyParts  = 12
	spamKeyParts = 9
)

// parts puts into buf the fields that kind's key of ev joins, in upstream's order, and returns
// them.
func (kind keyKind) parts(ev *model.Event, buf *[maxKeyParts]string) []string {
	o := &ev.InvolvedObject
	*buf = [maxKeyParts]string{
		ev.Source.Component, ev.Source.Host,
		string(o.Kind), o.Namespace, o.Name, "" /* fieldPath */, o.UID, o.APIVersion,
		ev.Type,
	}
	switch kind {
	case keyEvent:
		buf[9], buf[10] = ev.Reason, ev.Message
		return buf[:11]
	case keyAggregate:
		buf[9], buf[10], buf[11] = ev.Reason, ev.ReportingController, ev.ReportingInstance
		return buf[:12]
	default:
		return buf[:spamKeyParts]
	}
}

func (c *Correlator) keysOf(ev *model.Event) eventKeys {
	// One hash runs over the spam key's fields and reason, and is copied there: the copy
	// goes on with the aggregate key's tail, the original with the event key's. A hash of
	// bytes written in pieces is the hash of them written at once (hash/maphash), so each is
	// the hash of its key's joined string.
	var buf [maxKeyParts]string
	parts := keyAggregate.parts(ev, &buf) // the spam key's, then reason, controller, instance
	var h maphash.Hash
	h.SetSeed(c.seed)
	for _, s := range parts[:spamKeyParts] {
		h.WriteString(s)
	}
	spam := h.Sum64()
	h.WriteString(parts[spamKeyParts]) // the reason, which the other two keys go on with
	agg := h
	h.WriteString(ev.Message)
	for _, s := range parts[spamKeyParts+1:] {
		agg.WriteString(s)
	}
	return eventKeys{
		event:     lruKey{ev: ev, kind: keyEvent, hash: h.Sum64()},
		aggregate: lruKey{ev: ev, kind: keyAggregate, hash: agg.Sum64()},
		spam:      lruKey{ev: ev, kind: keySpam, hash: spam},
		ev:        ev,
	}
}

// aggregateKeys is EventAggregatorByReasonFunc: the aggregate key (source, involved object,
// type, reason, reporting controller and instance) and the local key (the message).
func (k eventKeys) aggregateKeys() (aggregateKey lruKey, localKey string) {
	return k.aggregate, k.ev.Message
}

// filter is EventSourceObjectSpamFilter.Filter: a token bucket per spam key (burst 25,
// refill 1/300 s; flowcontrol.NewTokenBucketPassiveRateLimiterWithClock, which is
// x/time/rate with the float32 qps widened); true means skip.
func (c *Correlator) filter(key lruKey) bool {
	e := c.spam.find(key)
	if e == nil {
		// Upstream's Allow on the new limiter before its Add: nothing else reads the cache in
		// between, and Allow reads only the clock.
		e = c.spam.add(key, *rate.NewLimiter(c.clock, rate.Limit(c.opts.QPS), c.opts.BurstSize))
	}
	return !e.value.Allow()
}

// aggregateRecord is upstream's aggregateRecord: the distinct messages seen for one
// aggregate key (kept sorted) and when the last one was seen.
type aggregateRecord struct {
	localKeys     []string
	lastTimestamp vtime.Time
}

// reset makes r a new record (no messages), keeping the slice's storage.
func (r *aggregateRecord) reset() {
	clear(r.localKeys)
	r.localKeys = r.localKeys[:0]
	r.lastTimestamp = 0
}

// aggregate is EventAggregator.EventAggregate. Once MaxEvents distinct messages were seen
// within MaxIntervalInSeconds of each other, the event is replaced by a combined one (count
// 1, message "(combined from similar events): <message>", a new name) keyed by the aggregate
// key, so that later occurrences update it. Upstream then drops an arbitrary message from
// the set (sets.Set.PopAny, Go map order); reconsim drops the smallest, so that runs repeat.
func (c *Correlator) aggregate(ev *model.Event, keys eventKeys) (*model.Event, lruKey) {
	now := c.clock.Now()
	aggKey, localKey := keys.aggregateKeys()
	entry := c.aggregates.find(aggKey)
	maxInterval := time.Duration(c.opts.MaxIntervalInSeconds) * time.Second
	// Upstream compares against a zero time.Time when nothing was found, which is always
	// older than the interval; virtual time starts at 0, so "not found" is explicit here.
	// Upstream's Add after its Get: the found entry, already the most recent, takes the new
	// record; otherwise the record is added now rather than after the updates below, which is
	// the same, as nothing else reads the cache in between. The record is kept in the entry:
	// an expired one is emptied, keeping its storage.
	if entry == nil {
		entry = c.aggregates.add(aggKey, aggregateRecord{})
	} else if now.Sub(entry.value.lastTimestamp) > maxInterval {
		entry.value.reset()
	}
	rec := &entry.value
	if i, ok := slices.BinarySearch(rec.localKeys, localKey); !ok {
		if cap(rec.localKeys) == 0 {
			if len(c.oneKey) == 0 {
				// Blocks as large as the records so far, as the lru's blocks of entries.
				c.oneKey = make([]string, min(max(c.aggregates.len, minLRUBlock), maxLRUBlock))
			}
			rec.localKeys = c.oneKey[:0:1]
			c.oneKey = c.oneKey[1:]
		}
		rec.localKeys = slices.Insert(rec.localKeys, i, localKey)
	}
	rec.lastTimestamp = now
	if len(rec.localKeys) < c.opts.MaxEvents {
		return ev, keys.event
	}
	rec.localKeys = slices.Delete(rec.localKeys, 0, 1)
	combined := &model.Event{
		ObjectMeta:          model.ObjectMeta{Name: c.names.name(ev.InvolvedObject.Name, now), Namespace: ev.Namespace},
		Count:               1,
		FirstTimestamp:      now,
		InvolvedObject:      ev.InvolvedObject,
		LastTimestamp:       now,
		Message:             aggregatePrefix + ev.Message,
		Type:                ev.Type,
		Reason:              ev.Reason,
		Source:              ev.Source,
		ReportingController: ev.ReportingController,
		ReportingInstance:   ev.ReportingInstance,
	}
	return combined, aggKey
}

// eventLog is upstream's eventLog: what the logger remembers of an event it saw.
type eventLog struct {
	count          int32
	firstTimestamp vtime.Time
	name           string
}

// countPatch is the strategic merge patch eventObserve computes between the repeat and a
// copy of it with count 0, lastTimestamp at the epoch and no message
// (strategicpatch.CreateTwoWayMergePatch): exactly these three fields, in JSON key order.
type countPatch struct {
	Count         int32      `json:"count"`
	LastTimestamp vtime.Time `json:"lastTimestamp"`
	Message       string     `json:"message"`
}

// observe is eventLogger.eventObserve: on a cache hit for key the event takes the earlier
// one's name and first timestamp, its count goes up by one, and a patch is prepared; either
// way the observation is cached.
func (c *Correlator) observe(ev *model.Event, key lruKey) (*model.Event, []byte) {
	var patch []byte
	out := ev
	entry := c.logs.find(key)
	if entry != nil && entry.value.count > 0 {
		last := entry.value
		cp := *ev
		cp.Name = last.name
		cp.FirstTimestamp = last.firstTimestamp
		cp.Count = last.count + 1
		out = &cp
		patch, _ = json.Marshal(countPatch{Count: cp.Count, LastTimestamp: cp.LastTimestamp, Message: cp.Message})
	}
	// Upstream's Add after its Get: a found entry is already the most recent.
	v := eventLog{count: out.Count, firstTimestamp: out.FirstTimestamp, name: out.Name}
	if entry != nil {
		entry.value = v
	} else {
		c.logs.add(key, v)
	}
	return out, patch
}

// lru is the least-recently-used cache of github.com/golang/groupcache/lru, as client-go's
// correlator uses it: get and add make an entry the most recent; adding past the capacity
// evicts the least recent. Its map is keyed by the keys' hashes, each computed once per
// event (lruKey), where a map by the key strings (of 100 bytes and more) hashed a key at
// each of its operations, and hashed the evicted entry's key, found cold, to delete it. Keys
// with one hash share the map's slot in a chain; an entry is the key's only when the joined
// strings are equal (lruKey.equal), so what the cache holds, finds and evicts is what a map by
// the strings would.
type lru[V any] struct {
	max        int
	entries    map[uint64]*lruEntry[V] // by hash: the first entry of the hash's chain
	len        int
	head, tail *lruEntry[V] // head is the most recent
	// free is storage for entries not yet used: entries are allocated in blocks, a block as
	// large as the entries so far (8 to 256, never past max), as a cache never frees one.
	free []lruEntry[V]
}

// lruKey is a cache key with its hash (Correlator.keysOf): the hash picks the map's slot, and
// the joined string, compared piece by piece (equal), decides whether an entry is the key's.
type lruKey struct {
	ev   *model.Event
	kind keyKind
	hash uint64
}

// equal reports whether k and o join to the same string. Fields that are equal one by one
// are the common case, but upstream's keys join fields without a separator, so two keys
// whose fields split one string differently are equal too, and are here.
func (k lruKey) equal(o lruKey) bool {
	if k.hash != o.hash {
		return false
	}
	if k.ev == o.ev && k.kind == o.kind {
		return true
	}
	var kb, ob [maxKeyParts]string
	return joinEqual(k.kind.parts(k.ev, &kb), o.kind.parts(o.ev, &ob))
}

// String returns the joined string, as upstream's cache holds it.
func (k lruKey) String() string {
	var b [maxKeyParts]string
	return strings.Join(k.kind.parts(k.ev, &b), "")
}

// joinEqual reports whether strings.Join(a, "") == strings.Join(b, ""), without joining.
func joinEqual(a, b []string) bool {
	var s, t string
	for {
		for s == "" && len(a) > 0 {
			s, a = a[0], a[1:]
		}
		for t == "" && len(b) > 0 {
			t, b = b[0], b[1:]
		}
		if s == "" || t == "" {
			return s == t
		}
		n := min(len(s), len(t))
		if s[:n] != t[:n] {
			return false
		}
		s, t = s[n:], t[n:]
	}
}

type lruEntry[V any] struct {
	key        lruKey
	value      V
	prev, next *lruEntry[V]
	// sameHash is the next entry in the chain of entries whose keys have this one's hash.
	sameHash *lruEntry[V]
}

func newLRU[V any](max int) *lru[V] {
	return &lru[V]{max: max, entries: map[uint64]*lruEntry[V]{}}
}

// find is groupcache's Get, returning the entry (nil when key is absent), now the most
// recent: setting its value is Add's update of an existing key, without looking the key up
// again.
func (l *lru[V]) find(key lruKey) *lruEntry[V] {
	e := l.lookup(key)
	if e == nil {
		return nil
	}
	l.toFront(e)
	return e
}

// lookup returns key's entry, or nil, leaving the order alone.
func (l *lru[V]) lookup(key lruKey) *lruEntry[V] {
	e := l.entries[key.hash]
	for e != nil && !e.key.equal(key) {
		e = e.sameHash
	}
	return e
}

// add is groupcache's Add; it returns the key's entry, now the most recent.
func (l *lru[V]) add(key lruKey, value V) *lruEntry[V] {
	if e := l.lookup(key); e != nil {
		e.value = value
		l.toFront(e)
		return e
	}
	var e *lruEntry[V]
	if l.max > 0 && l.len >= l.max {
		// Full: the least recent entry is evicted, as groupcache's Add does after adding,
		// and its storage takes the new key (a full cache allocates nothing per add).
		e = l.tail
		l.unlink(e)
		l.unmap(e)
	} else {
		if len(l.free) == 0 {
			n := min(max(l.len, minLRUBlock), maxLRUBlock)
			if l.max > 0 {
				n = min(n, l.max-l.len)
			}
			l.free = make([]lruEntry[V], n)
		}
		e = &l.free[0]
		l.free = l.free[1:]
	}
	e.key, e.value = key, value
	e.sameHash = l.entries[key.hash]
	l.entries[key.hash] = e
	l.len++
	l.pushFront(e)
	return e
}

// unmap takes e out of the map (out of its hash's chain).
func (l *lru[V]) unmap(e *lruEntry[V]) {
	l.len--
	first := l.entries[e.key.hash]
	switch {
	case first != e:
		for first.sameHash != e {
			first = first.sameHash
		}
		first.sameHash = e.sameHash
	case e.sameHash != nil:
		l.entries[e.key.hash] = e.sameHash
	default:
		delete(l.entries, e.key.hash)
	}
	e.sameHash = nil
}

// The bounds of an lru's blocks of entries (lru.free).
const (
	minLRUBlock = 8
	maxLRUBlock = 256
)

func (l *lru[V]) toFront(e *lruEntry[V]) {
	if l.head == e {
		return
	}
	l.unlink(e)
	l.pushFront(e)
}

func (l *lru[V]) pushFront(e *lruEntry[V]) {
	e.prev, e.next = nil, l.head
	if l.head != nil {
		l.head.prev = e
	}
	l.head = e
	if l.tail == nil {
		l.tail = e
	}
}

func (l *lru[V]) unlink(e *lruEntry[V]) {
	if e.prev != nil {
		e.prev.next = e.next
	} else {
		l.head = e.next
	}
	if e.next != nil {
		e.next.prev = e.prev
	} else {
		l.tail = e.prev
	}
	e.prev, e.next = nil, nil
}
