package replicaset

import (
	"context"
	"fmt"
	"maps"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/utils/ptr"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim"
	"github.com/reconsim/reconsim/sim/client"
	"github.com/reconsim/reconsim/sim/controllers/internal/controllerutil"
)

func rsRef(rs *model.ReplicaSet) string { return "ReplicaSet " + model.Key(rs) }

// syncReplicaSet brings one ReplicaSet towards spec.replicas (upstream syncReplicaSet):
//
//  1. A ReplicaSet that is gone from the cache only has its expectations forgotten.
//  2. Expectations are checked before listing, so that an observation arriving meanwhile
//     cannot make a stale list look complete.
//  3. The active pods of the namespace are claimed: matching orphans are adopted, owned pods
//     that no longer match are released.
//  4. Only if the expectations are satisfied and the ReplicaSet is not being deleted are pods
//     created or deleted (manageReplicas).
//  5. The status is always recomputed and written if it changed.
//  6. With minReadySeconds, a ReplicaSet whose pods are all Ready but not yet all available is
//     synced again minReadySeconds later, as a guard against clock skew.
//
// It returns manageReplicas' error (so the key is retried with backoff), or the error of the
// claim or status update; a ReplicaSet with an invalid selector is skipped without error.
func (rsc *Controller) syncReplicaSet(ctx context.Context, key string) error {
	rs, ok := controllerutil.Lister[*model.ReplicaSet]{Informer: rsc.rsInformer}.GetByKey(key)
	if !ok {
		rsc.expectations.DeleteExpectations(key)
		rsc.selectors.Forget(key)
		return nil
	}
	rsNeedsSync := rsc.expectations.SatisfiedExpectations(key)
	ps, err := rsc.selectorOf(key, rs)
	if err != nil {
		rsc.Kernel.Emit(Component, "invalid-selector", rsRef(rs), rs.ResourceVersion, err.Error())
		return nil
	}
	matcher := newLabelMatcher(ps)
	buf := rsc.getSyncBuffers()
	defer rsc.putSyncBuffers(buf)
	buf.all = rsc.pods.candidates(buf.all[:0], rs.UID, rs.Namespace)
	var terminating int
	buf.active, terminating = splitActiveFacts(buf.active[:0], rs, matcher, buf.all)
	activeFacts, err := rsc.claimPods(ctx, rs, matcher, buf.active)
	if err != nil {
		return err
	}

	var manageReplicasErr error
	switch {
	case rs.DeletionTimestamp != nil:
	case !rsNeedsSync:
		add, del := int64(0), int64(0)
		if e, ok := rsc.expectations.GetExpectations(key); ok {
			add, del = e.GetExpectations()
		}
		rsc.Kernel.Emit(Component, "expectations-pending", rsRef(rs), rs.ResourceVersion, fmt.Sprintf("add=%d del=%d", add, del))
	default:
		// Only manageReplicas reads the pods themselves.
		activePods := buf.pods[:0]
		for _, f := range activeFacts {
			activePods = append(activePods, f.pod)
		}
		buf.pods = activePods
		manageReplicasErr = rsc.manageReplicas(ctx, activePods, key, rs)
	}
	// Upstream deep-copies rs here because its status update edits the copy; this one sends a
	// shallow copy with the new status instead (updateReplicaSetStatus), so rs, the
	// informer's object, is only read.
	newStatus := calculateStatus(rs, ps.templatePairs, activeFacts, terminating, manageReplicasErr, rsc.Kernel.Now())
	updatedRS, err := rsc.updateReplicaSetStatus(ctx, rs, newStatus)
	if err != nil {
		return err
	}
	if manageReplicasErr == nil && updatedRS.Spec.MinReadySeconds > 0 &&
		updatedRS.Status.ReadyReplicas == specReplicas(updatedRS) &&
		updatedRS.Status.AvailableReplicas != specReplicas(updatedRS) {
		rsc.Queue.AddAfter(key, time.Duration(updatedRS.Spec.MinReadySeconds)*time.Second)
	}
	return manageReplicasErr
}

// selectorOf is metav1.LabelSelectorAsSelector(rs.Spec.Selector) as a podSelector, converted
// once per ReplicaSet version instead of on every sync (upstream converts it on every sync;
// the conversion was a twentieth of the allocations of thundering-herd, whose ReplicaSets of
// 500 replicas sync on every change of a pod). The informer's objects are never modified (a
// change is a new version), so a version's selector never changes; and a new version with an
// equal selector (a status update: the selector is immutable in apps/v1) keeps the parsed
// one. key is rs's key; a ReplicaSet gone from the informer is forgotten by the sync that
// finds it gone.
func (rsc *Controller) selectorOf(key string, rs *model.ReplicaSet) (podSelector, error) {
	return rsc.selectors.GetSame(key, rs, sameSelector, func(rs *model.ReplicaSet) (podSelector, error) {
		selector, err := metav1.LabelSelectorAsSelector(rs.Spec.Selector)
		if err != nil {
			return podSelector{}, err
		}
		ps := newPodSelector(rs.Spec.Selector, selector)
		ps.templatePairs = labelPairs(rs.Spec.Template.Labels)
		return ps, nil
	})
}

// sameSelector reports whether two versions of a ReplicaSet have equal selectors and template
// labels, so that what selectorOf derived for the first serves the second (they are all it
// reads).
func sameSelector(a, b *model.ReplicaSet) bool {
	return controllerutil.LabelSelectorsEqual(a.Spec.Selector, b.Spec.Selector) &&
		maps.Equal(a.Spec.Template.Labels, b.Spec.Template.Labels)
}

// syncBuffers are one sync's slices, each O(pods of the ReplicaSet): the candidate facts, the
// active ones among them, and their pods. Reusing them spares three allocations of that size
// per sync, which were 4% of thundering-herd's CPU with the collections they cause.
type syncBuffers struct {
	all    []podFacts
	active []*podFacts
	pods   []*model.Pod
}

// getSyncBuffers returns buffers for one sync; putSyncBuffers returns them. Syncs of
// different ReplicaSets interleave when they block, so each takes its own.
func (rsc *Controller) getSyncBuffers() *syncBuffers {
	if n := len(rsc.syncBuffers); n > 0 {
		b := rsc.syncBuffers[n-1]
		rsc.syncBuffers = rsc.syncBuffers[:n-1]
		return b
	}
	return &syncBuffers{}
}

func (rsc *Controller) putSyncBuffers(b *syncBuffers) {
	// Drop the pod pointers so that the buffers keep no old pods alive.
	clear(b.all)
	clear(b.active)
	clear(b.pods)
	rsc.syncBuffers = append(rsc.syncBuffers, b)
}

// splitActiveFacts is FilterActivePods over facts, and counts the terminating pods in the same
// pass (one pass over the candidates instead of two). It appends to out pointers into all, in
// its order, and returns the number of pods being deleted that have not finished and that rs
// controls and still selects (upstream FilterClaimedPods over FilterTerminatingPods).
func splitActiveFacts(out []*podFacts, rs *model.ReplicaSet, matcher *labelMatcher, all []podFacts) ([]*podFacts, int) {
	terminating := 0
	for i := range all {
		f := &all[i]
		switch {
		case f.active():
			out = append(out, f)
		case f.terminating() && f.hasController && f.controllerUID == rs.UID && matcher.matches(f):
			terminating++
		}
	}
	return out, terminating
}

// manageReplicas creates or deletes pods so that len(activePods) moves towards
// spec.replicas, at most BurstReplicas per call (upstream manageReplicas). It never modifies the
// pods; it may reorder activePods. It returns the first creation or deletion error. key is
// rs's key (the sync's).
func (rsc *Controller) manageReplicas(ctx context.Context, activePods []*model.Pod, key string, rs *model.ReplicaSet) error {
	want := int(specReplicas(rs))
	diff := len(activePods) - want
	switch {
	case diff < 0:
		diff = min(-diff, rsc.cfg.BurstReplicas)
		// Expect every creation before the first request goes out: the informer may observe
		// a new pod before the create call returns.
		rsc.expectations.ExpectCreations(key, diff)
		rsc.Kernel.Emit(Component, "too-few", rsRef(rs), rs.ResourceVersion, fmt.Sprintf("need=%d have=%d creating=%d", want, len(activePods), diff))
		onBatch := func(size int) {
			rsc.stats.SlowStartBatches++
			rsc.Kernel.Emit(Component, "slow-start-batch", rsRef(rs), 0, fmt.Sprintf("size=%d", size))
		}
		successful, err := slowStartBatch(ctx, Component+"/create", diff, rsc.cfg.SlowStartInitialBatchSize, onBatch, func(ctx context.Context) error {
			err := rsc.podControl.CreatePod(ctx, rs, podFromTemplate(rs))
			if err != nil && apierrors.HasStatusCause(err, model.NamespaceTerminatingCause) {
				return nil
			}
			return err
		})
		// The pods never attempted (and the failed ones) will never be observed.
		if skipped := diff - successful; skipped > 0 {
			rsc.Kernel.Emit(Component, "slow-start-skipped", rsRef(rs), 0, fmt.Sprintf("skipped=%d", skipped))
			for i := 0; i < skipped; i++ {
				rsc.expectations.CreationObserved(key)
			}
		}
		return err
	case diff > 0:
		diff = min(diff, rsc.cfg.BurstReplicas)
		relatedPods := rsc.getIndirectlyRelatedPods(rs)
		podsToDelete := getPodsToDelete(activePods, relatedPods, diff, rsc.Kernel.Now())
		keys := make([]string, len(podsToDelete))
		names := make([]string, len(podsToDelete))
		for i, p := range podsToDelete {
			keys[i] = podKey(p)
			names[i] = p.Name
		}
		// Track the exact pods, so that each is counted once whether it is seen first with a
		// deletionTimestamp or only as deleted.
		rsc.expectations.ExpectDeletions(key, keys)
		rsc.Kernel.Emit(Component, "too-many", rsRef(rs), rs.ResourceVersion, fmt.Sprintf("need=%d have=%d deleting=%s", want, len(activePods), strings.Join(names, ",")))
		errs := sim.RunConcurrently(ctx, Component+"/delete", 0, len(podsToDelete), func(ctx context.Context, i int) error {
			pod := podsToDelete[i]
			if err := rsc.podControl.DeletePod(ctx, rs, pod.Namespace, pod.Name); err != nil {
				// The informer will not observe this deletion.
				rsc.expectations.DeletionObserved(key, pod.Namespace, pod.Name)
				if !apierrors.IsNotFound(err) {
					return err
				}
			}
			return nil
		})
		if len(errs) > 0 {
			return errs[0]
		}
	}
	return nil
}

// getIndirectlyRelatedPods returns the pods selected by every ReplicaSet with the same
// controller as rs (its siblings under one Deployment), each once (upstream function of the
// same name). A ReplicaSet without a controller has no related pods, so its scale-down
// ranking sees no co-location.
func (rsc *Controller) getIndirectlyRelatedPods(rs *model.ReplicaSet) []*model.Pod {
	ref := model.ControllerOf(rs)
	if ref == nil {
		return nil
	}
	var related []*model.Pod
	seen := make(map[string]bool)
	for _, obj := range rsc.rsInformer.ByIndex(client.IndexOwnerUID, ref.UID) {
		relatedRS, ok := client.ObjectAs[*model.ReplicaSet](obj)
		if !ok {
			continue
		}
		selector, err := metav1.LabelSelectorAsSelector(relatedRS.Spec.Selector)
		if err != nil {
			continue
		}
		for _, p := range controllerutil.ListNamespaceAs[*model.Pod](rsc.podInformer, relatedRS.Namespace, selector) {
			if seen[p.UID] {
				continue
			}
			seen[p.UID] = true
			related = append(related, p)
		}
	}
	return related
}

// ---- pod control (upstream controller_utils.go RealPodControl) ----

// podFromTemplate builds the pod rs creates: template labels, annotations, finalizers and
// spec, generateName "<rs name>-", and a controller reference to rs that blocks its foreground
// deletion (upstream GetPodFromTemplate with metav1.NewControllerRef).
func podFromTemplate(rs *model.ReplicaSet) *model.Pod {
	var t model.PodTemplateSpec
	rs.Spec.Template.DeepCopyInto(&t)
	return controllerutil.PodFromTemplate(&t, rs, controllerRef(rs))
}

// controllerRef is metav1.NewControllerRef(rs, apps/v1 ReplicaSet).
func controllerRef(rs *model.ReplicaSet) model.OwnerReference {
	return controllerutil.NewControllerRef(rs, model.KindReplicaSet, "apps/v1")
}

// updateReplicaSetStatus writes newStatus with observedGeneration = rs.generation unless
// nothing would change (upstream updateReplicaSetStatus). A failed write is retried
// StatusUpdateRetries times, each after a fresh GET. It returns the ReplicaSet as written (rs
// itself when nothing changed), or the last update error, or the GET error.
func (rsc *Controller) updateReplicaSetStatus(ctx context.Context, rs *model.ReplicaSet, newStatus model.ReplicaSetStatus) (*model.ReplicaSet, error) {
	if statusUnchanged(rs, newStatus) {
		return rs, nil
	}
	newStatus.ObservedGeneration = rs.Generation
	cur := rs
	var updateErr error
	for i := 0; ; i++ {
		// The write is a shallow copy of cur with the new status (newStatus shares nothing with
		// rs: calculateStatus clones the conditions), handed over (UpdateStatusShared); the
		// answer is the stored object, shared and only read. Upstream's UpdateStatus sends a
		// deep copy it made and decodes a new answer: three deep copies of the ReplicaSet per
		// status write here before, 3.6% of thundering-herd's CPU.
		write := new(model.ReplicaSet)
		*write = *cur
		write.Status = newStatus
		updated, err := rsc.Client.UpdateStatusShared(ctx, write)
		if err == nil {
			rsc.stats.StatusUpdates++
			out, _ := client.ObjectAs[*model.ReplicaSet](updated)
			if out == nil {
				return write, nil
			}
			s := out.Status
			rsc.Kernel.Emit(Component, "update-status", rsRef(out), out.ResourceVersion, fmt.Sprintf("replicas=%d ready=%d available=%d terminating=%d observedGeneration=%d%s",
				s.Replicas, s.ReadyReplicas, s.AvailableReplicas, ptr.Deref(s.TerminatingReplicas, 0), s.ObservedGeneration, conditionSuffix(s)))
			return out, nil
		}
		updateErr = err
		rsc.Kernel.Emit(Component, "update-status-error", rsRef(cur), cur.ResourceVersion, string(apierrors.ReasonForError(err)))
		if i >= rsc.cfg.StatusUpdateRetries {
			break
		}
		obj, getErr := rsc.Client.Get(ctx, model.KindReplicaSet, rs.Namespace, rs.Name)
		if getErr != nil {
			rsc.stats.StatusUpdateErrors++
			return nil, getErr
		}
		fresh, ok := client.ObjectAs[*model.ReplicaSet](obj)
		if !ok {
			return nil, fmt.Errorf("replicaset: GET %s returned a %s", model.Key(rs), obj.GetKind())
		}
		cur = fresh
	}
	rsc.stats.StatusUpdateErrors++
	return nil, updateErr
}

func conditionSuffix(s model.ReplicaSetStatus) string {
	if c := getCondition(s, ReplicaSetReplicaFailure); c != nil {
		return " ReplicaFailure=" + c.Reason
	}
	return ""
}

// ---- adoption and release (upstream controller_ref_manager.go PodControllerRefManager) ----

// claimPods returns the pods rs should manage (upstream claimPods / ClaimPods): pods it
// already controls that its selector matches, plus matching orphans it adopts. Owned pods
// that no longer match are released (unless rs is being deleted). Pods controlled by another
// owner are left alone. Errors from individual pods are aggregated; the claimed pods are
// returned either way. It is ControllerRefManager.ClaimPods over the precomputed pod facts,
// whose label matcher is faster than a labels.Selector.
func (rsc *Controller) claimPods(ctx context.Context, rs *model.ReplicaSet, matcher *labelMatcher, pods []*podFacts) ([]*podFacts, error) {
	// The manager (one per sync, as upstream's) is made for the first pod the fast path below
	// does not claim: in most syncs every pod is rs's own, and making it (with its owner
	// reference, trace hooks and names) for nothing was five allocations per sync.
	var m *controllerutil.ControllerRefManager
	claimed := pods[:0]
	var errs []error
	for _, f := range pods {
		// ClaimObject's first case, read from the facts instead of the pod: a pod rs controls
		// that its selector still matches is claimed with no write. The facts were computed
		// from f.pod, which is immutable once stored, so the answer is the same; skipping the
		// pod object saves a cache miss per pod on every sync (12% of thundering-herd).
		if f.hasController && f.controllerUID == rs.UID && matcher.matches(f) {
			claimed = append(claimed, f)
			continue
		}
		if m == nil {
			m = controllerutil.NewControllerRefManager(rsc.Client, rs, controllerRef(rs), nil)
			m.TraceClaims(rsc.Kernel, Component, rsRef(rs), &rsc.stats.Adoptions, &rsc.stats.Releases)
		}
		ok, err := m.ClaimObject(ctx, f.pod, func(model.Object) bool { return matcher.matches(f) })
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if ok {
			claimed = append(claimed, f)
		}
	}
	return claimed, utilerrors.NewAggregate(errs)
}
