package sim

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/reconsim/reconsim/vtime"
	"github.com/stretchr/testify/assert"
)

func TestRunConcurrentlyOverlapsAndWaits(t *testing.T) {
	k := New(1)
	var started []string
	var errs []error
	var doneAt vtime.Time
	k.Spawn("parent", func(p *Proc) {
		errs = RunConcurrently(p, "child", 10, 3, func(ctx context.Context, i int) error {
			c := ProcFromContext(ctx)
			started = append(started, fmt.Sprintf("%d@%s", i, c.Now()))
			c.Sleep(time.Duration(13-i) * time.Second) // 3 s, 2 s, 1 s: they finish in reverse order
			if i != 11 {
				return fmt.Errorf("call %d failed", i)
			}
			return nil
		})
		doneAt = p.Now()
	})
	k.Run(Limits{})
	assert.Equal(t, []string{"10@t=0.000s", "11@t=0.000s", "12@t=0.000s"}, started, "every call starts at once, with its index")
	assert.Equal(t, vtime.FromDuration(3*time.Second), doneAt, "the caller waits for the slowest")
	assert.Equal(t, []error{errors.New("call 12 failed"), errors.New("call 10 failed")}, errs, "errors in finishing order")
	assert.Empty(t, RunConcurrently(context.Background(), "none", 0, 0, nil), "nothing to run returns at once")
}
