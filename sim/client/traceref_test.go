package client

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim"
)

// TestTraceEmitRefIsModelRef: the kernel may import only the standard library, so
// sim.Trace.EmitRef (the API server's trace line for every write) spells model.Ref's
// "<kind> <namespace>/<name>" itself; the two must give the same line for every shape of
// object: namespaced, cluster-scoped, a custom resource, and the degenerate empty names.
func TestTraceEmitRefIsModelRef(t *testing.T) {
	meta := func(namespace, name string) model.ObjectMeta {
		return model.ObjectMeta{Namespace: namespace, Name: name}
	}
	cr := &model.Unstructured{APIVersion: "example.com/v1", Kind: "WebApp"}
	cr.Namespace, cr.Name = "shop", "front"
	for _, obj := range []model.Object{
		&model.Pod{ObjectMeta: meta("default", "web-1")},
		&model.Lease{ObjectMeta: meta("kube-node-lease", "n-1")},
		&model.Node{ObjectMeta: meta("", "n1")},
		&model.Namespace{ObjectMeta: meta("", "kube-system")},
		&model.Deployment{ObjectMeta: meta("default", "")},
		&model.Node{},
		cr,
	} {
		ref := model.Ref(obj)
		var viaRef, viaParts strings.Builder
		k1, k2 := sim.New(1), sim.New(1)
		k1.Trace().SetWriter(&viaRef)
		k2.Trace().SetWriter(&viaParts)
		m := obj.Meta()
		k1.Emit("kube-apiserver", "create", ref, 3, "detail")
		k2.EmitRef("kube-apiserver", "create", string(obj.GetKind()), m.Namespace, m.Name, 3, "detail")
		assert.Equal(t, viaRef.String(), viaParts.String(), ref)
		assert.Contains(t, viaParts.String(), " "+ref+" ", "the line names the object as model.Ref does")
	}
}
