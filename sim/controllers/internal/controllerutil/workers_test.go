package controllerutil

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestWorkers(t *testing.T) {
	for _, n := range []int{1, 5, MaxWorkers} {
		assert.NoError(t, Workers("concurrent-job-syncs", n), n)
	}
	assert.EqualError(t, Workers("concurrent-job-syncs", 0), "concurrent-job-syncs must be in [1, 1000], got 0")
	assert.EqualError(t, Workers("concurrent-gc-syncs", MaxWorkers+1), "concurrent-gc-syncs must be in [1, 1000], got 1001")
}
