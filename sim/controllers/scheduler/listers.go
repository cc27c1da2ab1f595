package scheduler

import (
	"k8s.io/apimachinery/pkg/labels"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim/client"
)

// labelMetadataName is v1.LabelMetadataName: the label the API server puts on every namespace,
// its name.
const labelMetadataName = "kubernetes.io/metadata.name"

// listers are the informers the scheduling plugins read besides pods and nodes (upstream
// PodTopologySpread.setListers and InterPodAffinity's namespace lister). ReplicationControllers
// are not modelled. A nil *listers (unit tests) knows no objects.
type listers struct {
	services, replicaSets, statefulSets, namespaces *client.Informer
}

func newListers(f *client.SharedInformerFactory) *listers {
	return &listers{
		services:     f.For(model.KindService),
		replicaSets:  f.For(model.KindReplicaSet),
		statefulSets: f.For(model.KindStatefulSet),
		namespaces:   f.For(model.KindNamespace),
	}
}

// defaultSelector is helper.DefaultSelector (pkg/scheduler/framework/plugins/helper/spread.go):
// the merged selectors of the Services in the pod's namespace that select it, plus the
// selector of its controlling ReplicaSet or StatefulSet.
func (l *listers) defaultSelector(pod *model.Pod) labels.Selector {
	if l == nil {
		return labels.Everything()
	}
	set := labels.Set{}
	podLabels := labels.Set(pod.Labels)
	for _, obj := range l.services.ListNamespace(pod.Namespace, nil) {
		svc, ok := client.ObjectAs[*model.Service](obj)
		// GetPodServices: a Service without a selector matches nothing.
		if !ok || svc.Spec.Selector == nil {
			continue
		}
		if labels.SelectorFromValidatedSet(svc.Spec.Selector).Matches(podLabels) {
			set = labels.Merge(set, svc.Spec.Selector)
		}
	}
	selector := set.AsSelector()
	owner := model.ControllerOf(pod)
	if owner == nil {
		return selector
	}
	var inf *client.Informer
	switch {
	case owner.Kind == model.KindReplicaSet && owner.APIVersion == "apps/v1":
		inf = l.replicaSets
	case owner.Kind == model.KindStatefulSet && owner.APIVersion == "apps/v1":
		inf = l.statefulSets
	default:
		return selector
	}
	obj, ok := inf.Get(pod.Namespace, owner.Name)
	if !ok {
		return selector
	}
	var ls = ownerSelector(obj)
	if ls == nil {
		return selector
	}
	return selector.Add(requirementsOf(ls)...)
}

// ownerSelector returns the parsed spec.selector of a ReplicaSet or StatefulSet, nil if it
// does not parse.
func ownerSelector(obj model.Object) labels.Selector {
	var sel labels.Selector
	switch o := obj.(type) {
	case *model.ReplicaSet:
		sel = selectorOf(o.Spec.Selector)
	case *model.StatefulSet:
		sel = selectorOf(o.Spec.Selector)
	}
	return sel
}

// namespaceLabels is GetNamespaceLabelsSnapshot: the namespace's labels, or just its
// kubernetes.io/metadata.name label when the informer does not have it.
func (l *listers) namespaceLabels(ns string) labels.Set {
	if l != nil {
		if obj, ok := l.namespaces.Get("", ns); ok {
			set := labels.Merge(obj.Meta().Labels, nil)
			if _, ok := set[labelMetadataName]; !ok {
				set[labelMetadataName] = ns
			}
			return set
		}
	}
	return labels.Set{labelMetadataName: ns}
}

// namespacesMatching lists the names of the namespaces sel selects (the namespace lister's
// List in mergeAffinityTermNamespacesIfNotEmpty). The namespace label
// kubernetes.io/metadata.name is matched even on a namespace stored without it, as the API
// server sets it on every namespace.
func (l *listers) namespacesMatching(sel labels.Selector) []string {
	if l == nil {
		return nil
	}
	var out []string
	for _, obj := range l.namespaces.List(nil) {
		name := obj.Meta().Name
		if sel.Matches(l.namespaceLabels(name)) {
			out = append(out, name)
		}
	}
	return out
}
