package apiserver

import (
	"fmt"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim"
	"github.com/reconsim/reconsim/vtime"
)

// countingSink counts deliveries and nothing else.
type countingSink struct{ events int }

func (c *countingSink) OnWatchEvent(WatchEvent) { c.events++ }
func (c *countingSink) OnWatchClosed(error)     {}

// benchRoundTrip measures one blocking write through Server.Do — fault check, in-flight
// admission, service time (a process sleep), admission and validation, the store write, the
// trace line — plus its delivery to one watcher, with the kernel run until everything is
// delivered. next makes the object of the i-th write from the stored one.
func benchRoundTrip(b *testing.B, seed model.Object, status bool, next func(stored model.Object, i int) model.Object) {
	benchRoundTripWith(b, seed, status, false, next)
}

// benchAPF is set by the APF benchmarks: the server runs API Priority and Fairness.
var benchAPF bool

// benchRoundTripWith is benchRoundTrip; skipUpdateValidation leaves model.ValidateUpdate out,
// to show the server's own share.
func benchRoundTripWith(b *testing.B, seed model.Object, status, skipUpdateValidation bool, next func(stored model.Object, i int) model.Object) {
	k := sim.New(1)
	cfg := DefaultConfig()
	if benchAPF {
		cfg.APF = APFConfig{Enabled: true, SizeBasedListCost: true, Users: testUsers}
	}
	srv := NewServer(k, cfg)
	if skipUpdateValidation {
		srv.Store().validateUpdate = func(model.Object, model.Object, bool) field.ErrorList { return nil }
	}
	stored, err := srv.Store().Create(seed)
	if err != nil {
		b.Fatal(err)
	}
	sink := &countingSink{}
	if _, err := srv.Store().Watch(seed.GetKind(), model.ListOptions{}, 0, sink); err != nil {
		b.Fatal(err)
	}
	req := &Request{Client: "bench", Verb: model.VerbUpdate, Kind: seed.GetKind(), Namespace: seed.Meta().Namespace, Name: seed.Meta().Name}
	if status {
		req.Subresource = "status"
	}
	var failure error
	b.ReportAllocs()
	b.ResetTimer()
	k.Spawn("writer", func(p *sim.Proc) {
		for i := 0; i < b.N; i++ {
			req.Object = next(stored, i)
			resp := srv.Do(p, req)
			if resp.Err != nil {
				failure = resp.Err
				return
			}
			stored = resp.Object
		}
	})
	lim := sim.Limits{}
	if benchAPF {
		// APF's borrowing timer ticks forever: stop once the writes are done.
		lim.QuiescenceWindow = time.Second
	}
	k.Run(lim)
	b.StopTimer()
	if failure != nil {
		b.Fatal(failure)
	}
	if sink.events != b.N {
		b.Fatalf("delivered %d events for %d writes", sink.events, b.N)
	}
}

// BenchmarkAPIRoundTrip is the kubelet's lease renewal, the most frequent write in a cluster.
func BenchmarkAPIRoundTrip(b *testing.B) {
	lease := newLease("node-1")
	benchRoundTrip(b, lease, false, func(stored model.Object, i int) model.Object {
		l := stored.(*model.Lease).DeepCopy()
		t := vtime.Time(i+1) * vtime.Time(time.Second)
		l.Spec.RenewTime = &t
		return l
	})
}

// BenchmarkAPIRoundTripAPF is BenchmarkAPIRoundTrip through API Priority and Fairness: a
// lease renewal classified (client "bench": global-default), queued and dispatched.
func BenchmarkAPIRoundTripAPF(b *testing.B) {
	benchAPF = true
	defer func() { benchAPF = false }()
	lease := newLease("node-1")
	req := func(stored model.Object, i int) model.Object {
		l := stored.(*model.Lease).DeepCopy()
		t := vtime.Time(i+1) * vtime.Time(time.Second)
		l.Spec.RenewTime = &t
		return l
	}
	benchRoundTrip(b, lease, false, req)
}

// BenchmarkAPIRoundTripServerOnly is BenchmarkAPIRoundTrip without model.ValidateUpdate: the
// server's, store's, watch's and kernel's share of the round trip.
func BenchmarkAPIRoundTripServerOnly(b *testing.B) {
	lease := newLease("node-1")
	benchRoundTripWith(b, lease, false, true, func(stored model.Object, i int) model.Object {
		l := stored.(*model.Lease).DeepCopy()
		t := vtime.Time(i+1) * vtime.Time(time.Second)
		l.Spec.RenewTime = &t
		return l
	})
}

// BenchmarkAPIRoundTripPodStatus is a kubelet pod status update (the status subresource).
func BenchmarkAPIRoundTripPodStatus(b *testing.B) {
	pod := newPod("web-1")
	pod.Spec.NodeName = "node-1"
	benchRoundTrip(b, pod, true, func(stored model.Object, i int) model.Object {
		p := stored.(*model.Pod).DeepCopy()
		p.Status.Phase = model.PodRunning
		p.Status.ContainerStatuses = []model.ContainerStatus{{Name: "app", Ready: i%2 == 0, RestartCount: int32(i)}}
		return p
	})
}

// BenchmarkAPIRoundTripPodLabels is a controller relabelling a pod through the main resource.
func BenchmarkAPIRoundTripPodLabels(b *testing.B) {
	pod := newPod("web-1")
	pod.Spec.NodeName = "node-1"
	values := []string{"a", "b"}
	benchRoundTrip(b, pod, false, func(stored model.Object, i int) model.Object {
		p := stored.(*model.Pod).DeepCopy()
		p.Labels = map[string]string{"rev": values[i%2]}
		return p
	})
}

// BenchmarkListPodsByFieldSelector is a kubelet's LIST of its own pods (fieldSelector
// spec.nodeName=<node>) in a 500-node cluster of 15,000 pods, served through the
// spec.nodeName index; the unindexed case selects one pod by status.podIP, which scans them
// all.
func BenchmarkListPodsByFieldSelector(b *testing.B) {
	const nodes, podsPerNode = 500, 30
	_, s := newTestStore(b, nil)
	for n := range nodes {
		for i := range podsPerNode {
			p := newPod(fmt.Sprintf("svc-%03d-%02d", n, i))
			p.Spec.NodeName = fmt.Sprintf("node-%03d", (n*podsPerNode+i)%nodes)
			stored := mustCreate(b, s, p)
			st := copyOf(stored)
			st.Status.PodIP = fmt.Sprintf("10.%d.%d.%d", n/250, n%250, i)
			if _, err := s.UpdateStatus(st); err != nil {
				b.Fatal(err)
			}
		}
	}
	for _, bc := range []struct {
		name  string
		sel   func(i int) fields.Selector
		items int
	}{
		{"spec.nodeName", func(i int) fields.Selector {
			return fields.OneTermEqualSelector("spec.nodeName", fmt.Sprintf("node-%03d", i%nodes))
		}, podsPerNode},
		{"status.podIP", func(i int) fields.Selector {
			return fields.OneTermEqualSelector("status.podIP", fmt.Sprintf("10.%d.%d.%d", (i%nodes)/250, (i%nodes)%250, i%podsPerNode))
		}, 1},
	} {
		b.Run(bc.name, func(b *testing.B) {
			sels := make([]fields.Selector, nodes)
			for i := range sels {
				sels[i] = bc.sel(i)
			}
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				items, _, err := s.List(model.KindPod, model.ListOptions{FieldSelector: sels[i%nodes]})
				if err != nil || len(items) != bc.items {
					b.Fatalf("listed %d pods (%v), want %d", len(items), err, bc.items)
				}
				i++
			}
		})
	}
}
