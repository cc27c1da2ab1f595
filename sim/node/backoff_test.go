package node

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/reconsim/reconsim/sim"
	"github.com/reconsim/reconsim/vtime"
)

func at(d time.Duration) vtime.Time { return vtime.FromDuration(d) }

// TestBackOffRetryAfter follows pod_workers.go completeWork on both sides of #133066 (v1.35,
// gate KubeletPodWorkerRetryAtBackOff): since then a sync that failed on a crash-loop back-off
// is retried when the back-off expires, bounded by the resync interval; before, after
// backOffPeriod (10s) whatever the back-off. The caller jitters either by 0.5.
func TestBackOffRetryAfter(t *testing.T) {
	tests := []struct {
		name          string
		retryAtExpiry bool
		until         time.Duration // back-off expiry, from now (t=0)
		want          time.Duration
	}{
		{"1.35: at the expiry", true, 40 * time.Second, 40 * time.Second},
		{"1.35: an expiry already past retries now", true, 0, 0},
		{"1.35: bounded by syncFrequency", true, 300 * time.Second, time.Minute},
		{"1.34: 10s before a 40s expiry", false, 40 * time.Second, 10 * time.Second},
		{"1.34: 10s after a 5s expiry", false, 5 * time.Second, 10 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.RetryAtBackOffExpiry = tt.retryAtExpiry
			kl := &Kubelet{k: sim.New(1), cfg: cfg}
			assert.Equal(t, tt.want, kl.backOffRetryAfter(at(tt.until)))
		})
	}
}
