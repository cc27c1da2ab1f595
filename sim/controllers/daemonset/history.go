package daemonset

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/utils/ptr"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim/controllers/internal/controllerutil"
	"github.com/reconsim/reconsim/sim/controllers/internal/history"
)

// match reports whether the revision records the DaemonSet's current template (upstream
// Match).
func match(ds *model.DaemonSet, rev *model.ControllerRevision) (bool, error) {
	a, err := history.TemplatePatch(&ds.Spec.Template)
	if err != nil {
		return false, err
	}
	b, err := history.TemplatePatch(&rev.Data.Template)
	if err != nil {
		return false, err
	}
	return bytes.Equal(a, b), nil
}

// maxRevision is the highest revision number among histories, 0 for none.
func maxRevision(histories []*model.ControllerRevision) int64 {
	var m int64
	for _, h := range histories {
		m = max(m, h.Revision)
	}
	return m
}

// sortByRevision sorts old revisions by number, then name, for cleanupHistory (upstream
// historiesByRevision, which compares numbers only). It is not history.SortControllerRevisions:
// upstream's DaemonSet controller does not break ties by creation time, and neither does this.
func sortByRevision(histories []*model.ControllerRevision) {
	slices.SortStableFunc(histories, func(a, b *model.ControllerRevision) int {
		switch {
		case a.Revision < b.Revision:
			return -1
		case a.Revision > b.Revision:
			return 1
		}
		return strings.Compare(a.Name, b.Name)
	})
}

// controlledHistories returns the revisions ds controls, adopting matching orphans and
// releasing owned revisions that no longer match (upstream controlledHistories with
// ClaimControllerRevisions), sorted by name.
func (dsc *Controller) controlledHistories(ctx context.Context, ds *model.DaemonSet, selector labels.Selector) ([]*model.ControllerRevision, error) {
	revisions := controllerutil.ListNamespaceAs[*model.ControllerRevision](dsc.historyInformer, ds.Namespace, nil)
	m, adopted := dsc.refManager(ds, selector)
	claimed, err := m.ClaimControllerRevisions(ctx, revisions)
	if err != nil {
		return nil, err
	}
	return withPatched(claimed, adopted), nil
}

// constructHistory finds the revision of ds's current template (cur) and the others (old),
// creating the current one if missing, deduplicating it, labelling revisions that lack the
// hash label and renumbering the current one above every old one (upstream
// constructHistory).
func (dsc *Controller) constructHistory(ctx context.Context, ds *model.DaemonSet, selector labels.Selector) (cur *model.ControllerRevision, old []*model.ControllerRevision, err error) {
	histories, err := dsc.controlledHistories(ctx, ds, selector)
	if err != nil {
		return nil, nil, err
	}
	var current []*model.ControllerRevision
	for _, h := range histories {
		if _, ok := h.Labels[DefaultDaemonSetUniqueLabelKey]; !ok {
			toUpdate := h.DeepCopy()
			if toUpdate.Labels == nil {
				toUpdate.Labels = map[string]string{}
			}
			toUpdate.Labels[DefaultDaemonSetUniqueLabelKey] = toUpdate.Name
			updated, err := dsc.Client.Update(ctx, toUpdate)
			if err != nil {
				return nil, nil, err
			}
			h = updated.(*model.ControllerRevision)
		}
		found, err := match(ds, h)
		if err != nil {
			return nil, nil, err
		}
		if found {
			current = append(current, h)
		} else {
			old = append(old, h)
		}
	}
	currRevision := maxRevision(old) + 1
	switch len(current) {
	case 0:
		cur, err = dsc.snapshot(ctx, ds, currRevision)
		if err != nil {
			return nil, nil, err
		}
	default:
		cur, err = dsc.dedupCurHistories(ctx, ds, selector, current)
		if err != nil {
			return nil, nil, err
		}
		if cur.Revision < currRevision {
			toUpdate := cur.DeepCopy()
			toUpdate.Revision = currRevision
			if _, err := dsc.Client.Update(ctx, toUpdate); err != nil {
				return nil, nil, err
			}
			dsc.Kernel.Emit(Component, "revision-renumber", "ControllerRevision "+model.Key(cur), 0, fmt.Sprintf("revision=%d", currRevision))
		}
	}
	return cur, old, nil
}

// dedupCurHistories keeps the current revision with the highest number, relabels pods that
// carry another current revision's hash, and deletes the duplicates (upstream
// dedupCurHistories).
func (dsc *Controller) dedupCurHistories(ctx context.Context, ds *model.DaemonSet, selector labels.Selector, curHistories []*model.ControllerRevision) (*model.ControllerRevision, error) {
	if len(curHistories) == 1 {
		return curHistories[0], nil
	}
	var keep *model.ControllerRevision
	var maxRev int64
	for _, c := range curHistories {
		if c.Revision >= maxRev {
			keep = c
			maxRev = c.Revision
		}
	}
	pods, err := dsc.getDaemonPods(ctx, ds, selector)
	if err != nil {
		return nil, err
	}
	keepHash := keep.Labels[DefaultDaemonSetUniqueLabelKey]
	for _, p := range pods {
		if p.Labels[DefaultDaemonSetUniqueLabelKey] == keepHash {
			continue
		}
		patch, err := json.Marshal(map[string]any{"metadata": map[string]any{"labels": map[string]string{DefaultDaemonSetUniqueLabelKey: keepHash}}})
		if err != nil {
			return nil, err
		}
		if _, err := dsc.Client.Patch(ctx, model.KindPod, ds.Namespace, p.Name, patch); err != nil {
			return nil, err
		}
	}
	for _, c := range curHistories {
		if c.Name == keep.Name {
			continue
		}
		if err := dsc.Client.Delete(ctx, model.KindControllerRevision, ds.Namespace, c.Name, model.DeleteOptions{}); err != nil {
			return nil, err
		}
		dsc.Kernel.Emit(Component, "revision-delete", "ControllerRevision "+model.KeyOf(ds.Namespace, c.Name), 0, "duplicate")
	}
	return keep, nil
}

// newRevision returns the revision of ds's current template with hash (ComputeHash of it) at
// revision number revision, as upstream snapshot builds it: named "<ds>-<hash>", with the
// template's labels plus the hash label and ds's annotations, controlled by ds.
func newRevision(ds *model.DaemonSet, hash string, revision int64) *model.ControllerRevision {
	cr := history.NewControllerRevision(ds, controllerRef(ds), &ds.Spec.Template, ds.Name+"-"+hash, hash, revision)
	if len(ds.Annotations) > 0 {
		cr.Annotations = maps.Clone(ds.Annotations)
	}
	return cr
}

// snapshot creates the revision of ds's current template (newRevision; upstream snapshot). If
// the name is taken by an equal revision, that one is returned; by a different one (a hash
// collision), status.collisionCount is bumped after checking it is not stale, and the
// AlreadyExists error is returned so that the sync is retried with the new count.
func (dsc *Controller) snapshot(ctx context.Context, ds *model.DaemonSet, revision int64) (*model.ControllerRevision, error) {
	hash := controllerutil.ComputeHash(&ds.Spec.Template, ds.Status.CollisionCount)
	rev := newRevision(ds, hash, revision)
	name := rev.Name
	created, err := dsc.Client.Create(ctx, rev)
	if err == nil {
		cr := created.(*model.ControllerRevision)
		dsc.stats.RevisionsCreated++
		dsc.Kernel.Emit(Component, "revision-create", "ControllerRevision "+model.Key(cr), cr.ResourceVersion, fmt.Sprintf("revision=%d", cr.Revision))
		return cr, nil
	}
	if !apierrors.IsAlreadyExists(err) {
		return nil, err
	}
	obj, getErr := dsc.Client.Get(ctx, model.KindControllerRevision, ds.Namespace, name)
	if getErr != nil {
		return nil, getErr
	}
	existing := obj.(*model.ControllerRevision)
	done, matchErr := match(ds, existing)
	if matchErr != nil {
		return nil, matchErr
	}
	if done {
		return existing, nil
	}
	curObj, getErr := dsc.Client.Get(ctx, model.KindDaemonSet, ds.Namespace, ds.Name)
	if getErr != nil {
		return nil, getErr
	}
	currDS := curObj.(*model.DaemonSet)
	if !ptr.Equal(currDS.Status.CollisionCount, ds.Status.CollisionCount) {
		return nil, fmt.Errorf("found a stale collision count (%d, expected %d) of DaemonSet %q while processing; will retry until it is updated",
			ptr.Deref(ds.Status.CollisionCount, 0), ptr.Deref(currDS.Status.CollisionCount, 0), ds.Name)
	}
	next := ptr.Deref(currDS.Status.CollisionCount, 0) + 1
	currDS.Status.CollisionCount = &next
	if _, err := dsc.Client.UpdateStatus(ctx, currDS); err != nil {
		return nil, err
	}
	dsc.Kernel.Emit(Component, "revision-collision", dsRef(ds), 0, fmt.Sprintf("name=%s collisionCount=%d", name, next))
	return nil, err
}

// cleanupHistory deletes the oldest old revisions that no pod (terminal deleted pods included)
// carries, keeping revisionHistoryLimit of them (upstream cleanupHistory).
func (dsc *Controller) cleanupHistory(ctx context.Context, ds *model.DaemonSet, selector labels.Selector, old []*model.ControllerRevision) error {
	nodeToPods, err := dsc.getNodesToDaemonPods(ctx, ds, selector, true)
	if err != nil {
		return fmt.Errorf("couldn't get node to daemon pod mapping for daemon set %q: %v", ds.Name, err)
	}
	toKill := len(old) - revisionHistoryLimit(ds)
	if toKill <= 0 {
		return nil
	}
	live := map[string]bool{}
	for _, pods := range nodeToPods { //detlint:ordered filling a set
		for _, p := range pods {
			if h := p.Labels[DefaultDaemonSetUniqueLabelKey]; h != "" {
				live[h] = true
			}
		}
	}
	sorted := slices.Clone(old)
	sortByRevision(sorted)
	for _, h := range sorted {
		if toKill <= 0 {
			break
		}
		if live[h.Labels[DefaultDaemonSetUniqueLabelKey]] {
			continue
		}
		if err := dsc.Client.Delete(ctx, model.KindControllerRevision, ds.Namespace, h.Name, model.DeleteOptions{}); err != nil {
			return err
		}
		dsc.stats.RevisionsDeleted++
		dsc.Kernel.Emit(Component, "revision-delete", "ControllerRevision "+model.Key(h), 0, fmt.Sprintf("revision=%d", h.Revision))
		toKill--
	}
	return nil
}
