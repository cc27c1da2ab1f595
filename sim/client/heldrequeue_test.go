package client

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/reconsim/reconsim/sim"
	"github.com/reconsim/reconsim/vtime"
)

// A pending requeue is a hold (the run is not quiescent before it), the earliest one wins, and
// Forget cancels it.
func TestHeldRequeue(t *testing.T) {
	k := sim.New(1)
	var got []string
	h := NewHeldRequeue(k, func(key string) { got = append(got, k.Now().String()+" "+key) })
	h.AddAfter("a", 30*time.Second)
	h.AddAfter("a", 10*time.Second)
	h.AddAfter("a", 20*time.Second)
	h.AddAfter("b", 5*time.Second)
	h.Forget("b")
	h.AddAfter("c", 0)
	assert.Equal(t, 1, k.Holds())
	out := k.Run(sim.Limits{MaxTime: vtime.Time(time.Minute), QuiescenceWindow: time.Second})
	assert.Equal(t, []string{"t=0.000s c", "t=10.000s a"}, got)
	assert.Equal(t, sim.StopQuiescent, out.Reason)
	assert.Equal(t, 0, k.Holds())
}
