package replicaset

import (
	"fmt"
	"time"

	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim/apiserver"
	"github.com/reconsim/reconsim/sim/internal/testworld"
	"github.com/reconsim/reconsim/vtime"
)

const testNS = testworld.Namespace

// world is the shared test world with the ReplicaSet controller on its own client and
// informers. The test plays every other actor (user, scheduler, kubelet) by writing to the
// store directly.
type world struct {
	*testworld.World
	rsc *Controller
}

func newWorld(t testing.TB, cfg Config) *world {
	w := &world{World: testworld.New(t, testworld.Options{})}
	rsc, f := testworld.NewController(w.World, Component, Component, New, cfg)
	w.rsc = rsc
	f.Start(w.K)
	rsc.Start()
	w.Settle(100 * time.Millisecond)
	w.PodLine = func(i int, p *model.Pod) string { return fmt.Sprintf("%d %s", i, podLine(p)) }
	return w
}

func (w *world) rs(name string) *model.ReplicaSet {
	return testworld.Get[*model.ReplicaSet](w.World, model.KindReplicaSet, testNS, name)
}

func template(name string) model.PodTemplateSpec {
	var t model.PodTemplateSpec
	t.Labels = map[string]string{"app": name}
	t.Spec.Containers = []model.Container{{Name: "app", Image: "registry.example/app:1"}}
	return t
}

func podLine(p *model.Pod) string {
	return fmt.Sprintf("%s node=%s %s owner=%s labels=%s", p.Name, testworld.PodNode(p), testworld.PodState(p), testworld.OwnerText(p), testworld.LabelString(p.Labels))
}

// createFault fails pod creations: the (after+1)-th to (after+count)-th create attempts are
// refused as a ResourceQuota admission would refuse them.
type createFault struct {
	after, count, seen int
}

func (f *createFault) Intercept(_ vtime.Time, req *apiserver.Request) (time.Duration, error) {
	if req.Verb != model.VerbCreate || req.Kind != model.KindPod {
		return 0, nil
	}
	f.seen++
	if f.seen > f.after && f.seen <= f.after+f.count {
		return 0, apierrors.NewForbidden(schema.GroupResource{Resource: "pods"}, req.Name,
			fmt.Errorf("exceeded quota: compute-resources, requested: pods=1"))
	}
	return 0, nil
}
