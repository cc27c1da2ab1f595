package patch

import (
	"fmt"
	"net/http"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/mergepatch"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/reconsim/reconsim/model"
)

// strategicSchemas are the versioned Go types whose patchStrategy/patchMergeKey struct tags
// drive a strategic merge patch of each kind: kube-apiserver's smpPatcher uses the kind's
// versioned object as the schema (apiserver pkg/endpoints/handlers/patch.go
// smpPatcher.applyPatchToCurrentObject, strategicpatch.StrategicMergePatch).
func strategicSchema(kind model.Kind) (any, bool) {
	switch kind {
	case model.KindNamespace:
		return &corev1.Namespace{}, true
	case model.KindNode:
		return &corev1.Node{}, true
	case model.KindPod:
		return &corev1.Pod{}, true
	case model.KindEvent:
		return &corev1.Event{}, true
	case model.KindService:
		return &corev1.Service{}, true
	case model.KindLease:
		return &coordinationv1.Lease{}, true
	case model.KindReplicaSet:
		return &appsv1.ReplicaSet{}, true
	case model.KindDeployment:
		return &appsv1.Deployment{}, true
	case model.KindStatefulSet:
		return &appsv1.StatefulSet{}, true
	case model.KindDaemonSet:
		return &appsv1.DaemonSet{}, true
	case model.KindControllerRevision:
		return &appsv1.ControllerRevision{}, true
	case model.KindPodDisruptionBudget:
		return &policyv1.PodDisruptionBudget{}, true
	case model.KindEndpointSlice:
		return &discoveryv1.EndpointSlice{}, true
	case model.KindHorizontalPodAutoscaler:
		return &autoscalingv2.HorizontalPodAutoscaler{}, true
	case "Job":
		return &batchv1.Job{}, true
	case "CronJob":
		return &batchv1.CronJob{}, true
	}
	return nil, false
}

// ApplyPatch applies patch, of type pt, to current (an object's JSON) the way kube-apiserver's
// patchers do (apiserver pkg/endpoints/handlers/patch.go): a JSON patch (RFC 6902) with
// evanphx/json-patch, a merge patch (RFC 7386), a strategic merge patch with apimachinery's
// strategicpatch and the kind's versioned schema. Errors are the server's: 400 for a patch
// that does not decode, 422 for one that does not apply (a JSON patch test or path that
// fails, a strategic directive that is wrong), 415 for a strategic patch of a kind without a
// schema.
func Apply(kind model.Kind, current []byte, pt model.PatchType, patch []byte) ([]byte, error) {
	switch pt {
	case model.JSONPatchType:
		ops, err := jsonpatch.DecodePatch(patch)
		if err != nil {
			return nil, apierrors.NewBadRequest(err.Error())
		}
		if len(ops) > maxPatchOps {
			return nil, apierrors.NewRequestEntityTooLargeError(fmt.Sprintf("the JSON patch has %d operations, more than the limit of %d", len(ops), maxPatchOps))
		}
		out, err := ops.Apply(current)
		if err != nil {
			return nil, unprocessable(err.Error())
		}
		return out, nil
	case model.MergePatchType, "":
		out, err := jsonpatch.MergePatch(current, patch)
		if err != nil {
			return nil, apierrors.NewBadRequest(err.Error())
		}
		return out, nil
	case model.StrategicMergePatchType:
		dataStruct, ok := strategicSchema(kind)
		if !ok {
			return nil, apierrors.NewGenericServerResponse(http.StatusUnsupportedMediaType, "", schema.GroupResource{}, "",
				fmt.Sprintf("strategic merge patch is not supported for %s", kind), 0, false)
		}
		out, err := strategicpatch.StrategicMergePatch(current, patch, dataStruct)
		if err != nil {
			// patch.go interpretStrategicMergePatchError.
			switch err {
			case mergepatch.ErrBadJSONDoc, mergepatch.ErrBadPatchFormatForPrimitiveList, mergepatch.ErrBadPatchFormatForRetainKeys,
				mergepatch.ErrBadPatchFormatForSetElementOrderList, mergepatch.ErrUnsupportedStrategicMergePatchFormat:
				return nil, apierrors.NewBadRequest(err.Error())
			case mergepatch.ErrNoListOfLists, mergepatch.ErrPatchContentNotMatchRetainKeys:
				return nil, unprocessable(err.Error())
			}
			return nil, apierrors.NewInvalid(schema.GroupKind{Kind: string(kind)}, "", field.ErrorList{field.Invalid(field.NewPath("patch"), string(patch), err.Error())})
		}
		return out, nil
	}
	return nil, apierrors.NewGenericServerResponse(http.StatusUnsupportedMediaType, "", schema.GroupResource{}, "",
		fmt.Sprintf("the body of the request was in an unknown format - accepted media types include: %s, %s, %s", model.JSONPatchType, model.MergePatchType, model.StrategicMergePatchType), 0, false)
}

// maxPatchOps bounds the operations of one JSON patch (kube-apiserver limits them to 10000,
// apiserver pkg/endpoints/handlers/patch.go maxJSONPatchOperations).
const maxPatchOps = 10000

// unprocessable is a 422 with the patcher's message, as patch.go answers a patch that does
// not apply.
func unprocessable(msg string) error {
	return &apierrors.StatusError{ErrStatus: metav1.Status{
		Status: metav1.StatusFailure, Code: http.StatusUnprocessableEntity, Reason: metav1.StatusReasonInvalid, Message: msg,
	}}
}
