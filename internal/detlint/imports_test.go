package detlint

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestImportRules enforces docs/architecture.md#layers on the module's real import graph
// (go list -deps -json ./...).
func TestImportRules(t *testing.T) {
	module, pkgs, err := ImportGraph(repoRoot(t), "./...")
	require.NoError(t, err)
	require.Equal(t, "github.com/reconsim/reconsim", module)
	checked := map[string]bool{}
	for _, p := range pkgs {
		for _, r := range ImportRules {
			if rel, ok := cutModule(module, p.ImportPath); ok && r.From(rel) {
				checked[r.Rule] = true
			}
		}
	}
	for _, r := range ImportRules {
		assert.True(t, checked[r.Rule], "rule %q applies to no package: its From is wrong", r.Rule)
	}
	assert.Empty(t, CheckImports(module, pkgs, ImportRules), "see docs/architecture.md#layers")
}

func cutModule(module, path string) (string, bool) { return strings.CutPrefix(path, module+"/") }

// TestImportRulesCatchPlantedViolations feeds a synthetic graph with one violation of each
// rule (and imports each rule allows) to the same check: it must report exactly the planted
// violations.
func TestImportRulesCatchPlantedViolations(t *testing.T) {
	const m = "example.com/x"
	graph := []Package{
		{ImportPath: "fmt", Standard: true},
		{ImportPath: "k8s.io/apimachinery/pkg/util/sets"},
		{ImportPath: m + "/vtime", Imports: []string{"fmt"}},
		{ImportPath: m + "/sim", Imports: []string{"fmt", m + "/vtime", "k8s.io/apimachinery/pkg/util/sets"}},
		{ImportPath: m + "/model", Imports: []string{"fmt", m + "/vtime"}},
		{ImportPath: m + "/model/patch", Imports: []string{m + "/model", m + "/sim/client"}},
		{ImportPath: m + "/sim/apiserver", Imports: []string{m + "/model", m + "/sim"}},
		{ImportPath: m + "/sim/client", Imports: []string{m + "/sim/apiserver"}},
		{ImportPath: m + "/sim/controllers/replicaset", Imports: []string{m + "/sim/client", m + "/model"}},
		{ImportPath: m + "/sim/controllers/gc", Imports: []string{m + "/sim/apiserver"}},
		{ImportPath: m + "/sim/controllers/internal/testworld", Imports: []string{m + "/sim/apiserver"}},
		{ImportPath: m + "/report", Imports: []string{m + "/model", m + "/sim/controllers/hpa"}},
		{ImportPath: m + "/scenarios", Imports: []string{m + "/model", m + "/sim/apiserver"}},
		{ImportPath: m + "/sim/cluster", Imports: []string{m + "/sim/apiserver", m + "/report", m + "/scenarios"}},
	}
	assert.Equal(t, []string{
		"model/patch imports sim/client: model imports no simulation package (sim or sim/...)",
		"report imports sim/controllers/hpa: report never imports a controller (sim/controllers/...)",
		"scenarios imports sim/apiserver: scenarios never imports sim/apiserver",
		"sim imports k8s.io/apimachinery/pkg/util/sets: the kernel (sim) imports only the standard library and vtime",
		"sim/controllers/gc imports sim/apiserver: controllers (sim/controllers/..., test worlds aside) never import sim/apiserver",
	}, CheckImports(m, graph, ImportRules))
}
