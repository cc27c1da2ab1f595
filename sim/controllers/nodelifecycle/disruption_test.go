package nodelifecycle

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim"
	"github.com/reconsim/reconsim/vtime"
)

// zoneNodes builds a zone's Ready conditions: ready nodes first, then not-ready ones.
func zoneNodes(ready, notReady int) []*model.NodeCondition {
	var out []*model.NodeCondition
	for i := 0; i < ready; i++ {
		out = append(out, &model.NodeCondition{Type: model.NodeReady, Status: model.ConditionTrue})
	}
	for i := 0; i < notReady; i++ {
		out = append(out, &model.NodeCondition{Type: model.NodeReady, Status: model.ConditionUnknown})
	}
	return out
}

// TestHandleDisruptionRates drives handleDisruption through a sequence of passes over two zones
// (no node carries a taint, so no API call is made) and checks each zone's state and tainting
// rate after each pass, including the all-zones-fully-disrupted mode and leaving it.
func TestHandleDisruptionRates(t *testing.T) {
	k := sim.New(1)
	nc := &Controller{
		k: k, cfg: DefaultConfig(),
		zoneTainter: map[string]*RateLimitedTimedQueue{}, zoneStates: map[string]ZoneHealth{},
		zoneCounts: map[string][2]int{}, queuedSince: map[string]vtime.Time{},
	}
	for _, z := range []string{"a", "big"} {
		nc.zoneTainter[z] = NewRateLimitedTimedQueue(k, nc.cfg.NodeEvictionRate)
		nc.zoneStates[z] = ZoneInitial
	}
	nodes := []*model.Node{{ObjectMeta: model.ObjectMeta{Name: "a-1"}}}
	m := nc.memo("a-1")
	m.health, m.hasHealth = nodeHealthData{probeTimestamp: 1, readyTransitionTimestamp: 1}, true

	type want struct {
		state ZoneHealth
		qps   float32
	}
	passes := []struct {
		name       string
		a, big     []*model.NodeCondition
		wantA      want
		wantBig    want
		freshProbe bool // every node's probe time reset to now (leaving the all-disrupted mode)
	}{
		{"all healthy", zoneNodes(4, 0), zoneNodes(60, 0), want{ZoneNormal, 0.1}, want{ZoneNormal, 0.1}, false},
		{"small zone partial: rate 0; large zone partial: secondary rate", zoneNodes(1, 3), zoneNodes(20, 40), want{ZonePartialDisruption, 0}, want{ZonePartialDisruption, 0.01}, false},
		{"small zone full, other not: healthy rate", zoneNodes(0, 4), zoneNodes(60, 0), want{ZoneFullDisruption, 0.1}, want{ZoneNormal, 0.1}, false},
		{"every zone full: all rates 0", zoneNodes(0, 4), zoneNodes(0, 60), want{ZoneFullDisruption, 0}, want{ZoneFullDisruption, 0}, false},
		{"still all full: nothing changes", zoneNodes(0, 4), zoneNodes(0, 60), want{ZoneFullDisruption, 0}, want{ZoneFullDisruption, 0}, false},
		{"one node back: leave the mode, rates by state", zoneNodes(0, 4), zoneNodes(1, 59), want{ZoneFullDisruption, 0.1}, want{ZonePartialDisruption, 0.01}, true},
	}
	for i, p := range passes {
		k.Schedule(vtime.Time(i+10), sim.HandlerFunc(func(uint64) {}), 0, false)
		k.Run(sim.Limits{})
		nc.handleDisruption(nil, map[string][]*model.NodeCondition{"a": p.a, "big": p.big}, nodes)
		got := map[string]want{}
		for _, z := range nc.ZoneStates() {
			got[z.Key] = want{z.State, z.EvictionQPS}
		}
		assert.Equal(t, p.wantA, got["a"], p.name)
		assert.Equal(t, p.wantBig, got["big"], p.name)
		if p.freshProbe {
			require.Equal(t, k.Now(), m.health.probeTimestamp, p.name)
			require.Equal(t, k.Now(), m.health.readyTransitionTimestamp, p.name)
		} else {
			require.Equal(t, vtime.Time(1), m.health.probeTimestamp, p.name)
		}
	}
}
