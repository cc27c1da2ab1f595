package statefulset

import (
	"bytes"
	"context"
	"fmt"
	"slices"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim/client"
	"github.com/reconsim/reconsim/sim/controllers/internal/controllerutil"
	"github.com/reconsim/reconsim/sim/controllers/internal/history"
)

// maxHashCollisions bounds CreateControllerRevision's probing; upstream loops until a free
// name is found, which with a 32-bit hash takes a handful of tries at most.
const maxHashCollisions = 1000

// newRevision returns the ControllerRevision that records set's current template at revision
// number revision (upstream newRevision with history.NewControllerRevision): labels are the
// template's plus the hash label, the owner is set, the name is "<set>-<hash>".
func newRevision(set *model.StatefulSet, revision int64, collisionCount *int32) (*model.ControllerRevision, error) {
	data, err := history.TemplatePatch(&set.Spec.Template)
	if err != nil {
		return nil, err
	}
	return newRevisionWithData(set, data, revision, collisionCount), nil
}

// newRevisionWithData is newRevision for data already computed from set's template.
func newRevisionWithData(set *model.StatefulSet, data []byte, revision int64, collisionCount *int32) *model.ControllerRevision {
	hash := history.HashControllerRevision(data, collisionCount)
	return history.NewControllerRevision(set, controllerRef(set), &set.Spec.Template, history.ControllerRevisionName(set.Name, hash), hash, revision)
}

// revisionData returns the revision's data bytes (see history.TemplatePatch).
func revisionData(cr *model.ControllerRevision) []byte {
	b, err := history.TemplatePatch(&cr.Data.Template)
	if err != nil {
		// A template that cannot be encoded equals nothing; encoding a model template cannot
		// fail in practice (no channels, funcs or NaNs).
		return nil
	}
	return b
}

// revisionDataCache remembers the data bytes of stored revisions by UID: a revision's data
// never changes (upstream validation makes ControllerRevision.Data immutable), and every sync
// compares the set's template with each revision. Entries are dropped when the informer sees
// the revision deleted, and the cache is bounded.
type revisionDataCache struct {
	byUID map[string][]byte
}

// maxCachedRevisions bounds the cache; past it the cache starts over.
const maxCachedRevisions = 100000

func (c *revisionDataCache) get(cr *model.ControllerRevision) []byte {
	if cr.UID == "" {
		return revisionData(cr)
	}
	if b, ok := c.byUID[cr.UID]; ok {
		return b
	}
	if c.byUID == nil || len(c.byUID) >= maxCachedRevisions {
		c.byUID = map[string][]byte{}
	}
	b := revisionData(cr)
	c.byUID[cr.UID] = b
	return b
}

func (c *revisionDataCache) forget(uid string) { delete(c.byUID, uid) }

// templateData returns history.TemplatePatch of set's template, remembered per set for its current
// generation: the template is part of the spec, so it can only change with the generation.
func (ssc *Controller) templateData(set *model.StatefulSet) ([]byte, error) {
	if e, ok := ssc.tmplData[set.UID]; ok && e.generation == set.Generation && set.Generation != 0 {
		return e.data, nil
	}
	data, err := history.TemplatePatch(&set.Spec.Template)
	if err != nil {
		return nil, err
	}
	if len(ssc.tmplData) >= maxCachedRevisions {
		clear(ssc.tmplData)
	}
	ssc.tmplData[set.UID] = templateDataEntry{generation: set.Generation, data: data}
	return data, nil
}

type templateDataEntry struct {
	generation int64
	data       []byte
}

// nextRevision is one more than the highest revision number, 1 for no revisions (upstream
// nextRevision; revisions must be sorted).
func nextRevision(revisions []*model.ControllerRevision) int64 {
	if len(revisions) == 0 {
		return 1
	}
	return revisions[len(revisions)-1].Revision + 1
}

// applyRevision returns a copy of set with the template recorded in revision (upstream
// ApplyRevision, which applies the stored patch).
func applyRevision(set *model.StatefulSet, revision *model.ControllerRevision) *model.StatefulSet {
	clone := set.DeepCopy()
	clone.Spec.Template = model.PodTemplateSpec{}
	revision.Data.Template.DeepCopyInto(&clone.Spec.Template)
	return clone
}

// ---- the controller's history operations (upstream pkg/controller/history realHistory) ----

// listRevisions returns the cached revisions in set's namespace that its selector matches and
// that set controls or nobody does (upstream ListControllerRevisions), sorted by key.
func (ssc *Controller) listRevisions(set *model.StatefulSet, selector labels.Selector) []*model.ControllerRevision {
	var out []*model.ControllerRevision
	for _, obj := range ssc.revInformer.ListNamespace(set.Namespace, selector) {
		cr, ok := client.ObjectAs[*model.ControllerRevision](obj)
		if !ok {
			continue
		}
		if ref := model.ControllerOf(cr); ref == nil || ref.UID == set.UID {
			out = append(out, cr)
		}
	}
	return out
}

// createControllerRevision creates revision under set, probing names with a growing
// collision count while a different revision holds the name (upstream
// CreateControllerRevision). An existing revision with equal data is returned as if created.
// collisionCount is updated in place. It returns the API error of a failed create or GET, or
// an error after maxHashCollisions probes.
func (ssc *Controller) createControllerRevision(ctx context.Context, set *model.StatefulSet, revision *model.ControllerRevision, collisionCount *int32) (*model.ControllerRevision, error) {
	if collisionCount == nil {
		return nil, fmt.Errorf("collisionCount should not be nil")
	}
	clone := revision.DeepCopy()
	data := revisionData(revision)
	for i := 0; i < maxHashCollisions; i++ {
		hash := history.HashControllerRevision(data, collisionCount)
		clone.Name = history.ControllerRevisionName(set.Name, hash)
		created, err := ssc.Client.Create(ctx, clone)
		if apierrors.IsAlreadyExists(err) {
			obj, getErr := ssc.Client.Get(ctx, model.KindControllerRevision, set.Namespace, clone.Name)
			if getErr != nil {
				return nil, getErr
			}
			exists, ok := client.ObjectAs[*model.ControllerRevision](obj)
			if ok && bytes.Equal(ssc.revData.get(exists), data) {
				return exists, nil
			}
			*collisionCount++
			ssc.Kernel.Emit(Component, "revision-collision", setRef(set), 0, fmt.Sprintf("name=%s collisionCount=%d", clone.Name, *collisionCount))
			continue
		}
		if err != nil {
			return nil, err
		}
		cr, ok := client.ObjectAs[*model.ControllerRevision](created)
		if !ok {
			return nil, fmt.Errorf("statefulset: create returned a %s", created.GetKind())
		}
		ssc.stats.RevisionsCreated++
		ssc.Kernel.Emit(Component, "revision-create", "ControllerRevision "+model.Key(cr), cr.ResourceVersion, fmt.Sprintf("revision=%d", cr.Revision))
		return cr, nil
	}
	return nil, fmt.Errorf("statefulset: no free ControllerRevision name for %s after %d hash collisions", model.Key(set), maxHashCollisions)
}

// updateControllerRevision sets the revision number of revision, retrying conflicts with the
// update backoff after re-reading the cache (upstream UpdateControllerRevision). It returns the
// updated revision, or the last error.
func (ssc *Controller) updateControllerRevision(ctx context.Context, revision *model.ControllerRevision, newRevision int64) (*model.ControllerRevision, error) {
	clone := revision.DeepCopy()
	var out *model.ControllerRevision
	err := ssc.retryOnConflict(ctx, ssc.cfg.UpdateRetry, func() error {
		if clone.Revision == newRevision {
			out = clone
			return nil
		}
		clone.Revision = newRevision
		updated, err := ssc.Client.Update(ctx, clone)
		if err == nil {
			out, _ = updated.(*model.ControllerRevision)
			if out == nil {
				out = clone
			}
			ssc.Kernel.Emit(Component, "revision-renumber", "ControllerRevision "+model.Key(out), out.ResourceVersion, fmt.Sprintf("revision=%d", newRevision))
			return nil
		}
		if obj, ok := ssc.revInformer.Get(clone.Namespace, clone.Name); ok {
			if cr, ok := client.ObjectAs[*model.ControllerRevision](obj); ok {
				clone = cr.DeepCopy()
			}
		}
		return err
	})
	return out, err
}

// deleteControllerRevision deletes one revision (upstream DeleteControllerRevision).
func (ssc *Controller) deleteControllerRevision(ctx context.Context, revision *model.ControllerRevision) error {
	err := ssc.Client.Delete(ctx, model.KindControllerRevision, revision.Namespace, revision.Name, model.DeleteOptions{})
	if err == nil {
		ssc.stats.RevisionsDeleted++
		ssc.Kernel.Emit(Component, "revision-delete", "ControllerRevision "+model.Key(revision), 0, fmt.Sprintf("revision=%d", revision.Revision))
	}
	return err
}

// adoptControllerRevision makes set the controller of an orphaned revision with a merge patch
// that carries the revision's UID (upstream AdoptControllerRevision, a strategic merge patch
// of the owner references).
func (ssc *Controller) adoptControllerRevision(ctx context.Context, set *model.StatefulSet, revision *model.ControllerRevision) (*model.ControllerRevision, error) {
	if ref := model.ControllerOf(revision); ref != nil {
		return nil, fmt.Errorf("attempt to adopt revision owned by %v", ref.Name)
	}
	refs := append(slices.Clone(revision.OwnerReferences), controllerRef(set))
	patch, err := controllerutil.OwnerRefsPatch(refs, revision.UID)
	if err != nil {
		return nil, err
	}
	obj, err := ssc.Client.Patch(ctx, model.KindControllerRevision, revision.Namespace, revision.Name, patch)
	if err != nil {
		return nil, err
	}
	cr, ok := client.ObjectAs[*model.ControllerRevision](obj)
	if !ok {
		return nil, fmt.Errorf("statefulset: patch returned a %s", obj.GetKind())
	}
	ssc.Kernel.Emit(Component, "adopt", "ControllerRevision "+model.Key(cr), cr.ResourceVersion, "by "+setRef(set))
	return cr, nil
}

// getStatefulSetRevisions returns the current and update revisions of set, creating the update
// revision or renumbering an equal older one (a rollback) as needed, and the collision count
// to record (upstream getStatefulSetRevisions). revisions must be sorted.
func (ssc *Controller) getStatefulSetRevisions(ctx context.Context, set *model.StatefulSet, revisions []*model.ControllerRevision) (current, update *model.ControllerRevision, collisionCount int32, err error) {
	if set.Status.CollisionCount != nil {
		collisionCount = *set.Status.CollisionCount
	}
	data, err := ssc.templateData(set)
	if err != nil {
		return nil, nil, collisionCount, err
	}
	update = newRevisionWithData(set, data, nextRevision(revisions), &collisionCount)
	equal := history.FindEqualRevisions(revisions, update, ssc.revData.get)
	switch {
	case len(equal) > 0 && history.EqualRevision(revisions[len(revisions)-1], equal[len(equal)-1], ssc.revData.get):
		// The latest revision is the template: nothing changed.
		update = revisions[len(revisions)-1]
	case len(equal) > 0:
		// An older revision is the template again: a rollback renumbers it.
		update, err = ssc.updateControllerRevision(ctx, equal[len(equal)-1], update.Revision)
		if err != nil {
			return nil, nil, collisionCount, err
		}
	default:
		update, err = ssc.createControllerRevision(ctx, set, update, &collisionCount)
		if err != nil {
			return nil, nil, collisionCount, err
		}
	}
	for _, r := range revisions {
		if r.Name == set.Status.CurrentRevision {
			current = r
			break
		}
	}
	if current == nil {
		current = update
	}
	return current, update, collisionCount, nil
}

// truncateHistory deletes the oldest revisions that no pod uses and that are neither current
// nor update, until at most revisionHistoryLimit such revisions remain (upstream
// truncateHistory; revisions must be sorted). It returns the first delete error.
func (ssc *Controller) truncateHistory(ctx context.Context, set *model.StatefulSet, pods []*model.Pod, revisions []*model.ControllerRevision, current, update *model.ControllerRevision) error {
	live := map[string]bool{}
	if current != nil {
		live[current.Name] = true
	}
	if update != nil {
		live[update.Name] = true
	}
	for _, p := range pods {
		live[getPodRevision(p)] = true
	}
	var history []*model.ControllerRevision
	for _, r := range revisions {
		if !live[r.Name] {
			history = append(history, r)
		}
	}
	limit := revisionHistoryLimit(set)
	if limit < 0 || len(history) <= limit {
		return nil
	}
	for _, r := range history[:len(history)-limit] {
		if err := ssc.deleteControllerRevision(ctx, r); err != nil {
			return err
		}
	}
	return nil
}
