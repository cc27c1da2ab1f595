package model

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// The workload kinds (Deployment, ReplicaSet, StatefulSet, DaemonSet) each carry a pod
// selector and a pod template in their spec; these read them without a type switch at every
// caller. Other kinds, Job included, answer nil.

// WorkloadSelector returns the pod selector of a Deployment, ReplicaSet, StatefulSet or
// DaemonSet (spec.selector), or nil for other objects.
func WorkloadSelector(obj Object) *metav1.LabelSelector {
	switch o := obj.(type) {
	case *Deployment:
		return o.Spec.Selector
	case *ReplicaSet:
		return o.Spec.Selector
	case *StatefulSet:
		return o.Spec.Selector
	case *DaemonSet:
		return o.Spec.Selector
	}
	return nil
}

// WorkloadTemplate returns the pod template of a Deployment, ReplicaSet, StatefulSet or
// DaemonSet (spec.template), or nil for other objects.
func WorkloadTemplate(obj Object) *PodTemplateSpec {
	switch o := obj.(type) {
	case *Deployment:
		return &o.Spec.Template
	case *ReplicaSet:
		return &o.Spec.Template
	case *StatefulSet:
		return &o.Spec.Template
	case *DaemonSet:
		return &o.Spec.Template
	}
	return nil
}
