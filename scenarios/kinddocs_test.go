package scenarios

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// `sim explain` documents the batch kinds and the pod annotations with defaults and upstream
// sources, whatever the case of the name.
func TestExplainKinds(t *testing.T) {
	for key, want := range map[string][]string{
		"Job":                        {"backoffLimit               6", "SetDefaults_Job", "capped at 10m", "6m with simulator.feature-gates=JobPodFailureBackOffMax10m=false", "concurrent-job-syncs"},
		"cronjob":                    {"successfulJobsHistoryLimit   3", "SetDefaults_CronJob", "robfig/cron/v3", "2026-01-01T00:00:00Z"},
		"flowschema":                 {"matchingPrecedence           1000", "autoupdate-spec: \"false\"", "mandatory", "digestConfigObjects"},
		"PriorityLevelConfiguration": {"queues 64, handSize 8, queueLengthLimit 50", "nominalConcurrencyShares     30"},
	} {
		out, err := Explain(key)
		require.NoError(t, err, key)
		for _, w := range want {
			assert.Contains(t, out, w, key)
		}
		assert.Contains(t, ExplainTopics(), map[string]string{"Job": "Job", "cronjob": "CronJob", "flowschema": "FlowSchema",
			"PriorityLevelConfiguration": "PriorityLevelConfiguration"}[key])
	}
}
