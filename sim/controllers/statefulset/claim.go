package statefulset

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/labels"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim/controllers/internal/controllerutil"
)

// indexClaimCandidates names the controller's claim-candidates index of the pod informer
// (controllerutil.AddClaimCandidatesIndex).
const indexClaimCandidates = "statefulset-claim-candidates"

// getPodsForStatefulSet returns the pods set manages, adopting matching orphans and releasing
// owned pods that no longer match (upstream getPodsForStatefulSet with
// PodControllerRefManager.ClaimPods and the isMemberOf filter). Pods being deleted are
// included: a terminating pod still holds its ordinal. The pods are shared with the cache. The
// error joins every failed adoption or release; the pods claimed so far are still returned.
func (ssc *Controller) getPodsForStatefulSet(ctx context.Context, set *model.StatefulSet, selector labels.Selector) ([]*model.Pod, error) {
	m := controllerutil.NewControllerRefManager(ssc.Client, set, controllerRef(set), selector)
	m.TraceClaims(ssc.Kernel, Component, setRef(set), nil, nil)
	return m.ClaimPods(ctx, controllerutil.ClaimCandidatePods(ssc.podInformer, indexClaimCandidates, set), func(p *model.Pod) bool { return isMemberOf(set, p) })
}

// adoptOrphanRevisions adopts the orphaned revisions set's selector matches, after checking
// with an uncached GET that the set still exists (upstream adoptOrphanRevisions).
func (ssc *Controller) adoptOrphanRevisions(ctx context.Context, set *model.StatefulSet, selector labels.Selector) error {
	revisions := ssc.listRevisions(set, selector)
	hasOrphans := false
	for _, r := range revisions {
		if model.ControllerOf(r) == nil {
			hasOrphans = true
			break
		}
	}
	if !hasOrphans {
		return nil
	}
	fresh, err := ssc.Client.Get(ctx, model.KindStatefulSet, set.Namespace, set.Name)
	if err != nil {
		return err
	}
	if fresh.Meta().UID != set.UID {
		return fmt.Errorf("original StatefulSet %s/%s is gone: got uid %s, wanted %s", set.Namespace, set.Name, fresh.Meta().UID, set.UID)
	}
	for _, r := range revisions {
		if model.ControllerOf(r) != nil {
			continue
		}
		if _, err := ssc.adoptControllerRevision(ctx, set, r); err != nil {
			return err
		}
	}
	return nil
}
