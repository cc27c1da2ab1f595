package gc

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim"
)

// BenchmarkBackgroundDelete1000 measures the garbage collector deleting the 1000 pods of a
// ReplicaSet deleted in the background: 1000 live GETs (the owner is cached as absent after
// its delete event) and 1000 deletes through a 40 qps client (kube-api-qps 20, doubled).
func BenchmarkBackgroundDelete1000(b *testing.B) {
	var events uint64
	var virtual time.Duration
	for i := 0; i < b.N; i++ {
		w := newWorld(b, DefaultConfig())
		last := &lastDelete{}
		w.K.Trace().SetWriter(last)
		uid := w.createRS("web").UID
		for j := 0; j < 1000; j++ {
			w.createPod(fmt.Sprintf("web-%04d", j), map[string]string{"app": "web"}, []model.OwnerReference{{APIVersion: "apps/v1", Kind: model.KindReplicaSet, Name: "web", UID: uid, Controller: model.Ptr(true), BlockOwnerDeletion: model.Ptr(true)}}, "")
		}
		w.Run(time.Second)
		start := w.K.Now()
		if _, err := w.Store.Delete(model.KindReplicaSet, testNS, "web", model.DeleteOptions{}); err != nil {
			b.Fatal(err)
		}
		w.Run(10 * time.Minute)
		if n := w.Store.Count(model.KindPod); n != 0 {
			b.Fatalf("%d pods left", n)
		}
		events += w.K.EventsProcessed()
		virtual += time.Duration((last.at - start.Seconds()) * float64(time.Second))
	}
	b.ReportMetric(float64(events)/float64(b.N), "events/op")
	b.ReportMetric(virtual.Seconds()/float64(b.N), "virtual-s/op")
}

// lastDelete is a trace writer that keeps the time of the garbage collector's last delete.
type lastDelete struct{ at float64 }

func (l *lastDelete) Write(p []byte) (int, error) {
	line := string(p)
	if strings.Contains(line, " "+Component+" delete ") {
		if f := strings.Fields(line); len(f) > 0 {
			if v, err := strconv.ParseFloat(f[0], 64); err == nil {
				l.at = v
			}
		}
	}
	return len(p), nil
}

// BenchmarkLeaseUpdateGraphChanges measures the graph builder's share of a kubelet heartbeat:
// each of 500 Leases (owned by their Node, as kubelets create them) is renewed once, and its
// informer notification goes through the handler, the graph-changes queue and
// processGraphChanges. ns/op is per Lease update.
func BenchmarkLeaseUpdateGraphChanges(b *testing.B) {
	const nodes = 500
	w := newWorld(b, DefaultConfig())
	w.K.Trace().SetWriter(nil)
	for i := range nodes {
		n := &model.Node{}
		n.Name = fmt.Sprintf("node-%03d", i)
		obj, err := w.Store.Create(n)
		if err != nil {
			b.Fatal(err)
		}
		l := &model.Lease{}
		l.Name, l.Namespace = n.Name, "kube-node-lease"
		l.OwnerReferences = []model.OwnerReference{{APIVersion: "v1", Kind: model.KindNode, Name: n.Name, UID: obj.Meta().UID}}
		if _, err := w.Store.Create(l); err != nil {
			b.Fatal(err)
		}
	}
	w.Run(time.Second)
	leases := w.gc.monitorByKind[model.KindLease].List(nil)
	if len(leases) != nodes {
		b.Fatalf("%d leases cached", len(leases))
	}
	renewed := make([]model.Object, len(leases))
	for i, l := range leases {
		c := l.(*model.Lease).DeepCopy()
		c.ResourceVersion++
		renewed[i] = c
	}
	h := &monitorHandler{gc: w.gc, kind: model.KindLease, apiVersion: apiVersionOf(model.KindLease)}
	before := w.gc.Stats().GraphChanges
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; {
		for j := 0; j < len(leases) && i < b.N; j, i = j+1, i+1 {
			h.OnUpdate(leases[j], renewed[j])
		}
		w.K.Run(sim.Limits{MaxTime: w.K.Now()})
	}
	b.StopTimer()
	if got := w.gc.Stats().GraphChanges - before; got != uint64(b.N) {
		b.Fatalf("processed %d graph changes of %d", got, b.N)
	}
}
