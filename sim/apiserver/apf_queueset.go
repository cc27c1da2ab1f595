package apiserver

import (
	"math"
	"time"

	"github.com/reconsim/reconsim/sim"
	"github.com/reconsim/reconsim/vtime"
)

// This file is upstream's fair queuing for server requests, one queueSet per priority level
// ([apiserver@v0.37] pkg/util/flowcontrol/fairqueuing/queueset/queueset.go, the shuffle
// sharding dealer of pkg/util/shufflesharding/shufflesharding.go and the seat-second
// arithmetic of pkg/util/flowcontrol/request/seat_seconds.go). It is single-threaded: the
// kernel runs one process at a time, so upstream's lock has no counterpart, and upstream's
// promise becomes a parked process that dispatch unparks.

// seatSeconds is upstream's SeatSeconds: fixed point, 1e8 units per seat-second
// (request/seat_seconds.go ssScale).
type seatSeconds uint64

const (
	ssScale        = 1e8
	maxSeatSeconds = seatSeconds(math.MaxUint64)
)

// seatsTimesDuration is request.SeatsTimesDuration: seats × d, rounded to the unit.
func seatsTimesDuration(seats float64, d time.Duration) seatSeconds {
	return seatSeconds(math.Round(seats * float64(d/time.Nanosecond) / (1e9 / ssScale)))
}

// durationPerSeat is SeatSeconds.DurationPerSeat.
func (ss seatSeconds) durationPerSeat(seats float64) time.Duration {
	return time.Duration(float64(ss) / seats * (float64(time.Second) / ssScale))
}

// estimatedServiceDuration is the service time queueset.go assumes for every request when it
// computes work (queueSetCompleter.Complete: estimatedServiceDuration: 3 * time.Millisecond).
const estimatedServiceDuration = 3 * time.Millisecond

// dealer is shufflesharding.Dealer: it deals a hand of handSize distinct queue indices out of
// deckSize from a hash value.
type dealer struct{ deckSize, handSize int }

// deal is Dealer.DealIntoHand.
func (d dealer) deal(hashValue uint64, hand []int) []int {
	var remainders [15]int // 15 is the largest hand (shufflesharding.go)
	for i := 0; i < d.handSize; i++ {
		next := hashValue / uint64(d.deckSize-i)
		remainders[i] = int(hashValue - uint64(d.deckSize-i)*next)
		hashValue = next
	}
	hand = hand[:0]
	for i := 0; i < d.handSize; i++ {
		card := remainders[i]
		for j := i; j > 0; j-- {
			if card >= remainders[j-1] {
				card++
			}
		}
		hand = append(hand, card)
	}
	return hand
}

// dealtHand is a flow's hand of queues as a queue set dealt it from the flow's hash: cards[:n].
// The cards are held by value, beside the rest of the flow's classification, rather than in
// an array of their own, another object to find cold on a client's next request.
//
// The cards are int32 (a level has at most 10^7 queues, model.maxQueues), so that a hand of up
// to 7 cards shares its classification's first cache line with the level and the flow's hash.
type dealtHand struct {
	qs    *queueSet
	hash  uint64
	n     int32
	cards [15]int32 // 15 is the largest hand (dealer.deal)
}

// apfRequest is one request in a queueSet (queueset/types.go request). A queue set reuses
// the apfRequests of finished requests (spare): the state is each request's own, the timer
// the apfRequest's.
type apfRequest struct {
	apfRequestState
	// timeout rejects the request when its queue wait runs out: armed while it waits, made
	// once per apfRequest (newRequest) and never overwritten, since an event of the timer's
	// may still be in the kernel's heap, disarmed by the timer's generation, which must go on
	// counting.
	timeout sim.Timer
}

// apfRequestState is what an apfRequest knows of its request.
type apfRequestState struct {
	qs    *queueSet
	queue *fqQueue // nil when dispatched without queuing
	proc  *sim.Proc

	arrival  vtime.Time
	arrivalR seatSeconds
	start    vtime.Time

	initialSeats, finalSeats int
	additionalLatency        time.Duration
	totalWork, finalWork     seatSeconds

	// decision: 0 waiting, decisionExecute or decisionReject.
	decision int
}

// timedOut is the timeout's function: the request, still in its queue, is rejected and its
// process resumed.
func (r *apfRequest) timedOut() {
	if r.qs.timeOut(r) {
		r.proc.Unpark()
	}
}

const (
	decisionExecute = 1
	decisionReject  = 2
)

func (r *apfRequest) maxSeats() int { return max(r.initialSeats, r.finalSeats) }

// fqQueue is one queue of a queueSet (queueset/types.go queue with its requestFIFO's sums).
//
// A queue is 64 bytes, a size class whose allocations start on a cache line: a request reads
// one line of its flow's queue, which it finds cold (a kubelet's queue is touched every 10 s).
// The counts are int32: a queue's place and length are below a level's 10^7 queues and
// its queue length limit, its seats below the server's concurrency.
type fqQueue struct {
	waiting []*apfRequest
	// sums over waiting requests (queueSum): total work and max seats. The work sum lives in
	// its queue set's workSums (at the queue's index), which shuffle sharding reads for every
	// request's hand of queues: one array, not a queue object per card.
	workSum       *seatSeconds
	nextDispatchR seatSeconds
	index         int32
	head          int32
	maxSeatsSum   int32
	executing     int32
	seatsInUse    int32
	// waitingAt is the queue's index in its queueSet's waitingQueues, -1 when it has no
	// request waiting.
	waitingAt int32
}

func (q *fqQueue) length() int { return len(q.waiting) - int(q.head) }

func (q *fqQueue) peek() *apfRequest {
	if int(q.head) < len(q.waiting) {
		return q.waiting[q.head]
	}
	return nil
}

func (q *fqQueue) enqueue(r *apfRequest) {
	q.waiting = append(q.waiting, r)
	*q.workSum += r.totalWork
	q.maxSeatsSum += int32(r.maxSeats())
}

// remove takes r out of the queue (the head, usually; a timed-out request may be anywhere).
func (q *fqQueue) remove(r *apfRequest) bool {
	for i := int(q.head); i < len(q.waiting); i++ {
		if q.waiting[i] != r {
			continue
		}
		if i == int(q.head) {
			q.waiting[i] = nil
			q.head++
			if int(q.head) == len(q.waiting) {
				q.waiting, q.head = q.waiting[:0], 0
			}
		} else {
			copy(q.waiting[i:], q.waiting[i+1:])
			q.waiting[len(q.waiting)-1] = nil
			q.waiting = q.waiting[:len(q.waiting)-1]
		}
		*q.workSum -= r.totalWork
		q.maxSeatsSum -= int32(r.maxSeats())
		return true
	}
	return false
}

// queueSet is the queues and dispatch state of one priority level (queueset.go queueSet).
type queueSet struct {
	k *sim.Kernel
	// queues: 0 for a level without queuing (Reject), -1 for exempt (DesiredNumQueues < 0).
	numQueues        int
	queueLengthLimit int
	dealer           dealer
	concurrencyLimit int

	queues []*fqQueue
	// workSums are the queues' work sums (fqQueue.workSum), by queue index.
	workSums     []seatSeconds
	currentR     seatSeconds
	lastRealTime vtime.Time
	robinIndex   int
	enqueues     int

	totRequestsWaiting   int
	totRequestsExecuting int
	totSeatsInUse        int
	totSeatsWaiting      int
	activeQueues         int

	// lastHand is the hand of the last request whose flow keeps none (shuffleShard).
	lastHand dealtHand
	// waitingQueues are the queues with a request waiting, in no order: dispatch looks at
	// them instead of at every queue.
	waitingQueues []*fqQueue
	// spare are finished requests for newRequest to reuse (finish).
	spare sim.FreeList[apfRequest]
	// onDemand is told the seat demand (seats in use plus seats waiting) whenever it changes
	// (upstream's seatDemandIntegrator.Set).
	onDemand func(float64)
	// queueEveryRequest makes every request of a queuing level go through its queue, as
	// upstream's code does, instead of dispatchAtOnce's shortcut for a request that finds
	// nothing waiting; only the test that holds the shortcut to the queue sets it.
	queueEveryRequest bool
}

func newQueueSet(k *sim.Kernel, numQueues, handSize, queueLengthLimit int, onDemand func(float64)) *queueSet {
	qs := &queueSet{k: k, numQueues: numQueues, queueLengthLimit: queueLengthLimit, lastRealTime: k.Now(), onDemand: onDemand, robinIndex: -1}
	if numQueues > 0 {
		qs.dealer = dealer{deckSize: numQueues, handSize: handSize}
		qs.queues = make([]*fqQueue, numQueues)
		qs.workSums = make([]seatSeconds, numQueues)
		for i := range qs.queues {
			qs.queues[i] = &fqQueue{index: int32(i), waitingAt: -1, workSum: &qs.workSums[i]}
		}
	}
	return qs
}

func (qs *queueSet) noteDemand() {
	if qs.onDemand != nil {
		qs.onDemand(float64(qs.totSeatsInUse + qs.totSeatsWaiting))
	}
}

// syncTime is syncTimeLocked: R advances at getVirtualTimeRatioLocked seats per queue.
func (qs *queueSet) syncTime() {
	now := qs.k.Now()
	since := now.Sub(qs.lastRealTime)
	qs.lastRealTime = now
	if since > 0 && qs.numQueues > 0 {
		qs.currentR += seatsTimesDuration(qs.virtualTimeRatio(), since)
	}
}

// virtualTimeRatio is getVirtualTimeRatioLocked: min(seats requested, concurrency limit)
// divided by the number of active queues. Upstream sums over the queues; the sums are kept
// here as the queues change: the seats requested are the queued requests' seats in use plus
// the waiting requests' seats (every request of a queuing level is in a queue), and
// activeQueues counts the queues with a request waiting or executing.
func (qs *queueSet) virtualTimeRatio() float64 {
	if qs.activeQueues == 0 {
		return 0
	}
	seats := qs.totSeatsInUse + qs.totSeatsWaiting
	return math.Min(float64(seats), float64(qs.concurrencyLimit)) / float64(qs.activeQueues)
}

func (q *fqQueue) active() bool { return q.length() > 0 || q.executing > 0 }

// noteActive updates activeQueues after a change to q that made it active (was false) or may
// have made it idle (was true).
func (qs *queueSet) noteActive(q *fqQueue, was bool) {
	switch now := q.active(); {
	case now && !was:
		qs.activeQueues++
	case !now && was:
		qs.activeQueues--
	}
}

// canAccommodateSeats is canAccommodateSeatsLocked.
func (qs *queueSet) canAccommodateSeats(seats int) bool {
	switch {
	case qs.numQueues < 0:
		return true
	case seats > qs.concurrencyLimit:
		return qs.totRequestsExecuting == 0
	case qs.totSeatsInUse+seats > qs.concurrencyLimit:
		return false
	}
	return true
}

// setConcurrencyLimit is Complete(DispatchingConfig{ConcurrencyLimit}) after borrowing:
// the new limit applies at once and dispatch runs.
func (qs *queueSet) setConcurrencyLimit(cl int) {
	qs.syncTime()
	qs.concurrencyLimit = cl
	qs.dispatchAsMuchAsPossible()
}

// newRequest builds a request with its completed work estimate (completeWorkEstimate).
func (qs *queueSet) newRequest(p *sim.Proc, est workEstimate) *apfRequest {
	r := qs.spare.Take()
	if r == nil {
		r = new(apfRequest)
		qs.k.InitTimer(&r.timeout, r.timedOut)
	}
	r.apfRequestState = apfRequestState{qs: qs, proc: p, arrival: qs.k.Now(), arrivalR: qs.currentR,
		initialSeats: est.initialSeats, finalSeats: est.finalSeats, additionalLatency: est.additionalLatency}
	r.finalWork = seatsTimesDuration(float64(est.finalSeats), est.additionalLatency)
	r.totalWork = seatsTimesDuration(float64(est.initialSeats), estimatedServiceDuration) + r.finalWork
	return r
}

// Reject reasons, as upstream's apiserver_flowcontrol_rejected_requests_total labels them.
const (
	rejectConcurrencyLimit = "concurrency-limit"
	rejectQueueFull        = "queue-full"
	rejectTimeOut          = "time-out"
)

// startRequest is StartRequest: an exempt level or a level without queues dispatches at once
// (or rejects with concurrency-limit); a queuing level shuffle-shards the request into a
// queue (or rejects it with queue-full) and dispatches as much as possible. It returns the
// request and "" or nil and the reject reason.
//
// dealt, when not nil, is where the flow keeps its hand (shuffleShard).
func (qs *queueSet) startRequest(p *sim.Proc, est workEstimate, hashValue uint64, dealt *dealtHand) (*apfRequest, string) {
	qs.syncTime()
	if qs.numQueues < 1 {
		r := qs.newRequest(p, est)
		if !qs.canAccommodateSeats(r.maxSeats()) {
			return nil, rejectConcurrencyLimit
		}
		r.start = qs.k.Now()
		r.decision = decisionExecute
		qs.totRequestsExecuting++
		qs.totSeatsInUse += r.maxSeats()
		qs.noteDemand()
		return r, ""
	}
	queue := qs.queues[qs.shuffleShard(hashValue, dealt)]
	r := qs.newRequest(p, est)
	r.queue = queue
	if qs.totRequestsWaiting == 0 && qs.totSeatsInUse < qs.concurrencyLimit &&
		qs.canAccommodateSeats(r.maxSeats()) && !qs.queueEveryRequest {
		qs.dispatchAtOnce(r)
		return r, ""
	}
	// rejectOrEnqueueToBoundLocked
	if qs.totSeatsInUse >= qs.concurrencyLimit && queue.length() >= qs.queueLengthLimit {
		return nil, rejectQueueFull
	}
	// enqueueToBoundLocked
	wasActive := queue.active()
	if !wasActive {
		queue.nextDispatchR = qs.currentR
	}
	queue.enqueue(r)
	qs.noteWaiting(queue)
	qs.noteActive(queue, wasActive)
	qs.totRequestsWaiting++
	qs.totSeatsWaiting += r.maxSeats()
	qs.noteDemand()
	qs.boundNextDispatch(queue)
	qs.dispatchAsMuchAsPossible()
	return r, ""
}

// dispatchAtOnce is what enqueueing r and dispatching as much as possible do to a queue set
// with no request waiting and seats for r (every request of a level that keeps up, a
// kubelet's Lease renewal among them): the dispatch scan finds r's queue the only one waiting,
// and r leaves it at once. The state it leaves is theirs, without r passing through the
// queue, waitingQueues and the scan; the seat demand they set twice, to the same value at
// the same instant, is set once (a repeated Set is a no-op: integrator.set).
func (qs *queueSet) dispatchAtOnce(r *apfRequest) {
	queue := r.queue
	waitingSeats := r.maxSeats() // what the enqueue adds to totSeatsWaiting
	// enqueueToBoundLocked, then boundNextDispatchLocked with r the queue's oldest request
	if !queue.active() {
		queue.nextDispatchR = qs.currentR
		qs.activeQueues++
	}
	queue.nextDispatchR = max(queue.nextDispatchR, r.arrivalR)
	// dispatchLocked
	if r.finalSeats > qs.concurrencyLimit {
		r.finalSeats = qs.concurrencyLimit
		r.additionalLatency = r.finalWork.durationPerSeat(float64(r.finalSeats))
	}
	seats := r.maxSeats()
	qs.robinIndex = int(queue.index)
	qs.totSeatsWaiting += waitingSeats - seats
	r.start = qs.k.Now()
	r.decision = decisionExecute
	qs.totRequestsExecuting++
	qs.totSeatsInUse += seats
	queue.executing++
	queue.seatsInUse += int32(seats)
	qs.noteDemand()
	queue.nextDispatchR += r.totalWork
}

// shuffleShard is shuffleShardLocked: of the hand dealt from the flow's hash, the queue with
// the least waiting work, scanning from a rotating offset. The hand is a function of the hash
// and the dealer alone, so a flow that keeps it in dealt (its classification does) is dealt
// once per queue set instead of once per request: a division per card.
func (qs *queueSet) shuffleShard(hashValue uint64, dealt *dealtHand) int {
	if dealt == nil {
		dealt = &qs.lastHand
	}
	if dealt.qs != qs || dealt.hash != hashValue {
		var cards [len(dealt.cards)]int
		hand := qs.dealer.deal(hashValue, cards[:0])
		for i, c := range hand {
			dealt.cards[i] = int32(c)
		}
		dealt.qs, dealt.hash, dealt.n = qs, hashValue, int32(len(hand))
	}
	hand := dealt.cards[:dealt.n]
	offset := qs.enqueues % len(hand)
	qs.enqueues++
	if qs.totRequestsWaiting == 0 {
		// Every queue is empty and its work sum 0: the scan keeps its first card.
		return int(hand[offset])
	}
	best, least := -1, maxSeatSeconds
	card := offset // (offset+i) % len(hand), without a division per card
	for range hand {
		idx := hand[card]
		if w := qs.workSums[idx]; w < least {
			least, best = w, int(idx)
		}
		if card++; card == len(hand) {
			card = 0
		}
	}
	return best
}

// dispatchAsMuchAsPossible is dispatchAsMuchAsPossibleLocked.
func (qs *queueSet) dispatchAsMuchAsPossible() {
	for qs.totRequestsWaiting != 0 && qs.totSeatsInUse < qs.concurrencyLimit && qs.dispatch() {
	}
}

// noteWaiting keeps q's place in waitingQueues up to date after a request joined or left it.
func (qs *queueSet) noteWaiting(q *fqQueue) {
	switch waiting := q.length() > 0; {
	case waiting && q.waitingAt < 0:
		q.waitingAt = int32(len(qs.waitingQueues))
		qs.waitingQueues = append(qs.waitingQueues, q)
	case !waiting && q.waitingAt >= 0:
		last := qs.waitingQueues[len(qs.waitingQueues)-1]
		qs.waitingQueues[q.waitingAt], last.waitingAt = last, q.waitingAt
		qs.waitingQueues[len(qs.waitingQueues)-1] = nil
		qs.waitingQueues = qs.waitingQueues[:len(qs.waitingQueues)-1]
		q.waitingAt = -1
	}
}

// dispatch is dispatchLocked with findDispatchQueueToBoundLocked: the queue whose oldest
// request has the least virtual finish time, scanned round robin, dispatches that request if
// its seats fit. Upstream scans every queue, from the one after robinIndex, keeping the first
// least finish; this looks only at the queues with a request waiting and breaks ties by the
// same scan order, so it picks the same queue. A scan that dispatched nothing left robinIndex
// where it was, but for -1 (the start), which became the last index: the same next scan.
func (qs *queueSet) dispatch() bool {
	var minQueue *fqQueue
	minFinish, minDist := maxSeatSeconds, 0
	nq := len(qs.queues)
	for _, q := range qs.waitingQueues {
		f := q.nextDispatchR + q.peek().totalWork
		// The queue's place in the scan, 0 for the one after robinIndex: (q.index -
		// robinIndex - 1) mod nq, where the difference is within [-nq, nq) (robinIndex is -1
		// or a queue's index), so that a burst's many waiting queues take no division each.
		dist := int(q.index) - qs.robinIndex - 1
		if dist < 0 {
			dist += nq
		}
		if f < minFinish || minQueue != nil && f == minFinish && dist < minDist {
			minFinish, minQueue, minDist = f, q, dist
		}
	}
	if nq > 0 && qs.robinIndex < 0 {
		qs.robinIndex = nq - 1
	}
	if minQueue == nil {
		return false
	}
	r := minQueue.peek()
	if !qs.canAccommodateSeats(r.maxSeats()) {
		return false
	}
	minIndex := int(minQueue.index)
	minQueue.remove(r)
	qs.noteWaiting(minQueue)
	if r.finalSeats > qs.concurrencyLimit {
		// Final seats beyond the limit shrink to it, the latency stretching to keep the work.
		r.finalSeats = qs.concurrencyLimit
		r.additionalLatency = r.finalWork.durationPerSeat(float64(r.finalSeats))
	}
	qs.robinIndex = minIndex
	qs.totRequestsWaiting--
	qs.totSeatsWaiting -= r.maxSeats()
	r.start = qs.k.Now()
	r.decision = decisionExecute
	qs.totRequestsExecuting++
	qs.totSeatsInUse += r.maxSeats()
	minQueue.executing++
	minQueue.seatsInUse += int32(r.maxSeats())
	qs.noteDemand()
	minQueue.nextDispatchR += r.totalWork
	qs.boundNextDispatch(minQueue)
	r.timeout.Stop()
	if r.proc != nil {
		r.proc.Unpark()
	}
	return true
}

// boundNextDispatch is boundNextDispatchLocked, the anti-windup hack: dispatch in the
// virtual world does not precede the arrival of the queue's oldest request.
func (qs *queueSet) boundNextDispatch(q *fqQueue) {
	if oldest := q.peek(); oldest != nil && q.nextDispatchR < oldest.arrivalR {
		q.nextDispatchR = oldest.arrivalR
	}
}

// timeOut rejects a request still waiting in its queue (the request context's deadline, set
// by the filter's getRequestWaitContext, passed: reject reason time-out).
func (qs *queueSet) timeOut(r *apfRequest) bool {
	if r.decision != 0 {
		return false
	}
	qs.syncTime()
	r.decision = decisionReject
	q := r.queue
	if q.remove(r) {
		qs.noteWaiting(q)
		qs.noteActive(q, true)
		qs.totRequestsWaiting--
		qs.totSeatsWaiting -= r.maxSeats()
		qs.noteDemand()
		qs.boundNextDispatch(q)
	}
	return true
}

// finish is finishRequestLocked and the dispatch after it: the request's initial seats go
// now; its final seats (watch fan-out) linger for its additional latency.
func (qs *queueSet) finish(r *apfRequest) {
	qs.syncTime()
	qs.totRequestsExecuting--
	actual := qs.k.Now().Sub(r.start)
	if q := r.queue; q != nil {
		q.executing--
		qs.noteActive(q, true)
		// "the queue's start R is decremented by (G - S) × width", in signed arithmetic
		// (upstream converts a negative product to its unsigned SeatSeconds).
		adj := int64(r.initialSeats) * int64(actual-estimatedServiceDuration) / (1e9 / ssScale)
		q.nextDispatchR = seatSeconds(max(0, int64(q.nextDispatchR)+adj))
		qs.boundNextDispatch(q)
	}
	if r.additionalLatency <= 0 {
		qs.releaseSeats(r)
		qs.dispatchAsMuchAsPossible()
		// Nothing refers to r any more but its timeout, disarmed (dispatch stopped it), whose
		// stale event in the kernel's heap, if any, the timer's generation ignores.
		r.apfRequestState = apfRequestState{}
		qs.spare.Put(r)
		return
	}
	qs.k.After(r.additionalLatency, func() {
		qs.syncTime()
		qs.releaseSeats(r)
		qs.dispatchAsMuchAsPossible()
	})
	qs.dispatchAsMuchAsPossible()
}

func (qs *queueSet) releaseSeats(r *apfRequest) {
	qs.totSeatsInUse -= r.maxSeats()
	if r.queue != nil {
		r.queue.seatsInUse -= int32(r.maxSeats())
	}
	qs.noteDemand()
}
