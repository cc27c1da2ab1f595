package report

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCleanText(t *testing.T) {
	cases := map[string]struct{ in, text, lines string }{
		"plain":     {"worker-0 ✓ écrit", "worker-0 ✓ écrit", "worker-0 ✓ écrit"},
		"escape":    {"a\x1b[31mb", `a\x1b[31mb`, `a\x1b[31mb`},
		"bell, cr":  {"a\a\rb", `a\a\rb`, `a\a\rb`},
		"lf":        {"a\nb", `a\nb`, "a\nb"},
		"tab, del":  {"a\tb\x7f", `a\tb\x7f`, `a\tb\x7f`},
		"c1":        {"a\u009bb", `a\u009bb`, `a\u009bb`},
		"bidi":      {"a\u202eb", `a\u202eb`, `a\u202eb`},
		"bad utf-8": {"a\xffb", `a\xffb`, `a\xffb`},
	}
	for name, c := range cases {
		assert.Equal(t, c.text, CleanText(c.in), name)
		assert.Equal(t, c.lines, CleanLines(c.in), name)
	}
}

// TestSummaryEscapesUserText: every text of the result is escaped in the summary, and the
// result itself is not changed.
func TestSummaryEscapesUserText(t *testing.T) {
	at := 5.0
	r := &Result{
		Scenario: "s\x1b]0;title\a", StopReason: "quiescent", StopDetail: "d\r",
		Convergence:  []Convergence{{Action: "node-crash", Name: "crash\nPASSED", At: 1, ConvergedAt: &at}},
		Expectations: []ExpectationResult{{Name: "e\x1b[2J", Message: "m\x07", Passed: true}},
		Verdicts:     []Verdict{{Workload: "ReplicaSet default/w\x1b", Reason: "r\x1b"}},
		Passed:       true,
	}
	var buf bytes.Buffer
	require.NoError(t, WriteSummary(&buf, r, SummaryOptions{Reproduce: "sim run x\x1b"}))
	out := buf.String()
	for _, c := range []string{"\x1b", "\a", "\r", "\nPASSED  node-crash"} {
		assert.NotContains(t, out, c)
	}
	assert.Contains(t, out, `crash\nPASSED  node-crash`)
	assert.Equal(t, "crash\nPASSED", r.Convergence[0].Name, "the result is not changed")
}
