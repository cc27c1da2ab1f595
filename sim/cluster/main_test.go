package cluster

import (
	"os"
	"strings"
	"testing"
)

// TestMain checks the world's invariants in every run of every test of this package: a test
// that passes while a run broke one fails here.
func TestMain(m *testing.M) {
	var broken []string
	invariantViolations = func(v []string) { broken = append(broken, v...) }
	code := m.Run()
	if len(broken) > 0 {
		os.Stderr.WriteString("invariant violations:\n  " + strings.Join(broken, "\n  ") + "\n")
		code = 1
	}
	os.Exit(code)
}
