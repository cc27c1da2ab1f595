package node

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/reconsim/reconsim/sim"
)

func TestParseBehaviour(t *testing.T) {
	def := behaviour{terminationDelay: time.Second, exitCodeProb: 1, initDuration: time.Second}
	cases := []struct {
		name    string
		ann     map[string]string
		want    behaviour
		badKeys []string
	}{
		{"none", nil, def, nil},
		{"all valid", map[string]string{
			AnnotationReadyAfter: "20s", AnnotationNeverReady: "false", AnnotationCrashAfter: "30s",
			AnnotationExitAfter: "1m", AnnotationExitCode: "3", AnnotationTerminationSeconds: "5s",
		}, behaviour{readyAfter: 20 * time.Second, crashAfter: 30 * time.Second, crashes: true,
			exitAfter: time.Minute, exitAfterMax: time.Minute, exits: true, exitCode: 3, terminationDelay: 5 * time.Second, exitCodeProb: 1, initDuration: time.Second}, nil},
		{"exit-after range and probability", map[string]string{AnnotationExitAfter: "20s..40s", AnnotationExitCode: "1", AnnotationExitCodeProbability: "0.25"},
			behaviour{exitAfter: 20 * time.Second, exitAfterMax: 40 * time.Second, exits: true, exitCode: 1, exitCodeProb: 0.25, terminationDelay: time.Second, initDuration: time.Second}, nil},
		{"exit-after distribution", map[string]string{AnnotationExitAfter: "lognormal(median=30s,p99=2m,max=5m)"},
			behaviour{exitDist: &sim.Dist{Kind: sim.DistLogNormal, Median: 30 * time.Second, P99: 2 * time.Minute, Max: 5 * time.Minute}, exits: true, terminationDelay: time.Second, exitCodeProb: 1, initDuration: time.Second}, nil},
		{"bad distribution", map[string]string{AnnotationExitAfter: "lognormal(median=30s)"}, def, []string{AnnotationExitAfter}},
		{"empty range and bad probability", map[string]string{AnnotationExitAfter: "40s..20s", AnnotationExitCodeProbability: "1.5"}, def,
			[]string{AnnotationExitAfter, AnnotationExitCodeProbability}},
		{"termination seconds as a number", map[string]string{AnnotationTerminationSeconds: "2.5"},
			behaviour{terminationDelay: 2500 * time.Millisecond, exitCodeProb: 1, initDuration: time.Second}, nil},
		{"crash-after zero crashes at once", map[string]string{AnnotationCrashAfter: "0s"},
			behaviour{crashes: true, terminationDelay: time.Second, exitCodeProb: 1, initDuration: time.Second}, nil},
		{"never-ready", map[string]string{AnnotationNeverReady: "true"},
			behaviour{neverReady: true, terminationDelay: time.Second, exitCodeProb: 1, initDuration: time.Second}, nil},
		{"invalid values are ignored and reported sorted", map[string]string{
			AnnotationReadyAfter: "soon", AnnotationNeverReady: "maybe", AnnotationCrashAfter: "-5s",
			AnnotationExitCode: "256", AnnotationTerminationSeconds: "forever", AnnotationExitAfter: "1000h",
		}, def, []string{AnnotationCrashAfter, AnnotationExitAfter, AnnotationExitCode, AnnotationNeverReady,
			AnnotationReadyAfter, AnnotationTerminationSeconds}},
		{"a bare number is not a duration for ready-after", map[string]string{AnnotationReadyAfter: "20"}, def,
			[]string{AnnotationReadyAfter}},
		{"hangs, pull failures and init containers", map[string]string{
			AnnotationHangAfter: "60s", AnnotationImagePullFail: "true", AnnotationInitDuration: "5s", AnnotationInitExitCode: "2",
		}, behaviour{hangAfter: time.Minute, hangs: true, imagePullFails: true, initDuration: 5 * time.Second, initExitCode: 2,
			terminationDelay: time.Second, exitCodeProb: 1}, nil},
		{"bad hang, pull and init values", map[string]string{
			AnnotationHangAfter: "never", AnnotationImagePullFail: "yes please", AnnotationInitDuration: "-1s", AnnotationInitExitCode: "300",
		}, def, []string{AnnotationHangAfter, AnnotationImagePullFail, AnnotationInitDuration, AnnotationInitExitCode}},
		{"other annotations are none of our business", map[string]string{"example.com/x": "y"}, def, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, errs := parseBehaviour(tc.ann)
			assert.Equal(t, tc.want, got)
			var keys []string
			for _, e := range errs {
				keys = append(keys, e.key)
				assert.Contains(t, e.Error(), "ignoring annotation "+e.key)
			}
			assert.Equal(t, tc.badKeys, keys)
		})
	}
}

func TestExitAfterStart(t *testing.T) {
	cases := []struct {
		name      string
		b         behaviour
		wantAfter time.Duration
		wantCode  int32
		wantOK    bool
	}{
		{"runs forever", behaviour{}, 0, 0, false},
		{"crash", behaviour{crashes: true, crashAfter: time.Minute}, time.Minute, 1, true},
		{"exit with code", behaviour{exits: true, exitAfter: time.Minute, exitCode: 7, exitCodeProb: 1}, time.Minute, 7, true},
		{"earlier crash wins", behaviour{crashes: true, crashAfter: time.Second, exits: true, exitAfter: time.Minute}, time.Second, 1, true},
		{"earlier exit wins", behaviour{crashes: true, crashAfter: time.Hour, exits: true, exitAfter: time.Minute}, time.Minute, 0, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			after, code, ok := tc.b.exitAfterStart(rand.New(rand.NewPCG(1, 2)))
			assert.Equal(t, tc.wantOK, ok)
			assert.Equal(t, tc.wantAfter, after)
			assert.Equal(t, tc.wantCode, code)
		})
	}
}

// A range draws each instance's run time inside it, and a probability p gives the exit code
// about p of the time, 0 otherwise; both come from the stream passed in.
func TestExitAfterStartDraws(t *testing.T) {
	b := behaviour{exits: true, exitAfter: 20 * time.Second, exitAfterMax: 40 * time.Second, exitCode: 1, exitCodeProb: 0.25}
	r := rand.New(rand.NewPCG(7, 7))
	failed, n := 0, 4000
	for range n {
		after, code, ok := b.exitAfterStart(r)
		assert.True(t, ok)
		assert.GreaterOrEqual(t, after, 20*time.Second)
		assert.LessOrEqual(t, after, 40*time.Second)
		if code == 1 {
			failed++
		}
	}
	assert.InDelta(t, 0.25, float64(failed)/float64(n), 0.03)
}

// A distribution draws each instance's run time from it, within its bounds.
func TestExitAfterDistribution(t *testing.T) {
	b, errs := parseBehaviour(map[string]string{AnnotationExitAfter: "lognormal(median=30s,p99=2m,min=5s,max=5m)"})
	assert.Empty(t, errs)
	r := rand.New(rand.NewPCG(3, 3))
	var below int
	for range 2000 {
		after, _, ok := b.exitAfterStart(r)
		assert.True(t, ok)
		assert.GreaterOrEqual(t, after, 5*time.Second)
		assert.LessOrEqual(t, after, 5*time.Minute)
		if after < 30*time.Second {
			below++
		}
	}
	assert.InDelta(t, 0.5, float64(below)/2000, 0.05, "half the runs are shorter than the median")
}
