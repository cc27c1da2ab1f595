package features

import (
	"os"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reconsim/reconsim/internal/testsupport"
)

// TestDefaultFollowsGoMod: the default release is the one whose k8s.io/api the module builds
// against (k8s.io/api v0.<minor>.x is Kubernetes 1.<minor>).
func TestDefaultFollowsGoMod(t *testing.T) {
	v, err := testsupport.RequiredVersion("../../go.mod", "k8s.io/api")
	require.NoError(t, err)
	m := regexp.MustCompile(`^v0\.(\d+)\.\d+`).FindStringSubmatch(v)
	require.NotNil(t, m, "k8s.io/api %s is not v0.<minor>.x", v)
	assert.Equal(t, "1."+m[1], DefaultVersion)
	assert.Equal(t, NewestMinor, DefaultMinor)
}

func TestParseVersion(t *testing.T) {
	for _, v := range Versions() {
		m, err := ParseVersion(v)
		require.NoError(t, err)
		assert.Equal(t, v, Version(m))
	}
	for _, bad := range []string{"1.31", "1.38", "2.37", "1.x", "", "137"} {
		_, err := ParseVersion(bad)
		assert.Error(t, err, bad)
	}
}

// TestDefaults spells out the table's defaults for each release, from pkg/features/
// kube_features.go of each release and the CHANGELOGs (docs/upstream.md#versions).
func TestDefaults(t *testing.T) {
	want := map[Name][]bool{ // 1.32 ... 1.37
		SchedulerPopFromBackoffQ:       {false, true, true, true, true, true},
		SchedulerFitErrorSinglePeriod:  {false, false, true, true, true, true},
		TaintTolerationGenericMessage:  {false, false, false, true, true, true},
		KubeletPodWorkerRetryAtBackOff: {false, false, false, true, true, true},
		MaxUnavailableStatefulSet:      {false, false, false, false, false, true},
		HPAConfigurableTolerance:       {false, false, false, true, true, true},
		JobManagedBy:                   {true, true, true, true, true, true},
		JobPodFailureBackOffMax10m:     {true, true, true, true, true, true},
		SidecarContainers:              {true, true, true, true, true, true},
		BalancedAllocationScoresChange: {false, false, false, false, true, true},
		SizeBasedListCostEstimate:      {false, false, true, true, true, true},
	}
	require.Len(t, want, len(Table()), "every gate is listed here")
	for name, byRelease := range want {
		for i, on := range byRelease {
			s, err := For(OldestMinor+i, nil)
			require.NoError(t, err)
			assert.Equal(t, on, s.Enabled(name), "%s in %s", name, Version(OldestMinor+i))
		}
	}
}

func TestOverrides(t *testing.T) {
	o, err := ParseOverrides(" SchedulerPopFromBackoffQ=false, MaxUnavailableStatefulSet=true ,")
	require.NoError(t, err)
	s, err := For(37, o)
	require.NoError(t, err)
	assert.False(t, s.Enabled(SchedulerPopFromBackoffQ))
	assert.True(t, s.Enabled(MaxUnavailableStatefulSet))
	assert.True(t, s.Enabled(TaintTolerationGenericMessage), "the others follow the release")

	// Locked gates: component-base featuregate refuses to change them.
	off, err := ParseOverrides("JobManagedBy=false")
	require.NoError(t, err)
	_, err = For(35, off)
	assert.EqualError(t, err, "cannot set feature gate JobManagedBy to false, feature is locked to true in 1.35")
	_, err = For(34, off)
	assert.NoError(t, err, "beta in 1.34: not locked")
	sidecarsOff, err := ParseOverrides("SidecarContainers=false")
	require.NoError(t, err)
	_, err = For(33, sidecarsOff)
	assert.EqualError(t, err, "cannot set feature gate SidecarContainers to false, feature is locked to true in 1.33")
	s, err = For(32, sidecarsOff)
	require.NoError(t, err, "beta in 1.32: not locked")
	assert.False(t, s.Enabled(SidecarContainers))

	for in, want := range map[string]string{
		"Nope=true":                        "unrecognized feature gate: Nope",
		"JobManagedBy":                     "missing bool value for JobManagedBy",
		"JobManagedBy=yes":                 "invalid value of JobManagedBy=yes, want true or false",
		"BalancedAllocationScoresChange=1": "feature gate BalancedAllocationScoresChange is not modelled",
	} {
		_, err := ParseOverrides(in)
		if assert.Error(t, err, in) {
			assert.Contains(t, err.Error(), want, in)
		}
	}
}

// TestDocsTable: docs/upstream.md carries the generated table.
func TestDocsTable(t *testing.T) {
	doc, err := os.ReadFile("../../docs/upstream.md")
	require.NoError(t, err)
	want, err := ReplaceMarkdownSection(string(doc))
	require.NoError(t, err)
	assert.Equal(t, want, string(doc), "docs/upstream.md's gate table is stale: go run ./scenarios/internal/gendocs")
}

func TestTextListsEveryGate(t *testing.T) {
	text := Text()
	for _, g := range Table() {
		assert.Contains(t, text, string(g.Name))
		assert.Contains(t, text, g.Ref)
	}
	assert.Contains(t, text, "version skew between components is not modelled")
}
