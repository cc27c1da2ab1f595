package scenarios

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reconsim/reconsim/model"
)

func TestParseFieldPath(t *testing.T) {
	for _, tc := range []struct {
		path string
		want []pathStep
		err  string
	}{
		{"spec.replicas", []pathStep{{key: "spec"}, {key: "replicas"}}, ""},
		{"spec.template.spec.containers[0].image", []pathStep{{key: "spec"}, {key: "template"}, {key: "spec"}, {key: "containers"}, {index: 0, isIndex: true}, {key: "image"}}, ""},
		{"metadata.labels[app.kubernetes.io/name]", []pathStep{{key: "metadata"}, {key: "labels"}, {key: "app.kubernetes.io/name"}}, ""},
		{"a[1][2]", []pathStep{{key: "a"}, {index: 1, isIndex: true}, {index: 2, isIndex: true}}, ""},
		{"", nil, "empty"},
		{"a.", nil, "ends with a dot"},
		{"a..b", nil, "empty name"},
		{"a[1", nil, "[ without ]"},
		{"a[]", nil, "empty []"},
		{"[0].a", nil, "starts with an index"},
		{"a[-1]", nil, "negative index"},
	} {
		got, err := parseFieldPath(tc.path)
		if tc.err != "" {
			require.Error(t, err, tc.path)
			assert.Contains(t, err.Error(), tc.err)
			continue
		}
		require.NoError(t, err, tc.path)
		assert.Equal(t, tc.want, got, tc.path)
	}
}

func FuzzParseFieldPath(f *testing.F) {
	for _, s := range []string{"spec.replicas", "a[0].b", "m[x.y]", "a[", "[0]", "a..b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, path string) {
		steps, err := parseFieldPath(path)
		if err == nil && (len(steps) == 0 || steps[0].isIndex) {
			t.Fatalf("%q parsed to %+v", path, steps)
		}
	})
}

// TestEditAndPatchApply: edit sets fields and removes them with null; the three patch types
// apply as kube-apiserver applies them (patch.Apply).
func TestEditAndPatchApply(t *testing.T) {
	d := &model.Deployment{ObjectMeta: model.ObjectMeta{Name: "web", Namespace: "default", Labels: map[string]string{"a": "b"}}}
	d.Spec.Replicas = model.Ptr(int32(3))
	d.Spec.Template.Spec.Containers = []model.Container{{Name: "web", Image: "nginx:1.27"}, {Name: "log", Image: "busybox"}}

	e := &EditArgs{Set: yamlNode(t, `{spec.replicas: 5, "spec.template.spec.containers[1].image": busybox:2, "metadata.labels[a]": null}`)}
	out, err := e.ApplyTo(d)
	require.NoError(t, err)
	got := out.(*model.Deployment)
	assert.Equal(t, int32(5), *got.Spec.Replicas)
	assert.Equal(t, "busybox:2", got.Spec.Template.Spec.Containers[1].Image)
	assert.Empty(t, got.Labels)
	assert.Equal(t, int32(3), *d.Spec.Replicas, "the input is not modified")

	_, err = (&EditArgs{Set: yamlNode(t, `{metadata.name: other}`)}).ApplyTo(d)
	assert.ErrorContains(t, err, "cannot be edited")
	_, err = (&EditArgs{Set: yamlNode(t, `{spec.frobnicate: 1}`)}).ApplyTo(d)
	assert.ErrorContains(t, err, "unknown field")

	p := &PatchArgs{Body: yamlNode(t, `{spec: {template: {spec: {containers: [{name: log, image: busybox:3}]}}}}`)}
	out, err = p.ApplyTo(d)
	require.NoError(t, err)
	assert.Len(t, out.(*model.Deployment).Spec.Template.Spec.Containers, 2, "strategic: merged by name")
	p.Type = "merge"
	out, err = p.ApplyTo(d)
	require.NoError(t, err)
	assert.Len(t, out.(*model.Deployment).Spec.Template.Spec.Containers, 1, "merge: the list is replaced")
	p = &PatchArgs{Type: "json", Body: yamlNode(t, `[{op: test, path: /spec/replicas, value: 4}]`)}
	_, err = p.ApplyTo(d)
	assert.ErrorContains(t, err, "testing value /spec/replicas failed")
}
