package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reconsim/reconsim/report"
	"github.com/reconsim/reconsim/scenarios"
	"github.com/reconsim/reconsim/sim/cluster"
)

// realRun runs the simulator itself.
func realRun(scn *scenarios.Scenario, opts cluster.Options) (*report.Result, error) {
	return cluster.Run(context.Background(), scn, opts)
}

// nodeFailure returns the built-in node-failure scenario with each old->new replacement made.
func nodeFailure(t *testing.T, replacements ...string) string {
	t.Helper()
	data, ok := scenarios.Builtin("node-failure")
	require.True(t, ok)
	s := string(data)
	for i := 0; i+1 < len(replacements); i += 2 {
		require.Contains(t, s, replacements[i])
		s = strings.Replace(s, replacements[i], replacements[i+1], 1)
	}
	return s
}

// TestBadInputExitsTwoWithTheReason is a table of command lines with bad input (the
// scenario written to s.yaml in a fresh directory, which is also the working directory):
// each must exit 2 with a message that says what is wrong, and never call it a bug in
// reconsim (exit 3). An empty scenario means the arguments name no file of their own.
func TestBadInputExitsTwoWithTheReason(t *testing.T) {
	cases := []struct {
		name     string
		scenario string
		args     []string
		want     []string
		not      []string
	}{
		{
			name:     "settled replicas that do not fit, run",
			scenario: nodeFailure(t, "replicas: 6", "replicas: 400"),
			args:     []string{"run", "s.yaml"},
			want: []string{"creating ReplicaSet default/web: pod 25 of its 400 replicas (all 400 request cpu 200 and memory 100Gi)",
				"it requests cpu 500m and memory 256Mi", "3 have too little cpu left", "together they have cpu 12, memory 48Gi"},
			not: []string{"268435456", "default/web-:"},
		},
		{
			name:     "settled replicas that do not fit, validate",
			scenario: nodeFailure(t, "replicas: 6", "replicas: 400"),
			args:     []string{"validate", "s.yaml"},
			want:     []string{"pod 25 of its 400 replicas", "sim validate: s.yaml: 1 problem"},
		},
		{
			name:     "no pod slots",
			scenario: nodeFailure(t, `pods: "110"`, `pods: "0"`),
			args:     []string{"validate", "s.yaml"},
			want:     []string{"3 have no pod slot left"},
		},
		{
			name: "no node groups",
			scenario: `apiVersion: reconsim.dev/v1alpha1
kind: Scenario
name: empty-cluster
duration: 1m
objects:
- settled: true
  manifest:
    apiVersion: apps/v1
    kind: ReplicaSet
    metadata: {name: web}
    spec:
      replicas: 2
      selector: {matchLabels: {app: web}}
      template:
        metadata: {labels: {app: web}}
        spec: {containers: [{name: web, image: nginx, resources: {requests: {cpu: 100m, memory: 64Mi}}}]}
`,
			args: []string{"validate", "s.yaml"},
			want: []string{"creating ReplicaSet default/web: pod 1 of its 2 replicas", "the cluster has no node at time 0"},
		},
		{
			name:     "memory request of 999Ei",
			scenario: nodeFailure(t, "memory: 256Mi}", "memory: 999Ei}"),
			args:     []string{"validate", "s.yaml"},
			want:     []string{"s.yaml:53:45: objects[0].manifest.spec.template.spec.containers[0].resources.requests.memory: ReplicaSet default/web asks for more memory than any node may have (the limit is 256Ti)"},
		},
		{
			name: "max-pods=1 on hpa-spike",
			args: []string{"run", "hpa-spike", "--set", "kubelet.max-pods=1", "--out", "o"},
			want: []string{"creating Deployment default/web", "have no pod slot left", "sim run: builtin/hpa-spike.yaml cannot start"},
		},
		{
			name:     "quantity overflow",
			scenario: nodeFailure(t, `cpu: "4"`, `cpu: "9223372036854776"`),
			args:     []string{"validate", "s.yaml"},
			want:     []string{`capacity.cpu: cpu 9223372036854776 is more than the limit of 1M`},
		},
		{name: "--out is a file", args: []string{"run", "node-failure", "--out", "afile"}, want: []string{"output directory afile is not a directory"}},
		{name: "--out is /dev/full", args: []string{"run", "node-failure", "--out", "/dev/full"}, want: []string{"output directory /dev/full is not a directory"}},
		{name: "--out cannot be created", args: []string{"run", "node-failure", "--out", "/proc/reconsim-out"}, want: []string{"output directory /proc/reconsim-out"}},
		{name: "--out under a file", args: []string{"run", "node-failure", "--out", "afile/sub"}, want: []string{"not a directory"}},
		{name: "--out is someone else's directory", args: []string{"run", "node-failure", "--out", "foreign"}, want: []string{"output directory foreign is not empty and holds no earlier run"}},
		{name: "--shard 0/0", args: []string{"sweep", "x.yaml", "--shard", "0/0"}, want: []string{"--shard: shard 0/0: want i/n with 1 ≤ i ≤ n"}},
		{name: "--set noequals", args: []string{"run", "node-failure", "--set", "noequals"}, want: []string{"--set noequals: want KEY=VALUE"}, not: []string{"noequals="}},
		{name: "--seed -1", args: []string{"run", "node-failure", "--seed", "-1"}, want: []string{`--seed: want a whole number from 0 to 18446744073709551615, got "-1"`}, not: []string{"strconv"}},
		{
			name:     "bad count has no follow-on problems",
			scenario: nodeFailure(t, "count: 3", "count: 10000000"),
			args:     []string{"validate", "s.yaml"},
			want:     []string{"count must be between 0 and 10000, got 10000000", "1 problem;"},
			not:      []string{"worker-0"},
		},
		{
			name:     "a manifest file outside the scenario's directory",
			scenario: nodeFailure(t, "objects:\n", "objects:\n- file: /etc/passwd\n"),
			args:     []string{"validate", "s.yaml"},
			want:     []string{`objects[0].file: "/etc/passwd" is outside the scenario's directory`, "--allow-outside-paths"},
			not:      []string{"root:"},
		},
		{
			name:     "outside allowed: the file is not quoted",
			scenario: nodeFailure(t, "objects:\n", "objects:\n- file: /etc/passwd\n"),
			args:     []string{"validate", "--allow-outside-paths", "s.yaml"},
			want:     []string{"/etc/passwd:1:1: a manifest must be a mapping with apiVersion and kind, got a text of"},
			not:      []string{"root:"},
		},
		{
			name:     "../ is outside too",
			scenario: nodeFailure(t, "objects:\n", "objects:\n- file: ../x.yaml\n"),
			args:     []string{"run", "s.yaml"},
			want:     []string{`"../x.yaml" is outside the scenario's directory`},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			t.Chdir(dir)
			require.NoError(t, os.WriteFile("afile", []byte("x"), 0o644))
			require.NoError(t, os.MkdirAll(filepath.Join("foreign", "sub"), 0o755))
			require.NoError(t, os.WriteFile(filepath.Join("foreign", "notes.txt"), []byte("mine"), 0o644))
			if c.scenario != "" {
				require.NoError(t, os.WriteFile("s.yaml", []byte(c.scenario), 0o644))
			}
			h := newHarness(realRun)
			code := h.run(c.args...)
			stderr := h.stderr.String()
			assert.Equal(t, exitUsage, code, "stderr:\n%s", stderr)
			for _, w := range c.want {
				assert.Contains(t, stderr, w)
			}
			for _, n := range append(c.not, "This is a bug", "internal error") {
				assert.NotContains(t, stderr, n)
			}
			assert.FileExists(t, filepath.Join("foreign", "notes.txt"), "a foreign directory is left alone")
		})
	}
}

// failingWriter fails every write, as /dev/full does.
type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("no space left on device") }

// TestEveryCommandReportsAFailedWrite: with stdout unwritable, every command says so and
// exits non-zero.
func TestEveryCommandReportsAFailedWrite(t *testing.T) {
	dump, err := filepath.Abs("../../scenarios/testdata/import/kubectl-dump.yaml")
	require.NoError(t, err)
	t.Chdir(t.TempDir())
	for _, args := range [][]string{
		{"run", "node-failure", "-o", "json", "--out", "o1"},
		{"run", "node-failure", "--out", "o2"},
		{"show", "node-failure"}, {"schema"}, {"explain", "timeline.node-crash"},
		{"validate", "node-failure"}, {"version"}, {"completion", "bash"}, {"list"}, {"help"},
		{"help", "run"}, {"run", "--help"},
		{"import", dump},
	} {
		var stderr bytes.Buffer
		c := newCLI(failingWriter{}, &stderr)
		c.runScenario = func(_ context.Context, scn *scenarios.Scenario, opts cluster.Options) (*report.Result, error) {
			return passing(scn, opts)
		}
		code := c.main(args)
		assert.NotEqual(t, exitOK, code, "%v", args)
		assert.NotEqual(t, exitInternal, code, "%v", args)
		assert.Contains(t, stderr.String(), "writing to standard output: no space left on device", "%v", args)
	}

	// The real thing: /dev/full as stdout.
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	require.NoError(t, err)
	defer full.Close()
	var stderr bytes.Buffer
	assert.Equal(t, exitUsage, run([]string{"list"}, full, &stderr))
	assert.Contains(t, stderr.String(), "sim list: writing to standard output")
}

// TestSummaryEscapesControlCharacters: a timeline entry and an expectation named with ESC,
// BEL, CR and LF are printed escaped.
func TestSummaryEscapesControlCharacters(t *testing.T) {
	const evil = "x\x1b[2J\a\r\nHACKED"
	h := newHarness(func(scn *scenarios.Scenario, opts cluster.Options) (*report.Result, error) {
		r, _ := passing(scn, opts)
		at := 60.0
		r.Convergence = []report.Convergence{{Action: "node-crash", Name: scn.Timeline[0].Name, At: 1, ConvergedAt: &at, Seconds: &at}}
		r.Expectations[0].Name = scn.Expect[0].Name
		return r, nil
	})
	const quoted = `"x\e[2J\a\r\nHACKED"`
	src := nodeFailure(t, "name: crash", "name: "+quoted, "after: crash", "after: "+quoted, "after: crash", "after: "+quoted,
		"name: recovered", "name: "+quoted)
	path := writeScenario(t, src)
	code := h.run("run", path, "--out", t.TempDir())
	require.Equal(t, exitOK, code, h.stderr.String())
	require.Equal(t, evil, h.gotScenario.Timeline[0].Name, "the name reaches the simulator as written")
	out := h.stdout.String()
	for _, c := range []string{"\x1b", "\a", "\r", "\nHACKED"} {
		assert.NotContains(t, out, c)
	}
	assert.Contains(t, out, `x\x1b[2J\a\r\nHACKED`)
}

// TestReportOfHugeValues: sim report of a result with 1e308 values renders, exit 0.
func TestReportOfHugeValues(t *testing.T) {
	dir := t.TempDir()
	h := newHarness(passing)
	require.Equal(t, exitOK, h.run("run", "node-failure", "--out", dir, "-q"))
	require.NoError(t, os.WriteFile(filepath.Join(dir, report.TraceFile), []byte("0.000000 kernel start\n"), 0o644))
	res, err := report.ReadResult(filepath.Join(dir, report.ResultFile))
	require.NoError(t, err)
	res.Series = append(res.Series, report.Series{Name: "pods.running", Points: []report.Point{{T: 0, V: 1}, {T: 1e308, V: 1e308}, {T: 2, V: -1e308}}})
	res.VirtualSeconds = 1e308
	data, err := json.Marshal(res)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, report.ResultFile), data, 0o644))
	h = newHarness(mustNotRun)
	assert.Equal(t, exitOK, h.run("report", dir), h.stderr.String())
}

// TestOutputsHaveOneFileMode: every file a run writes is 0644, trace.txt included.
func TestOutputsHaveOneFileMode(t *testing.T) {
	dir := t.TempDir()
	h := newHarness(passing)
	require.Equal(t, exitOK, h.run("run", "node-failure", "--out", dir, "-q"))
	n := 0
	require.NoError(t, filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		require.NoError(t, err)
		if d.Type().IsRegular() {
			n++
			fi, err := d.Info()
			require.NoError(t, err)
			assert.Equal(t, os.FileMode(0o644), fi.Mode().Perm(), path)
		}
		return nil
	}))
	assert.GreaterOrEqual(t, n, 4)
	for _, f := range []string{report.TraceFile, report.ResultFile, report.EventsFile, report.HTMLFile} {
		assert.FileExists(t, filepath.Join(dir, f))
	}
}

// TestRunReplacesAnEarlierRun: a second run into the same directory is allowed (it holds a
// result.json) and leaves none of the first run's plots behind.
func TestRunReplacesAnEarlierRun(t *testing.T) {
	dir := t.TempDir()
	h := newHarness(passing)
	require.Equal(t, exitOK, h.run("run", "node-failure", "--out", dir, "-q"))
	stale := filepath.Join(dir, report.PlotsDir, "convergence-replicaset-default-gone.svg")
	require.NoError(t, os.MkdirAll(filepath.Dir(stale), 0o755))
	require.NoError(t, os.WriteFile(stale, []byte("<svg/>"), 0o644))
	h = newHarness(passing)
	require.Equal(t, exitOK, h.run("run", "node-failure", "--out", dir, "-q"), h.stderr.String())
	assert.NoFileExists(t, stale)
}
