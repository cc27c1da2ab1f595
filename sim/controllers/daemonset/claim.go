package daemonset

import (
	"context"

	"k8s.io/apimachinery/pkg/labels"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim/controllers/internal/controllerutil"
)

// indexClaimCandidates names the controller's claim-candidates index of the pod informer
// (controllerutil.AddClaimCandidatesIndex).
const indexClaimCandidates = "daemonset-claim-candidates"

// controllerRef is the reference a DaemonSet's pods and revisions carry (upstream
// metav1.NewControllerRef(ds, controllerKind)).
func controllerRef(ds *model.DaemonSet) model.OwnerReference {
	return controllerutil.NewControllerRef(ds, model.KindDaemonSet, "apps/v1")
}

// getDaemonPods returns the pods ds manages, sorted by name, adopting matching orphans and
// releasing owned pods that no longer match (upstream getDaemonPods with ClaimPods). The pods
// are shared with the cache (adopted ones are the patched copies). The error is the first
// failed adoption or release, with no pods.
func (dsc *Controller) getDaemonPods(ctx context.Context, ds *model.DaemonSet, selector labels.Selector) ([]*model.Pod, error) {
	candidates := controllerutil.ClaimCandidatePods(dsc.podInformer, indexClaimCandidates, ds)
	m, adopted := dsc.refManager(ds, selector)
	claimed, err := m.ClaimPods(ctx, candidates)
	if err != nil {
		return nil, err
	}
	return withPatched(claimed, adopted), nil
}

// refManager is one sync's ControllerRefManager for ds's pods and revisions. The map it
// returns fills with the objects as their adoption patches left them, by UID: the DaemonSet
// controller goes on with those rather than with the cached copies.
func (dsc *Controller) refManager(ds *model.DaemonSet, selector labels.Selector) (*controllerutil.ControllerRefManager, map[string]model.Object) {
	adopted := map[string]model.Object{}
	m := controllerutil.NewControllerRefManager(dsc.Client, ds, controllerRef(ds), selector)
	m.OnAdopt = func(obj, patched model.Object) {
		adopted[obj.Meta().UID] = patched
		dsc.Kernel.Emit(Component, "adopt", string(obj.GetKind())+" "+model.Key(obj), patched.Meta().ResourceVersion, "by "+dsRef(ds))
	}
	m.OnRelease = func(obj, _ model.Object) {
		dsc.Kernel.Emit(Component, "release", string(obj.GetKind())+" "+model.Key(obj), 0, "from "+dsRef(ds))
	}
	return m, adopted
}

// withPatched replaces in claimed every object that refManager's manager adopted by the copy
// its adoption patch left (adopted, by UID), and returns claimed.
func withPatched[T model.Object](claimed []T, adopted map[string]model.Object) []T {
	for i, obj := range claimed {
		if fresh, ok := adopted[obj.Meta().UID]; ok {
			claimed[i] = fresh.(T)
		}
	}
	return claimed
}
