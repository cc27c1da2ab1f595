package apiserver

import (
	"math"
	"sort"

	"github.com/reconsim/reconsim/vtime"
)

// integrator is fairqueuing's Integrator ([apiserver@v0.37]
// pkg/util/flowcontrol/fairqueuing/integrator.go): the time-weighted average, deviation and
// maximum of a level's seat demand since the last Reset.
type integrator struct {
	value, max  float64
	last, start vtime.Time
	sum, sumSq  float64
}

func (g *integrator) advance(now vtime.Time) {
	dt := now.Sub(g.last).Seconds()
	g.sum += g.value * dt
	g.sumSq += g.value * g.value * dt
	g.last = now
}

// set is Integrator.Set. A set at the instant of the last one with the value it set changes
// nothing (the values are finite and not negative: the sums gain value*0 = +0), which
// queueSet.dispatchAtOnce relies on.
func (g *integrator) set(now vtime.Time, v float64) {
	g.advance(now)
	g.value = v
	g.max = math.Max(g.max, v)
}

// reset is Integrator.Reset: the results so far, then a new period whose maximum starts at
// the current value.
func (g *integrator) reset(now vtime.Time, _ float64) integratorResults {
	g.advance(now)
	var r integratorResults
	r.duration = now.Sub(g.start).Seconds()
	r.max = g.max
	if r.duration > 0 {
		r.average = g.sum / r.duration
		variance := g.sumSq/r.duration - r.average*r.average
		if variance > 0 {
			r.deviation = math.Sqrt(variance)
		}
	}
	g.start, g.sum, g.sumSq, g.max = now, 0, 0, g.value
	return r
}

// integratorResults is IntegratorResults.
type integratorResults struct {
	duration, average, deviation, max float64
}

// seatDemandStats is apf_controller.go's seatDemandStats.
type seatDemandStats struct {
	avg, stdDev, highWatermark, smoothed float64
}

// update is seatDemandStats.update.
func (s *seatDemandStats) update(obs integratorResults) {
	s.highWatermark = obs.max
	if obs.duration <= 0 {
		return
	}
	s.avg, s.stdDev = obs.average, obs.deviation
	envelope := obs.average + obs.deviation
	s.smoothed = math.Max(envelope, seatDemandSmoothingCoefficient*s.smoothed+(1-seatDemandSmoothingCoefficient)*envelope)
}

// allocItem is conc_alloc.go's allocProblemItem.
type allocItem struct{ lower, upper, target float64 }

// updateBorrowing is apf_controller.go updateBorrowingLocked, run every
// borrowingAdjustmentPeriod: each level's seat demand over the period gives it a lower bound
// (its minimum, raised towards its nominal limit by its demand high-water mark) and a target
// (its smoothed demand); exempt levels take their lower bound off the pool first, and the
// rest of the pool is divided by computeConcurrencyAllocation.
func (a *apf) updateBorrowing() {
	now := a.k.Now()
	remaining := float64(a.nominalCLSum)
	var items []allocItem
	var limited []*priorityLevel
	sumMin, sumMinCurrent := 0.0, 0.0
	for _, l := range a.levels {
		l.demandStats.update(l.demand.reset(now, 0))
		if l.exempt {
			minCurrent := math.Max(float64(l.minCL), l.demandStats.highWatermark)
			remaining -= minCurrent
			l.currentCL = int(math.Round(minCurrent))
			continue
		}
		minCurrent := math.Max(float64(l.minCL), math.Min(float64(l.nominalCL), l.demandStats.highWatermark))
		items = append(items, allocItem{lower: minCurrent, upper: float64(l.maxCL), target: math.Max(minCurrent, l.demandStats.smoothed)})
		limited = append(limited, l)
		sumMin += float64(l.minCL)
		sumMinCurrent += minCurrent
	}
	allocs := make([]float64, len(items))
	switch {
	case remaining <= sumMin:
		for i, l := range limited {
			allocs[i] = float64(l.minCL)
		}
	case remaining <= sumMinCurrent:
		frac := (remaining - sumMin) / (sumMinCurrent - sumMin)
		for i, l := range limited {
			allocs[i] = float64(l.minCL) + math.Round((items[i].lower-float64(l.minCL))*frac)
		}
	default:
		allocs = computeConcurrencyAllocation(remaining, items)
	}
	for i, l := range limited {
		l.currentCL = int(math.Round(allocs[i]))
		l.qs.setConcurrencyLimit(l.currentCL)
	}
}

// computeConcurrencyAllocation is conc_alloc.go's: the allocation clamp(fairProp × target,
// lower, upper) per item, with the one fairProp that makes them sum to required; all lower
// bounds when they already reach it, all upper bounds when even they fall short.
func computeConcurrencyAllocation(required float64, items []allocItem) []float64 {
	out := make([]float64, len(items))
	at := func(p float64) float64 {
		sum := 0.0
		for _, it := range items {
			sum += math.Min(it.upper, math.Max(it.lower, p*it.target))
		}
		return sum
	}
	lowSum, highSum := 0.0, 0.0
	for _, it := range items {
		lowSum += it.lower
		highSum += it.upper
	}
	switch {
	case lowSum >= required:
		for i, it := range items {
			out[i] = it.lower
		}
		return out
	case highSum <= required:
		for i, it := range items {
			out[i] = it.upper
		}
		return out
	}
	// f(p) is piecewise linear and non-decreasing; its breakpoints are lower/target and
	// upper/target. Find the segment where it crosses required and interpolate.
	var bps []float64
	for _, it := range items {
		if it.target > 0 {
			bps = append(bps, it.lower/it.target, it.upper/it.target)
		}
	}
	sort.Float64s(bps)
	prevP, prevF := 0.0, at(0)
	p := prevP
	for _, b := range bps {
		f := at(b)
		if f >= required {
			if f == prevF {
				p = b
			} else {
				p = prevP + (b-prevP)*(required-prevF)/(f-prevF)
			}
			break
		}
		prevP, prevF = b, f
		p = b
	}
	for i, it := range items {
		out[i] = math.Min(it.upper, math.Max(it.lower, p*it.target))
	}
	return out
}

// droppedRequests is dropped_requests_tracker.go's droppedRequestsStats for one level
// ([apiserver@v0.37] pkg/util/flowcontrol/dropped_requests_tracker.go, since 1.28): the
// Retry-After it advertises starts at 1s; when a drop opens a new second, the drops of the
// previous retryAfter whole seconds double it (at least 3 × retryAfter drops, at most once per
// retryAfter seconds, capped at 32s) or shrink it by one (fewer than retryAfter).
type droppedRequests struct {
	history          []droppedSecond
	currentUnix      int64
	currentCount     int64
	retryAfter       int64
	retryAfterUpdate int64
}

type droppedSecond struct{ unix, requests int64 }

// record is recordDroppedRequest.
func (d *droppedRequests) record(unix int64) {
	if d.currentUnix == unix {
		d.currentCount++
		return
	}
	d.updateHistory(d.currentUnix, d.currentCount)
	d.currentUnix, d.currentCount = unix, 1
	d.update(unix)
}

// updateHistory is updateHistory: entries older than min(2 × retryAfter, 32s) go.
func (d *droppedRequests) updateHistory(unix, count int64) {
	d.history = append(d.history, droppedSecond{unix: unix, requests: count})
	maxHistory := min(2*d.retryAfter, maxRetryAfter)
	start := 0
	for start < len(d.history) && unix-d.history[start].unix > maxHistory {
		start++
	}
	if start > 0 {
		d.history = append(d.history[:0], d.history[start:]...)
	}
}

// update is updateRetryAfterIfNeededLocked, over the interval [unix-retryAfter, unix).
func (d *droppedRequests) update(unix int64) {
	retryAfter := d.retryAfter
	var dropped int64
	for i := len(d.history) - 1; i >= 0; i-- {
		if unix-d.history[i].unix > retryAfter {
			break
		}
		if d.history[i].unix < unix {
			dropped += d.history[i].requests
		}
	}
	if unix-d.retryAfterUpdate >= retryAfter && dropped >= 3*retryAfter {
		d.retryAfter = min(2*retryAfter, maxRetryAfter)
		d.retryAfterUpdate = unix
		return
	}
	if dropped < retryAfter && retryAfter > 1 {
		d.retryAfter = retryAfter - 1
	}
}
