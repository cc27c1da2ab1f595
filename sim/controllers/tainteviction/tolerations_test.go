package tainteviction

import (
	"hash/fnv"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim"
	"github.com/reconsim/reconsim/vtime"
)

const (
	keyUnreachable = "node.kubernetes.io/unreachable"
	keyNotReady    = "node.kubernetes.io/not-ready"
)

var (
	unreachable = model.Taint{Key: keyUnreachable, Effect: model.TaintEffectNoExecute}
	dedicated   = model.Taint{Key: "dedicated", Value: "gpu", Effect: model.TaintEffectNoExecute}
)

func secs(n int64) *int64 { return &n }

func TestMinTolerationTimeOverMatchingTolerations(t *testing.T) {
	defaultTolerations := []model.Toleration{
		{Key: keyNotReady, Operator: TolerationOpExists, Effect: model.TaintEffectNoExecute, TolerationSeconds: secs(300)},
		{Key: keyUnreachable, Operator: TolerationOpExists, Effect: model.TaintEffectNoExecute, TolerationSeconds: secs(300)},
	}
	tests := []struct {
		name         string
		taints       []model.Taint
		tolerations  []model.Toleration
		wantAll      bool
		wantMin      time.Duration
		wantUsedKeys []string
	}{
		{
			name: "default tolerations: 300s", taints: []model.Taint{unreachable}, tolerations: defaultTolerations,
			wantAll: true, wantMin: 300 * time.Second, wantUsedKeys: []string{keyUnreachable},
		},
		{
			name: "no tolerations: not tolerated", taints: []model.Taint{unreachable},
			wantAll: false, wantMin: 0,
		},
		{
			name: "30s unreachable toleration", taints: []model.Taint{unreachable},
			tolerations: []model.Toleration{{Key: keyUnreachable, Operator: TolerationOpExists, Effect: model.TaintEffectNoExecute, TolerationSeconds: secs(30)}},
			wantAll:     true, wantMin: 30 * time.Second, wantUsedKeys: []string{keyUnreachable},
		},
		{
			name: "nil seconds: forever", taints: []model.Taint{unreachable},
			tolerations: []model.Toleration{{Key: keyUnreachable, Operator: TolerationOpExists}},
			wantAll:     true, wantMin: -1, wantUsedKeys: []string{keyUnreachable},
		},
		{
			name: "negative seconds: now", taints: []model.Taint{unreachable},
			tolerations: []model.Toleration{{Key: keyUnreachable, Operator: TolerationOpExists, TolerationSeconds: secs(-5)}},
			wantAll:     true, wantMin: 0, wantUsedKeys: []string{keyUnreachable},
		},
		{
			name: "zero seconds: now", taints: []model.Taint{unreachable},
			tolerations: []model.Toleration{{Key: keyUnreachable, Operator: TolerationOpExists, TolerationSeconds: secs(0)}},
			wantAll:     true, wantMin: 0, wantUsedKeys: []string{keyUnreachable},
		},
		{
			name: "min over two taints", taints: []model.Taint{unreachable, dedicated},
			tolerations: []model.Toleration{
				{Key: "dedicated", Operator: TolerationOpEqual, Value: "gpu", TolerationSeconds: secs(60)},
				{Key: keyUnreachable, Operator: TolerationOpExists, TolerationSeconds: secs(600)},
			},
			wantAll: true, wantMin: 60 * time.Second, wantUsedKeys: []string{keyUnreachable, "dedicated"},
		},
		{
			name: "one bounded, one forever: the bounded one", taints: []model.Taint{unreachable, dedicated},
			tolerations: []model.Toleration{
				{Operator: TolerationOpExists, Effect: model.TaintEffectNoExecute, Key: "dedicated"},
				{Key: keyUnreachable, Operator: TolerationOpExists, TolerationSeconds: secs(120)},
			},
			wantAll: true, wantMin: 120 * time.Second, wantUsedKeys: []string{keyUnreachable, "dedicated"},
		},
		{
			name: "only the first matching toleration counts", taints: []model.Taint{unreachable},
			tolerations: []model.Toleration{
				{Operator: TolerationOpExists},
				{Key: keyUnreachable, Operator: TolerationOpExists, TolerationSeconds: secs(5)},
			},
			wantAll: true, wantMin: -1, wantUsedKeys: []string{""},
		},
		{
			name: "effect mismatch leaves a taint untolerated", taints: []model.Taint{unreachable},
			tolerations: []model.Toleration{{Key: keyUnreachable, Operator: TolerationOpExists, Effect: model.TaintEffectNoSchedule, TolerationSeconds: secs(300)}},
			wantAll:     false, wantMin: 0,
		},
		{
			name: "second taint untolerated", taints: []model.Taint{unreachable, dedicated}, tolerations: defaultTolerations,
			wantAll: false, wantMin: 0,
		},
		{
			name: "no taints: all tolerated, evict now if asked", taints: nil, tolerations: defaultTolerations,
			wantAll: true, wantMin: 0,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			all, used := GetMatchingTolerations(tt.taints, tt.tolerations)
			assert.Equal(t, tt.wantAll, all)
			var keys []string
			for _, u := range used {
				keys = append(keys, u.Key)
			}
			assert.Equal(t, tt.wantUsedKeys, keys)
			assert.Equal(t, tt.wantMin, MinTolerationTime(used))
		})
	}
}

func TestMinTolerationTimeClampsHugeSeconds(t *testing.T) {
	got := MinTolerationTime([]model.Toleration{{TolerationSeconds: secs(math.MaxInt64 - 1)}})
	assert.Greater(t, got, time.Duration(0), "must not overflow into a negative duration")
}

func TestNoExecuteTaints(t *testing.T) {
	taints := []model.Taint{{Key: "a", Effect: model.TaintEffectNoSchedule}, unreachable, {Key: "b", Effect: model.TaintEffectPreferNoSchedule}}
	assert.Equal(t, []model.Taint{unreachable}, noExecuteTaints(taints))
	assert.Empty(t, noExecuteTaints(nil))
}

func TestUpdatePodCondition(t *testing.T) {
	status := model.PodStatus{Conditions: []model.PodCondition{{Type: model.PodReady, Status: model.ConditionTrue, LastTransitionTime: 1}}}
	cond := model.PodCondition{Type: model.PodDisruptionTarget, Status: model.ConditionTrue, Reason: ReasonDeletionByTaintManager}
	assert.True(t, model.UpdatePodCondition(&status, cond, 10))
	assert.Len(t, status.Conditions, 2)
	assert.Equal(t, vtime.Time(10), status.Conditions[1].LastTransitionTime)
	assert.False(t, model.UpdatePodCondition(&status, cond, 20), "same condition again: no change")
	assert.Equal(t, vtime.Time(10), status.Conditions[1].LastTransitionTime)
}

func TestHashShardsLikeUpstream(t *testing.T) {
	// FNV-32a("node-1") = 0x54c43383, "node-2" = 0x55c43516, "" = 0x811c9dc5 (the offset basis).
	assert.Equal(t, 3, hash("node-1", UpdateWorkerSize))
	assert.Equal(t, 6, hash("node-2", UpdateWorkerSize))
	assert.Equal(t, 5, hash("", UpdateWorkerSize))
	for _, n := range []string{"", "node-1", "node-2", "a-very-long-node-name-in-zone-b"} {
		h := hash(n, UpdateWorkerSize)
		assert.GreaterOrEqual(t, h, 0)
		assert.Less(t, h, UpdateWorkerSize)
		assert.Equal(t, h, hash(n, UpdateWorkerSize))
	}
	assert.Equal(t, 0, hash("anything", 1))
}

func TestHashMatchesHashFNV(t *testing.T) {
	r := sim.NewRand(1, "hash-test")
	for i := range 1000 {
		b := make([]byte, r.IntN(40))
		for j := range b {
			b[j] = byte(r.IntN(256))
		}
		h := fnv.New32a()
		_, _ = h.Write(b)
		workers := 1 + r.IntN(maxWorkers)
		assert.Equal(t, int(h.Sum32()%uint32(workers)), hash(string(b), workers), "case %d", i)
	}
}
