package daemonset

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/reconsim/reconsim/model"
)

// indexClaimCandidates indexes pods by the UID of their controller, or by "orphan/<namespace>"
// for pods without one: the pods a DaemonSet can claim are its own and the orphans.
const indexClaimCandidates = "daemonset-claim-candidates"

func claimCandidatesIndexFunc(obj model.Object) []string {
	if ref := model.ControllerOf(obj); ref != nil {
		return []string{ref.UID}
	}
	return []string{"orphan/" + obj.Meta().Namespace}
}

// controllerRef is the reference a DaemonSet's pods and revisions carry (upstream
// metav1.NewControllerRef(ds, controllerKind)).
func controllerRef(ds *model.DaemonSet) model.OwnerReference {
	apiVersion := "apps/v1"
	if ki, ok := model.LookupKind(model.KindDaemonSet); ok {
		apiVersion = ki.APIVersion
	}
	return model.OwnerReference{
		APIVersion:         apiVersion,
		Kind:               model.KindDaemonSet,
		Name:               ds.Name,
		UID:                ds.UID,
		Controller:         model.Ptr(true),
		BlockOwnerDeletion: model.Ptr(true),
	}
}

// getDaemonPods returns the pods ds manages, sorted by name, adopting matching orphans and
// releasing owned pods that no longer match (upstream getDaemonPods with ClaimPods). The pods
// are shared with the cache (adopted ones are the patched copies). The error is the first
// failed adoption or release, with no pods.
func (dsc *Controller) getDaemonPods(ctx context.Context, ds *model.DaemonSet, selector labels.Selector) ([]*model.Pod, error) {
	owned := dsc.podInformer.ByIndex(indexClaimCandidates, ds.UID)
	orphans := dsc.podInformer.ByIndex(indexClaimCandidates, "orphan/"+ds.Namespace)
	candidates := make([]*model.Pod, 0, len(owned)+len(orphans))
	for _, objs := range [][]model.Object{owned, orphans} {
		for _, o := range objs {
			if p, ok := o.(*model.Pod); ok && p.Namespace == ds.Namespace {
				candidates = append(candidates, p)
			}
		}
	}
	sortPodsByName(candidates)
	c := &claimer{dsc: dsc, ds: ds}
	var claimed []*model.Pod
	var errs []error
	for _, p := range candidates {
		ok, err := c.claim(ctx, p, selector.Matches(labels.Set(p.Labels)))
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if ok {
			if fresh, adopted := c.adopted[p.UID]; adopted {
				p = fresh.(*model.Pod)
			}
			claimed = append(claimed, p)
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return claimed, nil
}

// claimer is one sync's upstream BaseControllerRefManager for pods and revisions.
type claimer struct {
	dsc             *Controller
	ds              *model.DaemonSet
	canAdoptChecked bool
	canAdoptErr     error
	adopted         map[string]model.Object // by UID: the object as the adoption patch left it
}

// claim is upstream ClaimObject: it reports whether ds owns obj after the call, adopting a
// matching orphan or releasing an owned object that no longer matches.
func (c *claimer) claim(ctx context.Context, obj model.Object, matches bool) (bool, error) {
	m := obj.Meta()
	if ref := model.ControllerOf(obj); ref != nil {
		if ref.UID != c.ds.UID {
			return false, nil
		}
		if matches {
			return true, nil
		}
		if c.ds.DeletionTimestamp != nil {
			return false, nil
		}
		if err := c.release(ctx, obj); err != nil {
			if apierrors.IsNotFound(err) {
				return false, nil
			}
			return false, err
		}
		return false, nil
	}
	if c.ds.DeletionTimestamp != nil || !matches || m.DeletionTimestamp != nil || m.Namespace != c.ds.Namespace {
		return false, nil
	}
	if err := c.adopt(ctx, obj); err != nil {
		if apierrors.IsNotFound(err) {
			return false, nil
		}
		return false, err
	}
	return true, nil
}

// canAdopt re-reads the DaemonSet from the API server, bypassing the cache, before the first
// adoption of a sync (upstream RecheckDeletionTimestamp, kubernetes issue 42639).
func (c *claimer) canAdopt(ctx context.Context) error {
	if c.canAdoptChecked {
		return c.canAdoptErr
	}
	c.canAdoptChecked = true
	obj, err := c.dsc.client.Get(ctx, model.KindDaemonSet, c.ds.Namespace, c.ds.Name)
	switch {
	case err != nil:
		c.canAdoptErr = fmt.Errorf("can't recheck DeletionTimestamp: %v", err)
	case obj.Meta().UID != c.ds.UID:
		c.canAdoptErr = fmt.Errorf("can't recheck DeletionTimestamp: original DaemonSet %s is gone: got uid %s, wanted %s", model.Key(c.ds), obj.Meta().UID, c.ds.UID)
	case obj.Meta().DeletionTimestamp != nil:
		c.canAdoptErr = fmt.Errorf("%s has just been deleted at %s", model.Key(obj), *obj.Meta().DeletionTimestamp)
	}
	return c.canAdoptErr
}

func (c *claimer) adopt(ctx context.Context, obj model.Object) error {
	m := obj.Meta()
	if err := c.canAdopt(ctx); err != nil {
		return fmt.Errorf("can't adopt %s %s/%s (%s): %v", obj.GetKind(), m.Namespace, m.Name, m.UID, err)
	}
	refs := make([]model.OwnerReference, 0, len(m.OwnerReferences)+1)
	for _, r := range m.OwnerReferences {
		if r.UID != c.ds.UID {
			refs = append(refs, r)
		}
	}
	refs = append(refs, controllerRef(c.ds))
	patched, err := c.patch(ctx, obj, refs)
	if err != nil {
		return err
	}
	if c.adopted == nil {
		c.adopted = map[string]model.Object{}
	}
	c.adopted[m.UID] = patched
	c.dsc.k.Emit(Component, "adopt", string(obj.GetKind())+" "+model.Key(obj), patched.Meta().ResourceVersion, "by "+dsRef(c.ds))
	return nil
}

// release removes ds's reference; NotFound and Invalid (gone or replaced) are not errors.
func (c *claimer) release(ctx context.Context, obj model.Object) error {
	var refs []model.OwnerReference
	for _, r := range obj.Meta().OwnerReferences {
		if r.UID != c.ds.UID {
			refs = append(refs, r)
		}
	}
	if _, err := c.patch(ctx, obj, refs); err != nil {
		if apierrors.IsNotFound(err) || apierrors.IsInvalid(err) {
			return nil
		}
		return err
	}
	c.dsc.k.Emit(Component, "release", string(obj.GetKind())+" "+model.Key(obj), 0, "from "+dsRef(c.ds))
	return nil
}

// patch sets the object's ownerReferences with a JSON merge patch that carries its UID, so
// that a patch meant for an object deleted and recreated under the same name fails. Upstream
// sends strategic merge patches that merge the list by UID; the simulated server takes JSON
// merge patches, which replace lists, so the patch carries the whole list.
func (c *claimer) patch(ctx context.Context, obj model.Object, refs []model.OwnerReference) (model.Object, error) {
	type meta struct {
		OwnerReferences []model.OwnerReference `json:"ownerReferences"`
		UID             string                 `json:"uid"`
	}
	body, err := json.Marshal(struct {
		Metadata meta `json:"metadata"`
	}{meta{OwnerReferences: refs, UID: obj.Meta().UID}})
	if err != nil {
		return nil, err
	}
	return c.dsc.client.Patch(ctx, obj.GetKind(), obj.Meta().Namespace, obj.Meta().Name, body)
}
