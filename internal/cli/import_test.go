package cli

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/report"
)

const dumpPath = "../../scenarios/testdata/import/kubectl-dump.yaml"

// TestImportValidateRunEndToEnd: `sim import` of a 61-object kubectl dump writes a scenario
// that `sim validate` accepts and `sim run` runs, through the real simulator, to a pass; the
// warnings go to stderr.
func TestImportValidateRunEndToEnd(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := run([]string{"import", dumpPath}, &stdout, &stderr)
	require.Equal(t, exitOK, code, stderr.String())
	assert.Contains(t, stderr.String(), "skipped 3 objects: the simulator does not model ConfigMap (warning)")
	assert.Equal(t, 1, strings.Count(stderr.String(), "dropped what the API server set"))

	dir := t.TempDir()
	file := filepath.Join(dir, "scenario.yaml")
	require.NoError(t, os.WriteFile(file, stdout.Bytes(), 0o644))

	var vout, verr bytes.Buffer
	code = run([]string{"validate", file}, &vout, &verr)
	require.Equal(t, exitOK, code, verr.String())
	assert.Contains(t, vout.String(), "ok  "+file+": 5 nodes")

	var rout, rerr bytes.Buffer
	out := filepath.Join(dir, "out")
	code = run([]string{"run", file, "--out", out}, &rout, &rerr)
	require.Equal(t, exitOK, code, "stdout:\n%s\nstderr:\n%s", rout.String(), rerr.String())
	res, err := report.ReadResult(filepath.Join(out, report.ResultFile))
	require.NoError(t, err)
	assert.Equal(t, "kubectl-dump", res.Scenario)
	assert.True(t, res.Passed)

	// The commented example at the end, uncommented, runs and holds.
	text := stdout.String()
	i := strings.Index(text, "# timeline:")
	require.Positive(t, i)
	var b strings.Builder
	b.WriteString(text[:i])
	for _, line := range strings.Split(text[i:], "\n") {
		b.WriteString(strings.TrimPrefix(strings.TrimPrefix(line, "# "), "#") + "\n")
	}
	example := filepath.Join(dir, "example.yaml")
	require.NoError(t, os.WriteFile(example, []byte(b.String()), 0o644))
	rout.Reset()
	rerr.Reset()
	code = run([]string{"run", example, "--out", filepath.Join(dir, "out2")}, &rout, &rerr)
	require.Equal(t, exitOK, code, "stdout:\n%s\nstderr:\n%s", rout.String(), rerr.String())
	assert.Contains(t, rout.String(), "✓ settled")
}

func TestImportUsageAndBadInput(t *testing.T) {
	dir := t.TempDir()
	noNodes := filepath.Join(dir, "empty.yaml")
	require.NoError(t, os.WriteFile(noNodes, []byte("apiVersion: v1\nkind: List\nitems: []\n"), 0o644))
	typo := filepath.Join(dir, "typo.yaml")
	require.NoError(t, os.WriteFile(typo, []byte("apiVersion: v1\nkind: Node\nmetadata: {name: n}\nstatus: {capacty: {}}\n"), 0o644))
	huge := filepath.Join(dir, "huge.yaml")
	require.NoError(t, os.WriteFile(huge, nil, 0o644))
	require.NoError(t, os.Truncate(huge, model.MaxManifestBytes+1))
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"import"}, "want one cluster dump"},
		{[]string{"import", huge}, fmt.Sprintf("%s: the file is larger than the limit of %d bytes; dump fewer objects", huge, model.MaxManifestBytes)},
		{[]string{"import", filepath.Join(dir, "missing.yaml")}, "no such file"},
		{[]string{"import", dir}, "is a directory"},
		{[]string{"import", noNodes}, noNodes + ":1:1: the dump has no Nodes"},
		{[]string{"import", typo}, typo + `:4:10: status.capacty: unknown field "capacty" (did you mean "capacity"?)`},
	}
	for _, tc := range tests {
		var stdout, stderr bytes.Buffer
		code := run(tc.args, &stdout, &stderr)
		assert.Equal(t, exitUsage, code, "%v: %s", tc.args, stderr.String())
		assert.Contains(t, stderr.String(), tc.want, tc.args)
		assert.Empty(t, stdout.String())
	}
}

// TestStrictFlag: with --strict, what would be skipped or ignored is an error (exit 2) with
// its position; without it, a warning.
func TestStrictFlag(t *testing.T) {
	dir := t.TempDir()
	data, err := os.ReadFile(dumpPath)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "dump.yaml"), data, 0o644))
	scn := filepath.Join(dir, "s.yaml")
	require.NoError(t, os.WriteFile(scn, []byte(`apiVersion: reconsim.dev/v1alpha1
kind: Scenario
name: s
duration: 1m
cluster:
  namespaces: [shop, payments, monitoring]
  nodeGroups: [{name: w, count: 4, capacity: {cpu: "4", memory: 16Gi, pods: "58"}}]
objects:
- file: dump.yaml
`), 0o644))
	var stdout, stderr bytes.Buffer
	require.Equal(t, exitOK, run([]string{"validate", scn}, &stdout, &stderr), stderr.String())
	assert.Contains(t, stderr.String(), "skipped 3 objects: the simulator does not model ConfigMap (warning)")

	for _, args := range [][]string{{"validate", "--strict", scn}, {"run", "--strict", scn, "--out", filepath.Join(dir, "out")}} {
		stdout.Reset()
		stderr.Reset()
		assert.Equal(t, exitUsage, run(args, &stdout, &stderr), args)
		assert.Contains(t, stderr.String(), "dump.yaml:1872:3: items[43]: the simulator does not model ConfigMap; --strict refuses to skip it", args)
		assert.Contains(t, stderr.String(), "dump.yaml:440:11: items[10].spec.template.spec.containers[0].imagePullPolicy: not modelled", args)
	}
}
