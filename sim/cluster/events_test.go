package cluster

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestEventsThroughAPI: by default Events are written through the components' clients and
// events.jsonl holds each write as the API server stored it (after the request's service
// time); with simulator.events-through-api=false they are recorded as they happen, for free.
func TestEventsThroughAPI(t *testing.T) {
	res := runBuiltin(t, "node-failure", nil)
	require.NotEmpty(t, res.Events)
	sawNodeNotReady := false
	for _, e := range res.Events {
		assert.NotEmpty(t, e.EventName, "%+v", e)
		assert.Greater(t, e.Stored, e.LastTimestamp, "stored after the write's service time: %+v", e)
		assert.LessOrEqual(t, e.FirstTimestamp, e.LastTimestamp, "%+v", e)
		if e.Reason == "NodeNotReady" && e.Kind == "Node" && e.Source == "node-controller" {
			sawNodeNotReady = true
		}
	}
	assert.True(t, sawNodeNotReady, "the node lifecycle controller's NodeNotReady reached the API server")

	off := runBuiltin(t, "node-failure", nil, "simulator.events-through-api=false")
	require.NotEmpty(t, off.Events)
	for _, e := range off.Events {
		assert.Equal(t, e.Time, e.Stored, "recorded when it happened: %+v", e)
		assert.Equal(t, int32(1), e.Count, "%+v", e)
	}
}

// TestKubeletEventQPS: the kubelet's Events go through its event client, throttled by
// kubelet.event-qps and event-burst (cmd/kubelet/app/server.go kubeDeps.EventClient): at one
// event per 100s the events a kubelet records at start wait minutes to be stored.
func TestKubeletEventQPS(t *testing.T) {
	late := func(overrides ...string) float64 {
		res := runBuiltin(t, "node-failure", nil, overrides...)
		worst := 0.0
		for _, e := range res.Events {
			if e.Source == "kubelet" {
				worst = max(worst, e.Stored-e.Time)
			}
		}
		return worst
	}
	assert.Less(t, late(), 1.0, "default 50 qps, burst 100: stored at once")
	assert.Greater(t, late("kubelet.event-qps=0.01", "kubelet.event-burst=1"), 100.0)
}
