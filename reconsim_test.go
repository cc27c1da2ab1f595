package reconsim_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reconsim/reconsim"
	"github.com/reconsim/reconsim/internal/cli"
	"github.com/reconsim/reconsim/report"
	"github.com/reconsim/reconsim/scenarios"
)

// wallSeconds matches result.json's wallSeconds, the one field that differs between two runs.
var wallSeconds = regexp.MustCompile(`"wallSeconds": [0-9.e+-]+`)

func readMasked(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return wallSeconds.ReplaceAllString(string(b), `"wallSeconds": 0`)
}

// Run with WithOut writes what `sim run --out` writes, byte for byte (wallSeconds aside), for
// the same scenario, seed and overrides.
func TestRunMatchesSimRun(t *testing.T) {
	tests := []struct {
		name     string
		scenario reconsim.Scenario
		opts     []reconsim.Option
		args     []string
	}{
		{"builtin", reconsim.Builtin("node-failure"), nil, []string{"node-failure"}},
		{"seed and set", reconsim.Builtin("node-failure"),
			[]reconsim.Option{reconsim.WithSeed(7), reconsim.WithSet(" kube-controller-manager.node-monitor-grace-period", "20s")},
			[]string{"node-failure", "--seed", "7", "--set", "kube-controller-manager.node-monitor-grace-period=20s"}},
		{"failing, duration", reconsim.Resolve("impossible-spec"), []reconsim.Option{reconsim.WithDuration(5 * time.Minute)},
			[]string{"impossible-spec", "--duration", "5m0s"}},
		{"file", reconsim.File("scenarios/builtin/zone-outage.yaml"), nil, []string{"scenarios/builtin/zone-outage.yaml"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			libDir, cliDir := t.TempDir(), t.TempDir()
			res, err := reconsim.Run(context.Background(), tt.scenario, append(tt.opts, reconsim.WithOut(libDir))...)
			require.NoError(t, err)

			var stdout, stderr bytes.Buffer
			code := cli.Run(append(append([]string{"run"}, tt.args...), "--out", cliDir, "-q"), &stdout, &stderr)
			require.Contains(t, []int{0, 1}, code, stderr.String())
			assert.Equal(t, code == 0, res.Passed, "the exit status and Result.Passed agree")

			// The same files, and the same bytes in each (the plots aside, whose encoders are
			// not ours to hold to bytes; report.html shows the wall time).
			var files []string
			require.NoError(t, filepath.WalkDir(cliDir, func(path string, d fs.DirEntry, err error) error {
				if err != nil || d.IsDir() {
					return err
				}
				rel, err := filepath.Rel(cliDir, path)
				files = append(files, rel)
				return err
			}))
			for _, f := range []string{report.ResultFile, report.EventsFile, report.TraceFile, report.HTMLFile} {
				assert.Contains(t, files, f)
			}
			for _, f := range files {
				require.FileExists(t, filepath.Join(libDir, f))
				switch filepath.Ext(f) {
				case ".png", ".svg", ".html":
					continue
				}
				assert.Equal(t, readMasked(t, filepath.Join(cliDir, f)), readMasked(t, filepath.Join(libDir, f)), f)
			}
			// The Result is result.json's definition: encoding it gives the file's bytes.
			enc, err := report.EncodeResult(res)
			require.NoError(t, err)
			assert.Equal(t, readMasked(t, filepath.Join(cliDir, report.ResultFile)), wallSeconds.ReplaceAllString(string(enc), `"wallSeconds": 0`))
			assert.FileExists(t, filepath.Join(libDir, report.HTMLFile))
		})
	}
}

// Without WithOut, Run writes nothing.
func TestRunWritesNothingWithoutOut(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	_, err := reconsim.Run(context.Background(), reconsim.Builtin("node-failure"))
	require.NoError(t, err)
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Empty(t, entries)
}

// Two Runs with the same seed give the same Result (WallSeconds aside) and the same trace;
// another seed gives another trace.
func TestRunDeterministic(t *testing.T) {
	run := func(seed uint64) (*reconsim.Result, string) {
		var trace strings.Builder
		res, err := reconsim.Run(context.Background(), reconsim.Builtin("rollout-during-node-failure"),
			reconsim.WithSeed(seed), reconsim.WithTrace(&trace))
		require.NoError(t, err)
		res.WallSeconds = 0
		return res, trace.String()
	}
	a, traceA := run(3)
	b, traceB := run(3)
	assert.Equal(t, a, b)
	assert.Equal(t, traceA, traceB)
	assert.NotEmpty(t, traceA)
	assert.NotEmpty(t, a.Events)
	c, _ := run(4)
	assert.NotEqual(t, a.TraceHash, c.TraceHash, "the seed changes the run")
}

// Bad input is an *InputError (never a panic), with file:line:col when the problem is in a
// scenario's source.
func TestRunBadInput(t *testing.T) {
	valid, ok := scenarios.Builtin("node-failure")
	require.True(t, ok)
	tests := []struct {
		name     string
		scenario reconsim.Scenario
		opts     []reconsim.Option
		// pos is the first problem's file:line:col; "" when the mistake has no position.
		pos     string
		message string
	}{
		{"unknown node", reconsim.File("scenarios/testdata/broken/unknown-node.yaml"), nil,
			"scenarios/testdata/broken/unknown-node.yaml:15:19", "no node is named"},
		{"bytes, bad YAML", reconsim.Bytes("mine.yaml", []byte("name: [unclosed\n")), nil, "mine.yaml:", ""},
		{"bytes, empty", reconsim.Bytes("empty.yaml", nil), nil, "empty.yaml:", ""},
		{"bytes, binary", reconsim.Bytes("bin.yaml", []byte{0, 1, 2, 0xff, '\n', ':', '-'}), nil, "bin.yaml:", ""},
		{"bytes, too big", reconsim.Bytes("big.yaml", make([]byte, scenarios.MaxFileBytes+1)), nil, "", "more than the limit"},
		{"no such file", reconsim.File("no/such/file.yaml"), nil, "", "no such file"},
		{"file without extension", reconsim.File("nosuchfile"), nil, "", "no such file"},
		{"unknown builtin", reconsim.Builtin("node-failur"), nil, "", `did you mean "node-failure"`},
		{"unknown flag", reconsim.Builtin("node-failure"), []reconsim.Option{reconsim.WithSet("kube-controller-manager.no-such-flag", "1")}, "", "no-such-flag"},
		{"bad flag value", reconsim.Bytes("nf.yaml", valid), []reconsim.Option{reconsim.WithSet("kube-controller-manager.node-monitor-grace-period", "soon")}, "", "soon"},
		{"negative duration", reconsim.Builtin("node-failure"), []reconsim.Option{reconsim.WithDuration(-time.Second)}, "", "duration"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := reconsim.Run(context.Background(), tt.scenario, tt.opts...)
			require.Error(t, err)
			assert.Nil(t, res)
			var in *reconsim.InputError
			require.ErrorAs(t, err, &in)
			assert.Contains(t, err.Error(), tt.message)
			if tt.pos == "" {
				assert.Empty(t, in.Problems)
				return
			}
			require.NotEmpty(t, in.Problems)
			assert.True(t, strings.HasPrefix(in.Problems[0].Pos.String(), tt.pos), "%s does not start with %s", in.Problems[0].Pos, tt.pos)
			assert.Positive(t, in.Problems[0].Pos.Line)
			assert.Positive(t, in.Problems[0].Pos.Column)
			// One problem, or all of them, through errors.As.
			var p *reconsim.Problem
			require.ErrorAs(t, err, &p)
			assert.Equal(t, in.Problems[0], p)
		})
	}
}

// cancelOnWrite cancels a context the first time the run writes its trace.
type cancelOnWrite struct{ cancel context.CancelFunc }

func (c cancelOnWrite) Write(p []byte) (int, error) { c.cancel(); return len(p), nil }

// Cancelling ctx stops the run at its next check; Run returns what was recorded, and writes
// it with WithOut, with an error wrapping ctx.Err().
func TestRunContextCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	dir := t.TempDir()
	// hpa-flapping processes 26,841 events; the run checks ctx every 20,000.
	res, err := reconsim.Run(ctx, reconsim.Builtin("hpa-flapping"), reconsim.WithTrace(cancelOnWrite{cancel}), reconsim.WithOut(dir))
	require.ErrorIs(t, err, context.Canceled)
	require.NotNil(t, res)
	assert.Equal(t, report.StopInterrupted, res.StopReason)
	assert.Equal(t, uint64(20_000), res.EventsProcessed)
	saved, err := report.LoadResult(dir)
	require.NoError(t, err)
	assert.Equal(t, report.StopInterrupted, saved.StopReason)

	res, err = reconsim.Run(ctx, reconsim.Builtin("node-failure"), reconsim.WithTrace(io.Discard))
	assert.ErrorIs(t, err, context.Canceled, "a cancelled context does not start a run")
	assert.Nil(t, res)
	var in *reconsim.InputError
	assert.False(t, errors.As(err, &in))
}

// TestMain lets a test run Main in a child process (Main exits): with RECONSIM_TEST_MAIN set,
// the test binary is `sim`, given run options when the variable says "options".
func TestMain(m *testing.M) {
	switch os.Getenv("RECONSIM_TEST_MAIN") {
	case "":
		os.Exit(m.Run())
	case "options":
		reconsim.Main(reconsim.WithSeed(1))
	default:
		reconsim.Main()
	}
}

// Main runs the sim command line with its exit statuses, and refuses run options.
func TestMainCommandLine(t *testing.T) {
	exe, err := os.Executable()
	require.NoError(t, err)
	tests := []struct {
		name, mode string
		args       []string
		code       int
		out        string
	}{
		{"version", "cli", []string{"version"}, 0, "sim " + report.SimulatorVersion},
		{"validate", "cli", []string{"validate", "node-failure"}, 0, "ok  builtin/node-failure.yaml"},
		{"bad input", "cli", []string{"validate", "scenarios/testdata/broken/unknown-node.yaml"}, 2, "unknown-node.yaml:15:19"},
		{"unknown command", "cli", []string{"rnu"}, 2, `did you mean "run"`},
		{"failed expectation", "cli", []string{"run", "impossible-spec", "-q", "--out", t.TempDir()}, 1, ""},
		{"run options", "options", []string{"version"}, 2, "not accepted here"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmd := exec.Command(exe, tt.args...)
			cmd.Env = append(os.Environ(), "RECONSIM_TEST_MAIN="+tt.mode)
			out, err := cmd.CombinedOutput()
			code := 0
			var exit *exec.ExitError
			if errors.As(err, &exit) {
				code = exit.ExitCode()
			} else {
				require.NoError(t, err)
			}
			assert.Equal(t, tt.code, code, "%s", out)
			assert.Contains(t, string(out), tt.out)
		})
	}
}

// Runs on several goroutines at once do not disturb each other (sim sweep does the same).
func TestRunConcurrent(t *testing.T) {
	const n = 3
	results := make([]*reconsim.Result, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			results[i], errs[i] = reconsim.Run(context.Background(), reconsim.Builtin("zone-outage"), reconsim.WithSeed(5))
		})
	}
	wg.Wait()
	for i := range n {
		require.NoError(t, errs[i])
		results[i].WallSeconds = 0
		assert.Equal(t, results[0], results[i])
	}
}

// FuzzRunBytes: whatever the bytes, Run returns a result or an error, never panics, and an
// error for a scenario that does not load is an *InputError.
func FuzzRunBytes(f *testing.F) {
	for _, name := range []string{"node-failure", "drain-with-pdb"} {
		data, ok := scenarios.Builtin(name)
		require.True(f, ok)
		f.Add(data)
	}
	broken, err := os.ReadFile("scenarios/testdata/broken/unknown-node.yaml")
	require.NoError(f, err)
	f.Add(broken)
	f.Add([]byte(""))
	f.Add([]byte("kind: Scenario\nname: [\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		res, err := reconsim.Run(context.Background(), reconsim.Bytes("fuzz.yaml", data),
			reconsim.WithDuration(2*time.Minute), reconsim.WithSet("stop.maxEvents", "20000"))
		if err != nil {
			var in *reconsim.InputError
			require.ErrorAs(t, err, &in, "an error running loadable input is a bug: %v", err)
			assert.Nil(t, res)
			return
		}
		require.NotNil(t, res)
		assert.LessOrEqual(t, res.VirtualSeconds, 120.0)
	})
}
