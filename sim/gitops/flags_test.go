package gitops

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// TestOptionsByArgoCDVersion: the version defaults and the self-heal wait each release has.
func TestOptionsByArgoCDVersion(t *testing.T) {
	for _, tc := range []struct {
		version         string
		resync, jitter  time.Duration
		selfHealTimeout time.Duration
		backoff         *Backoff
	}{
		{"3.5", 120 * time.Second, 60 * time.Second, 0, &Backoff{Duration: 2 * time.Second, Factor: 3, Cap: 300 * time.Second}},
		{"3.0", 120 * time.Second, 60 * time.Second, 0, &Backoff{Duration: 2 * time.Second, Factor: 3, Cap: 300 * time.Second}},
		{"2.14", 180 * time.Second, 0, 0, &Backoff{Duration: 2 * time.Second, Factor: 3, Cap: 300 * time.Second}},
		{"2.13", 180 * time.Second, 0, 5 * time.Second, nil},
	} {
		cfg := DefaultOptionsFor(tc.version).Config("app")
		assert.Equal(t, tc.resync, cfg.Resync, tc.version)
		assert.Equal(t, tc.jitter, cfg.ResyncJitter, tc.version)
		assert.Equal(t, tc.selfHealTimeout, cfg.SelfHealTimeout, tc.version)
		assert.Equal(t, tc.backoff, cfg.SelfHealBackoff, tc.version)
		assert.Equal(t, "app", cfg.Name)
	}
	o := DefaultOptions()
	o.SelfHealBackoffTimeoutSeconds = 0
	assert.Nil(t, o.Config("app").SelfHealBackoff, "a timeout of 0 disables the back-off")
	assert.Equal(t, DefaultOptions(), DefaultOptionsFor(LatestArgoCDVersion))
}

func TestParseArgoCDVersion(t *testing.T) {
	for in, ok := range map[string]bool{"3.5": true, "2.0": true, "1.9": false, "4.0": false, "3": false, "3.x": false, "3.100": false} {
		_, _, got := ParseArgoCDVersion(in)
		assert.Equal(t, ok, got, in)
	}
}
