package scenarios

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reconsim/reconsim/model"
)

const copiesHead = "apiVersion: reconsim.dev/v1alpha1\nkind: Scenario\nname: x\nduration: 1m\n" +
	"cluster: {nodeGroups: [{name: w, count: 2, capacity: {cpu: '8', memory: 8Gi}}]}\nobjects:\n"

// copiesRS is an entry of copies ReplicaSets named and labelled by the index.
func copiesRS(copies string, name string) string {
	return "- copies: " + copies + "\n  settled: true\n  manifest:\n    apiVersion: apps/v1\n    kind: ReplicaSet\n" +
		"    metadata: {name: \"" + name + "\", namespace: default, annotations: {note: \"copy {{ .Index }} of " + copies + "\"}}\n" +
		"    spec:\n      replicas: 1\n      selector: {matchLabels: {app: \"rs-{{ .Index }}\"}}\n" +
		"      template:\n        metadata: {labels: {app: \"rs-{{ .Index }}\"}}\n" +
		"        spec: {containers: [{name: app, image: app, resources: {requests: {cpu: 10m}}}]}\n"
}

// TestCopiesExpand checks that copies: N makes N objects with {{ .Index }} replaced by 0..N-1
// in names, labels and other strings, and that they load as if written out one by one.
func TestCopiesExpand(t *testing.T) {
	data := copiesHead + copiesRS("3", "rs-{{ .Index }}") +
		"- manifest: {apiVersion: v1, kind: Service, metadata: {name: \"{{ .Index }}\"}, spec: {ports: [{port: 80}]}}\n"
	_, _, err := Parse("s.yaml", []byte(data), "")
	require.Error(t, err, "{{ .Index }} outside copies is not replaced: not a valid name")

	data = copiesHead + copiesRS("3", "rs-{{ .Index }}")
	s, _, err := Parse("s.yaml", []byte(data), "")
	require.NoError(t, err)
	require.Len(t, s.Objects, 1)
	assert.Equal(t, 3, s.Objects[0].Copies)
	require.Len(t, s.Objects[0].Objects, 3)

	var written strings.Builder
	written.WriteString(copiesHead)
	for i := range 3 {
		written.WriteString(strings.ReplaceAll(strings.Replace(copiesRS("3", "rs-{{ .Index }}"), "- copies: 3\n  settled", "- settled", 1), IndexToken, fmt.Sprint(i)))
	}
	w, _, err := Parse("w.yaml", []byte(written.String()), "")
	require.NoError(t, err)
	require.Len(t, w.Objects, 3)
	for i, o := range s.Objects[0].Objects {
		rs := o.(*model.ReplicaSet)
		assert.Equal(t, fmt.Sprintf("rs-%d", i), rs.Name)
		assert.Equal(t, fmt.Sprintf("rs-%d", i), rs.Spec.Template.Labels["app"])
		assert.Equal(t, fmt.Sprintf("copy %d of 3", i), rs.Annotations["note"])
		assert.Equal(t, w.Objects[i].Objects[0], o, "copy %d is the manifest written out", i)
	}
}

// TestCopiesProblems checks each problem with copies is reported once, at the entry.
func TestCopiesProblems(t *testing.T) {
	cases := []struct {
		name, objects string
		want          []string
	}{
		{"zero", copiesRS("0", "rs-{{ .Index }}"), []string{"s.yaml:7:11: objects[0].copies: copies is 0; it must be at least 1"}},
		{"not a number", copiesRS("many", "rs-{{ .Index }}"), []string{`s.yaml:7:11: objects[0].copies: expected an integer, got a string "many"`}},
		{"over the limit", copiesRS("100001", "rs-{{ .Index }}"), []string{"s.yaml:7:11: objects[0].copies: copies: 100001 would make more than 100000 objects (0 are declared before this entry)"}},
		{"over the limit with others", "- manifest: {apiVersion: v1, kind: Namespace, metadata: {name: a}}\n" + copiesRS("100000", "rs-{{ .Index }}"),
			[]string{"s.yaml:8:11: objects[1].copies: copies: 100000 would make more than 100000 objects (1 are declared before this entry)"}},
		{"same name", copiesRS("2", "rs"), []string{`s.yaml:12:22: objects[0].manifest.metadata.name: the copies of this entry would all be named "rs"`}},
		{"misspelt token", copiesRS("2", "rs-{{ .index }}"), []string{`s.yaml:12:22: objects[0].manifest: "rs-{{ .index }}": only the exact text {{ .Index }} is replaced in a copied manifest`}},
		{"invalid name", copiesRS("2", "RS-{{ .Index }}"), []string{`s.yaml:12:22: objects[0].manifest.metadata.name: Invalid value: "RS-0"`}},
		{"collision between entries", copiesRS("3", "rs-{{ .Index }}") + copiesRS("2", "rs-{{ .Index }}"),
			[]string{"s.yaml:24:22: objects[1].manifest.metadata.name: ReplicaSet default/rs-0 is declared twice (first at s.yaml:10:5) (and the same problem with 1 more of its copies)"}},
		// The repeats of a problem are counted in its message before the bound on problems
		// listed (MaxListedProblems) applies: 1,500 copies collide, and one problem is listed.
		{"collision of more copies than problems are listed", copiesRS("1500", "rs-{{ .Index }}") + copiesRS("1500", "rs-{{ .Index }}"),
			[]string{"s.yaml:24:22: objects[1].manifest.metadata.name: ReplicaSet default/rs-0 is declared twice (first at s.yaml:10:5) (and the same problem with 1499 more of its copies)"}},
		{"file", "- copies: 2\n  file: x.yaml\n", []string{"s.yaml:7:11: objects[0].copies: copies applies to an inline manifest, not to a file"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := Parse("s.yaml", []byte(copiesHead+c.objects), "")
			require.Error(t, err)
			var lines []string
			for _, l := range strings.Split(err.Error(), "\n") {
				if strings.HasPrefix(l, "s.yaml:") {
					lines = append(lines, l)
				}
			}
			require.Len(t, lines, len(c.want), "%v", err)
			for i, w := range c.want {
				assert.True(t, strings.HasPrefix(lines[i], w), "got  %s\nwant %s...", lines[i], w)
			}
		})
	}
}
