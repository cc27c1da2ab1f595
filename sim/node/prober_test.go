package node

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/reconsim/reconsim/model"
)

// TestProbeThresholds feeds raw outcomes (S success, F failure) to a probe worker following
// one container and checks the published result after each (S, F, U unknown).
func TestProbeThresholds(t *testing.T) {
	cases := []struct {
		name     string
		typ      probeType
		success  int32
		failure  int32
		raw      string
		want     string
		onHoldAt int // index after which the worker is on hold; -1 for never
	}{
		{"readiness starts failed, one success flips", probeReadiness, 1, 3, "FSFFFS", "FSSSFS", -1},
		{"readiness needs two successes in a row", probeReadiness, 2, 3, "SFSSFS", "FFFSSS", -1},
		{"readiness failure threshold 1", probeReadiness, 1, 1, "SFS", "SFS", -1},
		{"readiness failure threshold 3 needs a run", probeReadiness, 1, 3, "SFFSFFF", "SSSSSSF", -1},
		{"startup starts unknown", probeStartup, 1, 3, "FFS", "UUS", -1},
		{"startup failure puts the worker on hold", probeStartup, 1, 2, "FF", "UF", 1},
		{"liveness starts successful", probeLiveness, 1, 3, "FFF", "SSF", 2},
	}
	letter := map[probeResult]byte{resultSuccess: 'S', resultFailure: 'F', resultUnknown: 'U'}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			st := newProbeState(tc.typ, &model.Probe{SuccessThreshold: tc.success, FailureThreshold: tc.failure})
			assert.True(t, st.follow(7), "a new container is followed")
			var got strings.Builder
			hold := -1
			for i := range tc.raw {
				raw := resultSuccess
				if tc.raw[i] == 'F' {
					raw = resultFailure
				}
				before, _ := st.get(7)
				changed := st.record(raw)
				after, ok := st.get(7)
				assert.True(t, ok)
				assert.Equal(t, before != after, changed, "step %d reports a change exactly when the result changed", i)
				got.WriteByte(letter[after])
				if st.onHold && hold < 0 {
					hold = i
				}
			}
			assert.Equal(t, tc.want, got.String())
			assert.Equal(t, tc.onHoldAt, hold)
		})
	}
}

// TestProbeFollowNewContainer: a new container gets the initial result and resumes probing,
// while the run of identical results carries over (worker.go keeps lastResult and resultRun).
func TestProbeFollowNewContainer(t *testing.T) {
	st := newProbeState(probeReadiness, &model.Probe{SuccessThreshold: 2, FailureThreshold: 3})
	st.follow(1)
	st.record(resultSuccess)
	st.record(resultSuccess)
	r, _ := st.get(1)
	assert.Equal(t, resultSuccess, r)

	assert.True(t, st.follow(2))
	r, ok := st.get(2)
	assert.True(t, ok)
	assert.Equal(t, resultFailure, r, "readiness of a new container starts as Failure")
	_, ok = st.get(1)
	assert.False(t, ok, "the old container's result is gone")
	assert.True(t, st.record(resultSuccess), "the run of successes carries over: the third in a row flips at once")
	assert.False(t, st.follow(2), "following the same container again changes nothing")
}

func TestProbeSpecDefaults(t *testing.T) {
	s := probeSpec(&model.Probe{InitialDelaySeconds: -4})
	assert.Equal(t, model.Probe{TimeoutSeconds: 1, PeriodSeconds: 10, SuccessThreshold: 1, FailureThreshold: 3}, s)
	s = probeSpec(&model.Probe{InitialDelaySeconds: 5, PeriodSeconds: 2, SuccessThreshold: 4, FailureThreshold: 6, TimeoutSeconds: 3})
	assert.Equal(t, model.Probe{InitialDelaySeconds: 5, TimeoutSeconds: 3, PeriodSeconds: 2, SuccessThreshold: 4, FailureThreshold: 6}, s)
}
