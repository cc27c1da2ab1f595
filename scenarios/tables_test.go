package scenarios

import (
	"testing"
	"time"

	"github.com/reconsim/reconsim/internal/flagtab"
	"github.com/reconsim/reconsim/sim/controllers/nodelifecycle"
	"github.com/reconsim/reconsim/sim/controllers/replicaset"
	"github.com/reconsim/reconsim/sim/gitops"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDocumentedDefaultsAreDefaultConfigs: every default the registry documents (and `sim
// explain` prints) for a component flag with a flag table sets the component's Config field
// to the value its DefaultConfig already has.
func TestDocumentedDefaultsAreDefaultConfigs(t *testing.T) {
	n := 0
	for _, tab := range componentTables {
		n += len(tab.Infos())
		assert.Empty(t, tab.Mismatches(func(in flagtab.Info) flagtab.Value {
			f, ok := LookupFlag(in.Component, in.Name)
			require.True(t, ok, "%s.%s", in.Component, in.Name)
			text, _ := f.DefaultFor(DefaultUpstreamVersion)
			v, err := parseFlagText(f, text)
			require.NoError(t, err)
			return v
		}))
	}
	assert.Equal(t, 84, n, "flags with a table")
}

// TestDefaultsMismatchIsReported shows the check above can fail: a table whose documented
// default differs from its DefaultConfig is reported.
func TestDefaultsMismatchIsReported(t *testing.T) {
	type config struct{ Workers int }
	tab := flagtab.Table[config]{
		Component: ComponentControllerManager,
		Defaults:  func() config { return config{Workers: 5} },
		Flags: []flagtab.Flag[config]{{Name: "concurrent-replicaset-syncs", Type: flagtab.Int, Default: "4", Field: "Workers",
			Ptr: func(c *config) any { return &c.Workers }}},
	}
	got := tab.Mismatches(func(in flagtab.Info) flagtab.Value {
		f, _ := LookupFlag(in.Component, in.Name)
		v, err := parseFlagText(f, "4")
		require.NoError(t, err)
		return v
	})
	assert.Equal(t, []string{`kube-controller-manager.concurrent-replicaset-syncs: documented default "4" sets Workers to 4; DefaultConfig has 5`}, got)
}

// TestConfigureSetsTheTableFields: Configure sets each field from the scenario's effective
// value (an explicit setting, else the default of the scenario's upstream version).
func TestConfigureSetsTheTableFields(t *testing.T) {
	var c Components
	require.NoError(t, c.Set(ComponentControllerManager, "concurrent-replicaset-syncs", "7"))
	rs := replicaset.DefaultConfig()
	Configure(&c, replicaset.Flags, &rs)
	assert.Equal(t, 7, rs.ConcurrentReplicaSetSyncs)

	require.NoError(t, c.Set(ComponentSimulator, "upstream-version", "1.32"))
	nl := nodelifecycle.DefaultConfig()
	Configure(&c, nodelifecycle.Flags, &nl)
	assert.Equal(t, 50*time.Second, nl.NodeMonitorGracePeriod, "the 1.32 default (40s only before 1.32, outside the supported releases)")
	assert.Equal(t, float32(0.55), nl.UnhealthyZoneThreshold)
}

// TestConfigureExplicitSetsOnlyExplicitFlags: ConfigureExplicit keeps the caller's defaults
// (here Argo CD 2.13's) for every flag the scenario did not set.
func TestConfigureExplicitSetsOnlyExplicitFlags(t *testing.T) {
	var c Components
	require.NoError(t, c.Set(ComponentGitOpsAgent, "app-resync-jitter", "30s"))
	o := gitops.DefaultOptionsFor("2.13")
	ConfigureExplicit(&c, gitops.Flags, &o)
	assert.Equal(t, 180*time.Second, o.AppResync, "2.13's default, not the documented 3.5 one")
	assert.Equal(t, 30*time.Second, o.AppResyncJitter)
	assert.Equal(t, 5, o.SelfHealTimeoutSeconds)
}

// TestEveryComponentFlagHasATable: the only flags the registry describes itself (with no
// component table, so no Field) are the scenario format's own settings.
func TestEveryComponentFlagHasATable(t *testing.T) {
	var own []string
	for _, f := range Flags() {
		if f.Field == "" {
			own = append(own, f.Key())
		}
	}
	assert.Equal(t, []string{"simulator.upstream-version", "simulator.feature-gates", "gitops-agent.enabled"}, own)
}
