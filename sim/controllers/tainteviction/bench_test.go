package tainteviction

import (
	"fmt"
	"testing"
	"time"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim/controllers/nodelifecycle/testworld"
	"github.com/reconsim/reconsim/vtime"
)

// BenchmarkEvictNode30 measures the eviction of the 30 pods of a node that gets the
// unreachable NoExecute taint with no toleration for it: for each pod, the event, the live GET,
// the DisruptionTarget status write and the delete (the setup is not timed).
func BenchmarkEvictNode30(b *testing.B) {
	const pods = 30
	for range b.N {
		b.StopTimer()
		w, err := testworld.New(b, testworld.Options{Seed: 1, DisableDefaultTolerationSeconds: true})
		if err != nil {
			b.Fatal(err)
		}
		if err := w.AddNode("node-a", "a", "r", model.ConditionTrue, nil, false); err != nil {
			b.Fatal(err)
		}
		for i := range pods {
			if err := w.AddPod("default", fmt.Sprintf("pod-%02d", i), "node-a", nil, 30); err != nil {
				b.Fatal(err)
			}
		}
		c, f := w.Client("kcm-tainteviction")
		tc := New(w.K, c, f, nil, DefaultConfig())
		f.Start(w.K)
		tc.Start()
		if err := w.RunUntil(vtime.Time(0).Add(time.Second)); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if err := w.SetTaints("node-a", []model.Taint{{Key: "node.kubernetes.io/unreachable", Effect: model.TaintEffectNoExecute}}); err != nil {
			b.Fatal(err)
		}
		if err := w.RunUntil(w.K.Now().Add(time.Minute)); err != nil {
			b.Fatal(err)
		}
		if s := tc.Stats(); s.Deleted != pods {
			b.Fatalf("deleted %d pods of %d", s.Deleted, pods)
		}
	}
}
