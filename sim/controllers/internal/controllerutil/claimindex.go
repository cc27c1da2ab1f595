package controllerutil

import (
	"slices"
	"strings"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim/client"
)

// AddClaimCandidatesIndex adds to a Pod informer the index name that keys each pod by the UID
// of its controller, or by "orphan/<namespace>" for a pod without one, so that
// ClaimCandidatePods finds the pods an owner can claim without scanning its namespace. Each
// controller names its own index (an informer's index names are unique). It returns
// AddIndexer's error. A pod update that keeps the pod's controller and namespace (nearly
// every one: status changes) keeps its index value without computing it again.
func AddClaimCandidatesIndex(pods *client.Informer, name string) error {
	return pods.AddIndexer(name, claimCandidatesIndexFunc, sameClaimCandidates)
}

func claimCandidatesIndexFunc(obj model.Object) []string {
	if ref := model.ControllerOf(obj); ref != nil {
		return []string{ref.UID}
	}
	return []string{OrphanIndexValue(obj.Meta().Namespace)}
}

// sameClaimCandidates reports that claimCandidatesIndexFunc gives old and cur the same value:
// both have a controller with one UID, or neither has one and they share a namespace.
func sameClaimCandidates(old, cur model.Object) bool {
	o, c := model.ControllerOf(old), model.ControllerOf(cur)
	if o != nil && c != nil {
		return o.UID == c.UID
	}
	return o == nil && c == nil && old.Meta().Namespace == cur.Meta().Namespace
}

// OrphanIndexValue is the claim-candidates index value of the objects of namespace that have
// no controller; an owned object is indexed by its controller's UID.
func OrphanIndexValue(namespace string) string { return "orphan/" + namespace }

// ClaimCandidatePods returns, sorted by name, the cached pods of owner's namespace that owner
// controls and the orphans, read from the index AddClaimCandidatesIndex added as name: the pods
// a ControllerRefManager.ClaimPods for owner can claim. Upstream lists every pod of the
// namespace and ignores those another controller owns (the DaemonSet controller's
// getDaemonPods, the StatefulSet controller's getPodsForStatefulSet); the index gives the same
// claims without scanning them. The pods are the cache's and must not be modified.
func ClaimCandidatePods(pods *client.Informer, name string, owner model.Object) []*model.Pod {
	namespace := owner.Meta().Namespace
	owned := pods.ByIndex(name, owner.Meta().UID)
	orphans := pods.ByIndex(name, OrphanIndexValue(namespace))
	out := make([]*model.Pod, 0, len(owned)+len(orphans))
	for _, objs := range [][]model.Object{owned, orphans} {
		for _, o := range objs {
			if p, ok := client.ObjectAs[*model.Pod](o); ok && p.Namespace == namespace {
				out = append(out, p)
			}
		}
	}
	slices.SortFunc(out, func(a, b *model.Pod) int { return strings.Compare(a.Name, b.Name) })
	return out
}
