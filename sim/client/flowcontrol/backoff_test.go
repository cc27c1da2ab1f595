package flowcontrol

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reconsim/reconsim/vtime"
)

func at(d time.Duration) vtime.Time { return vtime.FromDuration(d) }

// TestBackoffNextSequence: each Next doubles the delay from 10s up to the 300s cap.
func TestBackoffNextSequence(t *testing.T) {
	b := NewBackoff(10*time.Second, 300*time.Second)
	want := []time.Duration{10, 20, 40, 80, 160, 300, 300, 300}
	now := vtime.Time(0)
	for i, w := range want {
		b.Next("c", now, now)
		assert.Equal(t, w*time.Second, b.Get("c"), "step %d", i)
		now = now.Add(b.Get("c"))
	}
}

// TestBackoffExpiry: an entry is forgotten when more than 2*max passed between its last update
// and the event, and only then.
func TestBackoffExpiry(t *testing.T) {
	cases := []struct {
		name      string
		eventTime time.Duration // since the entry's last update
		want      time.Duration // the delay after Next
		inBackoff bool          // IsInBackOffSince(event) checked at the event time
	}{
		{"soon after", 5 * time.Second, 80 * time.Second, true},
		{"exactly 2*max is not expired", 600 * time.Second, 80 * time.Second, true},
		{"just past 2*max resets", 600*time.Second + time.Millisecond, 10 * time.Second, false},
		{"long after resets", time.Hour, 10 * time.Second, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b := NewBackoff(10*time.Second, 300*time.Second)
			b.Next("c", 0, 0)
			b.Next("c", 0, 0)
			b.Next("c", 0, 0)
			require.Equal(t, 40*time.Second, b.Get("c"))
			ev := at(tc.eventTime)
			assert.Equal(t, tc.inBackoff, b.IsInBackOffSince("c", ev, ev))
			b.Next("c", ev, ev)
			assert.Equal(t, tc.want, b.Get("c"))
		})
	}
}

func TestBackoffIsInBackOffSince(t *testing.T) {
	b := NewBackoff(10*time.Second, 300*time.Second)
	assert.False(t, b.IsInBackOffSince("missing", 0, 0), "no entry, no back-off")
	b.Next("c", 0, 0) // 10s
	cases := []struct {
		event, now time.Duration
		want       bool
	}{
		{0, 0, true},
		{0, 9999 * time.Millisecond, true},
		{0, 10 * time.Second, false},
		{5 * time.Second, 14 * time.Second, true},
		{5 * time.Second, 15 * time.Second, false},
	}
	for _, tc := range cases {
		assert.Equal(t, tc.want, b.IsInBackOffSince("c", at(tc.event), at(tc.now)), "event %s now %s", tc.event, tc.now)
	}
}

func TestBackoffResetAndGC(t *testing.T) {
	b := NewBackoff(10*time.Second, 300*time.Second)
	b.Next("a", 0, 0)
	b.Next("b", 0, at(time.Hour))
	b.GC(at(time.Hour))
	assert.Equal(t, 1, b.Len(), "a expired, b was updated an hour in")
	assert.Equal(t, time.Duration(0), b.Get("a"))
	b.Reset("b")
	assert.Equal(t, 0, b.Len())
}

// restartDelays plays the kubelet's doBackOff against a container that runs runs[i] before
// its i-th exit, restarting as soon as the back-off allows, and returns the wait between each
// exit and the following restart.
func restartDelays(runs []time.Duration) []time.Duration {
	b := NewBackoff(10*time.Second, 300*time.Second)
	now := vtime.Time(0)
	var delays []time.Duration
	for _, run := range runs {
		exit := now.Add(run)
		restart := exit
		if b.IsInBackOffSince("c", exit, exit) {
			restart = exit.Add(b.Get("c"))
		}
		b.Next("c", exit, restart)
		delays = append(delays, restart.Sub(exit))
		now = restart
	}
	return delays
}

// TestCrashLoopBackOffSequence: the first restart is immediate, then 10s, 20s, ... capped at
// 300s; a run longer than 10 minutes since the last back-off starts over.
func TestCrashLoopBackOffSequence(t *testing.T) {
	s := time.Second
	repeat := func(d time.Duration, n int) []time.Duration {
		out := make([]time.Duration, n)
		for i := range out {
			out[i] = d
		}
		return out
	}
	cases := []struct {
		name string
		runs []time.Duration
		want []time.Duration
	}{
		{"crash at once", repeat(0, 9), []time.Duration{0, 10 * s, 20 * s, 40 * s, 80 * s, 160 * s, 300 * s, 300 * s, 300 * s}},
		{"crash after 5s", repeat(5*s, 4), []time.Duration{0, 10 * s, 20 * s, 40 * s}},
		{"long runs always restart at once", repeat(11*time.Minute, 4), []time.Duration{0, 0, 0, 0}},
		{"a long run resets the sequence", []time.Duration{0, 0, 0, 0, 11 * time.Minute, 0, 0},
			[]time.Duration{0, 10 * s, 20 * s, 40 * s, 0, 10 * s, 20 * s}},
		{"exactly 10 minutes does not reset", []time.Duration{0, 0, 10 * time.Minute, 0},
			[]time.Duration{0, 10 * s, 20 * s, 40 * s}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, restartDelays(tc.runs))
		})
	}
}

// TestImageBackoffSinceUpdate: the image pull back-off (image_manager.go
// IsInBackOffSinceUpdate) is measured from the entry's last update: after failed pulls at the
// given times, a pull attempt at "at" backs off or goes ahead.
func TestImageBackoffSinceUpdate(t *testing.T) {
	cases := []struct {
		name    string
		fails   []time.Duration // failed pulls (Next at each)
		at      time.Duration
		backoff bool
	}{
		{"no failure", nil, 0, false},
		{"within the first 10s", []time.Duration{0}, 9 * time.Second, true},
		{"after the first 10s", []time.Duration{0}, 10 * time.Second, false},
		{"second failure doubles", []time.Duration{0, 12 * time.Second}, 31 * time.Second, true},
		{"second failure, 20s later", []time.Duration{0, 12 * time.Second}, 32 * time.Second, false},
		{"expired after 2x max", []time.Duration{0, 12 * time.Second}, 12*time.Second + 601*time.Second, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b := NewBackoff(10*time.Second, 300*time.Second)
			for _, f := range tc.fails {
				b.Next("p_img", at(f), at(f))
			}
			assert.Equal(t, tc.backoff, b.IsInBackOffSinceUpdate("p_img", at(tc.at)))
		})
	}
}

// TestDaemonSetFailedPodsBackoff is the DaemonSet controller's use (pkg/controller/daemon
// failedPodsBackoff): Next at the event's time, IsInBackOffSinceUpdate, GC.
func TestDaemonSetFailedPodsBackoff(t *testing.T) {
	b := NewBackoff(time.Second, 4*time.Second)
	next := func(id string, now vtime.Time) { b.Next(id, now, now) }
	assert.False(t, b.IsInBackOffSinceUpdate("n", 0))
	next("n", at(0))
	assert.Equal(t, time.Second, b.Get("n"))
	assert.True(t, b.IsInBackOffSinceUpdate("n", at(999*time.Millisecond)))
	assert.False(t, b.IsInBackOffSinceUpdate("n", at(time.Second)))
	next("n", at(2*time.Second))
	assert.Equal(t, 2*time.Second, b.Get("n"))
	next("n", at(3*time.Second))
	next("n", at(4*time.Second))
	assert.Equal(t, 4*time.Second, b.Get("n"), "capped at max")
	// Unused for more than twice max: expired, starts over.
	assert.False(t, b.IsInBackOffSinceUpdate("n", at(13*time.Second)))
	next("n", at(13*time.Second))
	assert.Equal(t, time.Second, b.Get("n"))
	b.GC(at(30 * time.Second))
	assert.Equal(t, time.Duration(0), b.Get("n"), "GC drops expired entries")
}
