package record

import (
	"fmt"
	"strconv"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim"
	"github.com/reconsim/reconsim/vtime"
)

// Recorder records events about objects (client-go record.EventRecorder, Eventf only).
type Recorder interface {
	// Eventf records an event of eventType (model.EventTypeNormal or EventTypeWarning) with
	// the given reason about obj; the message is fmt.Sprintf(messageFmt, args...).
	Eventf(obj model.Object, eventType, reason, messageFmt string, args ...any)
}

// Sink receives every recorded event, synchronously, in call order. It owns the event.
type Sink interface {
	Record(ev *model.Event)
}

// namespaceDefault is metav1.NamespaceDefault: where events about cluster-scoped objects go
// (client-go tools/record/event.go makeEvent).
const namespaceDefault = "default"

// Names hands out Event names: "<object name>.<virtual nanoseconds in hex>", as client-go's
// util.GenerateEventName does with the wall clock (tools/record/util/util.go). A real clock
// almost never repeats a nanosecond, but two events about one object at one virtual instant
// are common here, so a repeat gets a "-<n>" suffix. Recorders that write to one API server
// share one Names, so that two components never pick the same name (which the server would
// refuse with AlreadyExists). The zero value is not usable; call NewNames.
type Names struct {
	lastAt  vtime.Time
	atLast  map[string]int
	started bool
}

// NewNames returns an empty name registry.
func NewNames() *Names { return &Names{atLast: map[string]int{}} }

// name returns a name for an event about objName at now, unique among the names this
// registry gave at now.
func (n *Names) name(objName string, now vtime.Time) string {
	if !n.started || now != n.lastAt {
		n.started = true
		n.lastAt = now
		clear(n.atLast)
	}
	// Built in a buffer on the stack: one allocation, the string, where concatenating the
	// formatted time made two (Names.name was 2.6% of thundering-herd's allocations).
	var buf [64]byte
	b := append(buf[:0], objName...)
	b = append(b, '.')
	b = strconv.AppendInt(b, int64(now), 16)
	name := string(b)
	c := n.atLast[name]
	n.atLast[name] = c + 1
	if c > 0 {
		name += "-" + strconv.Itoa(c)
	}
	return name
}

type recorder struct {
	k         *sim.Kernel
	sink      Sink         // direct delivery (New), or nil
	b         *Broadcaster // delivery through the API (Broadcaster.NewRecorder), or nil
	component string
	host      string
	names     *Names
}

// New returns a recorder whose events carry source {component, host} and go straight to
// sink, synchronously and uncorrelated: no API request, no client QPS. The simulator uses it
// when simulator.events-through-api is false, and tests use it with a FakeSink.
func New(k *sim.Kernel, sink Sink, component, host string) Recorder {
	return &recorder{k: k, sink: sink, component: component, host: host, names: NewNames()}
}

// Eventf builds the event (client-go recorderImpl.generateEvent and makeEvent) and hands it
// to the sink or the broadcaster's queue. Events with an invalid type are dropped
// (util.ValidateEventType).
func (r *recorder) Eventf(obj model.Object, eventType, reason, messageFmt string, args ...any) {
	if eventType != model.EventTypeNormal && eventType != model.EventTypeWarning {
		r.k.Emit(r.component, "event-dropped", model.Ref(obj), 0, "invalid type "+strconv.Quote(eventType))
		return
	}
	now := r.k.Now()
	m := obj.Meta()
	namespace := m.Namespace
	if namespace == "" {
		namespace = namespaceDefault
	}
	apiVersion := ""
	if ki, ok := model.LookupKind(obj.GetKind()); ok {
		apiVersion = ki.APIVersion
	}
	message := fmt.Sprintf(messageFmt, args...)
	ref := model.Ref(obj)
	if r.b != nil && r.b.full() {
		// The queue drops it (Broadcaster.action): the event is not built, but its name is
		// taken all the same, as later names at this instant depend on it.
		r.names.name(m.Name, now)
		r.k.Emit(r.component, "event", ref, 0, eventType+" "+reason+": "+message)
		r.b.drop(r.component, ref)
		return
	}
	ev := &model.Event{
		ObjectMeta: model.ObjectMeta{
			Name:      r.names.name(m.Name, now),
			Namespace: namespace,
		},
		InvolvedObject: model.ObjectReference{
			Kind:            obj.GetKind(),
			Namespace:       m.Namespace,
			Name:            m.Name,
			UID:             m.UID,
			APIVersion:      apiVersion,
			ResourceVersion: m.ResourceVersion,
		},
		Reason:              reason,
		Message:             message,
		Source:              model.EventSource{Component: r.component, Host: r.host},
		FirstTimestamp:      now,
		LastTimestamp:       now,
		Count:               1,
		Type:                eventType,
		ReportingController: r.component,
		ReportingInstance:   r.host,
	}
	r.k.Emit(r.component, "event", ref, 0, eventType+" "+reason+": "+message)
	switch {
	case r.b != nil:
		r.b.action(ev)
	case r.sink != nil:
		r.sink.Record(ev)
	}
}

// FakeSink keeps every event in order, for tests.
type FakeSink struct {
	Events []*model.Event
}

// Record appends ev.
func (s *FakeSink) Record(ev *model.Event) { s.Events = append(s.Events, ev) }

// Reasons returns "<type> <reason>" of every event so far, in order.
func (s *FakeSink) Reasons() []string {
	out := make([]string, len(s.Events))
	for i, ev := range s.Events {
		out[i] = ev.Type + " " + ev.Reason
	}
	return out
}
