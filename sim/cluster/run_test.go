package cluster

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/reconsim/reconsim/report"
	"github.com/reconsim/reconsim/scenarios"
)

// runBuiltin loads a built-in scenario, applies overrides and runs it.
func runBuiltin(t *testing.T, name string, trace *bytes.Buffer, overrides ...string) *report.Result {
	t.Helper()
	file, data, dir, err := scenarios.Resolve(name)
	require.NoError(t, err)
	scn, _, err := scenarios.Parse(file, data, dir)
	require.NoError(t, err)
	var ovs []scenarios.Override
	for _, s := range overrides {
		o, err := scenarios.ParseOverride(s)
		require.NoError(t, err)
		ovs = append(ovs, o)
	}
	require.NoError(t, scn.Apply(ovs))
	opts := Options{Overrides: ovs}
	if trace != nil {
		opts.Trace = trace
	}
	res, err := checkedRun(t, scn, opts)
	require.NoError(t, err)
	return res
}
