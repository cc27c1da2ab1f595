package scenarios

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAPFObjectsTheEnsurerOverrides: a scenario's FlowSchema or PriorityLevelConfiguration
// that kube-apiserver's bootstrap ensurer would reset or delete
// (pkg/registry/flowcontrol/ensurer/strategy.go) loads with a warning at its name, so that a
// user learns why it has no effect; one the ensurer leaves alone gets none.
func TestAPFObjectsTheEnsurerOverrides(t *testing.T) {
	const src = `apiVersion: reconsim.dev/v1alpha1
kind: Scenario
name: w
duration: 1m
cluster:
  nodeGroups: [{name: a, count: 1, capacity: {cpu: "1", memory: 1Gi}}]
objects:
- manifest:
    apiVersion: flowcontrol.apiserver.k8s.io/v1
    kind: PriorityLevelConfiguration
    metadata: {name: workload-low}
    spec: {type: Limited, limited: {nominalConcurrencyShares: 10, limitResponse: {type: Reject}}}
- manifest:
    apiVersion: flowcontrol.apiserver.k8s.io/v1
    kind: PriorityLevelConfiguration
    metadata: {name: global-default, annotations: {apf.kubernetes.io/autoupdate-spec: "false"}}
    spec: {type: Limited, limited: {nominalConcurrencyShares: 10, limitResponse: {type: Reject}}}
- manifest:
    apiVersion: flowcontrol.apiserver.k8s.io/v1
    kind: PriorityLevelConfiguration
    metadata: {name: catch-all}
    spec: {type: Limited, limited: {nominalConcurrencyShares: 10, limitResponse: {type: Reject}}}
- manifest:
    apiVersion: flowcontrol.apiserver.k8s.io/v1
    kind: PriorityLevelConfiguration
    metadata: {name: mine, annotations: {apf.kubernetes.io/autoupdate-spec: "true"}}
    spec: {type: Limited, limited: {nominalConcurrencyShares: 10, limitResponse: {type: Reject}}}
`
	_, warns, err := Parse("w.yaml", []byte(src), ".")
	require.NoError(t, err)
	var got []string
	for _, w := range warns {
		got = append(got, w.String())
	}
	const how = " (sim explain FlowSchema)"
	assert.Equal(t, []string{
		`w.yaml:11:22: objects[0].manifest.metadata.name: PriorityLevelConfiguration workload-low does not configure API Priority and Fairness: it has the name of a suggested configuration object, whose spec kube-apiserver's bootstrap ensurer resets to the built-in one unless it is annotated apf.kubernetes.io/autoupdate-spec: "false"` + how,
		`w.yaml:21:22: objects[2].manifest.metadata.name: PriorityLevelConfiguration catch-all does not configure API Priority and Fairness: it is a mandatory configuration object, whose spec kube-apiserver's bootstrap ensurer always resets to the built-in one` + how,
		`w.yaml:26:22: objects[3].manifest.metadata.name: PriorityLevelConfiguration mine does not configure API Priority and Fairness: it is annotated apf.kubernetes.io/autoupdate-spec: "true" but is not a bootstrap object, so kube-apiserver's bootstrap ensurer deletes it` + how,
	}, got)
}
