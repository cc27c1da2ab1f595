package nodelifecycle

import (
	"fmt"
	"testing"
	"time"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim"
	"github.com/reconsim/reconsim/sim/controllers/nodelifecycle/testworld"
	"github.com/reconsim/reconsim/vtime"
)

// BenchmarkMonitorNodeHealth500 measures one monitorNodeHealth pass over a healthy cluster of
// 500 nodes in 3 zones with 30 pods each (the thundering-herd shape): every node's Lease and
// Ready heartbeat are read, nothing needs writing. This pass runs every NodeMonitorPeriod (5s)
// for the whole run.
func BenchmarkMonitorNodeHealth500(b *testing.B) {
	const nodes, podsPerNode = 500, 30
	w, err := testworld.New(b, testworld.Options{Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	zones := []string{"a", "b", "c"}
	for i := range nodes {
		name := fmt.Sprintf("node-%03d", i)
		if err := w.AddNode(name, zones[i%len(zones)], "r", model.ConditionTrue, nil, true); err != nil {
			b.Fatal(err)
		}
		for j := range podsPerNode {
			if err := w.AddPod("default", fmt.Sprintf("%s-pod-%02d", name, j), name, nil, 30); err != nil {
				b.Fatal(err)
			}
		}
	}
	c, f := w.Client("kcm-nodelifecycle")
	nc, err := New(w.K, c, f, w.Recorder(ComponentName), DefaultConfig())
	if err != nil {
		b.Fatal(err)
	}
	f.Start(w.K)
	nc.Start()
	// Let the informers sync and the first passes settle every node's health record.
	if err := w.RunUntil(vtime.Time(0).Add(20 * time.Second)); err != nil {
		b.Fatal(err)
	}
	passes := 0
	b.ReportAllocs()
	b.ResetTimer()
	w.K.Spawn("bench", func(p *sim.Proc) {
		for range b.N {
			nc.monitorNodeHealth(p)
			passes++
		}
	})
	if err := w.RunUntil(w.K.Now()); err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	if passes != b.N {
		b.Fatalf("ran %d passes of %d", passes, b.N)
	}
	if zs := nc.ZoneStates(); len(zs) != len(zones) || zs[0].State != ZoneNormal {
		b.Fatalf("zones %+v", zs)
	}
}
