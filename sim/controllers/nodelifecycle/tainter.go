package nodelifecycle

import (
	"maps"
	"slices"
	"time"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim"
	"github.com/reconsim/reconsim/vtime"
)

// maxTickSearch bounds the walk over 100ms ticks when looking for the first tick at which a
// zone's bucket holds a token; the estimate it starts from is off by at most a tick or two.
const maxTickSearch = 64

// runNoExecuteTainter is upstream's wait.UntilWithContext(doNoExecuteTaintingPass,
// NodeEvictionPeriod), run only at the ticks that can do something. Upstream's pass runs every
// 100ms; a pass does nothing unless some zone queue has a node and that zone's bucket gives a
// token (a pass that gets a token spends it even when the head is not due yet, so such ticks
// are run). The process parks between those ticks, woken by an idle timer armed at the next
// one, so idle clusters cost no events and long runs do not pay for 36,000 empty passes an
// hour. Ticks stay on upstream's sliding grid: one period after the last pass returned.
func (nc *Controller) runNoExecuteTainter(p *sim.Proc) {
	nc.waitForCacheSync(p)
	timer := nc.k.NewIdleTimer(func() { p.Unpark() })
	nc.tainterTimer = timer
	nc.lastTaintPassEnd = nc.k.Now()
	for {
		nc.tainterParked = true
		nc.armTainter()
		p.Park()
		nc.tainterParked = false
		timer.Stop()
		nc.doNoExecuteTaintingPass(p)
		nc.lastTaintPassEnd = nc.k.Now()
	}
}

// wakeTainter re-arms the tainter after something that can make an earlier tick useful (a
// node queued, a rate changed). A pass in progress re-arms by itself when it ends.
func (nc *Controller) wakeTainter() {
	if nc.tainterParked {
		nc.armTainter()
	}
}

func (nc *Controller) armTainter() {
	if nc.tainterTimer == nil {
		return
	}
	at, ok := nc.nextTaintPassAt()
	if !ok {
		nc.tainterTimer.Stop()
		return
	}
	if cur, armed := nc.tainterTimer.When(); armed && cur == at {
		return
	}
	nc.tainterTimer.ResetAt(at)
}

// nextTaintPassAt returns the first tick of the tainting grid, not before now, at which some
// non-empty zone queue's bucket would give a token; false when no zone ever will without a
// change (every queue empty or at rate zero).
func (nc *Controller) nextTaintPassAt() (vtime.Time, bool) {
	best, found := vtime.Never, false
	for _, key := range slices.Sorted(maps.Keys(nc.zoneTainter)) {
		q := nc.zoneTainter[key]
		if q.Len() == 0 {
			continue
		}
		est, ok := q.acceptEstimate()
		if !ok {
			continue
		}
		n := nc.tickIndexAtOrAfter(est) - 1
		if minN := nc.tickIndexAtOrAfter(nc.k.Now()); n < minN {
			n = minN
		}
		t := nc.tickAt(n)
		for i := 0; i < maxTickSearch && !q.wouldAcceptAt(t); i++ {
			n++
			t = nc.tickAt(n)
		}
		if t < best {
			best, found = t, true
		}
	}
	return best, found
}

// tickIndexAtOrAfter returns the smallest n >= 1 with lastTaintPassEnd + n*NodeEvictionPeriod
// not before t.
func (nc *Controller) tickIndexAtOrAfter(t vtime.Time) int64 {
	if t <= nc.lastTaintPassEnd {
		return 1
	}
	d := int64(t.Sub(nc.lastTaintPassEnd))
	p := int64(NodeEvictionPeriod)
	n := (d + p - 1) / p
	if n < 1 {
		n = 1
	}
	return n
}

func (nc *Controller) tickAt(n int64) vtime.Time {
	return nc.lastTaintPassEnd.Add(time.Duration(n) * NodeEvictionPeriod)
}

// doNoExecuteTaintingPass is upstream doNoExecuteTaintingPass: for each zone, in sorted order,
// pop nodes while the bucket allows and give each the NoExecute taint matching its Ready
// condition now (removing the opposite one). A node gone from the cache is dropped; one without
// a Ready condition is retried 50ms later; one Ready again is dropped untainted.
func (nc *Controller) doNoExecuteTaintingPass(p *sim.Proc) {
	for _, key := range slices.Sorted(maps.Keys(nc.zoneTainter)) {
		q := nc.zoneTainter[key]
		q.Try(func(v TimedValue) (bool, time.Duration) {
			node, ok := nc.nodes.Get("", v.Value)
			if !ok {
				nc.k.Emit(traceComponent, "taint-skipped", "Node "+v.Value, 0, "no longer in the cache")
				delete(nc.queuedSince, v.Value)
				return true, 0
			}
			cond := getNodeCondition(&node.Status, model.NodeReady)
			if cond == nil {
				return false, noExecuteRetryWait
			}
			add, remove, ok := NoExecuteTaintFor(cond.Status)
			if !ok {
				nc.k.Emit(traceComponent, "taint-skipped", "Node "+v.Value, node.ResourceVersion, "ready again")
				delete(nc.queuedSince, v.Value)
				return true, 0
			}
			start := nc.k.Now()
			if !nc.swapNodeControllerTaint(p, []model.Taint{add}, []model.Taint{remove}, node) {
				return false, 0
			}
			nc.taintDone(key, v.Value, start)
			return true, 0
		})
	}
}
