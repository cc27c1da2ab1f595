package replicaset

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reconsim/reconsim/sim"
	"github.com/reconsim/reconsim/vtime"
)

func TestSlowStartBatch(t *testing.T) {
	errBoom := errors.New("boom")
	tests := []struct {
		name          string
		count         int
		initial       int
		failCalls     map[int]bool // 1-based call numbers that fail
		wantBatches   []int
		wantSuccesses int
		wantCalls     int
		wantErr       error
	}{
		{name: "zero", count: 0, initial: 1, wantBatches: nil, wantSuccesses: 0},
		{name: "one", count: 1, initial: 1, wantBatches: []int{1}, wantSuccesses: 1, wantCalls: 1},
		{name: "twenty doubles then takes the rest", count: 20, initial: 1, wantBatches: []int{1, 2, 4, 8, 5}, wantSuccesses: 20, wantCalls: 20},
		{name: "larger initial batch", count: 10, initial: 3, wantBatches: []int{3, 6, 1}, wantSuccesses: 10, wantCalls: 10},
		{name: "initial batch larger than count", count: 2, initial: 5, wantBatches: []int{2}, wantSuccesses: 2, wantCalls: 2},
		{name: "first call fails: nothing more", count: 20, initial: 1, failCalls: map[int]bool{1: true}, wantBatches: []int{1}, wantSuccesses: 0, wantCalls: 1, wantErr: errBoom},
		// Calls 4..7 form the third batch; one failure there ends the run after that batch.
		{name: "failure mid batch finishes the batch and stops", count: 20, initial: 1, failCalls: map[int]bool{5: true}, wantBatches: []int{1, 2, 4}, wantSuccesses: 6, wantCalls: 7, wantErr: errBoom},
		{name: "several failures in a batch count once each", count: 20, initial: 1, failCalls: map[int]bool{4: true, 6: true}, wantBatches: []int{1, 2, 4}, wantSuccesses: 5, wantCalls: 7, wantErr: errBoom},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			k := sim.New(1)
			var batches []int
			calls, inFlight, maxInFlight := 0, 0, 0
			var successes int
			var err error
			done := false
			k.Spawn("test", func(p *sim.Proc) {
				successes, err = slowStartBatch(p, "create", tc.count, tc.initial, func(n int) { batches = append(batches, n) }, func(ctx context.Context) error {
					calls++
					n := calls
					inFlight++
					maxInFlight = max(maxInFlight, inFlight)
					sim.ProcFromContext(ctx).Sleep(time.Second)
					inFlight--
					if tc.failCalls[n] {
						return errBoom
					}
					return nil
				})
				done = true
			})
			k.Run(sim.Limits{})
			require.True(t, done)
			assert.Equal(t, tc.wantBatches, batches)
			assert.Equal(t, tc.wantSuccesses, successes)
			assert.Equal(t, tc.wantCalls, calls)
			assert.ErrorIs(t, err, tc.wantErr)
			if tc.wantErr == nil {
				assert.NoError(t, err)
			}
			// Every batch ran concurrently: one second of virtual time per batch.
			assert.Equal(t, vtime.Time(len(tc.wantBatches))*vtime.Time(time.Second), k.Now())
			if len(tc.wantBatches) > 0 {
				assert.Equal(t, maxBatch(tc.wantBatches), maxInFlight, "a batch runs all its calls at once")
			}
		})
	}
}

func maxBatch(b []int) int {
	m := 0
	for _, v := range b {
		m = max(m, v)
	}
	return m
}

func TestRunConcurrentlyReportsErrorsInFinishingOrder(t *testing.T) {
	k := sim.New(1)
	var errs []error
	k.Spawn("test", func(p *sim.Proc) {
		errs = sim.RunConcurrently(p, "w", 0, 3, func(ctx context.Context, i int) error {
			// Call 0 finishes last, call 2 first.
			sim.ProcFromContext(ctx).Sleep(time.Duration(3-i) * time.Second)
			return errors.New(string(rune('a' + i)))
		})
	})
	k.Run(sim.Limits{})
	require.Len(t, errs, 3)
	assert.Equal(t, "c", errs[0].Error())
	assert.Equal(t, "a", errs[2].Error())
	assert.Equal(t, vtime.Time(3*time.Second), k.Now())
}
