package deployment

import (
	"testing"
	"time"

	"github.com/reconsim/reconsim/model"
)

// BenchmarkRollout100 measures one rolling update of a 100-replica Deployment (25%/25%) with
// the real ReplicaSet controller and the fake kubelet, from the template change until the
// rollout is complete; it reports the kernel events and the virtual seconds per wall second.
func BenchmarkRollout100(b *testing.B) {
	var events uint64
	var virtual time.Duration
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		w := newWorld(b, DefaultConfig(), 2*time.Second)
		s := deploymentSpec{name: "web", replicas: 100, strategy: model.RollingUpdateDeploymentStrategyType, maxSurge: "25%", maxUnavailable: "25%",
			image: "v1", progressDeadlineSeconds: 600, revisionHistoryLimit: 10}
		if _, err := w.Store.Create(s.build()); err != nil {
			b.Fatal(err)
		}
		w.Run(time.Minute)
		w.K.Trace().SetWriter(nil)
		w.updateDeployment("web", func(d *model.Deployment) { d.Spec.Template = podTemplate("web", "v2", false) })
		start, startEvents := w.K.Now(), w.K.EventsProcessed()
		b.StartTimer()
		w.Run(2 * time.Minute)
		b.StopTimer()
		if c := GetDeploymentCondition(w.mustDeployment("web").Status, model.DeploymentProgressing); c == nil || c.Reason != NewRSAvailableReason {
			b.Fatalf("rollout did not complete: %+v", c)
		}
		events += w.K.EventsProcessed() - startEvents
		virtual += w.K.Now().Sub(start)
	}
	b.ReportMetric(float64(events)/float64(b.N), "events/op")
	b.ReportMetric(virtual.Seconds()/b.Elapsed().Seconds(), "virtual-s/wall-s")
}
