package model

import (
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
)

// The request options of the API, as metav1 defines them ([apimachinery@HEAD]
// pkg/apis/meta/v1/types.go), reduced to what the simulator models. They live here, with the
// API types, so that controllers and clients never import the API server to name them.

// ListOptions select the objects of a List or Watch.
type ListOptions struct {
	// Namespace restricts to one namespace; "" means all namespaces. Ignored for
	// cluster-scoped kinds.
	Namespace string
	// LabelSelector restricts by labels; nil selects everything.
	LabelSelector labels.Selector
	// FieldSelector restricts by fields; nil selects everything. Supported: metadata.name,
	// metadata.namespace (namespaced kinds), and per kind: pods spec.nodeName,
	// spec.restartPolicy, spec.schedulerName, status.phase, status.podIP; nodes
	// spec.unschedulable; namespaces status.phase; replicasets status.replicas; events
	// involvedObject.*, reason, source, type. Operators =, == and !=. Anything else is a 400
	// BadRequest naming the field.
	FieldSelector fields.Selector
}

// DeletionPropagation is how a delete treats the object's dependents.
type DeletionPropagation string

// The propagation policies ([apimachinery@HEAD] pkg/apis/meta/v1/types.go).
const (
	DeletePropagationOrphan     DeletionPropagation = "Orphan"
	DeletePropagationBackground DeletionPropagation = "Background"
	DeletePropagationForeground DeletionPropagation = "Foreground"
)

// The garbage collector's finalizers ([apimachinery@HEAD] pkg/apis/meta/v1/types.go).
const (
	FinalizerOrphanDependents = "orphan"
	FinalizerDeleteDependents = "foregroundDeletion"
)

// Preconditions is metav1.Preconditions: a delete proceeds only when every set field matches
// the stored object; a mismatch is 409 Conflict.
type Preconditions struct {
	UID             *string `json:"uid,omitempty"`
	ResourceVersion *uint64 `json:"resourceVersion,omitempty"`
}

// DeleteOptions is metav1.DeleteOptions: the options of a delete, and the body an Eviction carries.
type DeleteOptions struct {
	// GracePeriodSeconds overrides the kind's grace period (pods); negative means 1.
	GracePeriodSeconds *int64 `json:"gracePeriodSeconds,omitempty"`
	// PropagationPolicy: nil means the object's existing GC finalizers, else the kind's
	// default (Background for every kind modelled here; events ignore it).
	PropagationPolicy *DeletionPropagation `json:"propagationPolicy,omitempty"`
	// Preconditions: nil means none.
	Preconditions *Preconditions `json:"preconditions,omitempty"`
}

// DeepCopy returns a deep copy of o; nil for nil.
func (o *DeleteOptions) DeepCopy() *DeleteOptions {
	if o == nil {
		return nil
	}
	out := &DeleteOptions{
		GracePeriodSeconds: CopyPtr(o.GracePeriodSeconds),
		PropagationPolicy:  CopyPtr(o.PropagationPolicy),
	}
	if p := o.Preconditions; p != nil {
		out.Preconditions = &Preconditions{UID: CopyPtr(p.UID), ResourceVersion: CopyPtr(p.ResourceVersion)}
	}
	return out
}
