package client

import "github.com/reconsim/reconsim/model"

// ResolveControllerRef returns the object of kind that ref points to, from inf's cache, as
// upstream controllers' resolveControllerRef does: nothing when ref is of another kind, when
// the cache has no object of that name in namespace, or when the cached object's UID differs
// (the owner was deleted and recreated under the same name).
func ResolveControllerRef[T model.Object](inf *Informer, kind model.Kind, namespace string, ref *model.OwnerReference) (T, bool) {
	t, _, ok := ResolveControllerRefKeyed[T](inf, kind, namespace, ref)
	return t, ok
}

// ResolveControllerRefKeyed is ResolveControllerRef that also returns the owner's key
// (model.Key), the cache's own string (Informer.GetKeyed), for a caller that keeps or queues
// the owner by key.
func ResolveControllerRefKeyed[T model.Object](inf *Informer, kind model.Kind, namespace string, ref *model.OwnerReference) (T, string, bool) {
	var zero T
	if ref == nil || ref.Kind != kind {
		return zero, "", false
	}
	obj, key, ok := inf.GetKeyed(namespace, ref.Name)
	if !ok {
		return zero, "", false
	}
	t, ok := obj.(T)
	if !ok || obj.Meta().UID != ref.UID {
		return zero, "", false
	}
	return t, key, true
}
