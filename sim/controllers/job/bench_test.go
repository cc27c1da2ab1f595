package job

import (
	"testing"
	"time"

	"github.com/reconsim/reconsim/model"
)

// indexedRun runs an Indexed Job of n completions, parallelism n/10, 30s pods, to completion.
func indexedRun(tb testing.TB, n int) *world {
	w := newWorld(tb, DefaultConfig())
	w.runFor = 30 * time.Second
	j := &model.Job{}
	j.Name, j.Namespace = "render", testNS
	j.Spec.Completions = model.Ptr(int32(n))
	j.Spec.Parallelism = model.Ptr(int32(n / 10))
	j.Spec.CompletionMode = model.Ptr(model.IndexedCompletion)
	j.Spec.Template.Spec.Containers = []model.Container{{Name: "app", Image: "registry.example/batch:1"}}
	j.Spec.Template.Spec.RestartPolicy = model.RestartPolicyNever
	if _, err := w.Store.Create(j); err != nil {
		tb.Fatal(err)
	}
	w.Run(30 * time.Minute)
	return w
}

// Two runs with the same seed give the same trace; an Indexed Job of 200 completes with every
// index counted once.
func TestIndexedJobSameSeedSameTrace(t *testing.T) {
	a, b := indexedRun(t, 200), indexedRun(t, 200)
	if a.K.Trace().Hash() != b.K.Trace().Hash() {
		t.Fatal("two runs with the same seed produced different traces")
	}
	st := a.job("render").Status
	if st.Succeeded != 200 || st.CompletedIndexes != "0-199" || !model.IsJobFinished(a.job("render")) {
		t.Fatalf("status: succeeded=%d completedIndexes=%q conditions=%+v", st.Succeeded, st.CompletedIndexes, st.Conditions)
	}
	if s := a.jm.Stats(); s.PodsCreated != 200 || s.FinalizersRemoved != 200 {
		t.Fatalf("stats: %+v", s)
	}
}

// BenchmarkIndexedJob1000 measures an Indexed Job of 1000 completions, 100 at a time, through
// the simulated API server, informers and a fake kubelet.
func BenchmarkIndexedJob1000(b *testing.B) {
	var events uint64
	for i := 0; i < b.N; i++ {
		w := indexedRun(b, 1000)
		events += w.K.EventsProcessed()
	}
	b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
	b.ReportMetric(float64(events)/float64(b.N), "events/op")
}
