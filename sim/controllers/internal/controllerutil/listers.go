package controllerutil

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim/client"
)

// ListNamespaceAs is inf.ListNamespace typed: the cached objects of namespace that sel
// matches (nil: all) and that are a T, in the cache's order.
func ListNamespaceAs[T model.Object](inf *client.Informer, namespace string, sel labels.Selector) []T {
	objs := inf.ListNamespace(namespace, sel)
	out := make([]T, 0, len(objs))
	for _, obj := range objs {
		if t, ok := client.ObjectAs[T](obj); ok {
			out = append(out, t)
		}
	}
	return out
}

// SelectingObjects returns the cached objects of namespace whose label selector (selectorOf)
// matches lbls, in the cache's order: the typed listers' GetPodReplicaSets,
// GetPodStatefulSets, GetPodDaemonSets, GetHistoryDaemonSets and
// GetDeploymentsForReplicaSet (upstream pkg/controller/*/ and client-go listers/apps/v1
// expansions). An invalid, nil or empty selector matches nothing, and so do empty lbls.
func SelectingObjects[T model.Object](inf *client.Informer, namespace string, lbls map[string]string, selectorOf func(T) *metav1.LabelSelector) []T {
	if len(lbls) == 0 {
		return nil
	}
	var out []T
	for _, obj := range inf.ListNamespace(namespace, nil) {
		t, ok := client.ObjectAs[T](obj)
		if !ok {
			continue
		}
		selector, err := metav1.LabelSelectorAsSelector(selectorOf(t))
		if err != nil || selector.Empty() || !selector.Matches(labels.Set(lbls)) {
			continue
		}
		out = append(out, t)
	}
	return out
}
