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
	return typed[T](inf.ListNamespace(namespace, sel))
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

// Lister is a typed, read-only view of an informer's cache (client-go's generated listers, as
// the node lifecycle and taint eviction controllers read Nodes, Pods and Leases). Objects it
// returns are the cache's own and must not be modified.
type Lister[T model.Object] struct{ Informer *client.Informer }

// Get returns the cached object namespace/name, and false when there is none or it is not a T.
func (l Lister[T]) Get(namespace, name string) (T, bool) {
	obj, ok := l.Informer.Get(namespace, name)
	if !ok {
		var zero T
		return zero, false
	}
	return client.ObjectAs[T](obj)
}

// GetKeyed is Get that also returns the object's key, the cache's own string
// (client.Informer.GetKeyed); the key is "" when ok is false.
func (l Lister[T]) GetKeyed(namespace, name string) (T, string, bool) {
	obj, key, ok := l.Informer.GetKeyed(namespace, name)
	if !ok {
		var zero T
		return zero, "", false
	}
	t, ok := client.ObjectAs[T](obj)
	if !ok {
		return t, "", false
	}
	return t, key, true
}

// GetByKey is Get for a key built with model.KeyOf.
func (l Lister[T]) GetByKey(key string) (T, bool) {
	obj, ok := l.Informer.GetByKey(key)
	if !ok {
		var zero T
		return zero, false
	}
	return client.ObjectAs[T](obj)
}

// List returns every cached T, sorted by key.
func (l Lister[T]) List() []T { return typed[T](l.Informer.List(nil)) }

// ByIndex returns the cached Ts whose index indexName holds value, sorted by key (for Pods and
// client.IndexNodeName, upstream getPodsAssignedToNode).
func (l Lister[T]) ByIndex(indexName, value string) []T {
	return typed[T](l.Informer.ByIndex(indexName, value))
}

// ByIndexKeyed is ByIndex with each T's key (client.Informer.ByIndexKeyed) at the same
// position.
func (l Lister[T]) ByIndexKeyed(indexName, value string) ([]T, []string) {
	objs, keys := l.Informer.ByIndexKeyed(indexName, value)
	out := make([]T, 0, len(objs))
	outKeys := keys[:0]
	for i, o := range objs {
		if t, ok := client.ObjectAs[T](o); ok {
			out = append(out, t)
			outKeys = append(outKeys, keys[i])
		}
	}
	return out, outKeys
}

func typed[T model.Object](objs []model.Object) []T {
	out := make([]T, 0, len(objs))
	for _, obj := range objs {
		if t, ok := client.ObjectAs[T](obj); ok {
			out = append(out, t)
		}
	}
	return out
}
