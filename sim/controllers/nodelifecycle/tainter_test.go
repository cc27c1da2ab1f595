package nodelifecycle

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/reconsim/reconsim/sim"
	"github.com/reconsim/reconsim/vtime"
)

// tainterOp is something that happens to the zone queues between tainting passes.
type tainterOp struct {
	at    vtime.Time
	zone  string
	node  string  // Add this node, or
	swap  float32 // when node is empty, SwapLimiter(swap)
	clear bool    // when set, Remove node instead of adding it
}

// tainterRun replays ops against fresh zone queues and runs Try either at every 100ms tick
// (naive, as upstream's ticker) or only at the ticks nextTaintPassAt picks (skip), recording
// every call of the action function. fail decides, per call, whether the action asks for a
// retry.
func tainterRun(ops []tainterOp, horizon vtime.Time, skip bool, fail func(call int) bool) []string {
	k := sim.New(1)
	nc := &Controller{k: k, zoneTainter: map[string]*RateLimitedTimedQueue{}}
	for _, z := range []string{"a", "b"} {
		nc.zoneTainter[z] = NewRateLimitedTimedQueue(k, 0.1)
	}
	var record []string
	calls := 0
	pass := func() {
		for _, z := range slices.Sorted(maps.Keys(nc.zoneTainter)) {
			nc.zoneTainter[z].Try(func(v TimedValue) (bool, time.Duration) {
				calls++
				ok := !fail(calls)
				record = append(record, fmt.Sprintf("%s %s/%s ok=%v", k.Now(), z, v.Value, ok))
				if !ok {
					return false, noExecuteRetryWait
				}
				return true, 0
			})
		}
		nc.lastTaintPassEnd = k.Now()
	}
	apply := func(op tainterOp) {
		q := nc.zoneTainter[op.zone]
		switch {
		case op.node == "":
			q.SwapLimiter(op.swap)
		case op.clear:
			q.Remove(op.node)
		default:
			q.Add(op.node, "")
		}
	}
	i := 0
	for tick := vtime.Time(0); tick <= horizon; tick = tick.Add(NodeEvictionPeriod) {
		for ; i < len(ops) && ops[i].at <= tick; i++ {
			advance(k, ops[i].at)
			apply(ops[i])
		}
		if skip {
			next, ok := nc.nextTaintPassAt()
			if !ok || next != tick {
				continue
			}
		}
		advance(k, tick)
		pass()
	}
	return record
}

// TestTainterSkipsOnlyIdleTicks is a property test: over random sequences of queued nodes,
// removals, retries and rate changes, running the tainting pass only at the ticks
// nextTaintPassAt picks gives exactly the same action calls, at the same times, as running it
// at every 100ms tick like upstream's ticker.
func TestTainterSkipsOnlyIdleTicks(t *testing.T) {
	rates := []float32{0, 0.01, 0.1, 0.3, 1, 3, 20}
	for seed := uint64(1); seed <= 200; seed++ {
		rnd := rand.New(rand.NewPCG(seed, 7))
		horizon := vtime.FromDuration(120 * time.Second)
		var ops []tainterOp
		for j := 0; j < 5+rnd.IntN(30); j++ {
			op := tainterOp{
				at:   vtime.Time(rnd.Int64N(int64(horizon))),
				zone: []string{"a", "b"}[rnd.IntN(2)],
				node: fmt.Sprintf("n%d", rnd.IntN(8)),
			}
			switch r := rnd.IntN(10); {
			case r < 2:
				op.node, op.swap = "", rates[rnd.IntN(len(rates))]
			case r < 3:
				op.clear = true
			}
			ops = append(ops, op)
		}
		sort.SliceStable(ops, func(a, b int) bool { return ops[a].at < ops[b].at })
		failEvery := 2 + rnd.IntN(4)
		fail := func(call int) bool { return call%failEvery == 0 }

		naive := tainterRun(ops, horizon, false, fail)
		skipped := tainterRun(ops, horizon, true, fail)
		require.Equal(t, naive, skipped, "seed %d", seed)
	}
}
