package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reconsim/reconsim/scenarios"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A custom resource that violates its CRD's schema, or whose kind no CRD defines, is bad
// input: exit 2 for validate and run alike, with every problem at its file:line:col and the
// field path kube-apiserver's 422 would name. The expected stderr is the whole output.
func TestCustomResourceBadInputExitsTwo(t *testing.T) {
	const dir = "../../scenarios/testdata/broken/"
	cases := []struct{ file, stderr string }{
		{"custom-resource-schema.yaml", dir + `custom-resource-schema.yaml:42:22: objects[1].manifest.spec.schedule: spec.schedule: Invalid value: "weekly": spec.schedule in body should match '^@(daily|hourly)$' (the API server would reject it with 422 Invalid (Backup.example.com "nightly" is invalid))
` + dir + `custom-resource-schema.yaml:42:40: objects[1].manifest.spec.replicas: spec.replicas: Invalid value: 12: spec.replicas in body should be less than or equal to 10 (the API server would reject it with 422 Invalid (Backup.example.com "nightly" is invalid))
sim CMD: ` + dir + `custom-resource-schema.yaml: 2 problems; fix them and run again ('sim explain KEY' documents every key, with an example)
`},
		{"custom-resource-undefined-kind.yaml", dir + `custom-resource-undefined-kind.yaml:39:11: objects[1].manifest.kind: no CustomResourceDefinition in this scenario defines kind Backups (apiVersion example.com/v1) (did you mean "Backup"? Otherwise declare a CustomResourceDefinition with spec.group: example.com and spec.names.kind: Backups in objects:)
sim CMD: ` + dir + `custom-resource-undefined-kind.yaml: 1 problem; fix it and run again ('sim explain KEY' documents every key, with an example)
`},
	}
	for _, c := range cases {
		for _, cmd := range []string{"validate", "run"} {
			h := newHarness(mustNotRun)
			assert.Equal(t, exitUsage, h.run(cmd, dir+c.file), "%s %s", cmd, c.file)
			assert.Equal(t, replaceCmd(c.stderr, cmd), h.stderr.String(), "%s %s", cmd, c.file)
		}
	}
}

// A valid scenario with a CRD, a custom resource and field-equals expectations validates and
// runs to a pass.
func TestCustomResourceScenarioRuns(t *testing.T) {
	const file = "../../scenarios/testdata/valid/custom-resource.yaml"
	h := newHarness(mustNotRun)
	assert.Equal(t, exitOK, h.run("validate", file), h.stderr.String())
	assert.Contains(t, h.stdout.String(), "ok  "+file)
}

func replaceCmd(s, cmd string) string {
	out := []byte{}
	for i := 0; i < len(s); i++ {
		if i+3 <= len(s) && s[i:i+3] == "CMD" {
			out = append(out, cmd...)
			i += 2
			continue
		}
		out = append(out, s[i])
	}
	return string(out)
}

// A scenario with more problems than the loader lists (scenarios.MaxListedProblems) prints
// the first ones found, a last line that counts the rest, and the total.
func TestValidateCountsUnlistedProblems(t *testing.T) {
	const problems = scenarios.MaxListedProblems + 30
	var b strings.Builder
	b.WriteString("apiVersion: reconsim.dev/v1alpha1\nkind: Scenario\nname: p\nduration: 1m\n" +
		"cluster:\n  nodeGroups:\n  - {name: w, count: 1, capacity: {cpu: \"4\", memory: 16Gi}}\nobjects:\n")
	for i := range problems {
		fmt.Fprintf(&b, "- manifest: {apiVersion: v1, kind: Service, metadata: {name: s, namespace: nx-%d}, spec: {ports: [{port: 80}]}}\n", i)
	}
	file := filepath.Join(t.TempDir(), "p.yaml")
	require.NoError(t, os.WriteFile(file, []byte(b.String()), 0o644))
	h := newHarness(mustNotRun)
	assert.Equal(t, exitUsage, h.run("validate", file))
	lines := strings.Split(strings.TrimSuffix(h.stderr.String(), "\n"), "\n")
	require.Len(t, lines, scenarios.MaxListedProblems+2)
	assert.Equal(t, file+": 30 more problems are not listed: a scenario lists the first 1000 found (fix the problems listed and run again)", lines[len(lines)-2])
	assert.Equal(t, fmt.Sprintf("sim validate: %s: %d problems; fix them and run again ('sim explain KEY' documents every key, with an example)", file, problems), lines[len(lines)-1])
}
