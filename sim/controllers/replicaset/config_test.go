package replicaset

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDefaultConfigIsUpstream(t *testing.T) {
	c := DefaultConfig()
	require.NoError(t, c.Validate())
	assert.Equal(t, 5, c.ConcurrentReplicaSetSyncs)
	assert.Equal(t, 500, c.BurstReplicas)
	assert.Equal(t, 5*time.Minute, c.ExpectationsTimeout)
	assert.Equal(t, 1, c.SlowStartInitialBatchSize)
	assert.Equal(t, 1, c.StatusUpdateRetries)
}

func TestConfigValidate(t *testing.T) {
	tests := []struct {
		name    string
		edit    func(*Config)
		wantErr string
	}{
		{"no workers", func(c *Config) { c.ConcurrentReplicaSetSyncs = 0 }, "concurrent-replicaset-syncs"},
		{"too many workers", func(c *Config) { c.ConcurrentReplicaSetSyncs = maxWorkers + 1 }, "concurrent-replicaset-syncs"},
		{"no burst", func(c *Config) { c.BurstReplicas = 0 }, "burstReplicas"},
		{"no expectations timeout", func(c *Config) { c.ExpectationsTimeout = 0 }, "expectations timeout"},
		{"no slow start", func(c *Config) { c.SlowStartInitialBatchSize = 0 }, "slow start"},
		{"negative retries", func(c *Config) { c.StatusUpdateRetries = -1 }, "status update retries"},
		{"zero retries is fine", func(c *Config) { c.StatusUpdateRetries = 0 }, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := DefaultConfig()
			tc.edit(&c)
			err := c.Validate()
			if tc.wantErr == "" {
				assert.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.wantErr)
		})
	}
}
