package record

import (
	"bytes"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim"
	"github.com/reconsim/reconsim/sim/apiserver"
	"github.com/reconsim/reconsim/sim/client"
	"github.com/reconsim/reconsim/vtime"
)

// tracedRecorder is a recorder of component on host that records into a FakeSink, on a
// kernel whose trace goes to the returned buffer.
func tracedRecorder(component, host string) (*sim.Kernel, *bytes.Buffer, *FakeSink, Recorder) {
	k := sim.New(1)
	trace := &bytes.Buffer{}
	k.Trace().SetWriter(trace)
	sink := &FakeSink{}
	return k, trace, sink, New(k, sink, component, host)
}

func TestEventfBuildsUpstreamShapedEvent(t *testing.T) {
	k, trace, sink, r := tracedRecorder("replicaset-controller", "")
	rs := &model.ReplicaSet{ObjectMeta: model.ObjectMeta{Name: "web", Namespace: "prod", UID: "uid-1", ResourceVersion: 7}}
	node := &model.Node{ObjectMeta: model.ObjectMeta{Name: "node-1", UID: "uid-n"}}
	k.After(1500*time.Millisecond, func() {
		r.Eventf(rs, model.EventTypeNormal, "SuccessfulCreate", "Created pod: %s", "web-abc")
		r.Eventf(rs, model.EventTypeNormal, "SuccessfulCreate", "Created pod: %s", "web-def")
		r.Eventf(node, model.EventTypeWarning, "NodeNotReady", "Node is not ready")
		r.Eventf(node, "Bogus", "X", "dropped")
	})
	k.Run(sim.Limits{})

	require.Len(t, sink.Events, 3)
	first := sink.Events[0]
	assert.Equal(t, &model.Event{
		ObjectMeta: model.ObjectMeta{Name: "web.59682f00", Namespace: "prod"},
		InvolvedObject: model.ObjectReference{
			Kind: model.KindReplicaSet, Namespace: "prod", Name: "web", UID: "uid-1", APIVersion: "apps/v1", ResourceVersion: 7,
		},
		Reason:              "SuccessfulCreate",
		Message:             "Created pod: web-abc",
		Source:              model.EventSource{Component: "replicaset-controller"},
		FirstTimestamp:      vtime.FromDuration(1500 * time.Millisecond),
		LastTimestamp:       vtime.FromDuration(1500 * time.Millisecond),
		Count:               1,
		Type:                model.EventTypeNormal,
		ReportingController: "replicaset-controller",
	}, first)
	assert.Equal(t, "web.59682f00-1", sink.Events[1].Name, "same object, same instant: unique name")
	assert.Equal(t, "default", sink.Events[2].Namespace, "cluster-scoped objects' events go to default")
	assert.Equal(t, []string{"Normal SuccessfulCreate", "Normal SuccessfulCreate", "Warning NodeNotReady"}, sink.Reasons())
	assert.Equal(t, `1.500000 replicaset-controller event ReplicaSet prod/web Normal SuccessfulCreate: Created pod: web-abc
1.500000 replicaset-controller event ReplicaSet prod/web Normal SuccessfulCreate: Created pod: web-def
1.500000 replicaset-controller event Node node-1 Warning NodeNotReady: Node is not ready
1.500000 replicaset-controller event-dropped Node node-1 invalid type "Bogus"
`, trace.String())
}

func TestEventfSourceAndFormatting(t *testing.T) {
	k := sim.New(1)
	sink := &FakeSink{}
	New(k, sink, "c", "h").Eventf(&model.Pod{ObjectMeta: model.ObjectMeta{Name: "p", Namespace: "ns"}}, model.EventTypeNormal, "R", "%d%% done", 100)
	require.Len(t, sink.Events, 1)
	assert.Equal(t, "100% done", sink.Events[0].Message)
	assert.Equal(t, model.EventSource{Component: "c", Host: "h"}, sink.Events[0].Source)
	assert.Equal(t, "p.0", sink.Events[0].Name)
}

// TestNamesNameAllocatesOnce: an Event name costs one allocation, the string itself, and a
// repeat at the same instant gets the "-<n>" suffix.
func TestNamesNameAllocatesOnce(t *testing.T) {
	n := NewNames()
	now := vtime.Time(0x1f2e)
	assert.Equal(t, "web-1.1f2e", n.name("web-1", now))
	assert.Equal(t, "web-1.1f2e-1", n.name("web-1", now))
	next := now
	allocs := testing.AllocsPerRun(100, func() {
		next++
		n.name("web-1", next)
	})
	assert.Equal(t, 1.0, allocs)
}

// TestDroppedEventTakesItsName: an event the full queue drops is not built, but takes its
// name as upstream's (built, then dropped) does, so a later event about the object at the
// same instant gets the next suffix; the trace has the event and the drop.
func TestDroppedEventTakesItsName(t *testing.T) {
	k := sim.New(1)
	var trace bytes.Buffer
	k.Trace().SetWriter(&trace)
	srv := apiserver.NewServer(k, apiserver.DefaultConfig())
	b := NewBroadcaster(k, client.New(srv, "kubelet", client.Config{}), "kubelet", Config{MaxQueuedEvents: 1})
	r := b.NewRecorder("kubelet", "node-1")
	pod := &model.Pod{ObjectMeta: model.ObjectMeta{Name: "web", Namespace: "default", UID: "uid-1"}}
	at := vtime.Time(time.Second)
	k.Schedule(at, sim.HandlerFunc(func(uint64) {
		r.Eventf(pod, model.EventTypeNormal, "Pulled", "a")
		r.Eventf(pod, model.EventTypeNormal, "Pulled", "b") // the queue holds a: dropped
	}), 0, false)
	k.Run(sim.Limits{MaxTime: at}) // the broadcaster takes a off the queue at 1 s
	require.Equal(t, 0, b.QueueLength())
	r.Eventf(pod, model.EventTypeNormal, "Pulled", "c")
	k.Run(sim.Limits{MaxTime: at.Add(time.Minute)})

	objs, _, err := srv.Store().List(model.KindEvent, model.ListOptions{})
	require.NoError(t, err)
	var names []string
	for _, o := range objs {
		names = append(names, o.(*model.Event).Name+" "+o.(*model.Event).Message)
	}
	assert.ElementsMatch(t, []string{"web.3b9aca00 a", "web.3b9aca00-2 c"}, names)
	assert.Equal(t, uint64(1), b.Stats().Dropped)
	assert.Contains(t, trace.String(), "kubelet event Pod default/web Normal Pulled: b\n")
	assert.Contains(t, trace.String(), "kubelet event-dropped Pod default/web too many queued events\n")
}

// discardSink drops what it is given.
type discardSink struct{ n int }

func (s *discardSink) Record(*model.Event) { s.n++ }

// TestEventfAllocatesTheEventAndOneString: an event costs two allocations, the Event and one
// string that holds its name, its message and the trace line's detail; the trace line is the
// one Emit would write with model.Ref, and the parts are what they were when each had its own
// string.
func TestEventfAllocatesTheEventAndOneString(t *testing.T) {
	k, trace, sink, r := tracedRecorder("kubelet", "node-1")
	pod := &model.Pod{ObjectMeta: model.ObjectMeta{Name: "web-1", Namespace: "shop", UID: "uid-1"}}
	r.Eventf(pod, model.EventTypeNormal, "Pulled", "Container image %q already present on machine", "nginx")
	r.Eventf(pod, model.EventTypeWarning, "BackOff", "Back-off restarting failed container")
	require.Len(t, sink.Events, 2)
	assert.Equal(t, "web-1.0", sink.Events[0].Name)
	assert.Equal(t, `Container image "nginx" already present on machine`, sink.Events[0].Message)
	assert.Equal(t, "web-1.0-1", sink.Events[1].Name)
	assert.Equal(t, "Back-off restarting failed container", sink.Events[1].Message)
	assert.Equal(t, "0.000000 kubelet event "+model.Ref(pod)+` Normal Pulled: Container image "nginx" already present on machine
0.000000 kubelet event `+model.Ref(pod)+" Warning BackOff: Back-off restarting failed container\n", trace.String())

	k.Trace().SetWriter(nil)
	discard := &discardSink{}
	r = New(k, discard, "kubelet", "node-1")
	allocs := testing.AllocsPerRun(100, func() {
		r.Eventf(pod, model.EventTypeNormal, "Started", "Started container app")
	})
	assert.Equal(t, 2.0, allocs)
	assert.Equal(t, 101, discard.n)
}

// TestNamesAcrossInstants: a name's suffix counts the names of its object at its instant,
// past the bases Names keeps too, and Names clears them only at a new instant once it keeps
// that many.
func TestNamesAcrossInstants(t *testing.T) {
	n := NewNames()
	for i := range maxNamesKept + 10 {
		n.name(fmt.Sprintf("web-%d", i), 1)
	}
	assert.Equal(t, "web-7.1-1", n.name("web-7", 1), "a busy instant keeps its names")
	assert.Len(t, n.taken, maxNamesKept+10)
	assert.Equal(t, "web-7.2", n.name("web-7", 2))
	assert.Equal(t, map[string]int{"web-7.2": 1}, n.taken, "a new instant clears the full map")
	assert.Equal(t, "web-7.3", n.name("web-7", 3))
	assert.Equal(t, "web-7.3-1", n.name("web-7", 3))
	assert.Equal(t, map[string]int{"web-7.2": 1, "web-7.3": 2}, n.taken, "a quiet instant keeps the map")
}

// recordingArg records an event when it is formatted.
type recordingArg struct {
	r   Recorder
	obj model.Object
}

func (a recordingArg) String() string {
	a.r.Eventf(a.obj, model.EventTypeNormal, "Inner", "formatted")
	return "arg"
}

// TestEventfArgumentThatRecords: an argument whose formatting records an event about the
// same object at the same instant does not make Eventf reuse that event's name.
func TestEventfArgumentThatRecords(t *testing.T) {
	k := sim.New(1)
	sink := &FakeSink{}
	r := New(k, sink, "c", "")
	pod := &model.Pod{ObjectMeta: model.ObjectMeta{Name: "web", Namespace: "ns"}}
	r.Eventf(pod, model.EventTypeNormal, "Outer", "%v", recordingArg{r: r, obj: pod})
	require.Len(t, sink.Events, 2)
	assert.Equal(t, "Inner web.0", sink.Events[0].Reason+" "+sink.Events[0].Name)
	assert.Equal(t, "Outer web.0-1 arg", sink.Events[1].Reason+" "+sink.Events[1].Name+" "+sink.Events[1].Message)
}
