package daemonset

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim"
	"github.com/reconsim/reconsim/sim/client"
	"github.com/reconsim/reconsim/sim/controllers/internal/controllerutil"
)

// Event reasons (daemon_controller.go and controller_utils.go).
const (
	SelectingAllReason        = "SelectingAll"
	FailedPlacementReason     = "FailedPlacement"
	FailedDaemonPodReason     = "FailedDaemonPod"
	SucceededDaemonPodReason  = "SucceededDaemonPod"
	SuccessfulCreatePodReason = controllerutil.SuccessfulCreatePodReason
	FailedCreatePodReason     = controllerutil.FailedCreatePodReason
	SuccessfulDeletePodReason = controllerutil.SuccessfulDeletePodReason
	FailedDeletePodReason     = controllerutil.FailedDeletePodReason
)

// syncDaemonSet is upstream syncDaemonSet:
//
//  1. A DaemonSet gone from the cache only has its expectations forgotten.
//  2. A selector that selects everything is refused with a SelectingAll event.
//  3. A DaemonSet being deleted is left alone (its history may be half gone).
//  4. The revision history is constructed; its hash labels the current template's pods.
//  5. While creations or deletions of the last sync are unobserved, only the status is
//     written, without raising observedGeneration.
//  6. Otherwise manage (one pod per eligible node), the rolling update if the expectations
//     allow, history cleanup, and the status with observedGeneration.
func (dsc *Controller) syncDaemonSet(ctx context.Context, key string) error {
	ds, ok := controllerutil.Lister[*model.DaemonSet]{Informer: dsc.dsInformer}.GetByKey(key)
	if !ok {
		dsc.expectations.DeleteExpectations(key)
		return nil
	}
	nodeList := dsc.nodes()
	if ds.Spec.Selector != nil && reflect.DeepEqual(*ds.Spec.Selector, metav1.LabelSelector{}) {
		dsc.Recorder.Eventf(ds, model.EventTypeWarning, SelectingAllReason, "This daemon set is selecting all pods. A non-empty selector is required.")
		return nil
	}
	selector, err := metav1.LabelSelectorAsSelector(ds.Spec.Selector)
	if err != nil {
		dsc.Kernel.Emit(Component, "invalid-selector", dsRef(ds), ds.ResourceVersion, err.Error())
		return nil
	}
	if ds.DeletionTimestamp != nil {
		return nil
	}
	cur, old, err := dsc.constructHistory(ctx, ds, selector)
	if err != nil {
		return fmt.Errorf("failed to construct revisions of DaemonSet: %v", err)
	}
	hash := cur.Labels[DefaultDaemonSetUniqueLabelKey]

	if !dsc.expectations.SatisfiedExpectations(key) {
		if e, ok := dsc.expectations.GetExpectations(key); ok {
			add, del := e.GetExpectations()
			dsc.Kernel.Emit(Component, "expectations-pending", dsRef(ds), ds.ResourceVersion, fmt.Sprintf("add=%d del=%d", add, del))
		}
		return dsc.updateDaemonSetStatus(ctx, ds, selector, nodeList, hash, false)
	}
	err = dsc.updateDaemonSet(ctx, ds, selector, nodeList, hash, key, old)
	statusErr := dsc.updateDaemonSetStatus(ctx, ds, selector, nodeList, hash, true)
	switch {
	case err != nil:
		return err
	case statusErr != nil:
		return statusErr
	}
	return nil
}

// nodes returns the cached Nodes, sorted by name.
func (dsc *Controller) nodes() []*model.Node {
	objs := dsc.nodeInformer.List(nil)
	out := make([]*model.Node, 0, len(objs))
	for _, o := range objs {
		if n, ok := client.ObjectAs[*model.Node](o); ok {
			out = append(out, n)
		}
	}
	return out
}

// updateDaemonSet runs manage, then (expectations allowing) the rolling update, then history
// cleanup (upstream updateDaemonSet).
func (dsc *Controller) updateDaemonSet(ctx context.Context, ds *model.DaemonSet, selector labels.Selector, nodeList []*model.Node, hash, key string, old []*model.ControllerRevision) error {
	if err := dsc.manage(ctx, ds, selector, nodeList, hash); err != nil {
		return err
	}
	if dsc.expectations.SatisfiedExpectations(key) && updateStrategyType(ds) == model.RollingUpdateDaemonSetStrategyType {
		if err := dsc.rollingUpdate(ctx, ds, selector, nodeList, hash); err != nil {
			return err
		}
	}
	if err := dsc.cleanupHistory(ctx, ds, selector, old); err != nil {
		return fmt.Errorf("failed to clean up revisions of DaemonSet: %w", err)
	}
	return nil
}

// getNodesToDaemonPods claims ds's pods and groups them by the node they are for (spec.nodeName,
// or the node their affinity names). Unless includeDeletedTerminal, pods that are finished and
// being deleted are left out: nothing more is done with them (upstream getNodesToDaemonPods).
func (dsc *Controller) getNodesToDaemonPods(ctx context.Context, ds *model.DaemonSet, selector labels.Selector, includeDeletedTerminal bool) (map[string][]*model.Pod, error) {
	pods, err := dsc.getDaemonPods(ctx, ds, selector)
	if err != nil {
		return nil, err
	}
	out := map[string][]*model.Pod{}
	for _, p := range pods {
		if !includeDeletedTerminal && model.IsPodTerminal(p) && p.DeletionTimestamp != nil {
			continue
		}
		node, err := getTargetNodeName(p)
		if err != nil {
			continue
		}
		out[node] = append(out[node], p)
	}
	return out, nil
}

// sortedNodeNames returns the keys of nodeToPods, sorted: upstream ranges over the map, in
// Go's random order; the simulator fixes the order.
func sortedNodeNames(nodeToPods map[string][]*model.Pod) []string {
	names := make([]string, 0, len(nodeToPods))
	for n := range nodeToPods { //detlint:ordered sorted below
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// manage computes, node by node, which daemon pods to create and which to delete, adds the
// unscheduled pods of nodes that no longer exist, and acts (upstream manage).
func (dsc *Controller) manage(ctx context.Context, ds *model.DaemonSet, selector labels.Selector, nodeList []*model.Node, hash string) error {
	nodeToPods, err := dsc.getNodesToDaemonPods(ctx, ds, selector, false)
	if err != nil {
		return fmt.Errorf("couldn't get node to daemon pod mapping for daemon set %q: %v", ds.Name, err)
	}
	var nodesNeeding, podsToDelete []string
	for _, node := range nodeList {
		n, d := dsc.podsShouldBeOnNode(node, nodeToPods, ds, hash)
		nodesNeeding = append(nodesNeeding, n...)
		podsToDelete = append(podsToDelete, d...)
	}
	podsToDelete = append(podsToDelete, getUnscheduledPodsWithoutNode(nodeList, nodeToPods)...)
	return dsc.syncNodes(ctx, ds, podsToDelete, nodesNeeding, hash)
}

// podsShouldBeOnNode decides for one node (upstream podsShouldBeOnNode):
//   - eligible and no pod: create one;
//   - may keep its pods: delete failed pods (with a per-node back-off and a FailedDaemonPod
//     event) and succeeded ones; without surge keep only the oldest running pod; with surge
//     keep at most the oldest new and the oldest old pod, and drop the old one once the new
//     one is available (or the old one is no longer Ready);
//   - must not run a pod: delete every pod not already being deleted.
func (dsc *Controller) podsShouldBeOnNode(node *model.Node, nodeToPods map[string][]*model.Pod, ds *model.DaemonSet, hash string) (nodesNeeding, podsToDelete []string) {
	shouldRun, shouldContinueRunning := dsc.shouldRun(node, ds)
	daemonPods, exists := nodeToPods[node.Name]
	switch {
	case shouldRun && !exists:
		nodesNeeding = append(nodesNeeding, node.Name)
	case shouldContinueRunning:
		var running []*model.Pod
		for _, pod := range daemonPods {
			if pod.DeletionTimestamp != nil {
				continue
			}
			switch pod.Status.Phase {
			case model.PodFailed:
				backoffKey := failedPodsBackoffKey(ds, node.Name)
				now := dsc.Kernel.Now()
				if dsc.failedPodsBackoff.IsInBackOffSinceUpdate(backoffKey, now) {
					delay := dsc.failedPodsBackoff.Get(backoffKey)
					dsc.Kernel.Emit(Component, "failed-pod-backoff", podRef(pod), 0, fmt.Sprintf("node=%s delay=%s", node.Name, delay))
					dsc.Queue.AddAfter(model.Key(ds), delay)
					continue
				}
				dsc.failedPodsBackoff.Next(backoffKey, now, now)
				dsc.Recorder.Eventf(ds, model.EventTypeWarning, FailedDaemonPodReason, "Found failed daemon pod %s/%s on node %s, will try to kill it", pod.Namespace, pod.Name, node.Name)
				podsToDelete = append(podsToDelete, pod.Name)
			case model.PodSucceeded:
				dsc.Recorder.Eventf(ds, model.EventTypeNormal, SucceededDaemonPodReason, "Found succeeded daemon pod %s/%s on node %s, will try to delete it", pod.Namespace, pod.Name, node.Name)
				podsToDelete = append(podsToDelete, pod.Name)
			default:
				running = append(running, pod)
			}
		}
		if !allowsSurge(ds) {
			if len(running) <= 1 {
				break
			}
			sortByCreationTimestampAndPhase(running)
			for _, p := range running[1:] {
				podsToDelete = append(podsToDelete, p.Name)
			}
			break
		}
		if len(running) <= 1 {
			if len(running) == 0 && shouldRun {
				nodesNeeding = append(nodesNeeding, node.Name)
			}
			break
		}
		var oldestNew, oldestOld *model.Pod
		sortByCreationTimestampAndPhase(running)
		for _, pod := range running {
			if pod.Labels[DefaultDaemonSetUniqueLabelKey] == hash {
				if oldestNew == nil {
					oldestNew = pod
					continue
				}
			} else if oldestOld == nil {
				oldestOld = pod
				continue
			}
			podsToDelete = append(podsToDelete, pod.Name)
		}
		if oldestNew != nil && oldestOld != nil {
			switch {
			case !model.IsPodReady(oldestOld):
				podsToDelete = append(podsToDelete, oldestOld.Name)
			case model.IsPodAvailable(oldestNew, ds.Spec.MinReadySeconds, dsc.Kernel.Now()):
				podsToDelete = append(podsToDelete, oldestOld.Name)
			}
		}
	case !shouldContinueRunning && exists:
		for _, pod := range daemonPods {
			if pod.DeletionTimestamp != nil {
				continue
			}
			podsToDelete = append(podsToDelete, pod.Name)
		}
	}
	return nodesNeeding, podsToDelete
}

func failedPodsBackoffKey(ds *model.DaemonSet, nodeName string) string {
	return fmt.Sprintf("%s/%d/%s", ds.UID, ds.Status.ObservedGeneration, nodeName)
}

// getUnscheduledPodsWithoutNode returns the unscheduled pods meant for nodes that do not
// exist: pod GC cannot delete them, so the DaemonSet controller does (upstream function of the
// same name). Sorted by node name, then pod name.
func getUnscheduledPodsWithoutNode(nodeList []*model.Node, nodeToPods map[string][]*model.Pod) []string {
	running := make(map[string]bool, len(nodeList))
	for _, n := range nodeList {
		running[n.Name] = true
	}
	var out []string
	for _, name := range sortedNodeNames(nodeToPods) {
		if running[name] {
			continue
		}
		for _, p := range nodeToPods[name] {
			if p.Spec.NodeName == "" {
				out = append(out, p.Name)
			}
		}
	}
	return out
}

// syncNodes deletes podsToDelete and creates a pod for each of nodesNeeding, at most
// BurstReplicas of each (upstream syncNodes). Expectations are set before any request.
// Creations run in slow-start batches (1, 2, 4, ...); after a batch with a failure the rest
// are skipped and taken off the expectations. Deletions all run at once. The error joins every
// failure (namespace-terminating creations and NotFound deletions are not failures).
func (dsc *Controller) syncNodes(ctx context.Context, ds *model.DaemonSet, podsToDelete, nodesNeeding []string, hash string) error {
	key := model.Key(ds)
	createDiff := min(len(nodesNeeding), dsc.cfg.BurstReplicas)
	deleteDiff := min(len(podsToDelete), dsc.cfg.BurstReplicas)
	dsc.expectations.SetExpectations(key, createDiff, deleteDiff)
	if createDiff == 0 && deleteDiff == 0 {
		return nil
	}
	dsc.Kernel.Emit(Component, "sync-nodes", dsRef(ds), ds.ResourceVersion, fmt.Sprintf("create-on=%s delete=%s", list(nodesNeeding[:createDiff]), list(podsToDelete[:deleteDiff])))

	var errs []error
	generation, err := getTemplateGeneration(ds)
	if err != nil {
		generation = nil
	}
	template := createPodTemplate(&ds.Spec.Template, generation, hash)
	pos := 0
	for batch := min(createDiff, dsc.cfg.SlowStartInitialBatchSize); createDiff > pos; batch, pos = min(2*batch, createDiff-(pos+batch)), pos+batch {
		dsc.Kernel.Emit(Component, "slow-start-batch", dsRef(ds), 0, fmt.Sprintf("size=%d", batch))
		batchErrs := sim.RunConcurrently(ctx, Component+"/create", pos, batch, func(ctx context.Context, ix int) error {
			var podTemplate model.PodTemplateSpec
			template.DeepCopyInto(&podTemplate)
			podTemplate.Spec.Affinity = replaceDaemonSetPodNodeNameNodeAffinity(podTemplate.Spec.Affinity, nodesNeeding[ix])
			err := dsc.podControl.CreatePod(ctx, ds, controllerutil.PodFromTemplate(&podTemplate, ds, controllerRef(ds)))
			if err != nil && apierrors.HasStatusCause(err, model.NamespaceTerminatingCause) {
				return nil
			}
			if err != nil {
				dsc.expectations.CreationObserved(key)
			}
			return err
		})
		errs = append(errs, batchErrs...)
		if skipped := createDiff - (batch + pos); len(batchErrs) > 0 && skipped > 0 {
			dsc.Kernel.Emit(Component, "slow-start-skipped", dsRef(ds), 0, fmt.Sprintf("skipped=%d", skipped))
			dsc.expectations.LowerExpectations(key, skipped, 0)
			break
		}
	}

	deleteErrs := sim.RunConcurrently(ctx, Component+"/delete", 0, deleteDiff, func(ctx context.Context, ix int) error {
		if err := dsc.podControl.DeletePod(ctx, ds, ds.Namespace, podsToDelete[ix]); err != nil {
			dsc.expectations.DeletionObserved(key)
			if !apierrors.IsNotFound(err) {
				return err
			}
		}
		return nil
	})
	errs = append(errs, deleteErrs...)
	return errors.Join(errs...)
}

func list(names []string) string {
	if len(names) == 0 {
		return "-"
	}
	return strings.Join(names, ",")
}

// updateDaemonSetStatus recomputes the status from the nodes and the claimed pods and stores it
// (upstream updateDaemonSetStatus): desiredNumberScheduled counts eligible nodes;
// currentNumberScheduled those that have a pod; numberMisscheduled ineligible nodes that have
// one; numberReady, numberAvailable and updatedNumberScheduled look at each eligible node's
// oldest pod; numberUnavailable = desired - available. With minReadySeconds and ready pods not
// yet available, the DaemonSet is synced again minReadySeconds later.
func (dsc *Controller) updateDaemonSetStatus(ctx context.Context, ds *model.DaemonSet, selector labels.Selector, nodeList []*model.Node, hash string, updateObservedGen bool) error {
	nodeToPods, err := dsc.getNodesToDaemonPods(ctx, ds, selector, false)
	if err != nil {
		return fmt.Errorf("couldn't get node to daemon pod mapping for daemon set %q: %v", ds.Name, err)
	}
	now := dsc.Kernel.Now()
	generation, err := getTemplateGeneration(ds)
	if err != nil {
		generation = nil
	}
	var st model.DaemonSetStatus
	for _, node := range nodeList {
		shouldRun, _ := dsc.shouldRun(node, ds)
		pods := nodeToPods[node.Name]
		scheduled := len(pods) > 0
		if !shouldRun {
			if scheduled {
				st.NumberMisscheduled++
			}
			continue
		}
		st.DesiredNumberScheduled++
		if !scheduled {
			continue
		}
		st.CurrentNumberScheduled++
		sorted := slices.Clone(pods)
		sortByCreationTimestampAndPhase(sorted)
		pod := sorted[0]
		if model.IsPodReady(pod) {
			st.NumberReady++
			if model.IsPodAvailable(pod, ds.Spec.MinReadySeconds, now) {
				st.NumberAvailable++
			}
		}
		if isPodUpdated(pod, hash, generation) {
			st.UpdatedNumberScheduled++
		}
	}
	st.NumberUnavailable = st.DesiredNumberScheduled - st.NumberAvailable
	if err := dsc.storeDaemonSetStatus(ctx, ds, st, updateObservedGen); err != nil {
		return fmt.Errorf("error storing status for daemon set %s: %w", model.Key(ds), err)
	}
	if ds.Spec.MinReadySeconds > 0 && st.NumberReady != st.NumberAvailable {
		dsc.Queue.AddAfter(model.Key(ds), time.Duration(ds.Spec.MinReadySeconds)*time.Second)
	}
	return nil
}

// storeDaemonSetStatus writes the counts unless they and observedGeneration are already there,
// retrying StatusUpdateRetries times after a fresh GET (upstream storeDaemonSetStatus).
func (dsc *Controller) storeDaemonSetStatus(ctx context.Context, ds *model.DaemonSet, st model.DaemonSetStatus, updateObservedGen bool) error {
	cur := ds.Status
	if cur.DesiredNumberScheduled == st.DesiredNumberScheduled &&
		cur.CurrentNumberScheduled == st.CurrentNumberScheduled &&
		cur.NumberMisscheduled == st.NumberMisscheduled &&
		cur.NumberReady == st.NumberReady &&
		cur.UpdatedNumberScheduled == st.UpdatedNumberScheduled &&
		cur.NumberAvailable == st.NumberAvailable &&
		cur.NumberUnavailable == st.NumberUnavailable &&
		cur.ObservedGeneration >= ds.Generation {
		return nil
	}
	toUpdate := ds.DeepCopy()
	var updateErr error
	for i := 0; ; i++ {
		if updateObservedGen {
			toUpdate.Status.ObservedGeneration = ds.Generation
		}
		toUpdate.Status.DesiredNumberScheduled = st.DesiredNumberScheduled
		toUpdate.Status.CurrentNumberScheduled = st.CurrentNumberScheduled
		toUpdate.Status.NumberMisscheduled = st.NumberMisscheduled
		toUpdate.Status.NumberReady = st.NumberReady
		toUpdate.Status.UpdatedNumberScheduled = st.UpdatedNumberScheduled
		toUpdate.Status.NumberAvailable = st.NumberAvailable
		toUpdate.Status.NumberUnavailable = st.NumberUnavailable
		updated, err := dsc.Client.UpdateStatus(ctx, toUpdate)
		if err == nil {
			dsc.stats.StatusUpdates++
			dsc.Kernel.Emit(Component, "update-status", dsRef(ds), updated.Meta().ResourceVersion, statusLine(toUpdate.Status))
			return nil
		}
		updateErr = err
		dsc.Kernel.Emit(Component, "update-status-error", dsRef(ds), toUpdate.ResourceVersion, string(apierrors.ReasonForError(err)))
		if i >= dsc.cfg.StatusUpdateRetries {
			break
		}
		obj, getErr := dsc.Client.Get(ctx, model.KindDaemonSet, ds.Namespace, ds.Name)
		if getErr != nil {
			dsc.stats.StatusUpdateErrors++
			return getErr
		}
		fresh, ok := client.ObjectAs[*model.DaemonSet](obj)
		if !ok {
			return fmt.Errorf("daemonset: GET %s returned a %s", model.Key(ds), obj.GetKind())
		}
		toUpdate = fresh
	}
	dsc.stats.StatusUpdateErrors++
	return updateErr
}

func statusLine(s model.DaemonSetStatus) string {
	return fmt.Sprintf("desired=%d current=%d ready=%d available=%d unavailable=%d updated=%d misscheduled=%d observedGeneration=%d",
		s.DesiredNumberScheduled, s.CurrentNumberScheduled, s.NumberReady, s.NumberAvailable, s.NumberUnavailable,
		s.UpdatedNumberScheduled, s.NumberMisscheduled, s.ObservedGeneration)
}
