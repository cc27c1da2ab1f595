package statefulset

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim/client"
	"github.com/reconsim/reconsim/sim/controllers/internal/history"
	"github.com/reconsim/reconsim/vtime"
)

// Blockage names the pod a StatefulSet's last sync stopped at, and why.
type Blockage struct {
	// Pod is the key ("namespace/name") of the pod the set waits on.
	Pod string
	// Reason says what the set waits for, in a sentence.
	Reason string
	// Since is when the sync first stopped at this pod for this reason.
	Since vtime.Time
}

// syncState is what one sync of one set learns on the way: the first place it had to wait.
type syncState struct {
	blocked *Blockage
}

// block records where the sync stopped, keeping the first such place.
func (s *syncState) block(pod *model.Pod, format string, args ...any) {
	if s.blocked != nil {
		return
	}
	s.blocked = &Blockage{Pod: podKeyOf(pod), Reason: fmt.Sprintf(format, args...)}
}

// terminatingReason is the message of the identity rule: a pod being deleted keeps its ordinal
// until the object is gone (kubernetes/kubernetes#72226; rancher/rke2#3913: pods of a failed
// node stay until the node returns or its Node object is deleted).
func terminatingReason(pod *model.Pod) string {
	where := ""
	if pod.Spec.NodeName != "" {
		where = " on node " + pod.Spec.NodeName
	}
	return fmt.Sprintf("pod %s is Terminating%s and will not be replaced until it is gone", podKeyOf(pod), where)
}

// updateStatefulSet is upstream defaultStatefulSetControl.UpdateStatefulSet: it reads the
// set's revisions, brings its pods towards the spec (performUpdate), writes the status, and
// truncates the revision history. It returns the status computed, or nil with the error of a
// step that failed before any status could be computed; a history truncation error is joined
// to the others.
func (ssc *Controller) updateStatefulSet(ctx context.Context, set *model.StatefulSet, pods []*model.Pod, selector labels.Selector, st *syncState) (*model.StatefulSetStatus, error) {
	set = set.DeepCopy()
	revisions := ssc.listRevisions(set, selector)
	history.SortControllerRevisions(revisions)
	current, update, status, err := ssc.performUpdate(ctx, set, pods, revisions, st)
	truncErr := ssc.truncateHistory(ctx, set, pods, revisions, current, update)
	if err != nil {
		return nil, errors.Join(err, truncErr)
	}
	return status, truncErr
}

// performUpdate computes the revisions, runs the pod loop and writes the status even when the
// pod loop failed, as upstream does.
func (ssc *Controller) performUpdate(ctx context.Context, set *model.StatefulSet, pods []*model.Pod, revisions []*model.ControllerRevision, st *syncState) (current, update *model.ControllerRevision, status *model.StatefulSetStatus, err error) {
	current, update, collisionCount, err := ssc.getStatefulSetRevisions(ctx, set, revisions)
	if err != nil {
		return current, update, nil, err
	}
	status, err = ssc.updatePods(ctx, set, current, update, collisionCount, pods, st)
	if err != nil && status == nil {
		return current, update, nil, err
	}
	statusErr := ssc.updateStatefulSetStatus(ctx, set, status)
	switch {
	case err != nil:
		return current, update, status, err
	case statusErr != nil:
		return current, update, status, statusErr
	}
	return current, update, status, nil
}

// replicaStatus counts one list of pods (upstream computeReplicaStatus).
func countStatus(status *model.StatefulSetStatus, pods []*model.Pod, minReadySeconds int32, current, update string, now vtime.Time) {
	for _, p := range pods {
		if p == nil {
			continue
		}
		if isCreated(p) {
			status.Replicas++
		}
		if isRunningAndReady(p) {
			status.ReadyReplicas++
			if isRunningAndAvailable(p, minReadySeconds, now) {
				status.AvailableReplicas++
			}
		}
		if isCreated(p) && !isTerminating(p) {
			rev := getPodRevision(p)
			if rev == current {
				status.CurrentReplicas++
			}
			if rev == update {
				status.UpdatedReplicas++
			}
		}
	}
}

// updateStatus recomputes the replica counts of status from the given pod lists (upstream
// updateStatus).
func updateStatus(status *model.StatefulSetStatus, minReadySeconds int32, current, update string, now vtime.Time, lists ...[]*model.Pod) {
	status.Replicas, status.ReadyReplicas, status.AvailableReplicas, status.CurrentReplicas, status.UpdatedReplicas = 0, 0, 0, 0, 0
	for _, l := range lists {
		countStatus(status, l, minReadySeconds, current, update, now)
	}
}

// updatePods is upstream updateStatefulSet, the heart of the controller:
//
//  1. Pods are split into replicas (ordinal in [0, replicas)) and condemned (higher
//     ordinals); missing ordinals get a pod built in memory at the revision they should have.
//  2. Every replica is processed (processReplica). OrderedReady is monotonic: the walk is in
//     ordinal order and stops at the first pod it creates, the first pod being deleted and the
//     first pod that is not Running, Ready and available. Parallel runs every replica at once in
//     slow-start batches and never waits.
//  3. Condemned pods are deleted, from the highest ordinal; monotonic waits for each to be gone
//     and only deletes healthy pods (or the first unhealthy one).
//  4. Unless the strategy is OnDelete, a rolling update deletes pods whose revision is not the
//     update revision, from the highest ordinal down to the partition, as long as the
//     unavailability budget allows; the pod loop recreates them at the update revision.
//
// A pod being deleted keeps its slot: nothing is created for its ordinal until the object is
// gone. The returned status is valid even with an error, except when it is nil.
func (ssc *Controller) updatePods(ctx context.Context, set *model.StatefulSet, current, update *model.ControllerRevision, collisionCount int32, pods []*model.Pod, st *syncState) (*model.StatefulSetStatus, error) {
	now := ssc.Kernel.Now()
	minReady := set.Spec.MinReadySeconds
	currentSet := applyRevision(set, current)
	updateSet := applyRevision(set, update)

	status := &model.StatefulSetStatus{
		ObservedGeneration: set.Generation,
		CurrentRevision:    current.Name,
		UpdateRevision:     update.Name,
		CollisionCount:     int32Ptr(collisionCount),
	}
	updateStatus(status, minReady, current.Name, update.Name, now, pods)

	replicaCount := max(specReplicas(set), 0)
	replicas := make([]*model.Pod, replicaCount)
	var condemned []*model.Pod
	for _, p := range pods {
		ord := getOrdinal(p)
		switch {
		case ord >= 0 && ord < replicaCount:
			replicas[ord] = p
		case ord >= 0:
			condemned = append(condemned, p)
		}
	}
	for ord := range replicas {
		if replicas[ord] == nil {
			replicas[ord] = newVersionedStatefulSetPod(currentSet, updateSet, current.Name, update.Name, ord)
		}
	}
	sortByOrdinal(condemned, true)

	var firstUnavailable *model.Pod
	for _, p := range replicas {
		if isUnavailable(p, minReady, now) {
			firstUnavailable = p
			break
		}
	}
	if firstUnavailable == nil {
		for i := len(condemned) - 1; i >= 0; i-- {
			if isUnavailable(condemned[i], minReady, now) {
				firstUnavailable = condemned[i]
				break
			}
		}
	}

	if set.DeletionTimestamp != nil {
		return status, nil
	}
	monotonic := !allowsBurst(set)
	finish := func(err error) (*model.StatefulSetStatus, error) {
		updateStatus(status, minReady, current.Name, update.Name, now, replicas, condemned)
		if !monotonic && st.blocked == nil {
			// Parallel never stops at a pod, but a terminating pod still holds its ordinal.
			for _, p := range replicas {
				if isTerminating(p) {
					st.block(p, "%s", terminatingReason(p))
					break
				}
			}
		}
		return status, err
	}

	processReplica := func(ctx context.Context, i int) (bool, error) {
		return ssc.processReplica(ctx, set, updateSet, monotonic, replicas, i, st)
	}
	if exit, err := ssc.runForAll(ctx, "replica", replicas, processReplica, monotonic); exit || err != nil {
		return finish(err)
	}
	processCondemned := func(ctx context.Context, i int) (bool, error) {
		return ssc.processCondemned(ctx, set, firstUnavailable, monotonic, condemned, i, st)
	}
	if exit, err := ssc.runForAll(ctx, "condemned", condemned, processCondemned, monotonic); exit || err != nil {
		return finish(err)
	}
	finish(nil)

	if updateStrategyType(set) == model.OnDeleteStatefulSetStrategyType {
		return status, nil
	}
	if ssc.cfg.MaxUnavailableStatefulSet {
		return ssc.rollingUpdateMaxUnavailable(ctx, set, replicas, update, status, now, st)
	}
	return ssc.rollingUpdateLegacy(ctx, set, replicas, update, status, now, st)
}

// runForAll is upstream runForAll: monotonic walks the pods in order and stops at the first
// that says so or fails; burst runs them all in slow-start batches and stops only on an error.
func (ssc *Controller) runForAll(ctx context.Context, what string, pods []*model.Pod, fn func(ctx context.Context, i int) (bool, error), monotonic bool) (bool, error) {
	if monotonic {
		for i := range pods {
			if exit, err := fn(ctx, i); exit || err != nil {
				return true, err
			}
		}
		return false, nil
	}
	_, errs := slowStartBatch(ctx, Component+"/"+what, len(pods), ssc.cfg.MaxBatchSize, func(ctx context.Context, i int) error {
		_, err := fn(ctx, i)
		return err
	})
	if len(errs) > 0 {
		return true, errors.Join(errs...)
	}
	return false, nil
}

// processReplica is upstream processReplica for replicas[i]. It reports whether a monotonic
// walk must stop here.
func (ssc *Controller) processReplica(ctx context.Context, set, updateSet *model.StatefulSet, monotonic bool, replicas []*model.Pod, i int, st *syncState) (bool, error) {
	pod := replicas[i]
	minReady := set.Spec.MinReadySeconds
	// A Failed or Succeeded pod is deleted whatever its exit code; its replacement is created
	// by a later sync, once the old object is gone.
	if isFailed(pod) || isSucceeded(pod) {
		if pod.DeletionTimestamp == nil {
			if err := ssc.deleteStatefulPod(ctx, set, pod, "phase "+pod.Status.Phase); err != nil {
				return true, err
			}
		}
		st.block(pod, "pod %s has phase %s; it is deleted and recreated once the old object is gone", podKeyOf(pod), pod.Status.Phase)
		return true, nil
	}
	if !isCreated(pod) {
		if err := ssc.createStatefulPod(ctx, set, pod); err != nil {
			return true, err
		}
		if monotonic {
			st.block(pod, "pod %s was just created; the next ordinal waits for it to be Running and Ready", podKeyOf(pod))
			return true, nil
		}
	}
	if isTerminating(pod) && monotonic {
		st.block(pod, "%s", terminatingReason(pod))
		return true, nil
	}
	if !isRunningAndReady(pod) && monotonic {
		st.block(pod, "pod %s is not Running and Ready (%s); OrderedReady waits for it before the next ordinal", podKeyOf(pod), podState(pod))
		return true, nil
	}
	if !isRunningAndAvailable(pod, minReady, ssc.Kernel.Now()) && monotonic {
		st.block(pod, "pod %s is Ready but not yet available (minReadySeconds %d)", podKeyOf(pod), minReady)
		return true, nil
	}
	if identityMatches(set, pod) {
		return false, nil
	}
	if err := ssc.updateStatefulPod(ctx, updateSet, pod.DeepCopy()); err != nil {
		return true, err
	}
	return false, nil
}

// processCondemned is upstream processCondemned for condemned[i] (sorted by descending
// ordinal).
func (ssc *Controller) processCondemned(ctx context.Context, set *model.StatefulSet, firstUnhealthy *model.Pod, monotonic bool, condemned []*model.Pod, i int, st *syncState) (bool, error) {
	pod := condemned[i]
	if isTerminating(pod) {
		if monotonic {
			st.block(pod, "pod %s is Terminating; scale-down waits for it to be gone before the next", podKeyOf(pod))
			return true, nil
		}
		return false, nil
	}
	if !isRunningAndReady(pod) && monotonic && pod != firstUnhealthy {
		st.block(firstUnhealthy, "scale-down waits for pod %s to be Running and Ready (%s)", podKeyOf(firstUnhealthy), podState(firstUnhealthy))
		return true, nil
	}
	if !isRunningAndAvailable(pod, set.Spec.MinReadySeconds, ssc.Kernel.Now()) && monotonic && pod != firstUnhealthy {
		st.block(firstUnhealthy, "scale-down waits for pod %s to be available", podKeyOf(firstUnhealthy))
		return true, nil
	}
	return true, ssc.deleteStatefulPod(ctx, set, pod, "scale down")
}

// rollingUpdateLegacy is the rolling update without the MaxUnavailableStatefulSet gate: walk
// from the highest ordinal down to the partition, delete the first pod not at the update
// revision, and wait at the first pod that is unavailable.
func (ssc *Controller) rollingUpdateLegacy(ctx context.Context, set *model.StatefulSet, replicas []*model.Pod, update *model.ControllerRevision, status *model.StatefulSetStatus, now vtime.Time, st *syncState) (*model.StatefulSetStatus, error) {
	updateMin := int(partition(set))
	for target := len(replicas) - 1; target >= updateMin; target-- {
		pod := replicas[target]
		if getPodRevision(pod) != update.Name && !isTerminating(pod) {
			if err := ssc.deleteStatefulPod(ctx, set, pod, "rolling update"); err != nil && !apierrors.IsNotFound(err) {
				return status, err
			}
			status.CurrentReplicas--
			st.block(pod, "pod %s is being replaced at revision %s (rolling update)", podKeyOf(pod), update.Name)
			return status, nil
		}
		if isUnavailable(pod, set.Spec.MinReadySeconds, now) {
			st.block(pod, "rolling update waits for pod %s to be available (%s)", podKeyOf(pod), podState(pod))
			return status, nil
		}
	}
	return status, nil
}

// rollingUpdateMaxUnavailable is upstream updateStatefulSetAfterInvariantEstablished: count
// the unavailable replicas; if they do not exceed maxUnavailable, delete up to
// maxUnavailable minus that many pods not at the update revision, from the highest ordinal
// down to the partition.
func (ssc *Controller) rollingUpdateMaxUnavailable(ctx context.Context, set *model.StatefulSet, replicas []*model.Pod, update *model.ControllerRevision, status *model.StatefulSetStatus, now vtime.Time, st *syncState) (*model.StatefulSetStatus, error) {
	updateMin := 0
	maxUnavailable := 1
	if ru := set.Spec.UpdateStrategy.RollingUpdate; ru != nil {
		updateMin = int(partition(set))
		var err error
		maxUnavailable, err = getStatefulSetMaxUnavailable(ru.MaxUnavailable, len(replicas))
		if err != nil {
			return status, err
		}
	}
	var unavailable []*model.Pod
	for target := len(replicas) - 1; target >= 0; target-- {
		if isUnavailable(replicas[target], set.Spec.MinReadySeconds, now) {
			unavailable = append(unavailable, replicas[target])
		}
	}
	outdated := hasOutdated(replicas, updateMin, update.Name)
	if len(unavailable) > maxUnavailable {
		if outdated {
			p := unavailable[len(unavailable)-1]
			st.block(p, "rolling update waits: %d pod(s) unavailable (lowest %s, %s), maxUnavailable %d", len(unavailable), podKeyOf(p), podState(p), maxUnavailable)
		}
		return status, nil
	}
	toDelete := maxUnavailable - len(unavailable)
	deleted := 0
	for target := len(replicas) - 1; target >= updateMin && deleted < toDelete; target-- {
		pod := replicas[target]
		if getPodRevision(pod) != update.Name && !isTerminating(pod) {
			if err := ssc.deleteStatefulPod(ctx, set, pod, "rolling update"); err != nil && !apierrors.IsNotFound(err) {
				return status, err
			}
			deleted++
			status.CurrentReplicas--
			st.block(pod, "pod %s is being replaced at revision %s (rolling update)", podKeyOf(pod), update.Name)
		}
	}
	if st.blocked == nil && len(unavailable) > 0 && outdated {
		p := unavailable[len(unavailable)-1]
		st.block(p, "rolling update waits for pod %s to be available (%s)", podKeyOf(p), podState(p))
	}
	return status, nil
}

// hasOutdated reports whether a replica at or above the partition is not at the update
// revision.
func hasOutdated(replicas []*model.Pod, updateMin int, update string) bool {
	for i := updateMin; i < len(replicas); i++ {
		if getPodRevision(replicas[i]) != update {
			return true
		}
	}
	return false
}

// getStatefulSetMaxUnavailable resolves maxUnavailable against the replica count, rounding a
// percentage down, with a floor of 1 (upstream getStatefulSetMaxUnavailable; nil means 1).
func getStatefulSetMaxUnavailable(v *intstr.IntOrString, replicas int) (int, error) {
	if v == nil {
		return 1, nil
	}
	n, err := intstr.GetScaledValueFromIntOrPercent(intstr.ValueOrDefault(v, intstr.FromInt32(1)), replicas, false)
	if err != nil {
		return 0, err
	}
	return max(n, 1), nil
}

// updateStatefulSetStatus completes a finished rolling update in status and writes it if it
// differs from the set's (upstream updateStatefulSetStatus with completeRollingUpdate and
// inconsistentStatus).
func (ssc *Controller) updateStatefulSetStatus(ctx context.Context, set *model.StatefulSet, status *model.StatefulSetStatus) error {
	completeRollingUpdate(set, status)
	if !inconsistentStatus(set, status) {
		return nil
	}
	return ssc.writeStatus(ctx, set.DeepCopy(), status)
}

// completeRollingUpdate: once every replica is updated and Ready, the update revision becomes
// the current one.
func completeRollingUpdate(set *model.StatefulSet, status *model.StatefulSetStatus) {
	if updateStrategyType(set) == model.RollingUpdateStatefulSetStrategyType &&
		status.UpdatedReplicas == status.Replicas && status.ReadyReplicas == status.Replicas {
		status.CurrentReplicas = status.UpdatedReplicas
		status.CurrentRevision = status.UpdateRevision
	}
}

// inconsistentStatus reports whether status must be written: a newer observed generation or
// any count or revision that differs.
func inconsistentStatus(set *model.StatefulSet, status *model.StatefulSetStatus) bool {
	cur := set.Status
	return status.ObservedGeneration > cur.ObservedGeneration ||
		status.Replicas != cur.Replicas ||
		status.CurrentReplicas != cur.CurrentReplicas ||
		status.ReadyReplicas != cur.ReadyReplicas ||
		status.UpdatedReplicas != cur.UpdatedReplicas ||
		status.CurrentRevision != cur.CurrentRevision ||
		status.AvailableReplicas != cur.AvailableReplicas ||
		status.UpdateRevision != cur.UpdateRevision
}

// writeStatus is the status updater: UpdateStatus, and on a conflict re-read the cache and
// retry with the status backoff (upstream realStatefulSetStatusUpdater).
func (ssc *Controller) writeStatus(ctx context.Context, set *model.StatefulSet, status *model.StatefulSetStatus) error {
	err := ssc.retryOnConflict(ctx, ssc.cfg.StatusRetry, func() error {
		set.Status = *status
		set.Status.Conditions = slices.Clone(status.Conditions)
		updated, err := ssc.Client.UpdateStatus(ctx, set)
		if err == nil {
			ssc.stats.StatusUpdates++
			s := set.Status
			ssc.Kernel.Emit(Component, "update-status", setRef(set), updated.Meta().ResourceVersion, statusLine(s))
			return nil
		}
		ssc.Kernel.Emit(Component, "update-status-error", setRef(set), set.ResourceVersion, string(apierrors.ReasonForError(err)))
		if obj, ok := ssc.setInformer.Get(set.Namespace, set.Name); ok {
			if fresh, ok := client.ObjectAs[*model.StatefulSet](obj); ok {
				*set = *fresh.DeepCopy()
			}
		}
		return err
	})
	if err != nil {
		ssc.stats.StatusUpdateErrors++
	}
	return err
}

func statusLine(s model.StatefulSetStatus) string {
	return fmt.Sprintf("replicas=%d ready=%d available=%d current=%d updated=%d currentRevision=%s updateRevision=%s observedGeneration=%d",
		s.Replicas, s.ReadyReplicas, s.AvailableReplicas, s.CurrentReplicas, s.UpdatedReplicas, s.CurrentRevision, s.UpdateRevision, s.ObservedGeneration)
}

// ---- pod control (upstream stateful_pod_control.go) ----

// Event reasons the controller records (upstream recordPodEvent: "Successful"/"Failed" plus
// the title-cased verb).
const (
	SuccessfulCreateReason = "SuccessfulCreate"
	FailedCreateReason     = "FailedCreate"
	SuccessfulDeleteReason = "SuccessfulDelete"
	FailedDeleteReason     = "FailedDelete"
	SuccessfulUpdateReason = "SuccessfulUpdate"
	FailedUpdateReason     = "FailedUpdate"
)

// recordPodEvent records "<verb> Pod <pod> in StatefulSet <set> successful" or "... failed
// error: <err>" (upstream recordPodEvent).
func (ssc *Controller) recordPodEvent(verb string, set *model.StatefulSet, pod *model.Pod, err error) {
	title := strings.ToUpper(verb[:1]) + verb[1:]
	if err == nil {
		ssc.Recorder.Eventf(set, model.EventTypeNormal, "Successful"+title, "%s Pod %s in StatefulSet %s successful", verb, pod.Name, set.Name)
		return
	}
	ssc.Recorder.Eventf(set, model.EventTypeWarning, "Failed"+title, "%s Pod %s in StatefulSet %s failed error: %s", verb, pod.Name, set.Name, err)
}

// createStatefulPod creates the pod (upstream CreateStatefulPod). An AlreadyExists error is
// returned without an event: the cache is behind and the next sync sees the pod.
func (ssc *Controller) createStatefulPod(ctx context.Context, set *model.StatefulSet, pod *model.Pod) error {
	_, err := ssc.Client.Create(ctx, pod)
	if apierrors.IsAlreadyExists(err) {
		ssc.Kernel.Emit(Component, "create-exists", podRef(pod), 0, "")
		return err
	}
	if err != nil {
		ssc.stats.CreateErrors++
	} else {
		ssc.stats.PodsCreated++
	}
	ssc.recordPodEvent("create", set, pod, err)
	return err
}

// deleteStatefulPod deletes the pod gracefully (upstream DeleteStatefulPod); why goes to the
// trace.
func (ssc *Controller) deleteStatefulPod(ctx context.Context, set *model.StatefulSet, pod *model.Pod, why string) error {
	ssc.Kernel.Emit(Component, "delete-pod", podRef(pod), pod.ResourceVersion, why)
	err := ssc.Client.Delete(ctx, model.KindPod, pod.Namespace, pod.Name, deleteOptions())
	if err != nil {
		ssc.stats.DeleteErrors++
	} else {
		ssc.stats.PodsDeleted++
	}
	ssc.recordPodEvent("delete", set, pod, err)
	return err
}

// updateStatefulPod restores the pod's identity and writes it, re-reading the cache and
// retrying on conflicts (upstream UpdateStatefulPod). An event is recorded only if an update
// was attempted.
func (ssc *Controller) updateStatefulPod(ctx context.Context, set *model.StatefulSet, pod *model.Pod) error {
	attempted := false
	err := ssc.retryOnConflict(ctx, ssc.cfg.UpdateRetry, func() error {
		if identityMatches(set, pod) {
			return nil
		}
		updateIdentity(set, pod)
		attempted = true
		_, err := ssc.Client.Update(ctx, pod)
		if err == nil {
			return nil
		}
		if obj, ok := ssc.podInformer.Get(pod.Namespace, pod.Name); ok {
			if fresh, ok := client.ObjectAs[*model.Pod](obj); ok {
				*pod = *fresh.DeepCopy()
			}
		}
		return err
	})
	if attempted {
		ssc.recordPodEvent("update", set, pod, err)
	}
	return err
}
