package scenarios

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestProblemsPastTheBoundAreCounted checks that the loader lists the first
// MaxListedProblems problems it finds, sorted, and counts the rest in one last entry.
func TestProblemsPastTheBoundAreCounted(t *testing.T) {
	cases := []struct {
		name     string
		problems int
		listed   int
		last     string
	}{
		{"below the bound", 10, 10, "s.yaml:18:76: objects[9].manifest.metadata.namespace: namespace \"nx-9\" does not exist (add it to cluster.namespaces)"},
		{"at the bound", MaxListedProblems, MaxListedProblems, fmt.Sprintf("s.yaml:%d:76: objects[%d]", MaxListedProblems+8, MaxListedProblems-1)},
		{"past the bound", MaxListedProblems + 250, MaxListedProblems + 1, "s.yaml: 250 more problems are not listed: a scenario lists the first 1000 found (fix the problems listed and run again)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var b strings.Builder
			b.WriteString("apiVersion: reconsim.dev/v1alpha1\nkind: Scenario\nname: p\nduration: 1m\n" +
				"cluster:\n  nodeGroups:\n  - {name: w, count: 1, capacity: {cpu: \"4\", memory: 16Gi}}\nobjects:\n")
			for i := range c.problems {
				fmt.Fprintf(&b, "- manifest: {apiVersion: v1, kind: Service, metadata: {name: s, namespace: nx-%d}, spec: {ports: [{port: 80}]}}\n", i)
			}
			_, _, err := Parse("s.yaml", []byte(b.String()), "")
			var errs Errors
			require.ErrorAs(t, err, &errs)
			assert.Equal(t, c.problems, errs.Count())
			require.Len(t, errs, c.listed)
			assert.True(t, strings.HasPrefix(errs[len(errs)-1].Error(), c.last), "last problem listed: %s", errs[len(errs)-1])
			assert.True(t, strings.HasPrefix(errs[0].Error(), "s.yaml:9:76: objects[0].manifest.metadata.namespace: namespace \"nx-0\" does not exist"), "%s", errs[0])
		})
	}
}
