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

type recorder struct {
	k         *sim.Kernel
	sink      Sink
	component string
	host      string

	// lastAt and namesAtLastAt make names unique: upstream names events "<name>.<unix nanos
	// in hex>", which a real clock almost never repeats, but two events about one object at
	// one virtual instant are common here. A repeat gets a "-<n>" suffix.
	lastAt        vtime.Time
	namesAtLastAt map[string]int
}

// New returns a recorder whose events carry source {component, host} and go to sink.
func New(k *sim.Kernel, sink Sink, component, host string) Recorder {
	return &recorder{k: k, sink: sink, component: component, host: host, namesAtLastAt: map[string]int{}}
}

// Eventf builds the event and hands it to the sink. Events with an invalid type are dropped.
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
	ev := &model.Event{
		ObjectMeta: model.ObjectMeta{
			Name:      r.uniqueName(m.Name, now),
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
		Reason:         reason,
		Message:        message,
		Source:         model.EventSource{Component: r.component, Host: r.host},
		FirstTimestamp: now,
		LastTimestamp:  now,
		Count:          1,
		Type:           eventType,
	}
	r.k.Emit(r.component, "event", model.Ref(obj), 0, eventType+" "+reason+": "+message)
	if r.sink != nil {
		r.sink.Record(ev)
	}
}

func (r *recorder) uniqueName(objName string, now vtime.Time) string {
	if now != r.lastAt {
		r.lastAt = now
		clear(r.namesAtLastAt)
	}
	name := objName + "." + strconv.FormatInt(int64(now), 16)
	n := r.namesAtLastAt[name]
	r.namesAtLastAt[name] = n + 1
	if n > 0 {
		name += "-" + strconv.Itoa(n)
	}
	return name
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
