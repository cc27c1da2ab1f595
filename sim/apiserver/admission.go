package apiserver

import (
	"fmt"
	"slices"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/vtime"
)

// Defaulting and validation are the model's (model.SetDefaults, model.ValidateLike,
// model.ValidateUpdate, model.ValidateUpdateOfValid); these wrappers are the only places the
// store calls them.

func setDefaults(obj model.Object) { model.SetDefaults(obj) }

// validateCreate is model.Validate(obj), given valid, an object of obj's kind that passed it
// (or nil): model.ValidateLike checks again only what obj has that valid has not.
func validateCreate(obj, valid model.Object) field.ErrorList { return model.ValidateLike(obj, valid) }

// validateCreate validates a new object of the kind: the strategy's own validation for
// custom resources, the model's for the rest, against the object the kind's last create
// stored (ks.lastCreated): stored objects are never changed, so it is still the valid object
// it was, and the next pod of a ReplicaSet is validated only for what it has of its own.
func (ks *kindStore) validateCreate(obj model.Object) field.ErrorList {
	if ks.strat.validateCreate != nil {
		return ks.strat.validateCreate(obj)
	}
	return validateCreate(obj, ks.lastCreated)
}

// validateUpdateOf is validateUpdate (the store's, a test seam) or the strategy's own.
func (s *Store) validateUpdateOf(ks *kindStore, old, obj model.Object, oldStored bool) field.ErrorList {
	if ks.strat.validateUpdate != nil {
		return ks.strat.validateUpdate(old, obj)
	}
	return s.validateUpdate(old, obj, oldStored)
}

// objectsEqual is semanticEqual for two objects; custom resources compare their JSON
// content by value.
func objectsEqual(a, b model.Object) bool {
	ua, ok := a.(*model.Unstructured)
	if !ok {
		return semanticEqual(a, b)
	}
	return unstructuredEqual(ua, b)
}

// unstructuredEqual is objectsEqual for a custom resource; it is a function of its own to
// keep its frame out of the request path's (Server.Do).
//
//go:noinline
func unstructuredEqual(ua *model.Unstructured, b model.Object) bool {
	ub, ok := b.(*model.Unstructured)
	return ok && ua.APIVersion == ub.APIVersion && ua.Kind == ub.Kind &&
		semanticEqual(&ua.ObjectMeta, &ub.ObjectMeta) && model.EqualJSON(nonNilContent(ua.Content), nonNilContent(ub.Content))
}

// validateUpdate validates obj as an update of old. oldStored says old is the stored object:
// that passed validation when it was written (every write that stores an object validates it,
// and the deletion writes change only deletion metadata and finalizers, which are validated
// every time), so model.ValidateUpdateOfValid, which gives model.ValidateUpdate's result
// without repeating checks of what obj has unchanged from old, applies.
func validateUpdate(old, obj model.Object, oldStored bool) field.ErrorList {
	if oldStored {
		return model.ValidateUpdateOfValid(old, obj)
	}
	return model.ValidateUpdate(old, obj)
}

// admitNamespace is the NamespaceLifecycle admission plugin
// ([k8s] plugin/pkg/admission/namespace/lifecycle/admission.go) for a namespaced object: the
// namespace must exist (404 NotFound on namespaces), and nothing new may be created in a
// namespace that is terminating (403 Forbidden with cause NamespaceTerminating). Deletes are
// always allowed, so Delete does not call it.
func (s *Store) admitNamespace(ks *kindStore, namespace, name string, creating bool) error {
	if !ks.info.Namespaced || namespace == "" {
		return nil // validation reports a missing namespace
	}
	nsStore := s.namespaces
	if nsStore == nil {
		return nil
	}
	obj := s.namespaceObject(namespace)
	if obj == nil {
		return apierrors.NewNotFound(nsStore.gr, namespace)
	}
	ns, ok := obj.(*model.Namespace)
	if !creating || !ok || ns.Status.Phase != model.NamespaceTerminating {
		return nil
	}
	err := apierrors.NewForbidden(ks.gr, name, fmt.Errorf("unable to create new content in namespace %s because it is being terminated", namespace))
	err.ErrStatus.Details.Causes = append(err.ErrStatus.Details.Causes, metav1.StatusCause{
		Type:    model.NamespaceTerminatingCause,
		Message: fmt.Sprintf("namespace %s is being terminated", namespace),
		Field:   "metadata.namespace",
	})
	return err
}

// namespaceObject is the stored Namespace named name (nil: none), found in the namespaces
// admitNamespace looked up last when it is one of them: nearly every write names one of a few
// namespaces, and a lookup in the map costs hashing the name and, often, a cache miss.
func (s *Store) namespaceObject(name string) model.Object {
	for i := range s.recentNamespaces {
		if e := &s.recentNamespaces[i]; e.obj != nil && e.name == name {
			return e.obj
		}
	}
	obj := s.namespaces.objects[objKey{name: name}]
	if obj != nil {
		s.recentNamespaces[s.recentNamespaceNext] = recentNamespace{name: name, obj: obj}
		s.recentNamespaceNext = (s.recentNamespaceNext + 1) % len(s.recentNamespaces)
	}
	return obj
}

// recentNamespace is an entry of Store.recentNamespaces.
type recentNamespace struct {
	name string
	obj  model.Object
}

// admitDefaultTolerations is the DefaultTolerationSeconds admission plugin
// ([k8s:plugin/pkg/admission/defaulttolerationseconds/admission.go@012b085a]) on a pod's main
// resource, on create and update: a pod that does not already tolerate the not-ready
// (or unreachable) NoExecute taint gets a toleration for it (operator Exists) with
// tolerationSeconds from --default-not-ready-toleration-seconds
// (--default-unreachable-toleration-seconds). A toleration with an empty key or an empty
// effect counts as tolerating it.
func (s *Store) admitDefaultTolerations(obj model.Object) {
	pod, ok := obj.(*model.Pod)
	if !ok || s.cfg.DisableDefaultTolerationSeconds {
		return
	}
	notReady, unreachable := false, false
	for i := range pod.Spec.Tolerations {
		t := &pod.Spec.Tolerations[i]
		noExecute := t.Effect == model.TaintEffectNoExecute || t.Effect == ""
		if noExecute && (t.Key == model.TaintNodeNotReady || t.Key == "") {
			notReady = true
		}
		if noExecute && (t.Key == model.TaintNodeUnreachable || t.Key == "") {
			unreachable = true
		}
	}
	if notReady && unreachable {
		return
	}
	in := pod.Spec.Tolerations
	if s.tolerationsOut != nil && model.SameSlice(in, s.tolerationsIn) {
		// The same tolerations as the last pod's (the same slice, or none at all): the same
		// result, shared, as stored objects are never changed.
		pod.Spec.Tolerations = s.tolerationsOut
		return
	}
	// A new backing array: the caller's slice must not be appended to in place.
	tolerations := make([]model.Toleration, len(in), len(in)+2)
	copy(tolerations, in)
	if !notReady {
		tolerations = append(tolerations, model.Toleration{Key: model.TaintNodeNotReady, Operator: "Exists", Effect: model.TaintEffectNoExecute, TolerationSeconds: model.Ptr(s.notReadySeconds)})
	}
	if !unreachable {
		tolerations = append(tolerations, model.Toleration{Key: model.TaintNodeUnreachable, Operator: "Exists", Effect: model.TaintEffectNoExecute, TolerationSeconds: model.Ptr(s.unreachableSeconds)})
	}
	// Clipped, so that appending to a shallow copy of the pod cannot write into the array the
	// other pods share.
	tolerations = slices.Clip(tolerations)
	pod.Spec.Tolerations = tolerations
	s.tolerationsIn, s.tolerationsOut = in, tolerations
}

// podsBinding is the resource the binding subresource's conflicts name.
var podsBinding = schema.GroupResource{Resource: "pods/binding"}

// bindPod models the pods/binding subresource on a main-resource update of a pod
// ([k8s] pkg/registry/core/pod/storage/storage.go BindingREST): setting spec.nodeName on an
// unbound pod binds it and sets the PodScheduled condition to True; changing the node of a
// bound pod, or binding a pod that is being deleted, is 409 Conflict on pods/binding. It
// returns the object to validate the update against: old with the new nodeName, since pod
// update validation allows no spec.nodeName change and the binding is not an update.
func (s *Store) bindPod(obj, old model.Object) (model.Object, error) {
	pod, ok := obj.(*model.Pod)
	if !ok {
		return old, nil
	}
	oldPod := old.(*model.Pod)
	if pod.Spec.NodeName == oldPod.Spec.NodeName {
		return old, nil
	}
	if oldPod.Spec.NodeName != "" {
		return nil, apierrors.NewConflict(podsBinding, pod.Name, fmt.Errorf("pod %s is already assigned to node %q", pod.Name, oldPod.Spec.NodeName))
	}
	if oldPod.DeletionTimestamp != nil {
		return nil, apierrors.NewConflict(podsBinding, pod.Name, fmt.Errorf("pod %s is being deleted, cannot be assigned to a host", pod.Name))
	}
	setPodScheduled(&pod.Status, s.k.Now())
	bound := *oldPod
	bound.Spec.NodeName = pod.Spec.NodeName
	bound.Status = pod.Status
	return &bound, nil
}

// setPodScheduled sets PodScheduled=True (podutil.UpdatePodCondition: the transition time
// moves only when the status changes). The conditions slice may be shared with the stored
// pod, so it is copied.
func setPodScheduled(status *model.PodStatus, now vtime.Time) {
	conds := make([]model.PodCondition, len(status.Conditions), len(status.Conditions)+1)
	copy(conds, status.Conditions)
	found := false
	for i := range conds {
		if conds[i].Type != model.PodScheduled {
			continue
		}
		found = true
		if conds[i].Status != model.ConditionTrue {
			conds[i].Status = model.ConditionTrue
			conds[i].Reason, conds[i].Message = "", ""
			conds[i].LastTransitionTime = now
		}
	}
	if !found {
		conds = append(conds, model.PodCondition{Type: model.PodScheduled, Status: model.ConditionTrue, LastTransitionTime: now})
	}
	status.Conditions = conds
}

// DefaultSignificantWrite is the default quiescence predicate: every write is significant
// except writes to Leases and Events (heartbeats and records of what happened) and Node
// updates that change nothing but conditions' lastHeartbeatTime (the kubelet's status
// heartbeat). old is nil for a create, new is nil for a final removal.
func DefaultSignificantWrite(kind model.Kind, old, new model.Object) bool {
	switch kind {
	case model.KindLease, model.KindEvent:
		return false
	case model.KindNode:
		o, ok1 := old.(*model.Node)
		n, ok2 := new.(*model.Node)
		if ok1 && ok2 {
			return !onlyHeartbeatChanged(o, n)
		}
	}
	return true
}

// onlyHeartbeatChanged reports whether n differs from o in nothing but resourceVersion and
// the conditions' lastHeartbeatTime.
func onlyHeartbeatChanged(o, n *model.Node) bool {
	if len(o.Status.Conditions) != len(n.Status.Conditions) {
		return false
	}
	probe := *n
	probe.ResourceVersion = o.ResourceVersion
	probe.Status.Conditions = make([]model.NodeCondition, len(n.Status.Conditions))
	for i, c := range n.Status.Conditions {
		c.LastHeartbeatTime = o.Status.Conditions[i].LastHeartbeatTime
		probe.Status.Conditions[i] = c
	}
	return semanticEqual(&probe, o)
}
