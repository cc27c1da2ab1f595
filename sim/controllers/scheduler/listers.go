package scheduler

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim/client"
	"github.com/reconsim/reconsim/sim/controllers/internal/controllerutil"
)

// labelMetadataName is v1.LabelMetadataName: the label the API server puts on every namespace,
// its name.
const labelMetadataName = "kubernetes.io/metadata.name"

// listers are the informers the scheduling plugins read besides pods and nodes (upstream
// PodTopologySpread.setListers and InterPodAffinity's namespace lister). ReplicationControllers
// are not modelled. A nil *listers (unit tests) knows no objects.
type listers struct {
	services, replicaSets, statefulSets, namespaces *client.Informer
	// ownerSelectors are the parsed selectors of the pods' controllers by UID, parsed again
	// only for a version with another selector (the apps/v1 selectors are immutable; the
	// versions are status updates). Every cycle of a ReplicaSet's pod reads its selector
	// for the default spreading; parsing it each time was 1% of thundering-herd's
	// allocations.
	ownerSelectors controllerutil.VersionCache[string, model.Object, labels.Selector]
}

// maxOwnerSelectors bounds ownerSelectors, which nothing forgets a deleted controller from;
// past it they start over.
const maxOwnerSelectors = 4096

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
	if l.ownerSelectors.Len() >= maxOwnerSelectors {
		l.ownerSelectors = controllerutil.VersionCache[string, model.Object, labels.Selector]{}
	}
	ls, _ := l.ownerSelectors.GetSame(obj.Meta().UID, obj, sameOwnerSelector, func(obj model.Object) (labels.Selector, error) {
		return ownerSelector(obj), nil
	})
	if ls == nil {
		return selector
	}
	return selector.Add(requirementsOf(ls)...)
}

// ownerSelector returns the parsed spec.selector of a ReplicaSet or StatefulSet, nil if it
// does not parse.
func ownerSelector(obj model.Object) labels.Selector {
	if ls, ok := specSelector(obj); ok {
		return selectorOf(ls)
	}
	return nil
}

// sameOwnerSelector reports whether two versions of a controller have equal selectors.
func sameOwnerSelector(a, b model.Object) bool {
	sa, okA := specSelector(a)
	sb, okB := specSelector(b)
	return okA && okB && controllerutil.LabelSelectorsEqual(sa, sb)
}

// specSelector returns spec.selector of a ReplicaSet or StatefulSet.
func specSelector(obj model.Object) (*metav1.LabelSelector, bool) {
	switch o := obj.(type) {
	case *model.ReplicaSet:
		return o.Spec.Selector, true
	case *model.StatefulSet:
		return o.Spec.Selector, true
	}
	return nil, false
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
