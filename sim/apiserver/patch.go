package apiserver

import (
	"encoding/json"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/reconsim/reconsim/model"
	modelpatch "github.com/reconsim/reconsim/model/patch"
)

// maxPatchBytes bounds a patch document (upstream limits request bodies to 3 MiB,
// [apiserver@HEAD] pkg/server/config.go MaxRequestBodyBytes).
const maxPatchBytes = 3 * 1024 * 1024

// maxPatchDepth bounds the nesting of a patch document, so a hostile patch cannot recurse
// without limit.
const maxPatchDepth = 64

// Patch applies an RFC 7386 JSON merge patch to the stored object's JSON form (encoding/json
// of the model type, so metadata.resourceVersion and times are JSON numbers) and stores the
// result exactly as Update would, resourceVersion rules included: a patch that leaves
// metadata.resourceVersion alone applies to the current object; one that sets it is checked
// against it (409 Conflict). Errors: 404 NotFound; 400 for a patch that is not JSON, too large
// or too deep, or that renames the object; 422 for a result that does not decode into the
// kind or fails validation; Update's errors.
func (s *Store) Patch(kind model.Kind, namespace, name string, mergePatch []byte) (model.Object, error) {
	return s.patch(kind, namespace, name, model.MergePatchType, mergePatch, false)
}

// PatchAs is Patch with a patch of type pt (a JSON patch, a merge patch or a strategic merge
// patch; see ApplyPatch), as kube-apiserver takes `kubectl patch --type`.
func (s *Store) PatchAs(kind model.Kind, namespace, name string, pt model.PatchType, patch []byte) (model.Object, error) {
	return s.patch(kind, namespace, name, pt, patch, false)
}

// PatchStatus is Patch through the status subresource (the result is stored as UpdateStatus
// would store it).
func (s *Store) PatchStatus(kind model.Kind, namespace, name string, mergePatch []byte) (model.Object, error) {
	return s.patch(kind, namespace, name, model.MergePatchType, mergePatch, true)
}

func (s *Store) patch(kind model.Kind, namespace, name string, pt model.PatchType, patch []byte, status bool) (model.Object, error) {
	ks, err := s.kind(kind)
	if err != nil {
		return nil, err
	}
	if status && !ks.info.HasStatus {
		return nil, errUnknownResource(kind)
	}
	key := ks.keyOf(namespace, name)
	old := ks.objects[key]
	if old == nil {
		return nil, apierrors.NewNotFound(ks.gr, name)
	}
	if len(patch) > maxPatchBytes {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("patch is %d bytes, more than the limit of %d", len(patch), maxPatchBytes))
	}
	patchDoc, err := model.DecodeJSONExact(patch)
	if err != nil {
		return nil, apierrors.NewBadRequest("invalid JSON merge patch: " + err.Error())
	}
	if jsonDepth(patchDoc, 0) > maxPatchDepth {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("patch nests deeper than %d levels", maxPatchDepth))
	}
	current, err := json.Marshal(old)
	if err != nil {
		return nil, apierrors.NewInternalError(fmt.Errorf("encoding %s %q: %v", kind, name, err))
	}
	var obj model.Object
	if kind == model.KindEvent && pt == model.StrategicMergePatchType {
		if ev, ok := eventCountPatch(current, patchDoc, patch); ok {
			obj = ev
		}
	}
	if obj == nil {
		if obj, err = applyPatch(ks, kind, name, current, pt, patch, patchDoc); err != nil {
			return nil, err
		}
	}
	meta := obj.Meta()
	if meta.Name != name {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("the name of the object (%s) does not match the name on the URL (%s)", meta.Name, name))
	}
	if ks.info.Namespaced && meta.Namespace != key.namespace {
		return nil, apierrors.NewBadRequest("the namespace of the provided object does not match the namespace sent on the request")
	}
	action := "patch"
	if status {
		action = "patch-status"
	}
	return s.update(ks, obj, status, action)
}

// applyPatch applies patch, of type pt, to current (the stored object's JSON) and decodes the
// result into a new object of the kind.
func applyPatch(ks *kindStore, kind model.Kind, name string, current []byte, pt model.PatchType, patch []byte, patchDoc any) (model.Object, error) {
	var merged []byte
	var err error
	if pt == model.MergePatchType || pt == "" {
		// Only a merge patch works on the decoded document; the other types apply to the bytes.
		var currentDoc any
		currentDoc, err = model.DecodeJSONExact(current)
		if err != nil {
			return nil, apierrors.NewInternalError(fmt.Errorf("decoding %s %q: %v", kind, name, err))
		}
		merged, err = json.Marshal(mergePatch(currentDoc, patchDoc))
		if err != nil {
			return nil, apierrors.NewInternalError(fmt.Errorf("encoding patched %s %q: %v", kind, name, err))
		}
	} else if merged, err = modelpatch.Apply(kind, current, pt, patch); err != nil {
		return nil, err
	}
	obj := ks.info.New()
	if err := json.Unmarshal(merged, obj); err != nil {
		// patch.go applyPatchToObject: a result that does not convert is Invalid on "patch".
		return nil, apierrors.NewInvalid(schema.GroupKind{}, "", field.ErrorList{field.Invalid(field.NewPath("patch"), string(patch), err.Error())})
	}
	return obj, nil
}

// mergePatch is RFC 7386 MergePatch: an object patch merges key by key (null deletes a key),
// anything else replaces the target.
func mergePatch(target, patch any) any {
	p, ok := patch.(map[string]any)
	if !ok {
		return patch
	}
	t, ok := target.(map[string]any)
	if !ok {
		t = map[string]any{}
	}
	for k, v := range p { //detlint:ordered each key is merged independently; the result is a map
		if v == nil {
			delete(t, k)
			continue
		}
		t[k] = mergePatch(t[k], v)
	}
	return t
}

// jsonDepth returns the nesting depth of a decoded JSON value, stopping past the limit.
func jsonDepth(v any, depth int) int {
	if depth > maxPatchDepth {
		return depth
	}
	deepest := depth
	switch x := v.(type) {
	case map[string]any:
		for _, e := range x { //detlint:ordered computes a maximum
			deepest = max(deepest, jsonDepth(e, depth+1))
		}
	case []any:
		for _, e := range x {
			deepest = max(deepest, jsonDepth(e, depth+1))
		}
	}
	return deepest
}
