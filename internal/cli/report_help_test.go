package cli

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reconsim/reconsim/report"
	"github.com/reconsim/reconsim/scenarios"
	"github.com/reconsim/reconsim/sim/cluster"
)

// TestReportHelpSaysWhereTraceComesFrom checks the claim `sim report --help` makes about
// trace.txt against what `sim run` does: a run without --trace writes DIR/trace.txt, so the
// help must not send the user to '--trace > DIR/trace.txt'.
func TestReportHelpSaysWhereTraceComesFrom(t *testing.T) {
	h := newHarness(func(scn *scenarios.Scenario, opts cluster.Options) (*report.Result, error) {
		_, err := opts.Trace.Write([]byte("0.000000 kernel start\n"))
		require.NoError(t, err)
		return passing(scn, opts)
	})
	out := t.TempDir()
	require.Equal(t, exitOK, h.run("run", "node-failure", "-q", "--out", out), h.stderr.String())
	b, err := os.ReadFile(filepath.Join(out, report.TraceFile))
	require.NoError(t, err, "sim run without --trace writes trace.txt")
	assert.Equal(t, "0.000000 kernel start\n", string(b))

	h = newHarness(mustNotRun)
	require.Equal(t, exitOK, h.run("run", "--help"))
	assert.Contains(t, h.stdout.String(), "DIR/trace.txt (always; --trace prints it as well)", "sim run --help names trace.txt")

	h = newHarness(mustNotRun)
	require.Equal(t, exitOK, h.run("report", "--help"))
	help := h.stdout.String()
	assert.NotContains(t, help, "--trace >", "trace.txt does not come from redirecting --trace")
	assert.Contains(t, help, "'sim run'\nwrites into its --out directory on every run")
}
