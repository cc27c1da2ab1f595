package record

import (
	"fmt"
	"testing"
	"time"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim"
	"github.com/reconsim/reconsim/sim/apiserver"
	"github.com/reconsim/reconsim/sim/client"
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
