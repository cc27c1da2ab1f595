package gc

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim/apiserver"
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
		w.k.Trace().SetWriter(last)
		uid := w.createRS("web").UID
		for j := 0; j < 1000; j++ {
			w.createPod(fmt.Sprintf("web-%04d", j), map[string]string{"app": "web"}, []model.OwnerReference{{APIVersion: "apps/v1", Kind: model.KindReplicaSet, Name: "web", UID: uid, Controller: model.Ptr(true), BlockOwnerDeletion: model.Ptr(true)}}, "")
		}
		w.run(time.Second)
		start := w.k.Now()
		if _, err := w.store.Delete(model.KindReplicaSet, testNS, "web", apiserver.DeleteOptions{}); err != nil {
			b.Fatal(err)
		}
		w.run(10 * time.Minute)
		if n := w.store.Count(model.KindPod); n != 0 {
			b.Fatalf("%d pods left", n)
		}
		events += w.k.EventsProcessed()
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
