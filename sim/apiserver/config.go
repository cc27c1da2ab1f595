package apiserver

import (
	"fmt"
	"sort"
	"time"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim"
)

// allVerbs fixes the order of per-verb arrays and of every per-verb output.
var allVerbs = [...]model.Verb{model.VerbGet, model.VerbList, model.VerbWatch, model.VerbCreate, model.VerbUpdate, model.VerbPatch, model.VerbDelete}

const numVerbs = len(allVerbs)

// verbIndex returns v's position in allVerbs, or -1.
func verbIndex(v model.Verb) int {
	switch v {
	case model.VerbGet:
		return 0
	case model.VerbList:
		return 1
	case model.VerbWatch:
		return 2
	case model.VerbCreate:
		return 3
	case model.VerbUpdate:
		return 4
	case model.VerbPatch:
		return 5
	case model.VerbDelete:
		return 6
	}
	return -1
}

// isMutating reports whether v takes a slot in the mutating in-flight pool
// ([apiserver@HEAD] pkg/server/filters/maxinflight.go: nonMutatingRequestVerbs are get, list,
// watch; everything else is mutating).
func isMutating(v model.Verb) bool {
	return v == model.VerbCreate || v == model.VerbUpdate || v == model.VerbPatch || v == model.VerbDelete
}

// Upstream defaults, each named after where it comes from.
const (
	// DefaultMaxRequestsInflight is --max-requests-inflight ([apiserver@HEAD] pkg/server/config.go).
	DefaultMaxRequestsInflight = 400
	// DefaultMaxMutatingRequestsInflight is --max-mutating-requests-inflight (same file).
	DefaultMaxMutatingRequestsInflight = 200

	// DefaultHistoryLowerBound and DefaultHistoryUpperBound bound the watch cache's event
	// history per resource ([apiserver@HEAD] pkg/storage/cacher/watch_cache_history.go:
	// defaultLowerBoundCapacity = 100, defaultUpperBoundCapacity = 100 * 1024).
	DefaultHistoryLowerBound = 100
	DefaultHistoryUpperBound = 100 * 1024
	// DefaultEventFreshDuration is how long the watch cache tries to keep events
	// ([apiserver@HEAD] pkg/storage/cacher/cacher.go: DefaultEventFreshDuration =
	// defaultBookmarkFrequency + 15s = 75s).
	DefaultEventFreshDuration = 75 * time.Second
	// DefaultBookmarkFrequency is how often a watcher gets a BOOKMARK
	// ([apiserver@HEAD] pkg/storage/cacher/cacher.go: defaultBookmarkFrequency = time.Minute).
	DefaultBookmarkFrequency = time.Minute

	// DefaultTolerationSeconds is --default-not-ready-toleration-seconds and
	// --default-unreachable-toleration-seconds
	// ([k8s:plugin/pkg/admission/defaulttolerationseconds/admission.go@012b085a]).
	DefaultTolerationSeconds int64 = 300

	// DefaultWatchDelay is a simulator knob, not an upstream value: the time from a write to
	// its delivery to a watcher (cacher dispatch plus network).
	DefaultWatchDelay = 5 * time.Millisecond
	// DefaultListItemCost is a simulator knob: the extra service time per item a LIST returns
	// (serialisation), so that large lists cost what they cost.
	DefaultListItemCost = 20 * time.Microsecond
)

// SystemNamespaces are the namespaces kube-apiserver creates at start-up
// ([k8s:pkg/controlplane/controller/systemnamespaces] ensures kube-system, kube-public,
// kube-node-lease and default exist).
var SystemNamespaces = []string{"default", "kube-node-lease", "kube-public", "kube-system"}

// StoreConfig configures the versioned store, its admission and its watch cache. Start from
// DefaultStoreConfig; each field says what its zero value means.
type StoreConfig struct {
	// WatchDelay is the delay from a write to its delivery to a watcher, drawn per watcher and
	// event; delivery to one watcher stays in revision order and monotone in time. A simulator
	// knob (apiserver dispatch plus network), not an upstream value. Zero: no delay (delivery
	// still happens on the kernel, never inside the write call).
	WatchDelay sim.Dist
	// HistoryLowerBound and HistoryUpperBound bound the watch-cache history per kind, which
	// resizes between them as upstream's does. Zero: the upstream defaults (100, 102400).
	HistoryLowerBound, HistoryUpperBound int
	// EventFreshDuration is the history window the watch cache tries to keep. Zero: 75s.
	EventFreshDuration time.Duration
	// BookmarkFrequency is how often watchers that have fallen behind the current revision
	// get a BOOKMARK. Zero: 1 min (upstream); negative: no bookmarks.
	BookmarkFrequency time.Duration
	// WatchChanSize is the number of undelivered events a stalled watcher may hold before the
	// server closes it. Zero: upstream's suggestedWatchChannelSize (10 to 1000 depending on
	// history size and index use).
	WatchChanSize int

	// DisableDefaultTolerationSeconds turns off the DefaultTolerationSeconds admission plugin
	// (upstream: --disable-admission-plugins=DefaultTolerationSeconds).
	DisableDefaultTolerationSeconds bool
	// TaintNodesByCondition turns on the admission plugin of that name (admitNodeTaints): a new
	// Node is tainted node.kubernetes.io/not-ready:NoSchedule until the node lifecycle
	// controller sees it Ready. Priority turns on the Priority plugin (admitPriority): pods get
	// spec.priority from their PriorityClass. Both are on by default upstream; they are off in
	// DefaultStoreConfig because each needs a cooperating part of the cluster (a node lifecycle
	// controller to lift the taint, PriorityClasses for pods that name one), and tests of a
	// single component usually have neither. sim/cluster turns them on unless a scenario
	// disables them (kube-apiserver.disable-admission-plugins).
	TaintNodesByCondition bool
	Priority              bool
	// DefaultNotReadyTolerationSeconds is --default-not-ready-toleration-seconds. Nil: 300.
	DefaultNotReadyTolerationSeconds *int64
	// DefaultUnreachableTolerationSeconds is --default-unreachable-toleration-seconds. Nil: 300.
	DefaultUnreachableTolerationSeconds *int64

	// SystemNamespaces are created (at revision 1, 2, ...) when the store is made.
	// Nil or empty: none.
	SystemNamespaces []string

	// IsSignificantWrite decides which writes call Kernel.MarkActivity (quiescence detection).
	// old is nil for a create, new is nil for a final removal. Nil: DefaultSignificantWrite.
	IsSignificantWrite func(kind model.Kind, old, new model.Object) bool

	// CheckMutations turns on the ownership check (mutationCheck): the store keeps a private
	// copy of every object it stores and reports, in Store.MutationViolations, any stored
	// object that a reader modified. A test mode, like client-go's cache mutation detector: it
	// doubles the store's allocations.
	CheckMutations bool

	// EventTTL is kube-apiserver --event-ttl: an Event is removed this long after its last
	// write (upstream attaches an etcd lease of this TTL at every create and update of an
	// Event; pkg/registry/core/event/storage/storage.go, default 1h in
	// pkg/controlplane/apiserver/options/options.go). Zero: Events never expire.
	EventTTL time.Duration

	// OnCommit, when set, is called synchronously after every committed write, in revision
	// order, with the object before and after (old nil for a create, new nil for a final
	// removal). It sees what watchers will see, but at once and without filtering: the
	// simulator's recorder uses it to measure the world. It must not write to the store.
	OnCommit func(kind model.Kind, old, new model.Object)
}

// DefaultStoreConfig returns the upstream defaults plus the documented simulator knobs:
// watch delay constant 5ms, history 100..102400 events kept for 75s, bookmarks every minute,
// upstream watch channel sizes, DefaultTolerationSeconds on with 300s, the four system
// namespaces, DefaultSignificantWrite.
func DefaultStoreConfig() StoreConfig {
	return StoreConfig{
		WatchDelay:         sim.Constant(DefaultWatchDelay),
		HistoryLowerBound:  DefaultHistoryLowerBound,
		HistoryUpperBound:  DefaultHistoryUpperBound,
		EventFreshDuration: DefaultEventFreshDuration,
		BookmarkFrequency:  DefaultBookmarkFrequency,
		SystemNamespaces:   append([]string(nil), SystemNamespaces...),
		EventTTL:           DefaultEventTTL,
	}
}

// DefaultEventTTL is kube-apiserver's --event-ttl default (pkg/controlplane/apiserver/options/
// options.go: EventTTL: 1 * time.Hour).
const DefaultEventTTL = time.Hour

// Validate reports the first unusable field, naming it; nil if the configuration is usable.
func (c StoreConfig) Validate() error {
	if err := c.WatchDelay.Validate(); err != nil {
		return fmt.Errorf("watch delay: %v", err)
	}
	if c.HistoryLowerBound < 0 || c.HistoryUpperBound < 0 {
		return fmt.Errorf("history bounds must not be negative (lower %d, upper %d)", c.HistoryLowerBound, c.HistoryUpperBound)
	}
	lo, hi := c.historyBounds()
	if lo > hi {
		return fmt.Errorf("history lower bound %d is above the upper bound %d", lo, hi)
	}
	if hi > maxHistoryCapacity {
		return fmt.Errorf("history upper bound %d is above the limit %d", hi, maxHistoryCapacity)
	}
	if c.EventFreshDuration < 0 {
		return fmt.Errorf("event fresh duration must not be negative, got %s", c.EventFreshDuration)
	}
	if c.WatchChanSize < 0 {
		return fmt.Errorf("watch channel size must not be negative, got %d", c.WatchChanSize)
	}
	for _, p := range []struct {
		name string
		v    *int64
	}{{"default-not-ready-toleration-seconds", c.DefaultNotReadyTolerationSeconds}, {"default-unreachable-toleration-seconds", c.DefaultUnreachableTolerationSeconds}} {
		if p.v != nil && *p.v < 0 {
			return fmt.Errorf("%s must not be negative, got %d", p.name, *p.v)
		}
	}
	for _, ns := range c.SystemNamespaces {
		if ns == "" {
			return fmt.Errorf("system namespaces must not contain an empty name")
		}
	}
	return nil
}

// maxHistoryCapacity is a sanity limit on the configurable history size (events per kind).
const maxHistoryCapacity = 10 * 1024 * 1024

func (c StoreConfig) historyBounds() (lower, upper int) {
	lower, upper = c.HistoryLowerBound, c.HistoryUpperBound
	if lower == 0 {
		lower = DefaultHistoryLowerBound
	}
	if upper == 0 {
		upper = DefaultHistoryUpperBound
	}
	return lower, upper
}

func (c StoreConfig) eventFreshDuration() time.Duration {
	if c.EventFreshDuration == 0 {
		return DefaultEventFreshDuration
	}
	return c.EventFreshDuration
}

func (c StoreConfig) bookmarkFrequency() time.Duration {
	if c.BookmarkFrequency == 0 {
		return DefaultBookmarkFrequency
	}
	return c.BookmarkFrequency
}

func tolerationSecondsOr(p *int64) int64 {
	if p == nil {
		return DefaultTolerationSeconds
	}
	return *p
}

// Config configures the Server: capacity, service times, and the store.
type Config struct {
	// MaxRequestsInflight bounds concurrent read-only requests (get, list):
	// --max-requests-inflight, default 400. Zero or negative: no limit (upstream: 0 disables
	// the limit, [apiserver@HEAD] pkg/server/filters/maxinflight.go).
	MaxRequestsInflight int
	// MaxMutatingRequestsInflight bounds concurrent create, update, patch and delete requests:
	// --max-mutating-requests-inflight, default 200. Zero or negative: no limit.
	MaxMutatingRequestsInflight int
	// ServiceTime is the time a request holds its in-flight slot before the store serves it,
	// per verb (simulator knobs). A verb that is missing costs nothing. The watch entry is the
	// cost of establishing a watch.
	ServiceTime map[model.Verb]sim.Dist
	// ListItemCost is added to a LIST's service time for each item it returns (simulator knob).
	ListItemCost time.Duration
	// RetryAfterSeconds is the Retry-After sent with a 429. Zero: 1, as upstream.
	RetryAfterSeconds int
	// Store configures the store the server serves from.
	Store StoreConfig
	// APF configures API Priority and Fairness. Off in DefaultConfig (upstream has it on by
	// default, and sim/cluster turns it on unless a scenario sets
	// kube-apiserver.enable-priority-and-fairness=false): tests of a single component keep
	// the simpler max-in-flight filter.
	APF APFConfig
}

// DefaultConfig returns the upstream in-flight limits (400 read-only, 200 mutating,
// Retry-After 1) with simulator service times: get 1ms, list 5ms plus 20µs per item, create,
// update, patch and delete 5ms, watch establishment 1ms; and DefaultStoreConfig.
func DefaultConfig() Config {
	return Config{
		MaxRequestsInflight:         DefaultMaxRequestsInflight,
		MaxMutatingRequestsInflight: DefaultMaxMutatingRequestsInflight,
		ServiceTime: map[model.Verb]sim.Dist{
			model.VerbGet:    sim.Constant(time.Millisecond),
			model.VerbList:   sim.Constant(5 * time.Millisecond),
			model.VerbWatch:  sim.Constant(time.Millisecond),
			model.VerbCreate: sim.Constant(5 * time.Millisecond),
			model.VerbUpdate: sim.Constant(5 * time.Millisecond),
			model.VerbPatch:  sim.Constant(5 * time.Millisecond),
			model.VerbDelete: sim.Constant(5 * time.Millisecond),
		},
		ListItemCost:      DefaultListItemCost,
		RetryAfterSeconds: model.DefaultRetryAfterSeconds,
		Store:             DefaultStoreConfig(),
	}
}

// Validate reports the first unusable field, naming it; nil if the configuration is usable.
func (c Config) Validate() error {
	for _, v := range allVerbs {
		d, ok := c.ServiceTime[v]
		if !ok {
			continue
		}
		if err := d.Validate(); err != nil {
			return fmt.Errorf("service time for %s: %v", v, err)
		}
	}
	var unknown []string
	for v := range c.ServiceTime { //detlint:ordered collected names are sorted before use
		if verbIndex(v) < 0 {
			unknown = append(unknown, string(v))
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return fmt.Errorf("service time for unknown verb %q (want get, list, watch, create, update, patch or delete)", unknown[0])
	}
	if c.ListItemCost < 0 {
		return fmt.Errorf("list item cost must not be negative, got %s", c.ListItemCost)
	}
	if c.RetryAfterSeconds < 0 {
		return fmt.Errorf("retry-after seconds must not be negative, got %d", c.RetryAfterSeconds)
	}
	if err := c.Store.Validate(); err != nil {
		return fmt.Errorf("store: %v", err)
	}
	if c.APF.Enabled {
		if c.MaxRequestsInflight+c.MaxMutatingRequestsInflight <= 0 {
			return fmt.Errorf("priority and fairness needs max-requests-inflight plus max-mutating-requests-inflight to be positive")
		}
		if err := c.APF.Validate(); err != nil {
			return fmt.Errorf("priority and fairness: %v", err)
		}
	}
	return nil
}
