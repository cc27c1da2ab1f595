package controllerutil

import "github.com/reconsim/reconsim/model"

// PodFromTemplate is upstream GetPodFromTemplate (pkg/controller/controller_utils.go, release
// 1.33) with the namespace that RealPodControl.CreatePods adds: a pod in parent's namespace
// with generateName "<parent name>-", the template's labels, annotations, finalizers and spec,
// controlled by ref. Every controller that creates pods from a template (ReplicaSet,
// DaemonSet, StatefulSet, Job) starts from it and adds its own labels, names and affinity.
//
// The pod shares the template's maps, slices and spec rather than copying them: callers pass a
// template they own (a deep copy, or one built for this pod).
func PodFromTemplate(template *model.PodTemplateSpec, parent model.Object, ref model.OwnerReference) *model.Pod {
	pod := &model.Pod{}
	pod.Namespace = parent.Meta().Namespace
	pod.GenerateName = parent.Meta().Name + "-"
	pod.Labels = template.Labels
	pod.Annotations = template.Annotations
	pod.Finalizers = template.Finalizers
	pod.OwnerReferences = []model.OwnerReference{ref}
	pod.Spec = template.Spec
	return pod
}
