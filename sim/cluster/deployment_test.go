package cluster

import (
	_ "embed"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

//go:embed testdata/settled-deployment.yaml
var settledDeploymentScenario string

func TestSettledDeploymentStartsConvergedAndRecovers(t *testing.T) {
	res := runYAML(t, "deployment-node-failure", settledDeploymentScenario)
	require.True(t, res.Passed, "%+v %+v", res.Expectations, res.Verdicts)
	assert.Zero(t, *res.Convergence[0].Seconds, "a settled Deployment is converged at t=0")
	for _, e := range res.Events {
		if e.Reason == "ScalingReplicaSet" {
			t.Errorf("the Deployment controller rescaled a settled Deployment: %+v", e)
		}
	}
	assert.InDelta(t, 356, convergenceOf(t, res, "crash"), 15)
	series(t, res, "deployment.default/api.available") // the Deployment's replica series is recorded
	endpoints := series(t, res, "service.default/api.ready_endpoints")
	at := func(sec float64) float64 { return valueAt(endpoints, sec, -1) }
	assert.Equal(t, 6.0, at(50), "all six pods serve before the crash")
	assert.Equal(t, 4.0, at(200), "the dead node's pods leave the endpoints when they are marked not ready")
	assert.Equal(t, 6.0, at(600), "replacements are endpoints again")
}
