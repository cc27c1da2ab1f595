package controllerutil

import (
	"strings"

	"github.com/reconsim/reconsim/model"
)

// SplitKey splits a "namespace/name" work-queue key into its parts; a key without a slash is
// a cluster-scoped name (client-go cache.SplitMetaNamespaceKey, which also rejects keys with
// more than one slash; the simulator's queues only hold keys it made with model.Key).
func SplitKey(key string) (namespace, name string) {
	if i := strings.IndexByte(key, '/'); i >= 0 {
		return key[:i], key[i+1:]
	}
	return "", key
}

// NewControllerRef is metav1.NewControllerRef: a reference to owner, of kind, with controller
// and blockOwnerDeletion both true. The API version is the kind's registered one, fallback
// when the kind is not registered.
func NewControllerRef(owner model.Object, kind model.Kind, fallbackAPIVersion string) model.OwnerReference {
	apiVersion := fallbackAPIVersion
	if ki, ok := model.LookupKind(kind); ok {
		apiVersion = ki.APIVersion
	}
	m := owner.Meta()
	return model.OwnerReference{
		APIVersion:         apiVersion,
		Kind:               kind,
		Name:               m.Name,
		UID:                m.UID,
		Controller:         model.Ptr(true),
		BlockOwnerDeletion: model.Ptr(true),
	}
}
