package disruption

import (
	"context"
	"fmt"
	"slices"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim/client"
	"github.com/reconsim/reconsim/sim/controllers/internal/controllerutil"
	"github.com/reconsim/reconsim/vtime"
)

// sync brings one budget's status up to date ([k8s:disruption.go@003e8629] sync). A budget no
// longer in the cache is done. A Conflict is returned as is (the key is retried); any other
// failure falls back to failSafe, whose own result is returned.
func (dc *Controller) sync(ctx context.Context, key string) error {
	pdb, ok := controllerutil.Lister[*model.PodDisruptionBudget]{Informer: dc.pdbInformer}.GetByKey(key)
	if !ok {
		return nil
	}
	err := dc.trySync(ctx, pdb)
	if apierrors.IsConflict(err) {
		return err
	}
	if err != nil {
		dc.stats.FailSafes++
		dc.Kernel.Emit(Component, "fail-safe", "PodDisruptionBudget "+key, pdb.ResourceVersion, err.Error())
		return dc.failSafe(ctx, pdb, err)
	}
	return nil
}

// trySync computes the status from the cached pods and writes it if it changed, then arms a
// recheck for the earliest disruptedPods entry that will expire (upstream trySync).
func (dc *Controller) trySync(ctx context.Context, pdb *model.PodDisruptionBudget) error {
	pods, err := dc.getPodsForPdb(pdb)
	if err != nil {
		dc.Recorder.Eventf(pdb, model.EventTypeWarning, "NoPods", "Failed to get pods: %v", err)
		return err
	}
	if len(pods) == 0 {
		dc.Recorder.Eventf(pdb, model.EventTypeNormal, "NoPods", "No matching pods found")
	}
	expectedCount, desiredHealthy, unmanagedPods, err := getExpectedPodCount(pdb, len(pods), func() (int32, []string, error) {
		return dc.getExpectedScale(ctx, pods)
	})
	if err != nil {
		dc.Recorder.Eventf(pdb, model.EventTypeWarning, "CalculateExpectedPodCountFailed", "Failed to calculate the number of expected pods: %v", err)
		return err
	}
	if len(unmanagedPods) > 0 {
		dc.Recorder.Eventf(pdb, model.EventTypeWarning, "UnmanagedPods", "Pods selected by this PodDisruptionBudget (selector: %v) were found "+
			"to be unmanaged. As a result, the status of the PDB cannot be calculated correctly, which may result in undefined behavior. "+
			"To account for these pods please set \".spec.minAvailable\" "+
			"field of the PDB to an integer value.", pdb.Spec.Selector)
	}
	now := dc.Kernel.Now()
	disruptedPods, recheckTime, hasRecheck := dc.buildDisruptedPodMap(pods, pdb, now)
	currentHealthy := countHealthyPods(pods, disruptedPods, now, dc.cfg.DeletionTimeout)
	err = dc.updatePdbStatus(ctx, pdb, currentHealthy, desiredHealthy, expectedCount, disruptedPods)
	if err == nil && hasRecheck {
		// At most one entry per key waits in the recheck queue, at the earliest time asked.
		dc.enqueuePdbForRecheck(pdb, recheckTime.Sub(now))
	}
	return err
}

// getPodsForPdb returns the cached pods of the budget's namespace its selector matches, sorted
// by key. A nil selector selects nothing; an invalid one is an error.
func (dc *Controller) getPodsForPdb(pdb *model.PodDisruptionBudget) ([]*model.Pod, error) {
	sel, err := dc.selectorOf(pdb)
	if err != nil {
		return nil, err
	}
	objs := dc.podInformer.ListNamespace(pdb.Namespace, sel)
	pods := make([]*model.Pod, 0, len(objs))
	for _, obj := range objs {
		if pod, ok := client.ObjectAs[*model.Pod](obj); ok {
			pods = append(pods, pod)
		}
	}
	return pods, nil
}

// getExpectedPodCount is upstream getExpectedPodCount: the number of pods the budget expects and
// how many of them must be healthy.
//
//   - maxUnavailable set: expectedCount is the sum of the scales of the pods' controllers
//     (scale), desiredHealthy = expectedCount - maxUnavailable scaled against expectedCount,
//     rounding up, floored at 0.
//   - minAvailable an integer: desiredHealthy is that integer and expectedCount is the number
//     of matching pods (numPods); scale is not called.
//   - minAvailable a percentage: expectedCount from scale, desiredHealthy the percentage of
//     it, rounding up.
//   - neither: both 0.
//
// Errors come from scale or from a malformed IntOrString (intstr.GetScaledValueFromIntOrPercent).
func getExpectedPodCount(pdb *model.PodDisruptionBudget, numPods int, scale func() (int32, []string, error)) (expectedCount, desiredHealthy int32, unmanagedPods []string, err error) {
	switch {
	case pdb.Spec.MaxUnavailable != nil:
		expectedCount, unmanagedPods, err = scale()
		if err != nil {
			return 0, 0, unmanagedPods, err
		}
		maxUnavailable, err := intstr.GetScaledValueFromIntOrPercent(pdb.Spec.MaxUnavailable, int(expectedCount), true)
		if err != nil {
			return expectedCount, 0, unmanagedPods, err
		}
		desiredHealthy = max(expectedCount-int32(maxUnavailable), 0)
	case pdb.Spec.MinAvailable != nil && pdb.Spec.MinAvailable.Type == intstr.Int:
		desiredHealthy = pdb.Spec.MinAvailable.IntVal
		expectedCount = int32(numPods)
	case pdb.Spec.MinAvailable != nil && pdb.Spec.MinAvailable.Type == intstr.String:
		expectedCount, unmanagedPods, err = scale()
		if err != nil {
			return 0, 0, unmanagedPods, err
		}
		minAvailable, err := intstr.GetScaledValueFromIntOrPercent(pdb.Spec.MinAvailable, int(expectedCount), true)
		if err != nil {
			return expectedCount, 0, unmanagedPods, err
		}
		desiredHealthy = int32(minAvailable)
	}
	return expectedCount, desiredHealthy, unmanagedPods, nil
}

// disruptionsAllowed is currentHealthy - desiredHealthy, but 0 when that is negative or when
// the budget expects no pods: a budget whose first pods appear before its first sync must
// not allow disruptions (upstream updatePdbStatus).
func disruptionsAllowed(currentHealthy, desiredHealthy, expectedCount int32) int32 {
	allowed := currentHealthy - desiredHealthy
	if expectedCount <= 0 || allowed <= 0 {
		return 0
	}
	return allowed
}

// controllerAndScale is a controller's UID and desired replicas (upstream controllerAndScale).
type controllerAndScale struct {
	uid   string
	scale int32
}

// podControllerFinder maps a pod's controller reference to its controller and scale: nil, nil
// when the reference is not of the finder's kind or the controller is not found.
type podControllerFinder func(ctx context.Context, ref *model.OwnerReference, namespace string) (*controllerAndScale, error)

// finders lists the finders in upstream order (ReplicationControllers are not modelled).
func (dc *Controller) finders() []podControllerFinder {
	return []podControllerFinder{dc.getPodDeployment, dc.getPodReplicaSet, dc.getPodStatefulSet, dc.getScaleController}
}

// getExpectedScale sums the scales of the distinct controllers of pods (upstream
// getExpectedScale). Pods without a controller are returned as unmanaged, by name; a pod whose
// controller no finder resolves is an error.
func (dc *Controller) getExpectedScale(ctx context.Context, pods []*model.Pod) (int32, []string, error) {
	var unmanaged []string
	seen := map[string]bool{}
	var expected int32
	for _, pod := range pods {
		ref := model.ControllerOf(pod)
		if ref == nil {
			unmanaged = append(unmanaged, pod.Name)
			continue
		}
		if seen[ref.UID] {
			continue
		}
		found := false
		for _, finder := range dc.finders() {
			cs, err := finder(ctx, ref, pod.Namespace)
			if err != nil {
				return 0, unmanaged, err
			}
			if cs != nil {
				// The finder may resolve to a different controller (a Deployment for its
				// ReplicaSet); both UIDs are remembered, so neither is counted twice.
				if !seen[cs.uid] {
					expected += cs.scale
				}
				seen[cs.uid] = true
				seen[ref.UID] = true
				found = true
				break
			}
		}
		if !found {
			return 0, unmanaged, fmt.Errorf("found no controllers for pod %q", pod.Name)
		}
	}
	return expected, unmanaged, nil
}

// replicasOf returns *replicas, or 1 for nil (the API server defaults spec.replicas to 1).
func replicasOf(replicas *int32) int32 {
	if replicas == nil {
		return 1
	}
	return *replicas
}

// verifyGroupKind reports whether ref is of kind expectedKind in one of expectedGroups
// (upstream verifyGroupKind); a malformed apiVersion is an error.
func verifyGroupKind(ref *model.OwnerReference, expectedKind model.Kind, expectedGroups ...string) (bool, error) {
	gv, err := schema.ParseGroupVersion(ref.APIVersion)
	if err != nil {
		return false, err
	}
	if ref.Kind != expectedKind {
		return false, nil
	}
	for _, g := range expectedGroups {
		if g == gv.Group {
			return true, nil
		}
	}
	return false, nil
}

// getPodReplicaSet resolves a ReplicaSet that no Deployment controls (upstream getPodReplicaSet).
func (dc *Controller) getPodReplicaSet(_ context.Context, ref *model.OwnerReference, namespace string) (*controllerAndScale, error) {
	rs, err := dc.replicaSetOf(ref, namespace)
	if rs == nil || err != nil {
		return nil, err
	}
	if owner := model.ControllerOf(rs); owner != nil && owner.Kind == model.KindDeployment {
		return nil, nil
	}
	return &controllerAndScale{uid: rs.UID, scale: replicasOf(rs.Spec.Replicas)}, nil
}

// getPodDeployment resolves the Deployment controlling a pod's ReplicaSet (upstream
// getPodDeployment).
func (dc *Controller) getPodDeployment(_ context.Context, ref *model.OwnerReference, namespace string) (*controllerAndScale, error) {
	rs, err := dc.replicaSetOf(ref, namespace)
	if rs == nil || err != nil {
		return nil, err
	}
	owner := model.ControllerOf(rs)
	if owner == nil {
		return nil, nil
	}
	ok, err := verifyGroupKind(owner, model.KindDeployment, "apps", "extensions")
	if !ok || err != nil {
		return nil, err
	}
	d, found := client.ResolveControllerRef[*model.Deployment](dc.dInformer, model.KindDeployment, rs.Namespace, owner)
	if !found {
		return nil, nil
	}
	return &controllerAndScale{uid: d.UID, scale: replicasOf(d.Spec.Replicas)}, nil
}

// getPodStatefulSet resolves a StatefulSet (upstream getPodStatefulSet).
func (dc *Controller) getPodStatefulSet(_ context.Context, ref *model.OwnerReference, namespace string) (*controllerAndScale, error) {
	ok, err := verifyGroupKind(ref, model.KindStatefulSet, "apps")
	if !ok || err != nil {
		return nil, err
	}
	ss, found := client.ResolveControllerRef[*model.StatefulSet](dc.ssInformer, model.KindStatefulSet, namespace, ref)
	if !found {
		return nil, nil
	}
	return &controllerAndScale{uid: ss.UID, scale: replicasOf(ss.Spec.Replicas)}, nil
}

// replicaSetOf is the first step of upstream getPodReplicaSet and getPodDeployment: the cached
// ReplicaSet ref names when ref is an apps (or extensions) ReplicaSet with that UID, else nil.
func (dc *Controller) replicaSetOf(ref *model.OwnerReference, namespace string) (*model.ReplicaSet, error) {
	ok, err := verifyGroupKind(ref, model.KindReplicaSet, "apps", "extensions")
	if !ok || err != nil {
		return nil, err
	}
	rs, _ := client.ResolveControllerRef[*model.ReplicaSet](dc.rsInformer, model.KindReplicaSet, namespace, ref)
	return rs, nil
}

// scaleKinds are the kinds the simulated API server serves with a scale subresource, by
// group (what upstream's implementsScale learns through discovery).
var scaleKinds = map[schema.GroupKind]bool{
	{Group: "apps", Kind: string(model.KindDeployment)}:  true,
	{Group: "apps", Kind: string(model.KindReplicaSet)}:  true,
	{Group: "apps", Kind: string(model.KindStatefulSet)}: true,
}

// getScaleController is upstream getScaleController, the fallback for controllers the listers
// do not resolve: it reads the controller's scale subresource with an uncached GET. A kind the
// API does not know is the RESTMapper's "no matches for kind" error (no request is sent). A
// 404 means either that the controller is gone (nothing resolved) or that its kind has no scale
// subresource: "<resource>.<group> does not implement the scale subresource". A scale of
// another UID (a different object of the same name) resolves to nothing.
func (dc *Controller) getScaleController(ctx context.Context, ref *model.OwnerReference, namespace string) (*controllerAndScale, error) {
	gv, err := schema.ParseGroupVersion(ref.APIVersion)
	if err != nil {
		return nil, err
	}
	info, known := model.LookupKind(ref.Kind)
	if !known || info.APIVersion != gv.String() {
		return nil, fmt.Errorf("no matches for kind %q in version %q", ref.Kind, gv.String())
	}
	scale, err := dc.Client.GetScale(ctx, ref.Kind, namespace, ref.Name)
	if err != nil {
		if !apierrors.IsNotFound(err) {
			return nil, err
		}
		if !scaleKinds[schema.GroupKind{Group: gv.Group, Kind: string(ref.Kind)}] {
			return nil, fmt.Errorf("%s does not implement the scale subresource", schema.GroupResource{Group: gv.Group, Resource: info.Resource}.String())
		}
		return nil, nil
	}
	if scale.UID != ref.UID {
		return nil, nil
	}
	return &controllerAndScale{uid: scale.UID, scale: scale.Spec.Replicas}, nil
}

// countHealthyPods counts the pods that are Ready, not being deleted, and not in
// disruptedPods with an entry younger than deletionTimeout (upstream countHealthyPods).
func countHealthyPods(pods []*model.Pod, disruptedPods map[string]vtime.Time, now vtime.Time, deletionTimeout time.Duration) int32 {
	var healthy int32
	for _, pod := range pods {
		if pod.DeletionTimestamp != nil {
			continue
		}
		if at, found := disruptedPods[pod.Name]; found && at.Add(deletionTimeout).After(now) {
			continue
		}
		if model.IsPodReady(pod) {
			healthy++
		}
	}
	return healthy
}

// buildDisruptedPodMap keeps the disruptedPods entries of pods that still exist, are not yet
// being deleted and whose entry has not expired; for an expired entry it records a Warning
// NotDeleted event on the pod. It also returns the earliest expiry among the kept entries
// (ok false when none), when the budget must be looked at again (upstream
// buildDisruptedPodMap).
func (dc *Controller) buildDisruptedPodMap(pods []*model.Pod, pdb *model.PodDisruptionBudget, now vtime.Time) (map[string]vtime.Time, vtime.Time, bool) {
	result := map[string]vtime.Time{}
	var recheck vtime.Time
	hasRecheck := false
	if pdb.Status.DisruptedPods == nil {
		return result, recheck, false
	}
	for _, pod := range pods {
		if pod.DeletionTimestamp != nil {
			continue
		}
		at, found := pdb.Status.DisruptedPods[pod.Name]
		if !found {
			continue
		}
		expectedDeletion := at.Add(dc.cfg.DeletionTimeout)
		if expectedDeletion.Before(now) {
			// Upstream formats the budget's namespace twice in this message.
			dc.Recorder.Eventf(pod, model.EventTypeWarning, "NotDeleted", "Pod was expected by PDB %s/%s to be deleted but it wasn't",
				pdb.Namespace, pdb.Namespace)
			continue
		}
		if !hasRecheck || expectedDeletion.Before(recheck) {
			recheck, hasRecheck = expectedDeletion, true
		}
		result[pod.Name] = at
	}
	return result, recheck, hasRecheck
}

// failSafe writes disruptionsAllowed=0 with DisruptionAllowed=False/SyncFailed, so that the
// eviction subresource refuses evictions while the budget cannot be computed (upstream
// failSafe: "fail closed" on the eviction side).
func (dc *Controller) failSafe(ctx context.Context, pdb *model.PodDisruptionBudget, cause error) error {
	newPdb := pdb.DeepCopy()
	newPdb.Status.DisruptionsAllowed = 0
	model.SetStatusCondition(&newPdb.Status.Conditions, model.Condition{
		Type:               model.DisruptionAllowedCondition,
		Status:             model.ConditionFalse,
		Reason:             model.SyncFailedReason,
		Message:            cause.Error(),
		ObservedGeneration: newPdb.Status.ObservedGeneration,
	}, dc.Kernel.Now())
	return dc.getUpdater()(ctx, newPdb)
}

// updatePdbStatus writes the computed status unless the cached one already says the same,
// with an up-to-date DisruptionAllowed condition and observedGeneration (upstream
// updatePdbStatus).
func (dc *Controller) updatePdbStatus(ctx context.Context, pdb *model.PodDisruptionBudget, currentHealthy, desiredHealthy, expectedCount int32,
	disruptedPods map[string]vtime.Time) error {
	allowed := disruptionsAllowed(currentHealthy, desiredHealthy, expectedCount)
	st := &pdb.Status
	if st.CurrentHealthy == currentHealthy && st.DesiredHealthy == desiredHealthy && st.ExpectedPods == expectedCount &&
		st.DisruptionsAllowed == allowed && disruptedPodsEqual(st.DisruptedPods, disruptedPods) &&
		st.ObservedGeneration == pdb.Generation && conditionsAreUpToDate(pdb) {
		return nil
	}
	newPdb := pdb.DeepCopy()
	newPdb.Status = model.PodDisruptionBudgetStatus{
		CurrentHealthy:     currentHealthy,
		DesiredHealthy:     desiredHealthy,
		ExpectedPods:       expectedCount,
		DisruptionsAllowed: allowed,
		DisruptedPods:      disruptedPods,
		ObservedGeneration: pdb.Generation,
		Conditions:         newPdb.Status.Conditions,
	}
	model.UpdateDisruptionAllowedCondition(newPdb, dc.Kernel.Now())
	return dc.getUpdater()(ctx, newPdb)
}

// writePdbStatus is the default updater: one status update, not retried here (a failure is
// retried through the queue, as upstream).
func (dc *Controller) writePdbStatus(ctx context.Context, pdb *model.PodDisruptionBudget) error {
	got, err := dc.Client.UpdateStatus(ctx, pdb)
	st := pdb.Status
	if err != nil {
		dc.stats.StatusUpdateErrors++
		dc.Kernel.Emit(Component, "update-status-error", "PodDisruptionBudget "+model.Key(pdb), pdb.ResourceVersion, controllerutil.ErrorReason(err))
		return err
	}
	dc.stats.StatusUpdates++
	dc.Kernel.Emit(Component, "update-status", "PodDisruptionBudget "+model.Key(pdb), got.Meta().ResourceVersion,
		fmt.Sprintf("expected=%d desired=%d healthy=%d allowed=%d disrupted=%d observedGeneration=%d %s",
			st.ExpectedPods, st.DesiredHealthy, st.CurrentHealthy, st.DisruptionsAllowed, len(st.DisruptedPods),
			st.ObservedGeneration, conditionSummary(st.Conditions)))
	return nil
}

func conditionSummary(conds []model.Condition) string {
	for _, c := range conds {
		if c.Type == model.DisruptionAllowedCondition {
			return fmt.Sprintf("%s=%s/%s", c.Type, c.Status, c.Reason)
		}
	}
	return model.DisruptionAllowedCondition + "=<none>"
}

func disruptedPodsEqual(a, b map[string]vtime.Time) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a { //detlint:ordered a lookup per entry; the result does not depend on order
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// ---- stale DisruptionTarget conditions ----

// nonTerminatingPodHasStaleDisruptionCondition reports whether the pod carries a
// DisruptionTarget=True condition although it is not being deleted, and how long until that
// condition counts as stale (upstream nonTerminatingPodHasStaleDisruptionCondition). Conditions
// the kubelet set (reason TerminationByKubelet) and pods in a terminal phase are never stale.
func (dc *Controller) nonTerminatingPodHasStaleDisruptionCondition(pod *model.Pod) (bool, time.Duration) {
	if pod.DeletionTimestamp != nil {
		return false, 0
	}
	cond := model.GetPodCondition(pod, model.PodDisruptionTarget)
	if cond == nil || cond.Status != model.ConditionTrue || cond.Reason == model.PodReasonTerminationByKubelet ||
		model.IsPodTerminal(pod) {
		return false, 0
	}
	waitFor := dc.cfg.StalePodDisruptionTimeout - dc.Kernel.Now().Sub(cond.LastTransitionTime)
	return true, max(waitFor, 0)
}

// syncStalePodDisruption resets a stale DisruptionTarget condition to False with a status
// update, or looks again later if it is not stale yet (upstream syncStalePodDisruption).
func (dc *Controller) syncStalePodDisruption(ctx context.Context, key string) error {
	pod, ok := controllerutil.Lister[*model.Pod]{Informer: dc.podInformer}.GetByKey(key)
	if !ok {
		return nil
	}
	hasCond, cleanAfter := dc.nonTerminatingPodHasStaleDisruptionCondition(pod)
	if !hasCond {
		return nil
	}
	if cleanAfter > 0 {
		dc.stalePodDisruptionQueue.AddAfter(key, cleanAfter)
		return nil
	}
	// A shallow copy with a condition list of its own, handed over to the write
	// (UpdateStatusShared, as the taint eviction controller's write): the rest stays shared
	// with the cache and the stored versions, read-only (docs/architecture.md, "Object
	// ownership"), where the deep copies in and out of UpdateStatus were 4% of the bytes
	// thundering-herd allocated.
	podValue := *pod
	podValue.Status.Conditions = slices.Clone(pod.Status.Conditions)
	newPod := &podValue
	if !model.UpdatePodCondition(&newPod.Status, model.PodCondition{Type: model.PodDisruptionTarget, Status: model.ConditionFalse}, dc.Kernel.Now()) {
		return nil
	}
	got, err := dc.Client.UpdateStatusShared(ctx, newPod)
	if err != nil {
		return err
	}
	dc.stats.StaleConditionResets++
	dc.Kernel.Emit(Component, "reset-stale-disruption-target", "Pod "+key, got.Meta().ResourceVersion, "")
	return nil
}
