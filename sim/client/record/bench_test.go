package record

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim"
	"github.com/reconsim/reconsim/sim/apiserver"
	"github.com/reconsim/reconsim/sim/client"
	"github.com/reconsim/reconsim/vtime"
)

// BenchmarkBroadcasterEvents is the Event path of a busy cluster: components record events
// (mostly about new objects, a few repeats) through broadcasters that correlate them and
// create or patch them through the API server, whose store keeps them with their expiries.
// One op is one event.
func BenchmarkBroadcasterEvents(b *testing.B) {
	k := sim.New(1)
	srv := apiserver.NewServer(k, apiserver.DefaultConfig())
	const components = 50
	recorders := make([]Recorder, components)
	names := NewNames()
	for i := range recorders {
		name := fmt.Sprintf("node-%d", i)
		bc := NewBroadcaster(k, client.New(srv, name, client.Config{QPS: 1e6, Burst: 1e6}), name, Config{Names: names})
		recorders[i] = bc.NewRecorder("kubelet", name)
	}
	pods := make([]*model.Pod, 4096)
	for i := range pods {
		pods[i] = &model.Pod{ObjectMeta: model.ObjectMeta{Name: fmt.Sprintf("web-%d", i), Namespace: "default", UID: fmt.Sprintf("uid-%d", i)}}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		r := recorders[i%components]
		pod := pods[(i/components)%len(pods)]
		r.Eventf(pod, model.EventTypeNormal, "Pulled", "Container image %q already present on machine", "nginx")
		if i%components == components-1 {
			k.Run(sim.Limits{MaxTime: k.Now().Add(10 * time.Millisecond)})
		}
	}
	k.Run(sim.Limits{MaxTime: k.Now().Add(time.Minute)})
}

// BenchmarkCorrelator is the correlator alone on a controller-manager's mix in a
// thundering herd: each pod brings a ReplicaSet's SuccessfulCreate (one of ten ReplicaSets,
// so they aggregate), events about the pod itself with its own messages, and the server's
// copy of each written event back through UpdateState. There are twice as many pods as
// cache entries, so the caches evict. One op is one event.
func BenchmarkCorrelator(b *testing.B) {
	clock := &vtime.ManualClock{}
	c := NewCorrelator(clock, CorrelatorOptions{}, NewNames())
	const pods = 2 * DefaultLRUCacheSize
	type kind struct{ reason, format string }
	perPod := []kind{
		{"SuccessfulCreate", "Created pod: %s"},
		{"TaintManagerEviction", "Marking for deletion Pod default/%s"},
		{"NodeNotReady", "Node is not ready"},
		{"Pulled", "Container image \"nginx\" already present on machine"},
		{"Started", "Started container %s"},
	}
	events := make([]*model.Event, 0, pods*len(perPod))
	for i := range pods {
		pod := fmt.Sprintf("web-%d", i)
		for _, k := range perPod {
			obj := model.ObjectReference{Kind: model.KindPod, Namespace: "default", Name: pod, UID: "uid-" + pod, APIVersion: "v1"}
			source := "node-controller"
			if k.reason == "SuccessfulCreate" {
				rs := fmt.Sprintf("web-%d", i%10)
				obj = model.ObjectReference{Kind: model.KindReplicaSet, Namespace: "default", Name: rs, UID: "uid-rs-" + rs, APIVersion: "apps/v1"}
				source = "replicaset-controller"
			}
			message := k.format
			if strings.Contains(message, "%s") {
				message = fmt.Sprintf(message, pod)
			}
			events = append(events, &model.Event{
				ObjectMeta:     model.ObjectMeta{Name: obj.Name + ".x", Namespace: "default"},
				InvolvedObject: obj, Source: model.EventSource{Component: source},
				Type: model.EventTypeNormal, Reason: k.reason, Message: message, Count: 1,
				ReportingController: source,
			})
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		clock.T = clock.T.Add(time.Millisecond)
		r := c.EventCorrelate(events[i%len(events)])
		if !r.Skip {
			stored := *r.Event
			c.UpdateState(&stored)
		}
	}
}
