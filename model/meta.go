package model

import (
	"strconv"

	"k8s.io/utils/ptr"

	"github.com/reconsim/reconsim/vtime"
)

// Kind names an API object kind, as in a manifest's `kind:` field.
type Kind string

// The kinds the simulator knows.
const (
	KindNamespace  Kind = "Namespace"
	KindNode       Kind = "Node"
	KindLease      Kind = "Lease"
	KindPod        Kind = "Pod"
	KindReplicaSet Kind = "ReplicaSet"
	KindEvent      Kind = "Event"

	KindDeployment              Kind = "Deployment"
	KindStatefulSet             Kind = "StatefulSet"
	KindDaemonSet               Kind = "DaemonSet"
	KindControllerRevision      Kind = "ControllerRevision"
	KindPodDisruptionBudget     Kind = "PodDisruptionBudget"
	KindService                 Kind = "Service"
	KindEndpointSlice           Kind = "EndpointSlice"
	KindHorizontalPodAutoscaler Kind = "HorizontalPodAutoscaler"
	KindJob                     Kind = "Job"
	KindCronJob                 Kind = "CronJob"
	KindPriorityClass           Kind = "PriorityClass"
	// KindFlowSchema and KindPriorityLevelConfiguration configure API Priority and Fairness.
	KindFlowSchema                 Kind = "FlowSchema"
	KindPriorityLevelConfiguration Kind = "PriorityLevelConfiguration"

	// KindEviction and KindScale are the bodies of the pods/eviction and scale subresources;
	// they are not stored and not in the kind registry.
	KindEviction Kind = "Eviction"
	KindScale    Kind = "Scale"
)

// ObjectMeta is metadata every object carries (upstream metav1.ObjectMeta, reduced).
type ObjectMeta struct {
	Name                       string            `json:"name,omitempty"`
	GenerateName               string            `json:"generateName,omitempty"`
	Namespace                  string            `json:"namespace,omitempty"`
	UID                        string            `json:"uid,omitempty"`
	ResourceVersion            uint64            `json:"resourceVersion,omitempty"`
	Generation                 int64             `json:"generation,omitempty"`
	CreationTimestamp          vtime.Time        `json:"creationTimestamp,omitempty"`
	DeletionTimestamp          *vtime.Time       `json:"deletionTimestamp,omitempty"`
	DeletionGracePeriodSeconds *int64            `json:"deletionGracePeriodSeconds,omitempty"`
	Labels                     map[string]string `json:"labels,omitempty"`
	Annotations                map[string]string `json:"annotations,omitempty"`
	OwnerReferences            []OwnerReference  `json:"ownerReferences,omitempty"`
	Finalizers                 []string          `json:"finalizers,omitempty"`
}

// Meta returns m. Every API type embeds ObjectMeta, so this one method is its Meta (as
// apimachinery's metav1.ObjectMeta.GetObjectMeta serves every type).
func (m *ObjectMeta) Meta() *ObjectMeta { return m }

// OwnerReference points from a dependent to its owner (upstream metav1.OwnerReference).
type OwnerReference struct {
	APIVersion         string `json:"apiVersion"`
	Kind               Kind   `json:"kind"`
	Name               string `json:"name"`
	UID                string `json:"uid"`
	Controller         *bool  `json:"controller,omitempty"`
	BlockOwnerDeletion *bool  `json:"blockOwnerDeletion,omitempty"`
}

// Object is implemented by every API type (as a pointer).
type Object interface {
	// Meta returns the object's metadata, for reading or (on a private copy) writing.
	Meta() *ObjectMeta
	// GetKind returns the object's kind.
	GetKind() Kind
	// DeepCopyObject returns a copy that shares no mutable memory with the original.
	DeepCopyObject() Object
}

// Key returns "namespace/name", or "name" for cluster-scoped objects: the key stores, caches
// and workqueues use (upstream cache.MetaNamespaceKeyFunc).
func Key(o Object) string {
	m := o.Meta()
	if m.Namespace == "" {
		return m.Name
	}
	return m.Namespace + "/" + m.Name
}

// KeyOf builds the same key from its parts.
func KeyOf(namespace, name string) string {
	if namespace == "" {
		return name
	}
	return namespace + "/" + name
}

// Ref is a short human-readable reference, "Kind ns/name", for traces and messages.
func Ref(o Object) string {
	// One concatenation, not Key's and then another: traces build one Ref per write.
	m := o.Meta()
	if m.Namespace == "" {
		return string(o.GetKind()) + " " + m.Name
	}
	return string(o.GetKind()) + " " + m.Namespace + "/" + m.Name
}

// ControllerOf returns the owner reference with controller=true, or nil.
func ControllerOf(o Object) *OwnerReference {
	refs := o.Meta().OwnerReferences
	for i := range refs {
		if refs[i].Controller != nil && *refs[i].Controller {
			return &refs[i]
		}
	}
	return nil
}

// RV formats a resourceVersion the way the API shows it (a decimal string).
func RV(rv uint64) string { return strconv.FormatUint(rv, 10) }

// Ptr returns a pointer to v; handy for optional fields.
func Ptr[T any](v T) *T { return &v }

// EqualOwnerReference reports whether a and b have the same content: the same fields, and
// Controller and BlockOwnerDeletion both unset or both set to the same value.
func EqualOwnerReference(a, b OwnerReference) bool {
	return a.APIVersion == b.APIVersion && a.Kind == b.Kind && a.Name == b.Name && a.UID == b.UID &&
		ptr.Equal(a.Controller, b.Controller) && ptr.Equal(a.BlockOwnerDeletion, b.BlockOwnerDeletion)
}

// EqualControllerRef is EqualOwnerReference for references that may be absent (ControllerOf's
// result): two nils are equal, a nil and a reference are not.
func EqualControllerRef(a, b *OwnerReference) bool {
	if a == nil || b == nil {
		return a == b
	}
	return EqualOwnerReference(*a, *b)
}
