package scenarios

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reconsim/reconsim/model"
)

// TestDocsAnnotationTable fails when docs/scenario.md's annotation table differs from the
// kubelet's annotation docs. Regenerate it with `go run ./scenarios/internal/gendocs`.
func TestDocsAnnotationTable(t *testing.T) {
	doc, err := os.ReadFile("../docs/scenario.md")
	require.NoError(t, err)
	want, err := ReplaceAnnotationsSection(string(doc))
	require.NoError(t, err)
	if line := firstDiff(want, string(doc)); line != "" {
		t.Errorf("docs/scenario.md's annotation table is stale (first difference: %s): run go run ./scenarios/internal/gendocs", line)
	}
	require.NotEmpty(t, model.AnnotationDocs())
	for _, d := range model.AnnotationDocs() {
		assert.Contains(t, string(doc), "`"+d.Key+"`")
	}
}

// TestExplainAnnotations checks that `sim explain` answers every annotation by its key and
// by its short name, and that its example is an objects: entry that loads with the
// annotation on the pod template.
func TestExplainAnnotations(t *testing.T) {
	topics := ExplainTopics()
	for _, d := range model.AnnotationDocs() {
		assert.Contains(t, topics, d.Key)
		text, err := Explain(d.Key)
		require.NoError(t, err, d.Key)
		assert.True(t, strings.HasPrefix(text, d.Key+" (pod annotation"), text)
		assert.Contains(t, text, "default    "+d.Default)
		short, err := Explain(strings.TrimPrefix(d.Key, AnnotationPrefix))
		require.NoError(t, err)
		assert.Equal(t, text, short)

		src := "apiVersion: " + APIVersion + "\nkind: Scenario\nname: t\nduration: 1m\ncluster:\n  nodeGroups: [{name: w, count: 1, capacity: {cpu: \"4\", memory: 8Gi}}]\n" + annotationExample(d)
		s, warns, err := Parse("example.yaml", []byte(src), "")
		require.NoError(t, err, src)
		assert.Empty(t, warns)
		dep := s.Objects[0].Objects[0].(*model.Deployment)
		assert.Equal(t, d.Example, dep.Spec.Template.Annotations[d.Key])
	}
	list, err := Explain("sim.reconsim.dev")
	require.NoError(t, err)
	for _, d := range model.AnnotationDocs() {
		assert.Contains(t, list, d.Key)
	}
	_, err = Explain("sim.reconsim.dev/never-redy")
	require.Error(t, err)
	assert.Contains(t, err.Error(), `did you mean "sim.reconsim.dev/never-ready"?`)
}
