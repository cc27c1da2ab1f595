package operator

import (
	"context"
	"strconv"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim"
)

// BenchmarkReconcileGetUpdate compares a Reconcile body doing one cached Get and one Update
// through the controller-runtime client (typed k8s.io/api objects, converted at the boundary)
// with the same work written against the simulator's native client (model objects). Both
// wait one virtual second after the Update so the cache has caught up; that wait is the same
// kernel work in both. The bound is operator <= 3x native.
func BenchmarkReconcileGetUpdate(b *testing.B) {
	key := types.NamespacedName{Namespace: "default", Name: "web"}
	b.Run("operator", func(b *testing.B) {
		h := newHarness(b)
		c := h.m.GetClient()
		h.run(b, func(ctx context.Context) {
			if err := c.Create(ctx, deployment("web")); err != nil {
				b.Fatal(err)
			}
			settle(ctx)
			p := sim.ProcFromContext(ctx)
			i := 0
			for b.Loop() {
				var d appsv1.Deployment
				if err := c.Get(ctx, key, &d); err != nil {
					b.Fatal(err)
				}
				d.Annotations = map[string]string{"n": strconv.Itoa(i)}
				if err := c.Update(ctx, &d); err != nil {
					b.Fatal(err)
				}
				i++
				p.Sleep(time.Second)
			}
		})
	})
	b.Run("native", func(b *testing.B) {
		h := newHarness(b)
		c := h.m.env.Client
		inf := h.m.env.Factory.For(model.KindDeployment)
		h.run(b, func(ctx context.Context) {
			if err := h.m.client.Create(ctx, deployment("web")); err != nil {
				b.Fatal(err)
			}
			settle(ctx)
			p := sim.ProcFromContext(ctx)
			i := 0
			for b.Loop() {
				obj, ok := inf.Get(key.Namespace, key.Name)
				if !ok {
					b.Fatal("not in the cache")
				}
				d := obj.DeepCopyObject().(*model.Deployment)
				d.Annotations = map[string]string{"n": strconv.Itoa(i)}
				if _, err := c.Update(ctx, d); err != nil {
					b.Fatal(err)
				}
				i++
				p.Sleep(time.Second)
			}
		})
	})
}
