package patch

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/reconsim/reconsim/model"
)

// TestApply checks the three patch types of kube-apiserver's patch handler
// (apiserver pkg/endpoints/handlers/patch.go jsonPatcher and smpPatcher) on a Deployment with
// two containers: a strategic merge patch merges containers by name (the patchMergeKey of
// PodSpec.containers in k8s.io/api), a merge patch replaces the list.
func TestApply(t *testing.T) {
	cur := `{"metadata":{"name":"web"},"spec":{"replicas":3,"template":{"spec":{"containers":[{"name":"a","image":"a:1"},{"name":"b","image":"b:1"}]}}}}`
	cases := []struct {
		name  string
		kind  model.Kind
		pt    model.PatchType
		patch string
		want  string // a JSON fragment the result's spec must equal, or "" on error
		code  int32  // the error's HTTP status
	}{
		{"merge replicas", model.KindDeployment, model.MergePatchType, `{"spec":{"replicas":5}}`, `{"replicas":5,"template":{"spec":{"containers":[{"image":"a:1","name":"a"},{"image":"b:1","name":"b"}]}}}`, 0},
		{"merge replaces lists", model.KindDeployment, model.MergePatchType, `{"spec":{"template":{"spec":{"containers":[{"name":"b","image":"b:2"}]}}}}`, `{"replicas":3,"template":{"spec":{"containers":[{"image":"b:2","name":"b"}]}}}`, 0},
		{"strategic merges by name", model.KindDeployment, model.StrategicMergePatchType, `{"spec":{"template":{"spec":{"containers":[{"name":"b","image":"b:2"}]}}}}`, `{"replicas":3,"template":{"spec":{"containers":[{"image":"a:1","name":"a"},{"image":"b:2","name":"b"}]}}}`, 0},
		{"strategic delete directive", model.KindDeployment, model.StrategicMergePatchType, `{"spec":{"template":{"spec":{"containers":[{"name":"a","$patch":"delete"}]}}}}`, `{"replicas":3,"template":{"spec":{"containers":[{"image":"b:1","name":"b"}]}}}`, 0},
		{"json replace", model.KindDeployment, model.JSONPatchType, `[{"op":"replace","path":"/spec/replicas","value":7}]`, `{"replicas":7,"template":{"spec":{"containers":[{"image":"a:1","name":"a"},{"image":"b:1","name":"b"}]}}}`, 0},
		{"json test fails", model.KindDeployment, model.JSONPatchType, `[{"op":"test","path":"/spec/replicas","value":4}]`, "", 422},
		{"json path missing", model.KindDeployment, model.JSONPatchType, `[{"op":"replace","path":"/spec/paused/x","value":true}]`, "", 422},
		{"json not a patch", model.KindDeployment, model.JSONPatchType, `{"op":"replace"}`, "", 400},
		{"strategic without schema", "Frobnicator", model.StrategicMergePatchType, `{}`, "", 415},
		{"unknown type", model.KindDeployment, "text/plain", `{}`, "", 415},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out, err := Apply(tc.kind, []byte(cur), tc.pt, []byte(tc.patch))
			if tc.code != 0 {
				require.Error(t, err)
				var status apierrors.APIStatus
				require.ErrorAs(t, err, &status)
				assert.Equal(t, tc.code, status.Status().Code, err.Error())
				return
			}
			require.NoError(t, err)
			var doc struct {
				Spec json.RawMessage `json:"spec"`
			}
			require.NoError(t, json.Unmarshal(out, &doc))
			assert.JSONEq(t, tc.want, string(doc.Spec))
		})
	}
}
