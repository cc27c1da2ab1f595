package replicaset

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/reconsim/reconsim/model"
)

// scaleScenario creates a ReplicaSet of n replicas, lets the controller create them, then
// scales it to n/2 and lets it delete the surplus. It returns the world.
func scaleScenario(tb testing.TB, n int) *world {
	w := newWorld(tb, DefaultConfig())
	rs := &model.ReplicaSet{}
	rs.Name, rs.Namespace = "web", testNS
	rs.Spec.Replicas = model.Ptr(int32(n))
	rs.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}
	rs.Spec.Template = template("web")
	if _, err := w.Store.Create(rs); err != nil {
		tb.Fatal(err)
	}
	w.Run(time.Minute)
	cur := w.rs("web").DeepCopy()
	cur.Spec.Replicas = model.Ptr(int32(n / 2))
	if _, err := w.Store.Update(cur); err != nil {
		tb.Fatal(err)
	}
	w.Run(time.Minute)
	return w
}

func TestSameSeedSameTrace(t *testing.T) {
	a := scaleScenario(t, 50)
	b := scaleScenario(t, 50)
	if a.K.Trace().Hash() != b.K.Trace().Hash() || a.Trace() != b.Trace() {
		t.Fatal("two runs with the same seed produced different traces")
	}
	st := a.rs("web").Status
	if st.Replicas != 25 || st.ObservedGeneration != 2 {
		t.Fatalf("status after scaling 50 -> 25: %+v", st)
	}
	s := a.rsc.Stats()
	if s.PodsCreated != 50 || s.PodsDeleted != 25 || s.CreateErrors != 0 {
		t.Fatalf("stats: %+v", s)
	}
	// 50 = 1+2+4+8+16+19: six batches.
	if s.SlowStartBatches != 6 {
		t.Fatalf("slow-start batches = %d, want 6", s.SlowStartBatches)
	}
}

// BenchmarkScale500 measures creating 500 pods (one burst, slow start 1..256, 245) and
// deleting 250 of them, end to end through the simulated API server and informers.
func BenchmarkScale500(b *testing.B) {
	var events uint64
	var virtual time.Duration
	for i := 0; i < b.N; i++ {
		w := scaleScenario(b, 500)
		events += w.K.EventsProcessed()
		virtual += w.K.Now().Duration()
	}
	b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
	b.ReportMetric(float64(events)/float64(b.N), "events/op")
}
