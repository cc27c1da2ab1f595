package controllerutil

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestCheckWorkers(t *testing.T) {
	for _, n := range []int{1, 5, MaxWorkers} {
		assert.NoError(t, CheckWorkers("job", "concurrent-job-syncs", n), n)
	}
	assert.EqualError(t, CheckWorkers("job", "concurrent-job-syncs", 0), "job: concurrent-job-syncs must be in [1, 1000], got 0")
	assert.EqualError(t, CheckWorkers("gc", "concurrent-gc-syncs", MaxWorkers+1), "gc: concurrent-gc-syncs must be in [1, 1000], got 1001")
}
