package node

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reconsim/reconsim/sim"
)

func TestDefaultConfig(t *testing.T) {
	cfg := DefaultConfig()
	require.NoError(t, cfg.Validate())
	assert.Equal(t, 10*time.Second, cfg.LeaseRenewInterval(), "40s x 0.25")
	assert.Equal(t, 10*time.Second, cfg.NodeStatusUpdateFrequency)
	assert.Equal(t, 5*time.Minute, cfg.NodeStatusReportFrequency)
	assert.Equal(t, int32(110), cfg.MaxPods)
	assert.Equal(t, 50.0, cfg.KubeAPIQPS)
	assert.Equal(t, 100, cfg.KubeAPIBurst)
}

func TestConfigValidate(t *testing.T) {
	cases := []struct {
		name  string
		edit  func(*Config)
		field string
	}{
		{"zero status frequency", func(c *Config) { c.NodeStatusUpdateFrequency = 0 }, "NodeStatusUpdateFrequency"},
		{"negative report frequency", func(c *Config) { c.NodeStatusReportFrequency = -time.Second }, "NodeStatusReportFrequency"},
		{"huge relist period", func(c *Config) { c.PLEGRelistPeriod = 48 * time.Hour }, "PLEGRelistPeriod"},
		{"no lease duration", func(c *Config) { c.NodeLeaseDurationSeconds = 0 }, "NodeLeaseDurationSeconds"},
		{"fraction of one", func(c *Config) { c.NodeLeaseRenewIntervalFraction = 1 }, "NodeLeaseRenewIntervalFraction"},
		{"no retries", func(c *Config) { c.LeaseMaxUpdateRetries = 0 }, "LeaseMaxUpdateRetries"},
		{"too many status retries", func(c *Config) { c.NodeStatusUpdateRetry = 1000 }, "NodeStatusUpdateRetry"},
		{"backoff above its cap", func(c *Config) { c.LeaseRetryBackoffInitial = 8 * time.Second }, "LeaseRetryBackoffInitial"},
		{"crash back-off above its cap", func(c *Config) { c.ContainerBackOffPeriod = 10 * time.Minute }, "ContainerBackOffPeriod"},
		{"no pods", func(c *Config) { c.MaxPods = 0 }, "MaxPods"},
		{"zero qps", func(c *Config) { c.KubeAPIQPS = 0 }, "KubeAPIQPS"},
		{"negative event burst", func(c *Config) { c.EventBurst = -1 }, "EventBurst"},
		{"bad pull distribution", func(c *Config) { c.ImagePull = sim.Dist{Kind: "gaussian"} }, "ImagePull"},
		{"bad start distribution", func(c *Config) { c.ContainerStart = sim.Dist{Kind: sim.DistLogNormal} }, "ContainerStart"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := DefaultConfig()
			tc.edit(&cfg)
			err := cfg.Validate()
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.field)
		})
	}
}

func TestNewRejectsBadInput(t *testing.T) {
	w := newWorld(t, 1)
	_, err := New(w.K, nil, nil, nil, DefaultConfig())
	assert.Error(t, err, "no node")
	bad := DefaultConfig()
	bad.MaxPods = -1
	kl := w.addNode("n1", nil, DefaultConfig(), false)
	_, err = New(w.K, w.clients["n1"], nil, kl.node, bad)
	assert.ErrorContains(t, err, "MaxPods")
}

func TestPartitionNeedsServer(t *testing.T) {
	w := newWorld(t, 1)
	kl := w.addNode("n1", nil, DefaultConfig(), false)
	kl.srv = nil
	kl.Start()
	assert.Error(t, kl.Partition())
	assert.Equal(t, StateRunning, kl.State())
}
