package scenarios

import (
	_ "embed"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reconsim/reconsim/model"
)

// crdScenario declares the Backup CRD inline and the custom resources given after it.
func crdScenario(objects string) string {
	return crdScenarioHead + objects
}

//go:embed testdata/crd-scenario-head.yaml
var crdScenarioHead string

// A custom resource is checked against the CRD the scenario declares, at load time, with the
// field paths kube-apiserver prints, at the line and column of the offending field.
func TestCustomResourceLoadErrors(t *testing.T) {
	cases := []struct {
		name, src string
		want      []string
	}{
		{"kind defined nowhere", crdScenario(`- manifest:
    apiVersion: example.com/v1
    kind: Backupp
    metadata: {name: nightly}
    spec: {schedule: '@daily'}
`), []string{`backups.yaml:30:11: objects[1].manifest.kind: no CustomResourceDefinition in this scenario defines kind Backupp (apiVersion example.com/v1) (did you mean "Backup"? Otherwise declare a CustomResourceDefinition with spec.group: example.com and spec.names.kind: Backupp in objects:)`}},
		{"schema violations", crdScenario(`- manifest:
    apiVersion: example.com/v1
    kind: Backup
    metadata: {name: nightly}
    spec:
      schedule: weekly
      replicas: many
`), []string{
			`backups.yaml:33:17: objects[1].manifest.spec.schedule: spec.schedule: Invalid value: "weekly": spec.schedule in body should match '^@(daily|hourly)$' (the API server would reject it with 422 Invalid (Backup.example.com "nightly" is invalid))`,
			`backups.yaml:34:17: objects[1].manifest.spec.replicas: spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string" (the API server would reject it with 422 Invalid (Backup.example.com "nightly" is invalid))`,
		}},
		{"required field missing: at the object that lacks it", crdScenario(`- manifest:
    apiVersion: example.com/v1
    kind: Backup
    metadata: {name: nightly}
    spec: {replicas: 1}
`), []string{`backups.yaml:32:11: objects[1].manifest.spec.schedule: spec.schedule: Required value (the API server would reject it with 422 Invalid (Backup.example.com "nightly" is invalid))`}},
		{"unserved version", crdScenario(`- manifest:
    apiVersion: example.com/v2
    kind: Backup
    metadata: {name: nightly}
    spec: {schedule: '@daily'}
`), []string{`backups.yaml:29:17: objects[1].manifest.apiVersion: CustomResourceDefinition backups.example.com does not serve version v2 (served: example.com/v1)`}},
		{"expectation target of an undefined kind", crdScenario(`expect:
- name: x
  eventually: {condition: field-equals, target: {kind: Restore, name: a}, path: .status.phase, value: Done}
`), []string{`backups.yaml:30:56: expect[0].eventually.target.kind: unknown kind "Restore"`}},
		{"bad JSONPath", crdScenario(`- manifest:
    apiVersion: example.com/v1
    kind: Backup
    metadata: {name: nightly}
    spec: {schedule: '@daily'}
expect:
- name: x
  eventually: {condition: field-equals, target: {kind: Backup, name: nightly}, path: '.status[', value: Done}
`), []string{`backups.yaml:35:86: expect[0].eventually.path: invalid JSONPath ".status["`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := Parse("backups.yaml", []byte(c.src), "")
			require.Error(t, err)
			got := strings.Split(err.Error(), "\n")
			require.Len(t, got, len(c.want), "%s", err)
			for i := range c.want {
				assert.True(t, strings.HasPrefix(got[i], c.want[i]), "got  %s\nwant %s", got[i], c.want[i])
			}
		})
	}
}

// A custom resource read from a manifest file is placed in that file.
func TestCustomResourceFromFileErrorIsInTheFile(t *testing.T) {
	src := `apiVersion: reconsim.dev/v1alpha1
kind: Scenario
name: backups
duration: 1m
objects:
- file: backup-crd.yaml
- file: backups.yaml
`
	_, _, err := Parse("testdata/crd/s.yaml", []byte(src), "testdata/crd")
	require.Error(t, err)
	assert.Equal(t, `testdata/crd/backups.yaml:6:13: objects[1].file: Backup default/weekly in testdata/crd/backups.yaml: spec.replicas: Invalid value: 12: spec.replicas in body should be less than or equal to 10 (the API server would reject it with 422 Invalid (Backup.example.com "weekly" is invalid))`, err.Error())
}

// A valid custom resource loads, with its CRD's kind known to the rest of the scenario;
// undeclared fields are warnings.
func TestCustomResourceLoads(t *testing.T) {
	s, warns, err := Parse("backups.yaml", []byte(crdScenario(`- manifest:
    apiVersion: example.com/v1
    kind: Backup
    metadata: {name: nightly}
    spec: {schedule: '@daily', extra: 1}
expect:
- name: done
  eventually: {condition: field-equals, target: {kind: Backup, name: nightly}, path: .status.phase, value: Succeeded}
`)), "")
	require.NoError(t, err)
	require.Len(t, warns, 1)
	assert.Equal(t, `backups.yaml:32:39: objects[1].manifest.spec.extra: unknown field "spec.extra": the schema of backups.example.com does not declare it, and the API server drops it`, warns[0].String())
	u := s.Objects[1].Objects[0].(*model.Unstructured)
	assert.Equal(t, "default", u.Namespace)
	assert.Equal(t, "default", s.Expect[0].Eventually.Condition.FieldEquals.Target.Namespace)
}
