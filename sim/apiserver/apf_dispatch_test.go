package apiserver

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/require"

	"github.com/reconsim/reconsim/sim"
	"github.com/reconsim/reconsim/vtime"
)

// scanDispatchQueue is upstream's findDispatchQueueToBoundLocked as a pure function: every
// queue, from the one after robinIndex round robin, keeping the first whose oldest request
// has the least virtual finish time. It returns that queue (nil if none waits) and its index.
func scanDispatchQueue(qs *queueSet) (*fqQueue, int) {
	var minQueue *fqQueue
	minFinish, minIndex := maxSeatSeconds, 0
	robin := qs.robinIndex
	for range qs.queues {
		robin = (robin + 1) % len(qs.queues)
		q := qs.queues[robin]
		if oldest := q.peek(); oldest != nil {
			if f := q.nextDispatchR + oldest.totalWork; f < minFinish {
				minFinish, minQueue, minIndex = f, q, robin
			}
		}
	}
	return minQueue, minIndex
}

// TestDispatchPicksTheQueueTheFullScanPicks drives queue sets of random sizes with random
// requests (arrivals, finishes, time-outs, limit changes) and checks every direct dispatch
// against the full scan: the same request is dispatched and robinIndex moves the same way.
func TestDispatchPicksTheQueueTheFullScanPicks(t *testing.T) {
	compared := 0
	for seed := uint64(1); seed <= 40; seed++ {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			r := rand.New(rand.NewPCG(seed, 0))
			k := sim.New(seed)
			nq := 1 + r.IntN(20)
			qs := newQueueSet(k, nq, 1+r.IntN(min(nq, 6)), 1000, nil)
			qs.concurrencyLimit = 1 + r.IntN(2)
			var executing, waiting []*apfRequest
			for step := 0; step < 600; step++ {
				switch op := r.IntN(10); {
				case op < 4:
					est := workEstimate{initialSeats: 1 + r.IntN(2)}
					req, _ := qs.startRequest(nil, est, r.Uint64(), nil)
					if req != nil && req.decision == 0 {
						waiting = append(waiting, req)
					} else if req != nil {
						executing = append(executing, req)
					}
				case op < 6 && len(executing) > 0:
					i := r.IntN(len(executing))
					req := executing[i]
					executing = append(executing[:i], executing[i+1:]...)
					qs.finish(req)
				case op < 7 && len(waiting) > 0:
					qs.timeOut(waiting[r.IntN(len(waiting))])
				case op < 8:
					qs.concurrencyLimit = 1 + r.IntN(4)
				default:
					wantQueue, wantIndex := scanDispatchQueue(qs)
					robinBefore := qs.robinIndex
					var want *apfRequest
					if wantQueue != nil {
						want = wantQueue.peek()
					}
					dispatched := qs.dispatch()
					if !dispatched {
						if wantQueue != nil {
							require.False(t, qs.canAccommodateSeats(want.maxSeats()), "step %d", step)
						}
						require.Equal(t, (robinBefore+nq)%nq, qs.robinIndex, "step %d: robinIndex after no dispatch", step)
						break
					}
					compared++
					require.NotNil(t, want, "step %d", step)
					require.Equal(t, decisionExecute, want.decision, "step %d: the full scan's request", step)
					require.Equal(t, wantIndex, qs.robinIndex, "step %d", step)
				}
				// Requests dispatched here, by finish or by startRequest move to executing.
				kept := waiting[:0]
				for _, w := range waiting {
					switch w.decision {
					case 0:
						kept = append(kept, w)
					case decisionExecute:
						executing = append(executing, w)
					}
				}
				waiting = kept
				for _, q := range qs.queues {
					require.Equal(t, q.length() > 0, q.waitingAt >= 0, "step %d: queue %d's place in waitingQueues", step, q.index)
					var work seatSeconds
					for _, w := range q.waiting[q.head:] {
						work += w.totalWork
					}
					require.Equal(t, work, qs.workSums[q.index], "step %d: queue %d's work sum, as shuffle sharding reads it", step, q.index)
				}
			}
		})
	}
	require.Greater(t, compared, 100, "dispatches compared")
}

// upstreamShuffleShard is shuffleShardLocked as upstream writes it, for qs's next request of
// the flow with hash hashValue (qs is not changed).
func upstreamShuffleShard(qs *queueSet, hashValue uint64) int {
	hand := qs.dealer.deal(hashValue, nil)
	offset := qs.enqueues % len(hand)
	best, least := -1, maxSeatSeconds
	for i := range hand {
		idx := hand[(offset+i)%len(hand)]
		if w := *qs.queues[idx].workSum; w < least {
			least, best = w, idx
		}
	}
	return best
}

// TestKeptHandPicksTheQueueADealPicks sends the same requests of a few flows to two queue sets
// of the same shape, one dealing every request's hand anew and one given each flow's kept hand
// (the flows' hands are also offered to a third queue set of another shape, which must deal
// its own): every request goes to the same queue in both, the one upstream's scan picks.
func TestKeptHandPicksTheQueueADealPicks(t *testing.T) {
	for seed := uint64(1); seed <= 20; seed++ {
		r := rand.New(rand.NewPCG(seed, 1))
		k := sim.New(seed)
		nq := 2 + r.IntN(60)
		handSize := 1 + r.IntN(min(nq, 8))
		fresh := newQueueSet(k, nq, handSize, 1000, nil)
		kept := newQueueSet(k, nq, handSize, 1000, nil)
		other := newQueueSet(k, nq+1, handSize, 1000, nil)
		for _, qs := range []*queueSet{fresh, kept, other} {
			qs.concurrencyLimit = 0 // everything waits: the queues' work decides the choice
		}
		flows := make([]uint64, 1+r.IntN(6))
		for i := range flows {
			flows[i] = r.Uint64()
		}
		hands := make([]dealtHand, len(flows))
		for step := 0; step < 300; step++ {
			f := r.IntN(len(flows))
			est := workEstimate{initialSeats: 1 + r.IntN(3)}
			upstream := upstreamShuffleShard(kept, flows[f])
			want, _ := fresh.startRequest(nil, est, flows[f], nil)
			got, _ := kept.startRequest(nil, est, flows[f], &hands[f])
			require.Equal(t, want.queue.index, got.queue.index, "seed %d step %d", seed, step)
			require.Equal(t, upstream, int(got.queue.index), "seed %d step %d: upstream's choice", seed, step)
			if r.IntN(10) == 0 {
				h := hands[f]
				other.startRequest(nil, est, flows[f], &h)
				require.Equal(t, other.dealer.deal(flows[f], nil), cardsOf(h), "seed %d step %d: dealt by the other set", seed, step)
				require.Equal(t, kept.dealer.deal(flows[f], nil), cardsOf(hands[f]), "seed %d step %d: the kept hand", seed, step)
			}
		}
	}
}

// cardsOf is the hand h holds.
func cardsOf(h dealtHand) []int {
	var cards []int
	for _, c := range h.cards[:h.n] {
		cards = append(cards, int(c))
	}
	return cards
}

// TestQueueIsOneCacheLine: a queue is 64 bytes and starts a cache line.
func TestQueueIsOneCacheLine(t *testing.T) {
	require.Equal(t, uintptr(64), unsafe.Sizeof(fqQueue{}))
	qs := newQueueSet(sim.New(1), 64, 6, 50, nil)
	for _, q := range qs.queues {
		require.Zero(t, uintptr(unsafe.Pointer(q))%64, "queue %d starts a cache line", q.index)
	}
}

// TestClassificationLayout: what every request reads of its flow's classification (the
// level, the hash, the kept hand's queue set, hash, length and first 7 cards) is in its first
// 64 bytes, and a classification is 128 bytes, a size class whose allocations start on a
// cache line.
func TestClassificationLayout(t *testing.T) {
	var c classification
	require.Equal(t, uintptr(128), unsafe.Sizeof(c))
	hot := unsafe.Offsetof(c.dealt) + unsafe.Offsetof(c.dealt.cards) + 7*unsafe.Sizeof(c.dealt.cards[0])
	require.LessOrEqual(t, hot, uintptr(64))
	for _, off := range []uintptr{unsafe.Offsetof(c.pl), unsafe.Offsetof(c.hash), unsafe.Offsetof(c.dealt)} {
		require.Less(t, off, uintptr(64))
	}
}

// TestDispatchAtOnceIsEnqueueAndDispatch drives two queue sets through the same random
// scripts of arrivals, finishes, time-outs and limit changes at advancing times, one taking
// dispatchAtOnce's shortcut and one queueing every request as upstream does, and compares
// after every step every counter of the sets and their queues, every request's decision,
// start, seats and queue, and the seat demand integrators. Each request's queue is also held
// to upstream's shuffle sharding scan.
func TestDispatchAtOnceIsEnqueueAndDispatch(t *testing.T) {
	shortcuts, queued := 0, 0
	for seed := uint64(1); seed <= 40; seed++ {
		r := rand.New(rand.NewPCG(seed, 2))
		k := sim.New(seed)
		nq := 1 + r.IntN(20)
		handSize := 1 + r.IntN(min(nq, 6))
		queueLengthLimit, limit := 1+r.IntN(4), 1+r.IntN(3)
		var demand [2]integrator
		var sets [2]*queueSet
		for i := range sets {
			sets[i] = newQueueSet(k, nq, handSize, queueLengthLimit, func(v float64) { demand[i].set(k.Now(), v) })
			sets[i].concurrencyLimit = limit
		}
		sets[1].queueEveryRequest = true
		var executing, waiting [][2]*apfRequest
		step := 0
		var next func()
		next = func() {
			if step++; step > 500 {
				return
			}
			switch op := r.IntN(10); {
			case op < 4:
				est := workEstimate{initialSeats: 1 + r.IntN(2), finalSeats: r.IntN(6)}
				if est.finalSeats > 0 {
					est.additionalLatency = time.Duration(r.IntN(5)) * time.Millisecond
				}
				hash := r.Uint64()
				want := upstreamShuffleShard(sets[1], hash)
				var pair [2]*apfRequest
				idle := sets[0].totRequestsWaiting == 0
				for i, qs := range sets {
					pair[i], _ = qs.startRequest(nil, est, hash, nil)
				}
				require.Equal(t, pair[1] == nil, pair[0] == nil, "seed %d step %d: rejected", seed, step)
				if pair[0] == nil {
					break
				}
				require.Equal(t, want, int(pair[0].queue.index), "seed %d step %d: upstream's queue", seed, step)
				if pair[0].decision == 0 {
					waiting = append(waiting, pair)
					queued++
				} else {
					executing = append(executing, pair)
					if idle {
						shortcuts++
					}
				}
			case op < 8 && len(executing) > 0:
				i := r.IntN(len(executing))
				pair := executing[i]
				executing = append(executing[:i], executing[i+1:]...)
				for j, qs := range sets {
					qs.finish(pair[j])
				}
			case op < 9 && len(waiting) > 0:
				pair := waiting[r.IntN(len(waiting))]
				for j, qs := range sets {
					qs.timeOut(pair[j])
				}
			case op < 10:
				cl := 1 + r.IntN(4)
				for _, qs := range sets {
					qs.setConcurrencyLimit(cl)
				}
			}
			kept := waiting[:0]
			for _, pair := range waiting {
				switch pair[0].decision {
				case 0:
					kept = append(kept, pair)
				case decisionExecute:
					executing = append(executing, pair)
				}
			}
			waiting = kept
			for _, pair := range append(append([][2]*apfRequest(nil), waiting...), executing...) {
				require.Equal(t, summarizeRequest(pair[1]), summarizeRequest(pair[0]), "seed %d step %d: request", seed, step)
			}
			require.Equal(t, summarizeQueueSet(sets[1]), summarizeQueueSet(sets[0]), "seed %d step %d: queue set", seed, step)
			require.Equal(t, demand[1], demand[0], "seed %d step %d: seat demand", seed, step)
			k.After(time.Duration(r.IntN(3))*time.Millisecond, next)
		}
		k.After(0, next)
		k.Run(sim.Limits{})
		require.Greater(t, step, 500, "seed %d: the script ran", seed)
	}
	require.Greater(t, shortcuts, 500, "requests dispatched at once")
	require.Greater(t, queued, 500, "requests queued")
}

// requestSummary is what a request's queue set decided about it: its state, with its queue
// by index and without its pointers.
type requestSummary struct {
	queueIndex int
	state      apfRequestState
}

func summarizeRequest(r *apfRequest) requestSummary {
	s := requestSummary{queueIndex: -1, state: r.apfRequestState}
	if r.queue != nil {
		s.queueIndex = int(r.queue.index)
	}
	s.state.qs, s.state.queue, s.state.proc = nil, nil, nil
	return s
}

// queueSetSummary is every counter of a queue set and of its queues.
type queueSetSummary struct {
	limit, robinIndex, enqueues                  int
	currentR                                     seatSeconds
	lastRealTime                                 vtime.Time
	waiting, executing, seatsInUse, seatsWaiting int
	activeQueues, waitingQueues                  int
	queues                                       []queueSummary
}

type queueSummary struct {
	length, maxSeatsSum, executing, seatsInUse, waitingAt int
	workSum, nextDispatchR                                seatSeconds
}

func summarizeQueueSet(qs *queueSet) queueSetSummary {
	s := queueSetSummary{limit: qs.concurrencyLimit, robinIndex: qs.robinIndex, enqueues: qs.enqueues,
		currentR: qs.currentR, lastRealTime: qs.lastRealTime, waiting: qs.totRequestsWaiting,
		executing: qs.totRequestsExecuting, seatsInUse: qs.totSeatsInUse, seatsWaiting: qs.totSeatsWaiting,
		activeQueues: qs.activeQueues, waitingQueues: len(qs.waitingQueues)}
	for _, q := range qs.queues {
		s.queues = append(s.queues, queueSummary{length: q.length(), maxSeatsSum: int(q.maxSeatsSum), executing: int(q.executing),
			seatsInUse: int(q.seatsInUse), waitingAt: int(q.waitingAt), workSum: *q.workSum, nextDispatchR: q.nextDispatchR})
	}
	return s
}
