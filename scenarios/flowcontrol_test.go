package scenarios

import (
	_ "embed"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

//go:embed testdata/apf-ensurer.yaml
var apfEnsurerScenario string

// TestAPFObjectsTheEnsurerOverrides: a scenario's FlowSchema or PriorityLevelConfiguration
// that kube-apiserver's bootstrap ensurer would reset or delete
// (pkg/registry/flowcontrol/ensurer/strategy.go) loads with a warning at its name, so that a
// user learns why it has no effect; one the ensurer leaves alone gets none.
func TestAPFObjectsTheEnsurerOverrides(t *testing.T) {
	_, warns, err := Parse("w.yaml", []byte(apfEnsurerScenario), ".")
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
