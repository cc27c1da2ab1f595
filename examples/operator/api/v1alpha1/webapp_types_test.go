package v1alpha1_test

import (
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"
	sigsyaml "sigs.k8s.io/yaml"

	webappv1alpha1 "github.com/reconsim/reconsim/examples/operator/api/v1alpha1"
)

const scenarioDir = "../../scenarios"

// manifests returns every manifest of kind (a mapping with apiVersion and that kind) in the
// scenarios, as JSON, by the file it is in.
func manifests(t *testing.T, kind string) map[string][][]byte {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(scenarioDir, "*.yaml"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	found := map[string][][]byte{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		var walk func(n *yaml.Node)
		walk = func(n *yaml.Node) {
			if n.Kind == yaml.MappingNode {
				var isKind, hasVersion bool
				for i := 0; i+1 < len(n.Content); i += 2 {
					isKind = isKind || n.Content[i].Value == "kind" && n.Content[i+1].Value == kind
					hasVersion = hasVersion || n.Content[i].Value == "apiVersion"
				}
				if isKind && hasVersion {
					out, err := yaml.Marshal(n)
					require.NoError(t, err)
					j, err := sigsyaml.YAMLToJSON(out)
					require.NoError(t, err)
					found[filepath.Base(f)] = append(found[filepath.Base(f)], j)
					return
				}
			}
			for _, c := range n.Content {
				walk(c)
			}
		}
		var doc yaml.Node
		require.NoError(t, yaml.Unmarshal(b, &doc), f)
		walk(&doc)
	}
	return found
}

// TestScenarioWebAppsDecodeStrictly: every WebApp the scenarios declare is a WebApp of the Go
// type, without a field the type lacks.
func TestScenarioWebAppsDecodeStrictly(t *testing.T) {
	found := manifests(t, "WebApp")
	require.Len(t, found, 4, "each of the four scenarios declares a WebApp")
	for file, docs := range found {
		for _, j := range docs {
			var app webappv1alpha1.WebApp
			require.NoError(t, sigsyaml.UnmarshalStrict(j, &app), file)
			assert.Equal(t, webappv1alpha1.GroupVersion.String(), app.APIVersion, file)
			assert.NotEmpty(t, app.Spec.Image, file)
		}
	}
}

// schemaFields returns the property paths of an openAPIV3Schema (spec.image, status.conditions[].type, ...).
func schemaFields(prefix string, s map[string]any, out map[string]bool) {
	props, _ := s["properties"].(map[string]any)
	for name, p := range props { //detlint:ordered collects into a set
		path := strings.TrimPrefix(prefix+"."+name, ".")
		out[path] = true
		ps := p.(map[string]any)
		if items, ok := ps["items"].(map[string]any); ok {
			schemaFields(path+"[]", items, out)
		}
		schemaFields(path, ps, out)
	}
}

// typeFields returns the JSON field paths of a Go type, as schemaFields names them, not
// descending into the metav1 types (metadata, and a condition's fields are listed one level).
func typeFields(prefix string, t reflect.Type, out map[string]bool) {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice {
		if t.Kind() == reflect.Slice {
			prefix += "[]"
		}
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return
	}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" { // inline TypeMeta
			typeFields(prefix, f.Type, out)
			continue
		}
		path := strings.TrimPrefix(prefix+"."+name, ".")
		out[path] = true
		if name == "metadata" || strings.HasSuffix(f.Type.String(), "v1.Time") {
			continue
		}
		typeFields(path, f.Type, out)
	}
}

// TestCRDMatchesGoType: the CRD's schema has exactly the fields of the Go type, as
// controller-gen would generate it.
func TestCRDMatchesGoType(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(scenarioDir, "webapp.example.com_webapps.yaml"))
	require.NoError(t, err)
	var crd map[string]any
	require.NoError(t, sigsyaml.Unmarshal(b, &crd))
	versions := crd["spec"].(map[string]any)["versions"].([]any)
	require.Len(t, versions, 1)
	v := versions[0].(map[string]any)
	assert.Equal(t, webappv1alpha1.GroupVersion.Version, v["name"])
	assert.Equal(t, webappv1alpha1.GroupVersion.Group, crd["spec"].(map[string]any)["group"])
	schema := v["schema"].(map[string]any)["openAPIV3Schema"].(map[string]any)

	fromCRD, fromType := map[string]bool{}, map[string]bool{}
	schemaFields("", schema, fromCRD)
	typeFields("", reflect.TypeFor[webappv1alpha1.WebApp](), fromType)
	assert.Equal(t, sorted(fromType), sorted(fromCRD))
}

func sorted(m map[string]bool) []string {
	s := make([]string, 0, len(m))
	for k := range m { //detlint:ordered sorted below
		s = append(s, k)
	}
	sort.Strings(s)
	return s
}

// TestDeepCopy: a deep copy shares no memory with the original.
func TestDeepCopy(t *testing.T) {
	app := &webappv1alpha1.WebApp{Spec: webappv1alpha1.WebAppSpec{Image: "nginx", Replicas: ptr.To[int32](3)}}
	app.Status.Conditions = []metav1.Condition{{Type: "Available", Reason: "ReplicasReady"}}
	list := &webappv1alpha1.WebAppList{Items: []webappv1alpha1.WebApp{*app.DeepCopy()}}

	cp := app.DeepCopyObject().(*webappv1alpha1.WebApp)
	*cp.Spec.Replicas = 7
	cp.Status.Conditions[0].Reason = "changed"
	lcp := list.DeepCopyObject().(*webappv1alpha1.WebAppList)
	*lcp.Items[0].Spec.Replicas = 9
	lcp.Items[0].Status.Conditions[0].Reason = "changed"

	for _, a := range []*webappv1alpha1.WebApp{app, &list.Items[0]} {
		assert.Equal(t, int32(3), *a.Spec.Replicas)
		assert.Equal(t, "ReplicasReady", a.Status.Conditions[0].Reason)
	}
	var nilApp *webappv1alpha1.WebApp
	assert.Nil(t, nilApp.DeepCopy())
}

// TestAddToScheme: the scheme knows WebApp and WebAppList under the group version.
func TestAddToScheme(t *testing.T) {
	s := runtime.NewScheme()
	require.NoError(t, webappv1alpha1.AddToScheme(s))
	for obj, kind := range map[runtime.Object]string{&webappv1alpha1.WebApp{}: "WebApp", &webappv1alpha1.WebAppList{}: "WebAppList"} { //detlint:ordered each entry is checked on its own
		gvks, _, err := s.ObjectKinds(obj)
		require.NoError(t, err)
		assert.Equal(t, []schema.GroupVersionKind{webappv1alpha1.GroupVersion.WithKind(kind)}, gvks)
	}
}
