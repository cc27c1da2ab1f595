package record

import (
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
	lastAt vtime.Time
	// taken counts the names given per base ("<object name>.<hex nanoseconds>"). A base
	// names its instant (the hex digits after its last dot), so the bases of earlier instants
	// never match a later one's and need not be cleared at every instant, which cost the
	// map's capacity each time (a capacity grown at the busiest instant, as a map never
	// shrinks). The map is cleared at an instant's first name once it holds maxNamesKept
	// bases: once per that many names.
	taken map[string]int
}

// maxNamesKept is how many bases Names keeps before it clears them.
const maxNamesKept = 1024

// NewNames returns an empty name registry.
func NewNames() *Names { return &Names{taken: map[string]int{}} }

// name returns a name for an event about objName at now, unique among the names this
// registry gave at now.
func (n *Names) name(objName string, now vtime.Time) string {
	// Built in a buffer on the stack: one allocation, the string.
	var buf [64]byte
	b, baseLen := n.appendName(buf[:0], objName, now)
	name := string(b)
	n.take(name[:baseLen])
	return name
}

// appendName appends to b the name name would return, and returns the length of its base
// ("<object name>.<hex nanoseconds>", before any "-<n>" suffix); the name is not taken until
// take is given that base as a string. The two halves let a caller build the name into a
// larger string, the one allocation it makes (recorder.Eventf), and take it from there.
func (n *Names) appendName(b []byte, objName string, now vtime.Time) ([]byte, int) {
	if now != n.lastAt && len(n.taken) >= maxNamesKept {
		clear(n.taken)
	}
	n.lastAt = now
	start := len(b)
	b = append(b, objName...)
	b = append(b, '.')
	b = strconv.AppendInt(b, int64(now), 16)
	baseLen := len(b) - start
	if c := n.taken[string(b[start:])]; c > 0 {
		b = append(b, '-')
		b = strconv.AppendInt(b, int64(c), 10)
	}
	return b, baseLen
}

// take takes the name appendName just appended, given its base: the next name with that base
// at this instant gets the next suffix. Nothing may call appendName in between.
func (n *Names) take(base string) {
	n.taken[base]++
}

type recorder struct {
	k         *sim.Kernel
	sink      Sink         // direct delivery (New), or nil
	b         *Broadcaster // delivery through the API (Broadcaster.NewRecorder), or nil
	component string
	host      string
	names     *Names
	// buf and msgBuf are scratch for Eventf's string and its message, kept for the next
	// event.
	buf, msgBuf []byte
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
	// The name and the trace line's detail, "<type> <reason>: <message>", whose tail is the
	// message, are built into one string: one allocation for the three. The message is
	// formatted first, apart, as formatting may run the arguments' own methods, and nothing
	// may take a name between appendName and take.
	r.msgBuf = appendMessage(r.msgBuf[:0], messageFmt, args)
	b, baseLen := r.names.appendName(r.buf[:0], m.Name, now)
	nameLen := len(b)
	b = append(b, eventType...)
	b = append(b, ' ')
	b = append(b, reason...)
	b = append(b, ": "...)
	messageAt := len(b)
	b = append(b, r.msgBuf...)
	r.buf = b
	s := string(b)
	r.names.take(s[:baseLen])
	name, detail, message := s[:nameLen], s[nameLen:], s[messageAt:]
	kind := obj.GetKind()
	r.k.EmitRef(r.component, "event", string(kind), m.Namespace, m.Name, 0, detail)
	if r.b != nil && r.b.full() {
		// The queue drops it (Broadcaster.action): the event is not built, but its name is
		// taken all the same, as later names at this instant depend on it.
		r.b.drop(r.component, kind, m.Namespace, m.Name)
		return
	}
	ev := &model.Event{
		ObjectMeta: model.ObjectMeta{
			Name:      name,
			Namespace: namespace,
		},
		InvolvedObject: model.ObjectReference{
			Kind:            kind,
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
