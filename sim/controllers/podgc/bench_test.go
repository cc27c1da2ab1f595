package podgc

import (
	"fmt"
	"testing"
	"time"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim"
)

// BenchmarkGCPass15000 measures one gc pass over 15,000 running pods on 500 Ready nodes (the
// thundering-herd shape) with nothing to collect, after one pod was created and deleted since
// the previous pass (so the set of pods changed, as it does in a busy cluster).
func BenchmarkGCPass15000(b *testing.B) {
	const nodes, podsPerNode = 500, 30
	cfg := DefaultConfig()
	cfg.GCCheckPeriod = maxPeriod // the benchmark runs the passes itself
	w := newWorld(b, cfg)
	for i := range nodes {
		n := &model.Node{}
		n.Name = fmt.Sprintf("node-%03d", i)
		n.Status.Conditions = []model.NodeCondition{{Type: model.NodeReady, Status: model.ConditionTrue}}
		if _, err := w.Store.Create(n); err != nil {
			b.Fatal(err)
		}
		for j := range podsPerNode {
			p := benchPod(fmt.Sprintf("%s-pod-%02d", n.Name, j))
			p.Spec.NodeName = n.Name
			obj, err := w.Store.Create(p)
			if err != nil {
				b.Fatal(err)
			}
			p = obj.(*model.Pod).DeepCopy()
			p.Status.Phase = model.PodRunning
			if _, err := w.Store.UpdateStatus(p); err != nil {
				b.Fatal(err)
			}
		}
	}
	w.Run(time.Second)
	runs := w.gcc.Stats().Runs
	b.ReportAllocs()
	b.ResetTimer()
	w.K.Spawn("bench", func(p *sim.Proc) {
		for i := range b.N {
			name := fmt.Sprintf("churn-%d", i)
			if _, err := w.Store.Create(benchPod(name)); err != nil {
				b.Error(err)
				return
			}
			if _, err := w.Store.Delete(model.KindPod, testNS, name, model.DeleteOptions{GracePeriodSeconds: model.Ptr(int64(0))}); err != nil {
				b.Error(err)
				return
			}
			p.Sleep(100 * time.Millisecond)
			w.gcc.gc(p)
		}
	})
	w.Run(time.Duration(b.N+1) * 100 * time.Millisecond)
	b.StopTimer()
	s := w.gcc.Stats()
	if s.Runs != runs+uint64(b.N) || s.TerminatedDeleted+s.TerminatingDeleted+s.OrphanedDeleted+s.UnscheduledDeleted != 0 {
		b.Fatalf("stats %+v after %d passes", s, b.N)
	}
}

func benchPod(name string) *model.Pod {
	p := &model.Pod{}
	p.Name, p.Namespace = name, testNS
	p.Spec.Containers = []model.Container{{Name: "app", Image: "registry.example/app:1"}}
	return p
}
