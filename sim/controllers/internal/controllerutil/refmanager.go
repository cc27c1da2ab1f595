package controllerutil

import (
	"context"
	"encoding/json"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/labels"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim"
	"github.com/reconsim/reconsim/sim/client"
)

// ControllerRefManager claims objects for one controller during one sync (upstream
// controller_ref_manager.go BaseControllerRefManager with its Pod, ReplicaSet and
// ControllerRevision variants). Make a new one per sync: the uncached recheck of the owner
// runs at most once in its life (upstream canAdoptOnce).
type ControllerRefManager struct {
	client     *client.Client
	controller model.Object
	// ownerRef is the reference adoption writes (metav1.NewControllerRef(controller, kind)).
	ownerRef model.OwnerReference
	selector labels.Selector

	// OnAdopt, when set, is called after each successful adoption with the object as claimed
	// and as the patch left it.
	OnAdopt func(obj, patched model.Object)
	// OnRelease, when set, is called after each successful release with the object as claimed
	// and as the patch left it.
	OnRelease func(obj, patched model.Object)

	canAdoptChecked bool
	canAdoptErr     error
}

// NewControllerRefManager returns the manager for controller, whose adoptions write ownerRef
// and whose claims match selector (upstream NewPodControllerRefManager and friends: the
// canAdopt function they take is always RecheckDeletionTimestamp over an uncached GET that
// checks the UID, which this manager does itself).
func NewControllerRefManager(c *client.Client, controller model.Object, ownerRef model.OwnerReference, selector labels.Selector) *ControllerRefManager {
	return &ControllerRefManager{client: c, controller: controller, ownerRef: ownerRef, selector: selector}
}

// ClaimObject tries to take ownership of obj (upstream BaseControllerRefManager.ClaimObject)
// and reports whether the controller owns it afterwards:
//
//   - an object another controller owns is ignored;
//   - an object the controller owns and match accepts is claimed, even while the controller
//     is being deleted (that takes no action);
//   - an owned object match rejects is released, unless the controller is being deleted;
//   - an orphan is adopted only when match accepts it, neither it nor the controller is being
//     deleted, and it is in the controller's namespace.
//
// A NotFound from the adoption or release patch is not an error: the object is gone.
func (m *ControllerRefManager) ClaimObject(ctx context.Context, obj model.Object, match func(model.Object) bool) (bool, error) {
	meta := obj.Meta()
	ctrl := m.controller.Meta()
	if ref := model.ControllerOf(obj); ref != nil {
		if ref.UID != ctrl.UID {
			return false, nil
		}
		if match(obj) {
			return true, nil
		}
		if ctrl.DeletionTimestamp != nil {
			return false, nil
		}
		if err := m.release(ctx, obj); err != nil {
			if apierrors.IsNotFound(err) {
				return false, nil
			}
			return false, err
		}
		return false, nil
	}
	if ctrl.DeletionTimestamp != nil || !match(obj) {
		return false, nil
	}
	if meta.DeletionTimestamp != nil {
		return false, nil
	}
	if ctrl.Namespace != "" && ctrl.Namespace != meta.Namespace {
		return false, nil
	}
	if err := m.adopt(ctx, obj); err != nil {
		if apierrors.IsNotFound(err) {
			return false, nil
		}
		return false, err
	}
	return true, nil
}

// CanAdopt re-reads the controller from the API server, bypassing the cache, the first time it
// is called and returns the same answer after that (upstream CanAdopt with
// RecheckDeletionTimestamp, kubernetes issue 42639): a controller that was deleted, or deleted
// and recreated under the same name (another UID), must not adopt.
func (m *ControllerRefManager) CanAdopt(ctx context.Context) error {
	if m.canAdoptChecked {
		return m.canAdoptErr
	}
	m.canAdoptChecked = true
	ctrl := m.controller.Meta()
	kind := m.controller.GetKind()
	obj, err := m.client.Get(ctx, kind, ctrl.Namespace, ctrl.Name)
	switch {
	case err != nil:
		m.canAdoptErr = fmt.Errorf("can't recheck DeletionTimestamp: %v", err)
	case obj.Meta().UID != ctrl.UID:
		m.canAdoptErr = fmt.Errorf("can't recheck DeletionTimestamp: original %s %s is gone: got uid %s, wanted %s", kind, model.Key(m.controller), obj.Meta().UID, ctrl.UID)
	case obj.Meta().DeletionTimestamp != nil:
		m.canAdoptErr = fmt.Errorf("%s has just been deleted at %s", model.Key(obj), *obj.Meta().DeletionTimestamp)
	}
	return m.canAdoptErr
}

// adopt makes the controller obj's controller (upstream AdoptPod, AdoptReplicaSet,
// AdoptControllerRevision). Upstream sends a strategic merge patch that merges the new
// reference into the list by UID; the simulated server takes JSON merge patches, which replace
// lists, so the patch carries obj's other references (as cached) with the controller's
// replacing any earlier reference to it.
func (m *ControllerRefManager) adopt(ctx context.Context, obj model.Object) error {
	meta := obj.Meta()
	if err := m.CanAdopt(ctx); err != nil {
		return fmt.Errorf("can't adopt %s %s/%s (%s): %v", obj.GetKind(), meta.Namespace, meta.Name, meta.UID, err)
	}
	refs := make([]model.OwnerReference, 0, len(meta.OwnerReferences)+1)
	for _, r := range meta.OwnerReferences {
		if r.UID != m.ownerRef.UID {
			refs = append(refs, r)
		}
	}
	refs = append(refs, m.ownerRef)
	patched, err := m.patch(ctx, obj, refs)
	if err != nil {
		return err
	}
	if m.OnAdopt != nil {
		m.OnAdopt(obj, patched)
	}
	return nil
}

// release removes the controller's reference from obj (upstream ReleasePod and friends).
// NotFound (the object is gone) and Invalid (its UID no longer matches: it was deleted and
// recreated) are not errors.
func (m *ControllerRefManager) release(ctx context.Context, obj model.Object) error {
	var refs []model.OwnerReference
	for _, r := range obj.Meta().OwnerReferences {
		if r.UID != m.controller.Meta().UID {
			refs = append(refs, r)
		}
	}
	patched, err := m.patch(ctx, obj, refs)
	if err != nil {
		if apierrors.IsNotFound(err) || apierrors.IsInvalid(err) {
			return nil
		}
		return err
	}
	if m.OnRelease != nil {
		m.OnRelease(obj, patched)
	}
	return nil
}

func (m *ControllerRefManager) patch(ctx context.Context, obj model.Object, refs []model.OwnerReference) (model.Object, error) {
	body, err := OwnerRefsPatch(refs, obj.Meta().UID)
	if err != nil {
		return nil, err
	}
	return m.client.Patch(ctx, obj.GetKind(), obj.Meta().Namespace, obj.Meta().Name, body)
}

// OwnerRefsPatch is the JSON merge patch that sets an object's ownerReferences to refs. It
// carries the object's UID, as upstream's adoption and release patches do, so that a patch
// meant for an object that was deleted and recreated under the same name fails (Invalid)
// instead of changing the new one.
func OwnerRefsPatch(refs []model.OwnerReference, uid string) ([]byte, error) {
	type meta struct {
		OwnerReferences []model.OwnerReference `json:"ownerReferences"`
		UID             string                 `json:"uid"`
	}
	return json.Marshal(struct {
		Metadata meta `json:"metadata"`
	}{meta{OwnerReferences: refs, UID: uid}})
}

// ClaimPods returns the pods the controller should manage (upstream
// PodControllerRefManager.ClaimPods): those it owns that its selector and every filter accept,
// and matching orphans it adopts; owned pods that no longer match are released. The error
// aggregates the failures of individual pods; the pods claimed are returned either way.
func (m *ControllerRefManager) ClaimPods(ctx context.Context, pods []*model.Pod, filters ...func(*model.Pod) bool) ([]*model.Pod, error) {
	match := func(obj model.Object) bool {
		pod := obj.(*model.Pod)
		if !m.selector.Matches(labels.Set(pod.Labels)) {
			return false
		}
		for _, f := range filters {
			if !f(pod) {
				return false
			}
		}
		return true
	}
	return claimAll(ctx, m, pods, match)
}

// ClaimReplicaSets is ClaimPods for ReplicaSets (upstream
// ReplicaSetControllerRefManager.ClaimReplicaSets).
func (m *ControllerRefManager) ClaimReplicaSets(ctx context.Context, sets []*model.ReplicaSet) ([]*model.ReplicaSet, error) {
	return claimAll(ctx, m, sets, m.selectorMatches)
}

// ClaimControllerRevisions is ClaimPods for ControllerRevisions (upstream
// ControllerRevisionControllerRefManager.ClaimControllerRevisions).
func (m *ControllerRefManager) ClaimControllerRevisions(ctx context.Context, revisions []*model.ControllerRevision) ([]*model.ControllerRevision, error) {
	return claimAll(ctx, m, revisions, m.selectorMatches)
}

func (m *ControllerRefManager) selectorMatches(obj model.Object) bool {
	return m.selector.Matches(labels.Set(obj.Meta().Labels))
}

func claimAll[T model.Object](ctx context.Context, m *ControllerRefManager, objs []T, match func(model.Object) bool) ([]T, error) {
	var claimed []T
	var errs []error
	for _, obj := range objs {
		ok, err := m.ClaimObject(ctx, obj, match)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if ok {
			claimed = append(claimed, obj)
		}
	}
	return claimed, utilerrors.NewAggregate(errs)
}

// TraceClaims sets m's hooks to the claim trace of the ReplicaSet, Deployment and StatefulSet
// controllers: for each adoption an "adopt" line "<Kind> <namespace>/<name>" with detail
// "by <owner>", for each release a "release" line with detail "from <owner>", both with
// resourceVersion 0 and from component; adoptions and releases, when not nil, count them.
// owner is how the controller names its object in its trace lines ("ReplicaSet default/web").
// A controller that does more on an adoption (the DaemonSet controller goes on with the
// patched objects) sets OnAdopt and OnRelease itself.
func (m *ControllerRefManager) TraceClaims(k *sim.Kernel, component, owner string, adoptions, releases *uint64) {
	m.OnAdopt = func(obj, _ model.Object) {
		if adoptions != nil {
			*adoptions++
		}
		k.Emit(component, "adopt", string(obj.GetKind())+" "+model.Key(obj), 0, "by "+owner)
	}
	m.OnRelease = func(obj, _ model.Object) {
		if releases != nil {
			*releases++
		}
		k.Emit(component, "release", string(obj.GetKind())+" "+model.Key(obj), 0, "from "+owner)
	}
}
