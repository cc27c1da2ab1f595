package apiserver

import (
	_ "embed"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/reconsim/reconsim/model"
)

// backupCRD is a namespaced CRD with the status and scale subresources and a schema that
// uses the common keywords.
//
//go:embed testdata/backup-crd.yaml
var backupCRD string

func decodeOne(t *testing.T, text string) model.Object {
	t.Helper()
	objs, _, err := model.DecodeManifestsWith("test.yaml", []byte(text), model.ManifestOptions{CustomResources: true})
	require.NoError(t, err)
	require.Len(t, objs, 1)
	return objs[0]
}

func newBackup(t *testing.T, spec string) *model.Unstructured {
	t.Helper()
	return decodeOne(t, "apiVersion: example.com/v1\nkind: Backup\nmetadata: {name: nightly, namespace: default}\nspec: "+spec+"\n").(*model.Unstructured)
}

func storeWithCRD(t *testing.T) *Store {
	t.Helper()
	_, s := newTestStore(t, nil)
	crd, err := s.Create(decodeOne(t, backupCRD))
	require.NoError(t, err)
	c := crd.(*model.CustomResourceDefinition)
	assert.Equal(t, []string{"v1"}, c.Status.StoredVersions)
	assert.Equal(t, "Established", c.Status.Conditions[1].Type)
	return s
}

// A custom resource before its CRD is a 404 (no such endpoint); after it, the kind is served
// in this store only: another store (another run of a sweep) does not know it.
func TestCustomResourceKindIsPerStore(t *testing.T) {
	_, bare := newTestStore(t, nil)
	_, err := bare.Create(newBackup(t, "{schedule: '@daily'}"))
	require.True(t, apierrors.IsNotFound(err), "%v", err)

	s := storeWithCRD(t)
	obj, err := s.Create(newBackup(t, "{schedule: '@daily'}"))
	require.NoError(t, err)
	assert.Equal(t, "example.com/v1", obj.(*model.Unstructured).APIVersion)

	_, err = bare.Create(newBackup(t, "{schedule: '@daily'}"))
	require.True(t, apierrors.IsNotFound(err), "a CRD in one store must not serve its kind in another: %v", err)
	_, ok := model.LookupKind("Backup")
	assert.False(t, ok, "the global kind registry must not learn custom kinds")
}

// The store semantics of a custom resource (apiextensions-apiserver
// pkg/registry/customresource/strategy.go and status_strategy.go).
func TestCustomResourceStoreSemantics(t *testing.T) {
	s := storeWithCRD(t)
	created, err := s.Create(newBackup(t, "{schedule: '@daily', unknown: 1}"))
	require.NoError(t, err)
	u := created.(*model.Unstructured)
	spec := u.Content["spec"].(map[string]any)

	steps := []struct {
		name string
		do   func(t *testing.T)
	}{
		{"create: generation 1, schema default applied, unknown field pruned", func(t *testing.T) {
			assert.Equal(t, int64(1), u.Generation)
			assert.Equal(t, int64(1), spec["replicas"])
			assert.NotContains(t, spec, "unknown")
		}},
		{"create drops status when the status subresource is on", func(t *testing.T) {
			b := newBackup(t, "{schedule: '@hourly'}")
			b.Name = "with-status"
			b.Content["status"] = map[string]any{"phase": "Done"}
			got, err := s.Create(b)
			require.NoError(t, err)
			assert.NotContains(t, got.(*model.Unstructured).Content, "status")
		}},
		{"update without resourceVersion is 422 (AllowUnconditionalUpdate false)", func(t *testing.T) {
			b := u.DeepCopy()
			b.ResourceVersion = 0
			_, err := s.Update(b)
			require.True(t, apierrors.IsInvalid(err), "%v", err)
			assert.Contains(t, err.Error(), "metadata.resourceVersion: Invalid value: 0: must be specified for an update")
		}},
		{"update with a stale resourceVersion is 409", func(t *testing.T) {
			b := u.DeepCopy()
			b.ResourceVersion--
			_, err := s.Update(b)
			require.True(t, apierrors.IsConflict(err), "%v", err)
		}},
		{"spec change bumps generation; status in a main update is ignored", func(t *testing.T) {
			b := u.DeepCopy()
			b.Content["spec"].(map[string]any)["replicas"] = int64(3)
			b.Content["status"] = map[string]any{"phase": "Sneaky"}
			got, err := s.Update(b)
			require.NoError(t, err)
			u = got.(*model.Unstructured)
			assert.Equal(t, int64(2), u.Generation)
			assert.NotContains(t, u.Content, "status")
		}},
		{"metadata-only change keeps generation", func(t *testing.T) {
			b := u.DeepCopy()
			b.Labels = map[string]string{"tier": "gold"}
			got, err := s.Update(b)
			require.NoError(t, err)
			assert.Equal(t, int64(2), got.Meta().Generation)
			assert.Greater(t, got.Meta().ResourceVersion, u.ResourceVersion)
			u = got.(*model.Unstructured)
		}},
		{"identical update writes nothing", func(t *testing.T) {
			rev := s.Revision()
			got, err := s.Update(u.DeepCopy())
			require.NoError(t, err)
			assert.Equal(t, rev, s.Revision())
			assert.Equal(t, u.ResourceVersion, got.Meta().ResourceVersion)
		}},
		{"status update writes status only and keeps generation", func(t *testing.T) {
			b := u.DeepCopy()
			b.Content["status"] = map[string]any{"phase": "Succeeded", "replicas": int64(3)}
			b.Content["spec"].(map[string]any)["replicas"] = int64(9)
			b.Labels = map[string]string{"ignored": "yes"}
			got, err := s.UpdateStatus(b)
			require.NoError(t, err)
			g := got.(*model.Unstructured)
			assert.Equal(t, int64(2), g.Generation)
			assert.Equal(t, int64(3), g.Content["spec"].(map[string]any)["replicas"])
			assert.Equal(t, "Succeeded", g.Content["status"].(map[string]any)["phase"])
			assert.Equal(t, map[string]string{"tier": "gold"}, g.Labels, "a status update leaves metadata alone")
			u = g
		}},
		{"scale subresource reads and writes the CRD's paths", func(t *testing.T) {
			sc, err := s.GetScale("Backup", "default", "nightly")
			require.NoError(t, err)
			assert.Equal(t, int32(3), sc.Spec.Replicas)
			assert.Equal(t, int32(3), sc.Status.Replicas)
			sc.Spec.Replicas = 5
			_, err = s.UpdateScale("Backup", "default", "nightly", sc)
			require.NoError(t, err)
			got, err := s.Get("Backup", "default", "nightly")
			require.NoError(t, err)
			u = got.(*model.Unstructured)
			assert.Equal(t, int64(5), u.Content["spec"].(map[string]any)["replicas"])
			assert.Equal(t, int64(3), u.Generation)
		}},
		{"a write in a served non-storage version is stored in the storage version", func(t *testing.T) {
			b := newBackup(t, "{schedule: '@daily'}")
			b.Name = "old-version"
			b.APIVersion = "example.com/v1beta1"
			got, err := s.Create(b)
			require.NoError(t, err)
			assert.Equal(t, "example.com/v1", got.(*model.Unstructured).APIVersion)
		}},
		{"an unserved version is 404", func(t *testing.T) {
			b := newBackup(t, "{schedule: '@daily'}")
			b.Name = "v2"
			b.APIVersion = "example.com/v2"
			_, err := s.Create(b)
			require.True(t, apierrors.IsNotFound(err), "%v", err)
		}},
		{"finalizer holds deletion; removing it deletes", func(t *testing.T) {
			b := u.DeepCopy()
			b.Finalizers = []string{"example.com/cleanup"}
			_, err := s.Update(b)
			require.NoError(t, err)
			_, err = s.Delete("Backup", "default", "nightly", model.DeleteOptions{})
			require.NoError(t, err)
			got, err := s.Get("Backup", "default", "nightly")
			require.NoError(t, err)
			require.NotNil(t, got.Meta().DeletionTimestamp)
			b = got.(*model.Unstructured).DeepCopy()
			b.Finalizers = nil
			_, err = s.Update(b)
			require.NoError(t, err)
			_, err = s.Get("Backup", "default", "nightly")
			require.True(t, apierrors.IsNotFound(err), "%v", err)
		}},
		{"foreground deletion adds the foregroundDeletion finalizer", func(t *testing.T) {
			fg := model.DeletePropagationForeground
			_, err := s.Delete("Backup", "default", "with-status", model.DeleteOptions{PropagationPolicy: &fg})
			require.NoError(t, err)
			got, err := s.Get("Backup", "default", "with-status")
			require.NoError(t, err)
			assert.Equal(t, []string{model.FinalizerDeleteDependents}, got.Meta().Finalizers)
		}},
		{"a CRD cannot be deleted (not modelled), and says so", func(t *testing.T) {
			_, err := s.Delete(model.KindCustomResourceDefinition, "", "backups.example.com", model.DeleteOptions{})
			require.True(t, apierrors.IsMethodNotSupported(err), "%v", err)
		}},
	}
	for _, st := range steps {
		t.Run(st.name, st.do)
	}
}

// Schema violations are 422 with the field paths and messages kube-apiserver prints
// (apiextensions-apiserver pkg/apiserver/validation kubeOpenAPIResultToFieldErrors over
// kube-openapi's validator, schema errors first, then the scale subresource's checks, as
// validator.go Validate orders them). The messages are kube-openapi's own; the test pins them
// so that a dependency update that changes what users read shows up here.
func TestCustomResourceSchemaErrors(t *testing.T) {
	cases := []struct {
		name, spec, want string
	}{
		{"required", "{replicas: 1}",
			`Backup.example.com "nightly" is invalid: spec.schedule: Required value`},
		// The scale subresource's own check of spec.replicas (validator.go ValidateScaleSpec)
		// runs besides the schema's, so a bad replicas field gets two errors, as upstream.
		{"type", "{schedule: '@daily', replicas: many}",
			`Backup.example.com "nightly" is invalid: [spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string", .spec.replicas: Invalid value: 0: .spec.replicas accessor error: many is of the type string, expected int64]`},
		{"maximum", "{schedule: '@daily', replicas: 11}",
			`Backup.example.com "nightly" is invalid: spec.replicas: Invalid value: 11: spec.replicas in body should be less than or equal to 10`},
		{"minimum", "{schedule: '@daily', replicas: -1}",
			`Backup.example.com "nightly" is invalid: [spec.replicas: Invalid value: -1: spec.replicas in body should be greater than or equal to 0, .spec.replicas: Invalid value: -1: should be a non-negative integer]`},
		{"pattern", "{schedule: weekly}",
			`Backup.example.com "nightly" is invalid: spec.schedule: Invalid value: "weekly": spec.schedule in body should match '^@(daily|hourly)$'`},
		{"enum", "{schedule: '@daily', retention: forever}",
			`Backup.example.com "nightly" is invalid: spec.retention: Unsupported value: "forever": supported values: "short", "long"`},
		{"maxItems", "{schedule: '@daily', tags: [a, b, c]}",
			`Backup.example.com "nightly" is invalid: spec.tags: Too many: 3: must have at most 2 items`},
		{"maxLength in a list item", "{schedule: '@daily', tags: [toolong]}",
			`Backup.example.com "nightly" is invalid: spec.tags[0]: Too long: may not be more than 5 bytes`},
		{"minLength", "{schedule: '@daily', note: x}",
			`Backup.example.com "nightly" is invalid: spec.note: Invalid value: "x": spec.note in body should be at least 2 chars long`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := storeWithCRD(t)
			_, err := s.Create(newBackup(t, c.spec))
			require.Error(t, err)
			require.True(t, apierrors.IsInvalid(err), "%v", err)
			assert.Equal(t, c.want, err.Error())
		})
	}
	t.Run("nullable and preserve-unknown-fields accept", func(t *testing.T) {
		s := storeWithCRD(t)
		got, err := s.Create(newBackup(t, "{schedule: '@daily', note: null, extra: {anything: [1, 2]}}"))
		require.NoError(t, err)
		spec := got.(*model.Unstructured).Content["spec"].(map[string]any)
		assert.Equal(t, map[string]any{"anything": []any{int64(1), int64(2)}}, spec["extra"])
	})
}

// A CRD is validated as kube-apiserver validates it.
func TestCustomResourceDefinitionValidation(t *testing.T) {
	_, s := newTestStore(t, nil)
	bad := decodeOne(t, backupCRD).(*model.CustomResourceDefinition)
	bad.Name = "wrong.example.com"
	bad.Spec.Versions[0].Storage = true
	bad.Spec.Versions[1].Storage = true
	bad.Spec.Versions[1].Schema = nil
	_, err := s.Create(bad)
	require.True(t, apierrors.IsInvalid(err), "%v", err)
	msg := err.Error()
	assert.Contains(t, msg, `metadata.name: Invalid value: "wrong.example.com": must be spec.names.plural+"."+spec.group`)
	assert.Contains(t, msg, "spec.versions: Invalid value")
	assert.Contains(t, msg, "must have exactly one version marked as storage version")
	assert.Contains(t, msg, "spec.versions[1].schema.openAPIV3Schema: Required value: schemas are required")

	clash := decodeOne(t, backupCRD).(*model.CustomResourceDefinition)
	clash.Spec.Names.Kind = "Deployment"
	_, err = s.Create(clash)
	require.True(t, apierrors.IsInvalid(err), "%v", err)
}
