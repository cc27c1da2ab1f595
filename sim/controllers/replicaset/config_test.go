package replicaset

import (
	"testing"
	"time"

	"github.com/reconsim/reconsim/sim/controllers/internal/controllerutil"
	"github.com/reconsim/reconsim/sim/internal/testworld"

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
	testworld.CheckConfig(t, DefaultConfig, []testworld.ConfigCase[Config]{
		{Name: "no workers", Edit: func(c *Config) { c.ConcurrentReplicaSetSyncs = 0 }, Want: "concurrent-replicaset-syncs"},
		{Name: "too many workers", Edit: func(c *Config) { c.ConcurrentReplicaSetSyncs = controllerutil.MaxWorkers + 1 }, Want: "concurrent-replicaset-syncs"},
		{Name: "no burst", Edit: func(c *Config) { c.BurstReplicas = 0 }, Want: "burstReplicas"},
		{Name: "no expectations timeout", Edit: func(c *Config) { c.ExpectationsTimeout = 0 }, Want: "expectations timeout"},
		{Name: "no slow start", Edit: func(c *Config) { c.SlowStartInitialBatchSize = 0 }, Want: "slow start"},
		{Name: "negative retries", Edit: func(c *Config) { c.StatusUpdateRetries = -1 }, Want: "status update retries"},
		{Name: "zero retries is fine", Edit: func(c *Config) { c.StatusUpdateRetries = 0 }, Want: ""},
	})
}
