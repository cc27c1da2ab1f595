package apiserver

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reconsim/reconsim/model"
)

// gadget is a kind registered from outside the model, like a workload type added later.
type gadget struct {
	model.ObjectMeta `json:"metadata"`
	Spec             gadgetSpec   `json:"spec,omitempty"`
	Status           gadgetStatus `json:"status,omitempty"`
}

type gadgetSpec struct {
	Size  int32             `json:"size,omitempty"`
	Flags map[string]string `json:"flags,omitempty"`
}

type gadgetStatus struct {
	Ready int32 `json:"ready,omitempty"`
}

const kindGadget model.Kind = "Gadget"

func (g *gadget) Meta() *model.ObjectMeta { return &g.ObjectMeta }
func (g *gadget) GetKind() model.Kind     { return kindGadget }
func (g *gadget) DeepCopyObject() model.Object {
	out := *g
	g.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	if g.Spec.Flags != nil {
		out.Spec.Flags = map[string]string{}
		for k, v := range g.Spec.Flags {
			out.Spec.Flags[k] = v
		}
	}
	return &out
}

func registerGadget() {
	if _, ok := model.LookupKind(kindGadget); !ok {
		model.RegisterKind(model.KindInfo{Kind: kindGadget, APIVersion: "example.com/v1", Resource: "gadgets", Namespaced: true, HasStatus: true, New: func() model.Object { return &gadget{} }})
	}
}

func TestKindsRegisteredLaterGetTheWorkloadStrategy(t *testing.T) {
	registerGadget()
	_, s := newTestStore(t, nil)
	g := &gadget{ObjectMeta: model.ObjectMeta{Name: "g", Namespace: "default"}, Spec: gadgetSpec{Size: 1}, Status: gadgetStatus{Ready: 5}}
	created, err := s.Create(g)
	require.NoError(t, err)
	assert.Equal(t, int64(1), created.Meta().Generation)
	assert.Equal(t, int32(0), created.(*gadget).Status.Ready, "status is reset on create")

	upd := created.DeepCopyObject().(*gadget)
	upd.Spec.Size = 2
	upd.Status.Ready = 9
	got, err := s.Update(upd)
	require.NoError(t, err)
	assert.Equal(t, int64(2), got.Meta().Generation)
	assert.Equal(t, int32(0), got.(*gadget).Status.Ready, "a main-resource update keeps status")

	st := got.DeepCopyObject().(*gadget)
	st.Spec.Size = 100
	st.Status.Ready = 2
	got, err = s.UpdateStatus(st)
	require.NoError(t, err)
	assert.Equal(t, int32(2), got.(*gadget).Spec.Size, "a status update keeps spec")
	assert.Equal(t, int32(2), got.(*gadget).Status.Ready)
	assert.Equal(t, int64(2), got.Meta().Generation)

	patched, err := s.Patch(kindGadget, "default", "g", []byte(`{"spec":{"flags":{"fast":"yes"}}}`))
	require.NoError(t, err)
	assert.Equal(t, "yes", patched.(*gadget).Spec.Flags["fast"])
	assert.Equal(t, int64(3), patched.Meta().Generation)
}
