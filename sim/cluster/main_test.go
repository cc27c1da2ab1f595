package cluster

import (
	"context"
	"strings"
	"testing"

	"github.com/reconsim/reconsim/report"
	"github.com/reconsim/reconsim/scenarios"
)

// checkedRun is Run with the world's invariants checked: a test whose run broke one fails,
// whatever else it asserts. Each run reports to its own test (no shared state), so parallel
// subtests do not mix their violations.
func checkedRun(t testing.TB, scn *scenarios.Scenario, opts Options) (*report.Result, error) {
	t.Helper()
	opts.invariantViolations = func(v []string) {
		if len(v) > 0 {
			t.Errorf("invariant violations:\n  %s", strings.Join(v, "\n  "))
		}
	}
	return Run(context.Background(), scn, opts)
}
