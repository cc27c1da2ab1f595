package apiserver

import (
	"fmt"
	"net/http"
	"slices"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/vtime"
)

// The eviction subresource, pods/eviction, after upstream's EvictionREST
// ([k8s] pkg/registry/core/pod/storage/eviction.go). Every message and status below is
// upstream's.

// SubresourceEviction is the Request.Subresource of an eviction: Verb create, Kind Pod,
// Object a *model.Eviction.
const SubresourceEviction = "eviction"

const (
	// evictionRefusedMsg is the message of the 429 an eviction gets when the budget does not
	// allow it (createTooManyRequestsError and checkAndDecrement).
	evictionRefusedMsg = "Cannot evict pod as it would violate the pod's disruption budget."
	// multiplePDBsMsg is the message of the 500 for a pod matched by several budgets.
	multiplePDBsMsg = "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support."
	// maxDisruptedPodSize is upstream MaxDisruptedPodSize: a budget whose disruptedPods map is
	// larger refuses evictions (the disruption controller is not keeping up).
	maxDisruptedPodSize = 2000
	// disruptionBudgetCause is policyv1.DisruptionBudgetCause, the cause type of a refusal.
	disruptionBudgetCause metav1.CauseType = "DisruptionBudget"
	// evictionByEvictionAPIReason and evictionMessage are the DisruptionTarget condition
	// addConditionAndDeletePod writes on the pod (PodDisruptionConditions, GA since 1.31).
	evictionByEvictionAPIReason = "EvictionByEvictionAPI"
	evictionMessage             = "Eviction API: evicting"
)

var pdbResource = schema.GroupResource{Group: "policy", Resource: "poddisruptionbudget"}

// Evict is a create on the pods/eviction subresource of pod namespace/name. ev names the pod
// (an empty name means name) and carries the options of the pod's deletion. Like upstream:
//
//   - A pod that is Pending, Succeeded, Failed or already being deleted is deleted without
//     looking at budgets (canIgnorePDB); a Pending pod's deletion is conditioned on the
//     resourceVersion read (unless the caller gave one), so a pod that just started is not
//     removed behind a budget's back.
//   - The PodDisruptionBudgets of the namespace whose selector matches the pod's labels are
//     found (a nil or empty selector matches nothing). None: the pod is deleted. More than
//     one: 500 "This pod has more than one PodDisruptionBudget, which the eviction
//     subresource does not support." (a Status with code 500 and no reason, as upstream
//     returns it, so apierrors.IsInternalError is false; check the code).
//   - A pod that is not Ready is evicted without using up the budget when the budget's
//     unhealthyPodEvictionPolicy is AlwaysAllow, or (nil or IfHealthyBudget) when
//     currentHealthy >= desiredHealthy > 0; its deletion is then conditioned on the
//     resourceVersion read, and a conflict there is a 429.
//   - Otherwise the budget is checked and decremented (checkAndDecrement): observedGeneration
//     below generation is 429 "Cannot evict pod as it would violate the pod's disruption
//     budget." (cause DisruptionBudget: the budget "is still being processed by the server");
//     disruptionsAllowed negative or more than 2000 disrupted pods is 403; disruptionsAllowed
//     0 is the same 429 with cause "The disruption budget <name> needs <desired> healthy pods
//     and has <current> currently". Else a status update of the budget (conflict-checked)
//     decrements disruptionsAllowed, sets the DisruptionAllowed condition False
//     (InsufficientPods) when it reaches 0, and records the pod in status.disruptedPods with
//     the current time.
//   - The pod gets the condition DisruptionTarget=True (reason EvictionByEvictionAPI) by a
//     status update and is then deleted with ev's delete options (gracefully, as Delete
//     does); a precondition that no longer holds is 409 Conflict.
//
// It returns the pod as Delete does (marked for graceful deletion, or its last state).
// Other errors: 400 for a nil eviction or one naming another pod or namespace, 404 if the
// pod does not exist, 422 for invalid delete options.
func (s *Store) Evict(namespace, name string, ev *model.Eviction) (model.Object, error) {
	if ev == nil {
		return nil, apierrors.NewBadRequest("eviction needs an Eviction object")
	}
	switch ev.Name {
	case "", name:
	default:
		return nil, apierrors.NewBadRequest("name in URL does not match name in Eviction object")
	}
	if ev.Namespace != "" && ev.Namespace != namespace {
		return nil, apierrors.NewBadRequest("the namespace of the provided object does not match the namespace sent on the request")
	}
	podKS, err := s.kind(model.KindPod)
	if err != nil {
		return nil, err
	}
	original := deleteOptionsFrom(ev.DeleteOptions)
	if errs := validateDeleteOptions(original); len(errs) > 0 {
		return nil, apierrors.NewInvalid(schema.GroupKind{Group: "meta.k8s.io", Kind: "DeleteOptions"}, "", errs)
	}
	cur := podKS.objects[podKS.keyOf(namespace, name)]
	if cur == nil {
		return nil, apierrors.NewNotFound(podKS.gr, name)
	}
	pod := cur.(*model.Pod)

	if canIgnorePDB(pod) {
		opts := original
		if shouldEnforceResourceVersion(pod) && !hasResourceVersionPrecondition(original) {
			opts = withResourceVersionPrecondition(original, pod.ResourceVersion)
		}
		return s.addConditionAndDeletePod(podKS, pod, opts)
	}

	pdbs, err := s.podDisruptionBudgetsFor(pod)
	if err != nil {
		return nil, err
	}
	if len(pdbs) > 1 {
		return nil, &apierrors.StatusError{ErrStatus: metav1.Status{
			Status:  metav1.StatusFailure,
			Code:    http.StatusInternalServerError,
			Message: multiplePDBsMsg,
		}}
	}
	updateDeletionOptions := false
	pdbName := ""
	if len(pdbs) == 1 {
		pdb := pdbs[0]
		pdbName = pdb.Name
		if !model.IsPodReady(pod) && canEvictUnhealthy(pdb) {
			updateDeletionOptions = true
		} else if err := s.checkAndDecrement(pod.Name, pdb); err != nil {
			return nil, err
		}
	}

	opts := original
	if updateDeletionOptions {
		opts = withResourceVersionPrecondition(original, pod.ResourceVersion)
	}
	out, err := s.addConditionAndDeletePod(podKS, pod, opts)
	if err != nil {
		if apierrors.IsConflict(err) && updateDeletionOptions && !hasResourceVersionPrecondition(original) {
			// The unready pod changed (it may have become ready) since the budget was judged:
			// the client should retry.
			return nil, tooManyRequestsForPDB(pdbName)
		}
		return nil, err
	}
	return out, nil
}

// canIgnorePDB is upstream canIgnorePDB: a pod that is pending, finished or already being
// deleted does not count against any budget.
func canIgnorePDB(pod *model.Pod) bool {
	switch pod.Status.Phase {
	case model.PodSucceeded, model.PodFailed, model.PodPending:
		return true
	}
	return pod.DeletionTimestamp != nil
}

// shouldEnforceResourceVersion is upstream shouldEnforceResourceVersion: only a terminal or
// deleting pod may be deleted without guarding against it becoming ready meanwhile.
func shouldEnforceResourceVersion(pod *model.Pod) bool {
	switch pod.Status.Phase {
	case model.PodSucceeded, model.PodFailed:
		return false
	}
	return pod.DeletionTimestamp == nil
}

// canEvictUnhealthy is the unhealthy-pod rule of EvictionREST.Create: AlwaysAllow, or the
// default IfHealthyBudget when the budget is currently met.
func canEvictUnhealthy(pdb *model.PodDisruptionBudget) bool {
	if p := pdb.Spec.UnhealthyPodEvictionPolicy; p != nil && *p == model.AlwaysAllow {
		return true
	}
	return pdb.Status.CurrentHealthy >= pdb.Status.DesiredHealthy && pdb.Status.DesiredHealthy > 0
}

// podDisruptionBudgetsFor is upstream getPodDisruptionBudgets: the budgets of the pod's
// namespace whose selector parses, is not empty, and matches the pod's labels, in name order.
func (s *Store) podDisruptionBudgetsFor(pod *model.Pod) ([]*model.PodDisruptionBudget, error) {
	items, _, err := s.List(model.KindPodDisruptionBudget, model.ListOptions{Namespace: pod.Namespace})
	if err != nil {
		return nil, err
	}
	var out []*model.PodDisruptionBudget
	for _, obj := range items {
		pdb := obj.(*model.PodDisruptionBudget)
		selector, err := metav1.LabelSelectorAsSelector(pdb.Spec.Selector)
		if err != nil {
			continue // an invalid selector matches nothing
		}
		// A nil or empty selector matches nothing here, not everything.
		if selector.Empty() || !selector.Matches(labels.Set(pod.Labels)) {
			continue
		}
		out = append(out, pdb)
	}
	return out, nil
}

// tooManyRequestsForPDB is upstream createTooManyRequestsError.
func tooManyRequestsForPDB(pdbName string) error {
	err := apierrors.NewTooManyRequests(evictionRefusedMsg, 0)
	err.ErrStatus.Details.Causes = append(err.ErrStatus.Details.Causes, metav1.StatusCause{
		Type:    disruptionBudgetCause,
		Message: fmt.Sprintf("The disruption budget %s is still being processed by the server.", pdbName),
	})
	return err
}

// checkAndDecrement is upstream checkAndDecrement: refuse when the budget does not allow a
// disruption, else record the disruption in the budget's status through a status update.
func (s *Store) checkAndDecrement(podName string, stored *model.PodDisruptionBudget) error {
	if stored.Status.ObservedGeneration < stored.Generation {
		return tooManyRequestsForPDB(stored.Name)
	}
	if stored.Status.DisruptionsAllowed < 0 {
		return apierrors.NewForbidden(pdbResource, stored.Name, fmt.Errorf("pdb disruptions allowed is negative"))
	}
	if len(stored.Status.DisruptedPods) > maxDisruptedPodSize {
		return apierrors.NewForbidden(pdbResource, stored.Name, fmt.Errorf("DisruptedPods map too big - too many evictions not confirmed by PDB controller"))
	}
	if stored.Status.DisruptionsAllowed == 0 {
		err := apierrors.NewTooManyRequests(evictionRefusedMsg, 0)
		err.ErrStatus.Details.Causes = append(err.ErrStatus.Details.Causes, metav1.StatusCause{
			Type:    disruptionBudgetCause,
			Message: fmt.Sprintf("The disruption budget %s needs %d healthy pods and has %d currently", stored.Name, stored.Status.DesiredHealthy, stored.Status.CurrentHealthy),
		})
		return err
	}
	pdb := stored.DeepCopy()
	pdb.Status.DisruptionsAllowed--
	if pdb.Status.DisruptionsAllowed == 0 {
		model.UpdateDisruptionAllowedCondition(pdb, s.k.Now())
	}
	if pdb.Status.DisruptedPods == nil {
		pdb.Status.DisruptedPods = make(map[string]vtime.Time)
	}
	pdb.Status.DisruptedPods[podName] = s.k.Now()
	_, err := s.UpdateStatus(pdb) // carries the read resourceVersion: a stale budget is 409
	return err
}

// addConditionAndDeletePod is upstream addConditionAndDeletePod: the latest pod (checked
// against the options' preconditions) gets DisruptionTarget=True through the status
// subresource; a resourceVersion precondition then follows that write; then the pod is
// deleted with the options.
func (s *Store) addConditionAndDeletePod(podKS *kindStore, pod *model.Pod, opts model.DeleteOptions) (model.Object, error) {
	if err := checkPreconditions(podKS, pod, opts.Preconditions); err != nil {
		return nil, err
	}
	updated := pod.DeepCopy()
	now := s.k.Now()
	conds := updated.Status.Conditions
	if i := slices.IndexFunc(conds, func(c model.PodCondition) bool { return c.Type == model.PodDisruptionTarget }); i >= 0 {
		c := &conds[i]
		if c.Status != model.ConditionTrue {
			c.Status = model.ConditionTrue
			c.LastTransitionTime = now
		}
		c.Reason, c.Message = evictionByEvictionAPIReason, evictionMessage
	} else {
		updated.Status.Conditions = append(conds, model.PodCondition{
			Type:               model.PodDisruptionTarget,
			Status:             model.ConditionTrue,
			LastTransitionTime: now,
			Reason:             evictionByEvictionAPIReason,
			Message:            evictionMessage,
		})
	}
	stored, err := s.update(podKS, updated, true, "update-status")
	if err != nil {
		return nil, err
	}
	if hasResourceVersionPrecondition(opts) {
		opts = withResourceVersionPrecondition(opts, stored.Meta().ResourceVersion)
	}
	return s.Delete(model.KindPod, pod.Namespace, pod.Name, opts)
}

// deleteOptionsFrom copies an Eviction's delete options (so the caller's eviction stays its
// own); nil means none.
func deleteOptionsFrom(o *model.DeleteOptions) model.DeleteOptions {
	if o == nil {
		return model.DeleteOptions{}
	}
	return *o.DeepCopy()
}

func hasResourceVersionPrecondition(opts model.DeleteOptions) bool {
	return opts.Preconditions != nil && opts.Preconditions.ResourceVersion != nil
}

// withResourceVersionPrecondition returns a copy of opts whose preconditions require rv.
func withResourceVersionPrecondition(opts model.DeleteOptions, rv uint64) model.DeleteOptions {
	pre := model.Preconditions{}
	if opts.Preconditions != nil {
		pre = *opts.Preconditions
	}
	pre.ResourceVersion = &rv
	opts.Preconditions = &pre
	return opts
}
