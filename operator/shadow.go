package operator

import (
	"encoding/json"
	"reflect"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	"sigs.k8s.io/controller-runtime/pkg/client"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
)

// shadow keeps, per object UID, the last typed object a user controller wrote: the fields the
// model does not hold (a container's env and ports, volumes, ...) are read back from it, so an
// operator that compares what it wants with what it reads sees no difference the simulator
// made up. It lives as long as the run (ControllerEnv.Local), across controller restarts,
// and is shared by the run's user controllers. Fields the model holds always come from the
// model: other components' changes are seen.
type shadow struct {
	byUID map[string]client.Object
}

// maxShadowObjects bounds the shadow; past it the oldest entries are not evicted but new ones
// are not kept (their unmodelled fields then read back empty).
const maxShadowObjects = 1 << 20

func newShadow() *shadow { return &shadow{byUID: map[string]client.Object{}} }

// remember keeps a copy of obj as written for uid.
func (s *shadow) remember(uid string, obj client.Object) {
	if uid == "" {
		return
	}
	if _, ok := s.byUID[uid]; !ok && len(s.byUID) >= maxShadowObjects {
		return
	}
	cp, ok := obj.DeepCopyObject().(client.Object)
	if !ok {
		return
	}
	s.byUID[uid] = cp
}

// base returns a private copy of the object remembered for uid when it has obj's Go type.
func (s *shadow) base(uid string, obj client.Object) client.Object {
	b, ok := s.byUID[uid]
	if !ok || reflect.TypeOf(b) != reflect.TypeOf(obj) {
		return nil
	}
	cp, _ := b.DeepCopyObject().(client.Object)
	return cp
}

// patch applies a patch to the remembered object for uid (when there is one), so the fields
// it sets that the model does not hold are read back. A patch that does not apply leaves the
// remembered object as it was (the server accepted it for the fields it models).
func (s *shadow) patch(uid string, pt types.PatchType, data []byte, scheme *runtime.Scheme) {
	b, ok := s.byUID[uid]
	if !ok {
		return
	}
	orig, err := json.Marshal(b)
	if err != nil {
		return
	}
	var patched []byte
	switch pt {
	case types.JSONPatchType:
		p, err := jsonpatch.DecodePatch(data)
		if err != nil {
			return
		}
		patched, err = p.Apply(orig)
		if err != nil {
			return
		}
	case types.MergePatchType:
		patched, err = jsonpatch.MergePatch(orig, data)
		if err != nil {
			return
		}
	case types.StrategicMergePatchType:
		patched, err = strategicpatch.StrategicMergePatch(orig, data, b)
		if err != nil {
			return
		}
	default:
		return
	}
	next := reflect.New(reflect.TypeOf(b).Elem()).Interface().(client.Object)
	if err := json.Unmarshal(patched, next); err != nil {
		return
	}
	s.byUID[uid] = next
}
