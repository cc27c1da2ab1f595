package deployment

import (
	"context"
	"encoding/json"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"

	"github.com/reconsim/reconsim/model"
)

// getReplicaSetsForDeployment returns the ReplicaSets the Deployment owns after reconciling
// controller references (upstream getReplicaSetsForDeployment with
// ReplicaSetControllerRefManager.ClaimReplicaSets): every cached ReplicaSet of the namespace is
// considered, so that owned ones that stopped matching are released. It returns an error for an
// invalid selector, or the aggregated claim errors (the claimed sets are dropped then, as
// upstream does).
func (dc *Controller) getReplicaSetsForDeployment(ctx context.Context, d *model.Deployment) ([]*model.ReplicaSet, error) {
	selector, err := metav1.LabelSelectorAsSelector(d.Spec.Selector)
	if err != nil {
		return nil, fmt.Errorf("deployment %s/%s has invalid label selector: %v", d.Namespace, d.Name, err)
	}
	m := &rsControllerRefManager{dc: dc, d: d, selector: selector}
	var claimed []*model.ReplicaSet
	var errs []error
	for _, obj := range dc.rsInformer.ListNamespace(d.Namespace, nil) {
		rs, ok := obj.(*model.ReplicaSet)
		if !ok {
			continue
		}
		ok, err := m.claim(ctx, rs)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if ok {
			claimed = append(claimed, rs)
		}
	}
	if len(errs) > 0 {
		return nil, utilerrors.NewAggregate(errs)
	}
	return claimed, nil
}

// rsControllerRefManager claims ReplicaSets for one Deployment during one sync (upstream
// ReplicaSetControllerRefManager).
type rsControllerRefManager struct {
	dc       *Controller
	d        *model.Deployment
	selector labels.Selector
	// canAdoptChecked and canAdoptErr cache the uncached recheck: it runs at most once per
	// sync, and only if some ReplicaSet is to be adopted (upstream canAdoptOnce).
	canAdoptChecked bool
	canAdoptErr     error
}

// claim is ClaimObject for one ReplicaSet: it reports whether the Deployment owns rs after the
// call. A ReplicaSet it owns that no longer matches is released (not while the Deployment is
// being deleted); a matching orphan is adopted (not while either is being deleted); one owned
// by someone else is left alone. A NotFound on adoption or release is not an error.
func (m *rsControllerRefManager) claim(ctx context.Context, rs *model.ReplicaSet) (bool, error) {
	matches := m.selector.Matches(labels.Set(rs.Labels))
	if ref := model.ControllerOf(rs); ref != nil {
		if ref.UID != m.d.UID {
			return false, nil
		}
		if matches {
			return true, nil
		}
		if m.d.DeletionTimestamp != nil {
			return false, nil
		}
		if err := m.release(ctx, rs); err != nil {
			if apierrors.IsNotFound(err) {
				return false, nil
			}
			return false, err
		}
		return false, nil
	}
	if m.d.DeletionTimestamp != nil || !matches || rs.DeletionTimestamp != nil || rs.Namespace != m.d.Namespace {
		return false, nil
	}
	if err := m.adopt(ctx, rs); err != nil {
		if apierrors.IsNotFound(err) {
			return false, nil
		}
		return false, err
	}
	return true, nil
}

// canAdopt re-reads the Deployment from the API server, bypassing the cache, before the first
// adoption: one that was just deleted, or deleted and recreated under the same name, must not
// adopt (upstream RecheckDeletionTimestamp, kubernetes issue 42639).
func (m *rsControllerRefManager) canAdopt(ctx context.Context) error {
	if m.canAdoptChecked {
		return m.canAdoptErr
	}
	m.canAdoptChecked = true
	obj, err := m.dc.client.Get(ctx, model.KindDeployment, m.d.Namespace, m.d.Name)
	switch {
	case err != nil:
		m.canAdoptErr = fmt.Errorf("can't recheck DeletionTimestamp: %v", err)
	case obj.Meta().UID != m.d.UID:
		m.canAdoptErr = fmt.Errorf("can't recheck DeletionTimestamp: original Deployment %s is gone: got uid %s, wanted %s", model.Key(m.d), obj.Meta().UID, m.d.UID)
	case obj.Meta().DeletionTimestamp != nil:
		m.canAdoptErr = fmt.Errorf("%s has just been deleted at %s", model.Key(obj), *obj.Meta().DeletionTimestamp)
	}
	return m.canAdoptErr
}

// ownerRefsPatch is the JSON merge patch that sets a ReplicaSet's ownerReferences, carrying its
// UID so that a patch meant for a ReplicaSet that was deleted and recreated under the same name
// fails instead of changing the new one.
type ownerRefsPatch struct {
	Metadata ownerRefsPatchMeta `json:"metadata"`
}

type ownerRefsPatchMeta struct {
	OwnerReferences []model.OwnerReference `json:"ownerReferences"`
	UID             string                 `json:"uid"`
}

// adopt makes the Deployment the ReplicaSet's controller. Upstream sends a strategic merge
// patch that merges the reference into the list by UID; the simulated server takes JSON merge
// patches, which replace lists, so the patch carries the other references as cached.
func (m *rsControllerRefManager) adopt(ctx context.Context, rs *model.ReplicaSet) error {
	if err := m.canAdopt(ctx); err != nil {
		return fmt.Errorf("can't adopt ReplicaSet %s/%s (%s): %v", rs.Namespace, rs.Name, rs.UID, err)
	}
	refs := make([]model.OwnerReference, 0, len(rs.OwnerReferences)+1)
	for _, r := range rs.OwnerReferences {
		if r.UID != m.d.UID {
			refs = append(refs, r)
		}
	}
	refs = append(refs, deploymentControllerRef(m.d))
	if err := m.patchOwnerRefs(ctx, rs, refs); err != nil {
		return err
	}
	m.dc.stats.Adoptions++
	m.dc.k.Emit(Component, "adopt", "ReplicaSet "+model.Key(rs), 0, "by "+dRef(m.d))
	return nil
}

// release removes the Deployment's reference from the ReplicaSet. NotFound and Invalid (the
// ReplicaSet is gone or is another object now) are not errors (upstream ReleaseReplicaSet).
func (m *rsControllerRefManager) release(ctx context.Context, rs *model.ReplicaSet) error {
	var refs []model.OwnerReference
	for _, r := range rs.OwnerReferences {
		if r.UID != m.d.UID {
			refs = append(refs, r)
		}
	}
	if err := m.patchOwnerRefs(ctx, rs, refs); err != nil {
		if apierrors.IsNotFound(err) || apierrors.IsInvalid(err) {
			return nil
		}
		return err
	}
	m.dc.stats.Releases++
	m.dc.k.Emit(Component, "release", "ReplicaSet "+model.Key(rs), 0, "from "+dRef(m.d))
	return nil
}

func (m *rsControllerRefManager) patchOwnerRefs(ctx context.Context, rs *model.ReplicaSet, refs []model.OwnerReference) error {
	patch, err := json.Marshal(ownerRefsPatch{Metadata: ownerRefsPatchMeta{OwnerReferences: refs, UID: rs.UID}})
	if err != nil {
		return err
	}
	_, err = m.dc.client.Patch(ctx, model.KindReplicaSet, rs.Namespace, rs.Name, patch)
	return err
}

// deploymentControllerRef is metav1.NewControllerRef(d, apps/v1 Deployment): controller and
// blockOwnerDeletion both true.
func deploymentControllerRef(d *model.Deployment) model.OwnerReference {
	apiVersion := "apps/v1"
	if ki, ok := model.LookupKind(model.KindDeployment); ok {
		apiVersion = ki.APIVersion
	}
	return model.OwnerReference{
		APIVersion: apiVersion, Kind: model.KindDeployment, Name: d.Name, UID: d.UID,
		Controller: model.Ptr(true), BlockOwnerDeletion: model.Ptr(true),
	}
}
