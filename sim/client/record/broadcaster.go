package record

import (
	"errors"
	"math/rand/v2"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim"
	"github.com/reconsim/reconsim/sim/client"
)

// The broadcaster's defaults (client-go v0.37.2 tools/record/event.go).
const (
	// DefaultMaxQueuedEvents is maxQueuedEvents: the length of the sink watcher's channel
	// (watch.NewLongQueueBroadcaster(maxQueuedEvents, watch.DropIfChannelFull)); an event
	// that finds it full is dropped ("Unable to record event: too many queued events,
	// dropped event").
	DefaultMaxQueuedEvents = 1000
	// DefaultMaxTriesPerEvent is maxTriesPerEvent: the attempts recordToSink makes to write
	// one event.
	DefaultMaxTriesPerEvent = 12
	// DefaultSleepDuration is defaultSleepDuration: the wait between attempts; the first wait
	// is DefaultSleepDuration × rand[0,1) (recordToSink).
	DefaultSleepDuration = 10 * time.Second
)

// Config configures a Broadcaster; zero fields take the defaults above.
type Config struct {
	MaxQueuedEvents int
	MaxTries        int
	SleepDuration   time.Duration
	Correlator      CorrelatorOptions
	// Names gives event names; recorders writing to one API server should share one (nil: a
	// registry of the broadcaster's own).
	Names *Names
}

func (c Config) withDefaults() Config {
	if c.MaxQueuedEvents <= 0 {
		c.MaxQueuedEvents = DefaultMaxQueuedEvents
	}
	if c.MaxTries <= 0 {
		c.MaxTries = DefaultMaxTriesPerEvent
	}
	if c.SleepDuration <= 0 {
		c.SleepDuration = DefaultSleepDuration
	}
	if c.Names == nil {
		c.Names = NewNames()
	}
	return c
}

// BroadcasterStats counts what happened to the events a broadcaster was given.
type BroadcasterStats struct {
	// Queued counts events accepted into the queue; Dropped those that found it full.
	Queued, Dropped uint64
	// Skipped counts events the correlator's spam filter dropped.
	Skipped uint64
	// Created and Patched count successful writes; Retries counts attempts repeated after a
	// failure that upstream retries; Abandoned counts events given up (a StatusError, or
	// MaxTries failed attempts).
	Created, Patched, Retries, Abandoned uint64
	// MaxQueueLength is the longest the queue got.
	MaxQueueLength int
}

// Broadcaster is client-go's event broadcaster with one sink, the component's own client
// (record.NewBroadcaster + StartRecordingToSink with EventSinkImpl over
// client.CoreV1().Events("")): recorders queue events without blocking, and one simulated
// process takes them in order, correlates them and writes them through the client, so they
// cost the client's QPS and wait behind its other requests. Upstream's two goroutines (the
// watch.Broadcaster loop and the sink watcher) and its channels become one FIFO of
// MaxQueuedEvents and one process, spawned at the first event and parked while the queue is
// empty. Deterministic: the only random draw (the first retry
// wait) comes from a stream named after the broadcaster.
type Broadcaster struct {
	k     *sim.Kernel
	c     *client.Client
	name  string
	cfg   Config
	corr  *Correlator
	rng   *rand.Rand
	queue []*model.Event
	head  int
	proc  *sim.Proc
	stats BroadcasterStats
}

// NewBroadcaster returns a broadcaster that writes events through c. name identifies it in
// traces and names its random stream; it must be unique in the world.
func NewBroadcaster(k *sim.Kernel, c *client.Client, name string, cfg Config) *Broadcaster {
	cfg = cfg.withDefaults()
	return &Broadcaster{k: k, c: c, name: name, cfg: cfg, corr: NewCorrelator(k, cfg.Correlator, cfg.Names)}
}

// NewRecorder returns a recorder whose events carry source {component, host} and go to b
// (eventBroadcasterImpl.NewRecorder).
func (b *Broadcaster) NewRecorder(component, host string) Recorder {
	return &recorder{k: b.k, b: b, component: component, host: host, names: b.cfg.Names}
}

// Stats returns the broadcaster's counters.
func (b *Broadcaster) Stats() BroadcasterStats { return b.stats }

// QueueLength returns the events waiting to be sent (not counting the one being sent).
func (b *Broadcaster) QueueLength() int { return len(b.queue) - b.head }

// full reports whether the queue is full: action would drop an event.
func (b *Broadcaster) full() bool { return b.QueueLength() >= b.cfg.MaxQueuedEvents }

// drop counts and traces an event from component about the object kind namespace/name that
// found the queue full.
func (b *Broadcaster) drop(component string, kind model.Kind, namespace, name string) {
	b.stats.Dropped++
	b.k.EmitRef(component, "event-dropped", string(kind), namespace, name, 0, "too many queued events")
}

// action is Broadcaster.ActionOrDrop: queue ev, or drop it when the queue is full.
func (b *Broadcaster) action(ev *model.Event) {
	if b.full() {
		o := &ev.InvolvedObject
		b.drop(ev.Source.Component, o.Kind, o.Namespace, o.Name)
		return
	}
	if b.head > 0 && b.head == len(b.queue) {
		b.queue, b.head = b.queue[:0], 0
	}
	b.queue = append(b.queue, ev)
	b.stats.Queued++
	b.stats.MaxQueueLength = max(b.stats.MaxQueueLength, b.QueueLength())
	switch {
	case b.proc == nil:
		b.proc = b.k.Spawn("event-broadcaster/"+b.name, b.run)
	case b.proc.Parked():
		b.proc.Unpark()
	}
}

// run sends queued events one at a time, and parks while the queue is empty (the sink
// watcher's loop, StartEventWatcher). A parked process is not pending work.
func (b *Broadcaster) run(p *sim.Proc) {
	defer func() { b.proc = nil }()
	for {
		for b.QueueLength() > 0 {
			ev := b.queue[b.head]
			b.queue[b.head] = nil
			b.head++
			b.recordToSink(p, ev)
		}
		b.queue, b.head = b.queue[:0], 0
		p.Park()
	}
}

// recordToSink is eventBroadcasterImpl.recordToSink: correlate, then try up to MaxTries
// times, sleeping SleepDuration between attempts (the first sleep × rand[0,1)).
func (b *Broadcaster) recordToSink(p *sim.Proc, ev *model.Event) {
	result := b.corr.EventCorrelate(ev)
	if result.Skip {
		b.stats.Skipped++
		b.emit(ev, "event-skipped", "spam filter: "+ev.Reason)
		return
	}
	for tries := 0; ; {
		if b.recordEvent(p, result.Event, result.Patch, result.Event.Count > 1) {
			return
		}
		tries++
		if tries >= b.cfg.MaxTries {
			b.stats.Abandoned++
			b.emit(ev, "event-abandoned", "retry limit exceeded: "+ev.Reason)
			return
		}
		b.stats.Retries++
		delay := b.cfg.SleepDuration
		if tries == 1 {
			if b.rng == nil {
				b.rng = b.k.Rand("event-broadcaster/" + b.name)
			}
			delay = time.Duration(float64(delay) * b.rng.Float64())
		}
		// A retry wait is not pending work: a component that cannot reach the API server
		// must not keep the run from being quiescent.
		p.Idle(delay)
	}
}

// recordEvent is client-go's recordEvent: PATCH a repeat (and CREATE it if the PATCH finds
// no event, as after the event's TTL), CREATE a new event; on success update the
// correlator from the server's copy. It reports false only for errors upstream retries:
// anything that is not an API status (transport errors, timeouts). A status error
// (AlreadyExists, a terminating namespace, 429 after the client's own retries, ...) is
// final, as upstream.
func (b *Broadcaster) recordEvent(p *sim.Proc, ev *model.Event, patch []byte, update bool) bool {
	var obj model.Object
	var err error
	if update {
		obj, err = b.c.PatchAs(p, model.KindEvent, ev.Namespace, ev.Name, model.StrategicMergePatchType, patch)
		if err == nil {
			b.stats.Patched++
		}
	}
	if !update || apierrors.IsNotFound(err) {
		// ev itself is handed over (CreateShared), not a copy: it is the broadcaster's own
		// (the recorder made it, or the correlator a copy of it), nothing else keeps it, and
		// the stored Event is only read afterwards (UpdateState). A failed create leaves it
		// unstored, so a retry can send it again: the server answers every failure with an API
		// status, which ends the tries, and only an error from outside it (never a stored
		// object) is retried.
		if ev.ResourceVersion != 0 {
			cp := *ev
			cp.ResourceVersion = 0
			ev = &cp
		}
		obj, err = b.c.CreateShared(p, ev)
		if err == nil {
			b.stats.Created++
		}
	}
	if err == nil {
		if stored, ok := obj.(*model.Event); ok {
			b.corr.UpdateState(stored)
		}
		return true
	}
	var status apierrors.APIStatus
	if errors.As(err, &status) {
		b.stats.Abandoned++
		return true
	}
	return false
}

// emit traces action about ev's object, from ev's source component.
func (b *Broadcaster) emit(ev *model.Event, action, detail string) {
	o := &ev.InvolvedObject
	b.k.EmitRef(ev.Source.Component, action, string(o.Kind), o.Namespace, o.Name, 0, detail)
}
