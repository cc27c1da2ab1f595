package cluster

import (
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRunLeavesNoGoroutine: a run ends every process it started (sim.Kernel.Close), so none
// of its coroutines, and nothing of the world they reference, outlives Run: not while the
// outputs are written, not across the runs of a sweep.
func TestRunLeavesNoGoroutine(t *testing.T) {
	before := runtime.NumGoroutine()
	res := runBuiltin(t, "node-failure", nil, "duration=90s")
	require.Greater(t, res.EventsProcessed, uint64(0))
	// At most as many: a goroutine of an earlier test may end meanwhile.
	assert.LessOrEqual(t, runtime.NumGoroutine(), before, "goroutines left after the run")
}
