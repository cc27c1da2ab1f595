package gc

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/reconsim/reconsim/model"
)

const widgetCRD = `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {plural: widgets, kind: Widget}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}
`

func (w *world) createWidget(name string, refs []model.OwnerReference) *model.Unstructured {
	u := &model.Unstructured{APIVersion: "example.com/v1", Kind: "Widget", Content: map[string]any{"spec": map[string]any{"size": int64(1)}}}
	u.Name, u.Namespace, u.OwnerReferences = name, testNS, refs
	obj, err := w.Store.Create(u)
	require.NoError(w.T, err)
	return obj.(*model.Unstructured)
}

// Custom resources take part in garbage collection like built-in kinds: the collector
// discovers the CRD's kind (upstream's 30s resync of deletable resources), and deleting a
// custom resource deletes what it owns, a pod and another custom resource, in the background
// and in the foreground (the owner waits for blocking dependents).
func TestCustomResourcesAreGarbageCollected(t *testing.T) {
	for _, policy := range []model.DeletionPropagation{model.DeletePropagationBackground, model.DeletePropagationForeground} {
		t.Run(string(policy), func(t *testing.T) {
			w := newWorld(t, DefaultConfig())
			objs, _, err := model.DecodeManifests("crd.yaml", []byte(widgetCRD))
			require.NoError(t, err)
			_, err = w.Store.Create(objs[0])
			require.NoError(t, err)
			w.Run(monitorSyncPeriod + time.Second)
			require.Contains(t, w.gc.monitorByKind, model.Kind("Widget"), "the collector monitors the new kind after a resync")

			owner := w.createWidget("owner", nil)
			ref := model.OwnerReference{APIVersion: "example.com/v1", Kind: "Widget", Name: "owner", UID: owner.UID, Controller: model.Ptr(true), BlockOwnerDeletion: model.Ptr(true)}
			w.createWidget("child", []model.OwnerReference{ref})
			w.createPod("owned-pod", nil, []model.OwnerReference{ref}, "")
			w.Run(time.Second)

			_, err = w.Store.Delete("Widget", testNS, "owner", model.DeleteOptions{PropagationPolicy: &policy})
			require.NoError(t, err)
			w.Run(time.Minute)
			for _, o := range []struct {
				kind model.Kind
				name string
			}{{"Widget", "owner"}, {"Widget", "child"}, {model.KindPod, "owned-pod"}} {
				_, err := w.Store.Get(o.kind, testNS, o.name)
				assert.True(t, apierrors.IsNotFound(err), "%s %s should be gone: %v", o.kind, o.name, err)
			}
		})
	}
}
