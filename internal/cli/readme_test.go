package cli

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/reconsim/reconsim/internal/rewrite"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// With -rewrite (package internal/rewrite), TestREADMESampleOutput writes what the command
// prints today into the README's sample block instead of comparing:
// go test ./internal/cli -run TestREADMESample -rewrite.

// readmeCommand is the command whose output the README shows.
const readmeCommand = "go run ./cmd/sim run node-failure"

// readmeSample returns the lines of README.md, the index of the line after the prompt
// "$ go run ./cmd/sim run node-failure" in the sample block, and the index of the block's
// closing fence.
func readmeSample(t *testing.T) (lines []string, start, end int) {
	t.Helper()
	b, err := os.ReadFile(readmePath(t))
	require.NoError(t, err)
	lines = strings.Split(string(b), "\n")
	start = -1
	for i, l := range lines {
		if l == "$ "+readmeCommand && i > 0 && lines[i-1] == "```" {
			start = i + 1
			break
		}
	}
	require.NotEqual(t, -1, start, "README.md has no code block starting with the line %q", "$ "+readmeCommand)
	for i := start; i < len(lines); i++ {
		if lines[i] == "```" {
			return lines, start, i
		}
	}
	t.Fatalf("README.md: the sample block after %q is not closed", "$ "+readmeCommand)
	return nil, 0, 0
}

// readmePath is the absolute path of README.md, valid after the test changes directory.
func readmePath(t *testing.T) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("..", "..", "README.md"))
	require.NoError(t, err)
	return p
}

// wallDependent matches the parts of the summary that depend on the machine, not on the
// simulation: the wall time and the two speeds derived from it.
var wallDependent = []struct {
	re   *regexp.Regexp
	repl string
}{
	{regexp.MustCompile(` in \S+ wall \(\S+ virtual seconds per wall second\)`), " in WALL wall (SPEED virtual seconds per wall second)"},
	{regexp.MustCompile(`\(\S+ events/s\)`), "(SPEED events/s)"},
}

func maskWall(s string) string {
	for _, w := range wallDependent {
		s = w.re.ReplaceAllString(s, w.repl)
	}
	return s
}

// TestREADMESampleOutput runs the README's first command, from an empty directory as a new
// user would (so the output goes to the default out/node-failure), and compares what it prints
// with the README's sample block. Only the wall time and the speeds computed from it may
// differ.
func TestREADMESampleOutput(t *testing.T) {
	path := readmePath(t)
	lines, start, end := readmeSample(t)
	want := strings.Join(lines[start:end], "\n") + "\n"

	t.Chdir(t.TempDir())
	var stdout, stderr bytes.Buffer
	code := run(strings.Fields(strings.TrimPrefix(readmeCommand, "go run ./cmd/sim ")), &stdout, &stderr)
	require.Equal(t, exitOK, code, "stdout:\n%s\nstderr:\n%s", stdout.String(), stderr.String())
	got := stdout.String()

	if rewrite.Enabled() && maskWall(want) != maskWall(got) {
		out := append(append(append([]string{}, lines[:start]...), strings.Split(strings.TrimSuffix(got, "\n"), "\n")...), lines[end:]...)
		require.NoError(t, os.WriteFile(path, []byte(strings.Join(out, "\n")), 0o644))
		return
	}
	assert.Equal(t, maskWall(want), maskWall(got),
		"README.md's sample output differs from what %q prints; update it with go test ./internal/cli -run TestREADMESampleOutput -rewrite", readmeCommand)
}

// TestMaskWall checks that the comparison above can fail: masking hides the wall time and the
// speeds, and nothing else.
func TestMaskWall(t *testing.T) {
	a := "time      776.042s virtual in 0.102s wall (7604.1 virtual seconds per wall second)\nevents    4790 processed (46.9k events/s)\n"
	b := "time      776.042s virtual in 1.5s wall (517.4 virtual seconds per wall second)\nevents    4790 processed (3193.3 events/s)\n"
	assert.Equal(t, maskWall(a), maskWall(b))
	c := strings.Replace(b, "776.042s virtual", "776.043s virtual", 1)
	assert.NotEqual(t, maskWall(a), maskWall(c), "a different virtual time must show")
	d := strings.Replace(b, "4790 processed", "4791 processed", 1)
	assert.NotEqual(t, maskWall(a), maskWall(d), "a different event count must show")
}

// crashLater reads "(356.042s later)" off the summary's convergence line of the crash.
var crashLater = regexp.MustCompile(`(?m)^  crash .*\(([0-9.]+)s later\)$`)

// TestREADMEClaimsAreMeasured checks the numbers the README's prose draws from the sample: "The
// 356 s" is the crash's convergence time, and "converges 30 s sooner" is what the
// node-monitor-grace-period override it names really changes.
func TestREADMEClaimsAreMeasured(t *testing.T) {
	b, err := os.ReadFile(readmePath(t))
	require.NoError(t, err)
	readme := string(b)
	total := regexp.MustCompile(`The (\d+) s are upstream arithmetic`).FindStringSubmatch(readme)
	require.NotNil(t, total, "README.md no longer says how long node-failure takes")
	sooner := regexp.MustCompile("`--set (kube-controller-manager\\.node-monitor-grace-period=\\S+)` and the scenario\\s+converges (\\d+) s\\s+sooner").FindStringSubmatch(readme)
	require.NotNil(t, sooner, "README.md no longer says what a shorter grace period changes")

	seconds := func(args ...string) float64 {
		t.Helper()
		var stdout, stderr bytes.Buffer
		code := run(append([]string{"run", "node-failure", "--out", t.TempDir()}, args...), &stdout, &stderr)
		require.Equal(t, exitOK, code, "stdout:\n%s\nstderr:\n%s", stdout.String(), stderr.String())
		m := crashLater.FindStringSubmatch(stdout.String())
		require.NotNil(t, m, "no crash convergence line in:\n%s", stdout.String())
		v, err := strconv.ParseFloat(m[1], 64)
		require.NoError(t, err)
		return v
	}
	base := seconds()
	shorter := seconds("--set", sooner[1])
	assert.Equal(t, total[1], strconv.Itoa(int(math.Round(base))), "README: \"The %s s\"; the run converges %.3fs after the crash", total[1], base)
	assert.Equal(t, sooner[2], strconv.Itoa(int(math.Round(base-shorter))), "README: %q converges %s s sooner; measured %.3fs - %.3fs", sooner[1], sooner[2], base, shorter)
}
