package gc

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim"
)

// apiResource maps a reference's apiVersion and kind to the kind the server serves (upstream
// apiResource over the REST mapper); an unknown kind, or a version the kind is not served
// under, is a restMappingError.
func (gc *Controller) apiResource(apiVersion string, kind model.Kind) (model.KindInfo, error) {
	ki, ok := gc.lookupKind(kind)
	if !ok || ki.APIVersion != apiVersion {
		return model.KindInfo{}, &restMappingError{kind: kind, apiVersion: apiVersion}
	}
	return ki, nil
}

// resourceDefaultNamespace is the namespace to address: "" for cluster-scoped kinds.
func resourceDefaultNamespace(namespaced bool, namespace string) string {
	if namespaced {
		return namespace
	}
	return ""
}

// getObject reads the live object behind an identity from the API server (upstream getObject
// through the metadata client).
func (gc *Controller) getObject(ctx context.Context, id objectReference) (model.Object, error) {
	ki, err := gc.apiResource(id.APIVersion, id.Kind)
	if err != nil {
		return nil, err
	}
	ns := resourceDefaultNamespace(ki.Namespaced, id.Namespace)
	if ki.Namespaced && ns == "" {
		return nil, errNamespacedOwnerOfClusterScopedObject
	}
	return gc.client.Get(ctx, id.Kind, ns, id.Name)
}

// getMetadata reads an object from the monitor's cache, or from the API server when the
// cache does not have it (upstream getMetadata).
func (gc *Controller) getMetadata(ctx context.Context, id objectReference) (model.Object, error) {
	ki, err := gc.apiResource(id.APIVersion, id.Kind)
	if err != nil {
		return nil, err
	}
	ns := resourceDefaultNamespace(ki.Namespaced, id.Namespace)
	if inf, ok := gc.monitorByKind[id.Kind]; ok {
		if obj, ok := inf.Get(ns, id.Name); ok {
			return obj, nil
		}
	}
	return gc.client.Get(ctx, id.Kind, ns, id.Name)
}

// deleteObject deletes the object with preconditions on its UID and on the resourceVersion
// its owner references were read at (upstream deleteObject). If only the resourceVersion moved
// on and the owner references are unchanged, the delete is retried without the
// resourceVersion precondition; an object gone by then is not an error.
func (gc *Controller) deleteObject(ctx context.Context, id objectReference, rv uint64, owners []model.OwnerReference, policy model.DeletionPropagation) error {
	ki, err := gc.apiResource(id.APIVersion, id.Kind)
	if err != nil {
		return err
	}
	ns := resourceDefaultNamespace(ki.Namespaced, id.Namespace)
	uid := id.UID
	pre := &model.Preconditions{UID: &uid}
	if rv != 0 {
		pre.ResourceVersion = &rv
	}
	err = gc.client.Delete(ctx, id.Kind, ns, id.Name, model.DeleteOptions{Preconditions: pre, PropagationPolicy: &policy})
	if apierrors.IsConflict(err) && rv != 0 {
		live, liveErr := gc.client.Get(ctx, id.Kind, ns, id.Name)
		if apierrors.IsNotFound(liveErr) {
			return nil
		}
		if liveErr == nil {
			lm := live.Meta()
			if lm.UID == id.UID && lm.ResourceVersion != rv && slices.EqualFunc(lm.OwnerReferences, owners, model.EqualOwnerReference) {
				return gc.deleteObject(ctx, id, 0, nil, policy)
			}
		}
	}
	return err
}

// patchObject sends patch, JSON-encoded, as a JSON merge patch to the object behind id
// (upstream patchObject).
func (gc *Controller) patchObject(ctx context.Context, id objectReference, patch any) error {
	data, err := json.Marshal(patch)
	if err != nil {
		return err
	}
	ki, err := gc.apiResource(id.APIVersion, id.Kind)
	if err != nil {
		return err
	}
	_, err = gc.client.Patch(ctx, id.Kind, resourceDefaultNamespace(ki.Namespaced, id.Namespace), id.Name, data)
	return err
}

// objectForOwnerRefsPatch is the JSON merge patch that sets ownerReferences, conditional on
// the resourceVersion they were read at (upstream objectForPatch / ObjectMetaForPatch). A nil
// list encodes as null, which removes the field.
type objectForOwnerRefsPatch struct {
	Metadata struct {
		ResourceVersion uint64                 `json:"resourceVersion"`
		OwnerReferences []model.OwnerReference `json:"ownerReferences"`
	} `json:"metadata"`
}

// patchOwnerRefs rewrites item's owner references with edit, as upstream's JSON merge patch
// path does (deleteOwnerRefJSONMergePatch, unblockOwnerReferencesJSONMergePatch): the object
// is read from the cache (else the server), edited, and patched with its resourceVersion, so a
// concurrent change makes the patch fail with Conflict and the item is retried. The simulated
// server only takes JSON merge patches, so upstream's first choice, a strategic merge patch,
// is not modelled.
func (gc *Controller) patchOwnerRefs(ctx context.Context, item *node, action string, edit func([]model.OwnerReference) []model.OwnerReference) error {
	obj, err := gc.getMetadata(ctx, item.identity)
	if err != nil {
		return err
	}
	m := obj.Meta()
	var p objectForOwnerRefsPatch
	p.Metadata.ResourceVersion = m.ResourceVersion
	p.Metadata.OwnerReferences = edit(slices.Clone(m.OwnerReferences))
	if err := gc.patchObject(ctx, item.identity, p); err != nil {
		return err
	}
	gc.stats.OwnerRefPatches++
	gc.k.Emit(Component, action, nodeRef(item), 0, fmt.Sprintf("owners=%d", len(p.Metadata.OwnerReferences)))
	return nil
}

// objectForFinalizersPatch is upstream's finalizers merge patch, conditional on the
// resourceVersion.
type objectForFinalizersPatch struct {
	Metadata struct {
		ResourceVersion uint64   `json:"resourceVersion"`
		Finalizers      []string `json:"finalizers"`
	} `json:"metadata"`
}

// removeFinalizer takes finalizer off the owner's live object, retrying conflicts as client-go
// retry.RetryOnConflict(retry.DefaultBackoff) does: 4 attempts, 10ms then ×5 between them,
// each wait stretched by up to 10% jitter. An owner that is gone, or no longer has the
// finalizer, is done.
func (gc *Controller) removeFinalizer(ctx context.Context, owner *node, finalizer string) error {
	p := sim.ProcFromContext(ctx)
	wait := conflictRetryDuration
	var err error
	for step := 0; step < conflictRetrySteps; step++ {
		if step > 0 {
			p.Sleep(wait + time.Duration(gc.rand.Float64()*conflictRetryJitter*float64(wait)))
			wait = time.Duration(float64(wait) * conflictRetryFactor)
		}
		err = gc.removeFinalizerOnce(ctx, owner, finalizer)
		if err == nil || !apierrors.IsConflict(err) {
			return err
		}
	}
	return fmt.Errorf("updateMaxRetries(%d) has reached. The garbage collector will retry later for owner %v", conflictRetrySteps, owner.identity)
}

func (gc *Controller) removeFinalizerOnce(ctx context.Context, owner *node, finalizer string) error {
	obj, err := gc.getObject(ctx, owner.identity)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("cannot finalize owner %s, because cannot get it: %v. The garbage collector will retry later", owner.identity, err)
	}
	m := obj.Meta()
	var rest []string
	found := false
	for _, f := range m.Finalizers {
		if f == finalizer {
			found = true
			continue
		}
		rest = append(rest, f)
	}
	if !found {
		return nil
	}
	var patch objectForFinalizersPatch
	patch.Metadata.ResourceVersion = m.ResourceVersion
	patch.Metadata.Finalizers = rest
	if err := gc.patchObject(ctx, owner.identity, patch); err != nil {
		return err
	}
	gc.stats.FinalizersRemoved++
	gc.k.Emit(Component, "remove-finalizer", nodeRef(owner), 0, finalizer)
	return nil
}
