package sim

import (
	"testing"
	"time"

	"github.com/reconsim/reconsim/vtime"
	"github.com/stretchr/testify/assert"
)

// counter is a pending-work count for WaitQueue.Wait.
type counter struct{ n int }

func (c *counter) Len() int { return c.n }

func TestWaitQueue(t *testing.T) {
	for _, tc := range []struct {
		name string
		// script runs at t=1s, after waiters w0, w1, w2 parked in that order.
		script func(q *WaitQueue, work *counter, ws []*Proc)
		woken  []string // in the order they ran
		left   int      // processes still waiting at the end
	}{
		{"signal wakes the longest waiting", func(q *WaitQueue, work *counter, _ []*Proc) {
			work.n = 1
			assert.True(t, q.Signal())
		}, []string{"w0"}, 2},
		{"two signals wake two in order", func(q *WaitQueue, work *counter, _ []*Proc) {
			q.Signal()
			q.Signal()
		}, []string{"w0", "w1"}, 1},
		{"broadcast wakes all in order", func(q *WaitQueue, _ *counter, _ []*Proc) {
			q.Broadcast()
		}, []string{"w0", "w1", "w2"}, 0},
		{"a killed waiter leaves the queue", func(q *WaitQueue, _ *counter, ws []*Proc) {
			ws[0].Kill()
		}, nil, 2},
		{"a killed waiter passes its signal on when work is pending", func(q *WaitQueue, work *counter, ws []*Proc) {
			work.n = 1
			q.Signal()   // meant for w0, which dies before it runs:
			ws[0].Kill() // its unwinding hands the wake-up to w1
		}, []string{"w1"}, 1},
		{"a killed parked waiter signals the next when work is pending", func(q *WaitQueue, work *counter, ws []*Proc) {
			work.n = 1
			ws[1].Kill()
		}, []string{"w0"}, 1},
		{"signal skips waiters that cannot be woken", func(q *WaitQueue, work *counter, ws []*Proc) {
			ws[0].parked = false // as if woken by other means: Unpark fails
			assert.True(t, q.Signal())
		}, []string{"w1"}, 1},
		{"signal on an empty queue wakes nobody", func(q *WaitQueue, _ *counter, _ []*Proc) {
			q.Broadcast()
			assert.False(t, q.Signal())
		}, []string{"w0", "w1", "w2"}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k := New(1)
			var q WaitQueue
			work := &counter{}
			var woken []string
			var ws []*Proc
			for _, name := range []string{"w0", "w1", "w2"} {
				ws = append(ws, k.Spawn(name, func(p *Proc) {
					q.Wait(p, work)
					woken = append(woken, p.Name())
				}))
			}
			k.Spawn("script", func(p *Proc) {
				p.Sleep(time.Second)
				tc.script(&q, work, ws)
			})
			k.Run(Limits{MaxTime: vtime.FromDuration(time.Minute)})
			assert.Equal(t, tc.woken, woken)
			assert.Equal(t, tc.left, q.Len())
		})
	}
}
