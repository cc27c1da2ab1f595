package controllerutil

import (
	"maps"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim/client"
)

// OwnedHandlers are the informer event handlers of objects of type T (Pods, ReplicaSets,
// ControllerRevisions) that owners of type O control through a controller reference: the
// addPod, updatePod and deletePod shape of upstream's ReplicaSet, DaemonSet and StatefulSet
// controllers and addReplicaSet, updateReplicaSet and deleteReplicaSet of the Deployment
// controller (kubernetes/pkg/controller, release 1.33):
//
//   - add: an object already being deleted is handled as deleted; an owned one wakes its
//     controller (Created); an orphan wakes every owner whose selector matches it, so that
//     one may adopt it.
//   - update: a resync (same resourceVersion) is ignored; with DeletingIsDeleted, an object
//     that gained a deletionTimestamp is handled as deleted. A changed controller reference
//     wakes the old controller, then the current one is woken (Updated runs after it); an
//     orphan whose labels or reference changed wakes every owner that selects it.
//   - delete: the controller of the object (obj may be a tombstone) is woken (Deleted).
//     Orphans concern no one.
//
// Resolve and Selecting read the owners' cache; Enqueue wakes one owner. The other hooks are
// optional.
type OwnedHandlers[T, O model.Object] struct {
	// Resolve returns the cached owner a controller reference of an object in namespace points
	// to, and false when there is none with that kind, name and UID.
	Resolve func(namespace string, ref *model.OwnerReference) (O, bool)
	// Selecting returns the cached owners whose selector matches an orphan.
	Selecting func(obj T) []O
	// Enqueue wakes one owner.
	Enqueue func(owner O)
	// Created, if set, replaces Enqueue for the controller of an added object (upstream
	// expectations.CreationObserved and enqueue).
	Created func(owner O)
	// Deleted, if set, replaces Enqueue for the controller of a deleted object (upstream
	// expectations.DeletionObserved and enqueue).
	Deleted func(owner O, obj T)
	// Updated, if set, runs after the current controller of an updated object is woken (the
	// minReadySeconds re-check).
	Updated func(owner O, oldObj, curObj T)
	// DeletingIsDeleted makes an update that sets a deletionTimestamp count as a deletion.
	DeletingIsDeleted bool
	// DeleteOldOnLabelChange also handles the old object as deleted when such an update
	// changed its labels (upstream ReplicaSet updatePod).
	DeleteOldOnLabelChange bool
}

// Funcs returns the handlers, to pass to Informer.AddEventHandler.
func (h OwnedHandlers[T, O]) Funcs() client.EventHandlerFuncs {
	return client.EventHandlerFuncs{
		AddFunc:    func(obj model.Object, _ bool) { h.OnAdd(obj) },
		UpdateFunc: h.OnUpdate,
		DeleteFunc: h.OnDelete,
	}
}

// OnAdd handles an added object.
func (h OwnedHandlers[T, O]) OnAdd(obj model.Object) {
	t, ok := client.ObjectAs[T](obj)
	if !ok {
		return
	}
	if t.Meta().DeletionTimestamp != nil {
		h.OnDelete(t)
		return
	}
	if ref := model.ControllerOf(t); ref != nil {
		owner, ok := h.Resolve(t.Meta().Namespace, ref)
		if !ok {
			return
		}
		if h.Created != nil {
			h.Created(owner)
		} else {
			h.Enqueue(owner)
		}
		return
	}
	for _, owner := range h.Selecting(t) {
		h.Enqueue(owner)
	}
}

// OnUpdate handles an updated object.
func (h OwnedHandlers[T, O]) OnUpdate(oldObj, curObj model.Object) {
	oldT, ok1 := client.ObjectAs[T](oldObj)
	curT, ok2 := client.ObjectAs[T](curObj)
	if !ok1 || !ok2 || curT.Meta().ResourceVersion == oldT.Meta().ResourceVersion {
		return
	}
	labelChanged := !maps.Equal(curT.Meta().Labels, oldT.Meta().Labels)
	if h.DeletingIsDeleted && curT.Meta().DeletionTimestamp != nil {
		h.OnDelete(curT)
		if h.DeleteOldOnLabelChange && labelChanged {
			h.OnDelete(oldT)
		}
		return
	}
	curRef, oldRef := model.ControllerOf(curT), model.ControllerOf(oldT)
	refChanged := !model.EqualControllerRef(curRef, oldRef)
	if refChanged && oldRef != nil {
		if owner, ok := h.Resolve(oldT.Meta().Namespace, oldRef); ok {
			h.Enqueue(owner)
		}
	}
	if curRef != nil {
		owner, ok := h.Resolve(curT.Meta().Namespace, curRef)
		if !ok {
			return
		}
		h.Enqueue(owner)
		if h.Updated != nil {
			h.Updated(owner, oldT, curT)
		}
		return
	}
	if labelChanged || refChanged {
		for _, owner := range h.Selecting(curT) {
			h.Enqueue(owner)
		}
	}
}

// OnDelete handles a deleted object; obj may be a client.DeletedFinalStateUnknown.
func (h OwnedHandlers[T, O]) OnDelete(obj any) {
	o, ok := client.ObjectOf(obj)
	if !ok {
		return
	}
	t, ok := client.ObjectAs[T](o)
	if !ok {
		return
	}
	ref := model.ControllerOf(t)
	if ref == nil {
		return
	}
	owner, ok := h.Resolve(t.Meta().Namespace, ref)
	if !ok {
		return
	}
	if h.Deleted != nil {
		h.Deleted(owner, t)
	} else {
		h.Enqueue(owner)
	}
}

// OwnerHandlers are the informer event handlers of a controller's own objects of type O (the
// addReplicaSet, updateReplicaSet and deleteReplicaSet shape of upstream's ReplicaSet and
// DaemonSet controllers): add and update wake the object; an update whose UID changed (the
// object was deleted and recreated between two observations) first handles the old one as
// deleted; delete runs Forget (dropping expectations and caches for the key) and wakes it.
type OwnerHandlers[O model.Object] struct {
	// Enqueue wakes one object.
	Enqueue func(obj O)
	// Forget, if set, runs for a deleted object before it is woken.
	Forget func(obj O)
}

// Funcs returns the handlers, to pass to Informer.AddEventHandler.
func (h OwnerHandlers[O]) Funcs() client.EventHandlerFuncs {
	return client.EventHandlerFuncs{
		AddFunc:    func(obj model.Object, _ bool) { h.OnAdd(obj) },
		UpdateFunc: h.OnUpdate,
		DeleteFunc: h.OnDelete,
	}
}

// OnAdd wakes an added object.
func (h OwnerHandlers[O]) OnAdd(obj model.Object) {
	if o, ok := client.ObjectAs[O](obj); ok {
		h.Enqueue(o)
	}
}

// OnUpdate wakes an updated object, after handling the old one as deleted if the UID changed.
func (h OwnerHandlers[O]) OnUpdate(oldObj, curObj model.Object) {
	oldO, ok1 := client.ObjectAs[O](oldObj)
	curO, ok2 := client.ObjectAs[O](curObj)
	if !ok1 || !ok2 {
		return
	}
	if curO.Meta().UID != oldO.Meta().UID {
		h.OnDelete(client.DeletedFinalStateUnknown{Key: model.Key(oldO), Obj: oldO})
	}
	h.Enqueue(curO)
}

// OnDelete runs Forget for a deleted object and wakes it; obj may be a
// client.DeletedFinalStateUnknown.
func (h OwnerHandlers[O]) OnDelete(obj any) {
	o, ok := client.ObjectOf(obj)
	if !ok {
		return
	}
	t, ok := client.ObjectAs[O](o)
	if !ok {
		return
	}
	if h.Forget != nil {
		h.Forget(t)
	}
	h.Enqueue(t)
}

// ChangeHandlers are informer event handlers that report every change of a T as one
// Changed(oldObj, curObj) call, the shape of upstream's node lifecycle and taint eviction
// controllers (podUpdated, nodeUpdated): an add is (nil, obj), an update (old, cur) and, unless
// IgnoreDeletes, a delete (obj, nil), obj unwrapped from a tombstone. Objects that are not a T
// are ignored.
type ChangeHandlers[T model.Object] struct {
	Changed       func(oldObj, curObj T)
	IgnoreDeletes bool
}

// Funcs returns the handlers, to pass to Informer.AddEventHandler.
func (h ChangeHandlers[T]) Funcs() client.EventHandlerFuncs {
	var zero T
	f := client.EventHandlerFuncs{
		AddFunc: func(obj model.Object, _ bool) {
			if t, ok := client.ObjectAs[T](obj); ok {
				h.Changed(zero, t)
			}
		},
		UpdateFunc: func(oldObj, curObj model.Object) {
			o, ok1 := client.ObjectAs[T](oldObj)
			c, ok2 := client.ObjectAs[T](curObj)
			if ok1 && ok2 {
				h.Changed(o, c)
			}
		},
	}
	if !h.IgnoreDeletes {
		f.DeleteFunc = func(obj any) {
			if o, ok := client.ObjectOf(obj); ok {
				if t, ok := client.ObjectAs[T](o); ok {
					h.Changed(t, zero)
				}
			}
		}
	}
	return f
}
