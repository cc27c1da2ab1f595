package cluster

import (
	_ "embed"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// customResourceScenario uses no built-in workload at all: a CRD, a custom resource, a patch
// of its status (the CRD has no status subresource, so the main resource writes status and
// bumps generation, as kube-apiserver's customresource strategy does), an apply of a new spec,
// and field-equals expectations that read the custom resource with JSONPaths.
//
//go:embed testdata/custom-resource.yaml
var customResourceScenario string

func TestCustomResourceScenarioWithoutBuiltins(t *testing.T) {
	res := runYAML(t, "backup-crd", customResourceScenario)
	for _, e := range res.Expectations {
		assert.True(t, e.Passed, "%s: %s", e.Name, e.Message)
	}
	require.True(t, res.Passed)
	msgs := map[string]string{}
	for _, e := range res.Expectations {
		msgs[e.Name] = e.Message
	}
	assert.Contains(t, msgs["done"], `Backup default/nightly has .status.phase = "Succeeded"`)
}

// A field-equals expectation that does not hold fails with the value it saw.
func TestFieldEqualsFailsWithTheValueFound(t *testing.T) {
	text := customResourceScenario + `- name: wrong
  eventually: {condition: field-equals, target: {kind: Backup, name: nightly}, path: .spec.schedule, value: '@weekly'}
`
	res := runYAML(t, "backup-crd-wrong", text)
	require.False(t, res.Passed)
	last := res.Expectations[len(res.Expectations)-1]
	assert.False(t, last.Passed)
	assert.Contains(t, last.Message, `.spec.schedule = "@hourly" (want "@weekly")`)
}

// An api-errors fault can name a custom resource by its plural, as RBAC rules do: the patch
// of the Backup meets the injected 409s, fails, and the expectation it would have made true
// does not hold.
func TestAPIErrorsOnACustomResource(t *testing.T) {
	text := strings.Replace(customResourceScenario, "timeline:\n", `timeline:
- {at: 5s, name: storm, action: api-errors, verbs: [patch], resources: [backups], code: 409, fraction: 1, for: 30s}
`, 1)
	res := runYAML(t, "backup-409", text)
	require.False(t, res.Passed)
	for _, e := range res.Expectations {
		if e.Name == "done" {
			assert.False(t, e.Passed, "the status patch met the 409 storm: %s", e.Message)
		}
	}
	var sawConflict bool
	for _, ev := range res.Events {
		if strings.Contains(ev.Message, "injected by the scenario") && strings.Contains(ev.Message, "backups") {
			sawConflict = true
		}
	}
	assert.True(t, sawConflict, "the failed patch is recorded with the resource's name")
}

// A CRD applied during the run serves its kind from then on: a custom resource applied
// after it is created, with its schema's default.
func TestCRDAppliedInTheTimeline(t *testing.T) {
	crd := customResourceScenario[strings.Index(customResourceScenario, "- manifest:\n    apiVersion: apiextensions.k8s.io/v1"):strings.Index(customResourceScenario, "timeline:")]
	crd = strings.Replace(crd, "- manifest:", "- at: 5s\n  action: apply\n  manifest:", 1)
	text := `
apiVersion: reconsim.dev/v1alpha1
kind: Scenario
name: crd-later
seed: 1
duration: 1m
cluster:
  nodeGroups:
  - {name: worker, count: 1, capacity: {cpu: "4", memory: 8Gi, pods: "110"}}
timeline:
` + crd + `- at: 10s
  name: backup
  action: apply
  manifest:
    apiVersion: example.com/v1
    kind: Backup
    metadata: {name: nightly}
    spec: {schedule: '@daily'}
expect:
- name: created-with-default
  eventually: {condition: field-equals, target: {kind: Backup, name: nightly}, path: .spec.replicas, value: 1, within: {after: backup, within: 5s}}
`
	res := runYAML(t, "crd-later", text)
	for _, e := range res.Expectations {
		assert.True(t, e.Passed, "%s: %s", e.Name, e.Message)
	}
}
