package statefulset

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/reconsim/reconsim/model"
)

// indexClaimCandidates indexes pods by the UID of their controller, or by "orphan/<namespace>"
// for pods without one: the pods a StatefulSet can claim are its own and the orphans.
const indexClaimCandidates = "statefulset-claim-candidates"

func claimCandidatesIndexFunc(obj model.Object) []string {
	if ref := model.ControllerOf(obj); ref != nil {
		return []string{ref.UID}
	}
	return []string{"orphan/" + obj.Meta().Namespace}
}

// claimCandidates returns, sorted by name, the cached pods of set's namespace that set
// controls and the orphans. Upstream lists every pod of the namespace and ignores those another
// controller owns; the index gives the same claims without scanning them.
func (ssc *Controller) claimCandidates(set *model.StatefulSet) []*model.Pod {
	owned := ssc.podInformer.ByIndex(indexClaimCandidates, set.UID)
	orphans := ssc.podInformer.ByIndex(indexClaimCandidates, "orphan/"+set.Namespace)
	out := make([]*model.Pod, 0, len(owned)+len(orphans))
	for _, objs := range [][]model.Object{owned, orphans} {
		for _, o := range objs {
			if p, ok := o.(*model.Pod); ok && p.Namespace == set.Namespace {
				out = append(out, p)
			}
		}
	}
	slices.SortFunc(out, func(a, b *model.Pod) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// getPodsForStatefulSet returns the pods set manages, adopting matching orphans and releasing
// owned pods that no longer match (upstream getPodsForStatefulSet with
// PodControllerRefManager.ClaimPods and the isMemberOf filter). Pods being deleted are
// included: a terminating pod still holds its ordinal. The pods are shared with the cache. The
// error joins every failed adoption or release; the pods claimed so far are still returned.
func (ssc *Controller) getPodsForStatefulSet(ctx context.Context, set *model.StatefulSet, selector labels.Selector) ([]*model.Pod, error) {
	match := func(p *model.Pod) bool {
		return selector.Matches(labels.Set(p.Labels)) && isMemberOf(set, p)
	}
	m := &podClaimer{ssc: ssc, set: set}
	var claimed []*model.Pod
	var errs []error
	for _, p := range ssc.claimCandidates(set) {
		ok, err := m.claim(ctx, p, match)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if ok {
			claimed = append(claimed, p)
		}
	}
	return claimed, errors.Join(errs...)
}

// podClaimer is one sync's upstream PodControllerRefManager.
type podClaimer struct {
	ssc             *Controller
	set             *model.StatefulSet
	canAdoptChecked bool
	canAdoptErr     error
}

// claim is upstream BaseControllerRefManager.ClaimObject for one pod: it reports whether set
// owns the pod after the call.
func (m *podClaimer) claim(ctx context.Context, pod *model.Pod, match func(*model.Pod) bool) (bool, error) {
	if ref := model.ControllerOf(pod); ref != nil {
		if ref.UID != m.set.UID {
			return false, nil
		}
		if match(pod) {
			return true, nil
		}
		if m.set.DeletionTimestamp != nil {
			return false, nil
		}
		if err := m.release(ctx, pod); err != nil {
			if apierrors.IsNotFound(err) {
				return false, nil
			}
			return false, err
		}
		return false, nil
	}
	if m.set.DeletionTimestamp != nil || !match(pod) || pod.DeletionTimestamp != nil || pod.Namespace != m.set.Namespace {
		return false, nil
	}
	if err := m.adopt(ctx, pod); err != nil {
		if apierrors.IsNotFound(err) {
			return false, nil
		}
		return false, err
	}
	return true, nil
}

// canAdopt re-reads the set from the API server, bypassing the cache, before the first
// adoption of a sync (upstream RecheckDeletionTimestamp, kubernetes issue 42639).
func (m *podClaimer) canAdopt(ctx context.Context) error {
	if m.canAdoptChecked {
		return m.canAdoptErr
	}
	m.canAdoptChecked = true
	obj, err := m.ssc.client.Get(ctx, model.KindStatefulSet, m.set.Namespace, m.set.Name)
	switch {
	case err != nil:
		m.canAdoptErr = fmt.Errorf("can't recheck DeletionTimestamp: %v", err)
	case obj.Meta().UID != m.set.UID:
		m.canAdoptErr = fmt.Errorf("can't recheck DeletionTimestamp: original StatefulSet %s is gone: got uid %s, wanted %s", model.Key(m.set), obj.Meta().UID, m.set.UID)
	case obj.Meta().DeletionTimestamp != nil:
		m.canAdoptErr = fmt.Errorf("%s has just been deleted at %s", model.Key(obj), *obj.Meta().DeletionTimestamp)
	}
	return m.canAdoptErr
}

func (m *podClaimer) adopt(ctx context.Context, pod *model.Pod) error {
	if err := m.canAdopt(ctx); err != nil {
		return fmt.Errorf("can't adopt Pod %s/%s (%s): %v", pod.Namespace, pod.Name, pod.UID, err)
	}
	refs := make([]model.OwnerReference, 0, len(pod.OwnerReferences)+1)
	for _, r := range pod.OwnerReferences {
		if r.UID != m.set.UID {
			refs = append(refs, r)
		}
	}
	refs = append(refs, controllerRef(m.set))
	if err := m.patch(ctx, pod, refs); err != nil {
		return err
	}
	m.ssc.k.Emit(Component, "adopt", podRef(pod), 0, "by "+setRef(m.set))
	return nil
}

// release removes set's reference from the pod; NotFound and Invalid (the pod is gone or was
// replaced) are not errors (upstream ReleasePod).
func (m *podClaimer) release(ctx context.Context, pod *model.Pod) error {
	var refs []model.OwnerReference
	for _, r := range pod.OwnerReferences {
		if r.UID != m.set.UID {
			refs = append(refs, r)
		}
	}
	if err := m.patch(ctx, pod, refs); err != nil {
		if apierrors.IsNotFound(err) || apierrors.IsInvalid(err) {
			return nil
		}
		return err
	}
	m.ssc.k.Emit(Component, "release", podRef(pod), 0, "from "+setRef(m.set))
	return nil
}

func (m *podClaimer) patch(ctx context.Context, pod *model.Pod, refs []model.OwnerReference) error {
	patch, err := ownerRefsPatchBytes(refs, pod.UID)
	if err != nil {
		return err
	}
	_, err = m.ssc.client.Patch(ctx, model.KindPod, pod.Namespace, pod.Name, patch)
	return err
}

// ownerRefsPatchBytes is the JSON merge patch that sets an object's ownerReferences and
// carries its UID, so that a patch meant for an object that was deleted and recreated under
// the same name fails instead of changing the new one. Upstream sends strategic merge patches
// that merge the list by UID; the simulated server takes JSON merge patches, which replace
// lists, so the patch carries the whole list.
func ownerRefsPatchBytes(refs []model.OwnerReference, uid string) ([]byte, error) {
	type meta struct {
		OwnerReferences []model.OwnerReference `json:"ownerReferences"`
		UID             string                 `json:"uid"`
	}
	return json.Marshal(struct {
		Metadata meta `json:"metadata"`
	}{meta{OwnerReferences: refs, UID: uid}})
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
	fresh, err := ssc.client.Get(ctx, model.KindStatefulSet, set.Namespace, set.Name)
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
