package cluster

import (
	"time"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim/apiserver"
)

// sampleInterval is the resolution of the rate and gauge series (API load, queue depths):
// counters are turned into per-second rates over each interval.
const sampleInterval = time.Second

// sampler records, every sampleInterval of virtual time, the API server's request rate, 429
// rate, in-flight requests and p99 latency, and the depth of the controllers' work queues. It
// runs on an idle timer, so it never keeps a quiet world from being quiescent.
type sampler struct {
	w            *world
	lastRequests uint64
	last429      uint64
	lastLatency  map[model.Verb]apiserver.LatencyHistogram
	hasLoads     bool
	// lastAPF is each priority level's statistics at the previous sample.
	lastAPF []apiserver.APFLevelStats
	// p99Counts is mutatingP99's buffer.
	p99Counts []uint64
	// apfSeries holds each priority level's five series names (apfSeriesNames), built once
	// rather than at every sample.
	apfSeries map[string]*[5]string
}

// apfSeriesNames returns the names of level's five series, in sampleAPF's order.
func (s *sampler) apfSeriesNames(level string) *[5]string {
	if names, ok := s.apfSeries[level]; ok {
		return names
	}
	p := "apf." + level + "."
	names := &[5]string{p + "inqueue", p + "executing_seats", p + "current_limit_seats", p + "rejected_per_second", p + "wait_seconds"}
	if s.apfSeries == nil {
		s.apfSeries = map[string]*[5]string{}
	}
	s.apfSeries[level] = names
	return names
}

func (w *world) startSampler() {
	s := &sampler{w: w, lastLatency: map[model.Verb]apiserver.LatencyHistogram{}, hasLoads: len(w.metrics.Loads()) > 0}
	w.k.Every(sampleInterval, s.sample)
}

var mutatingVerbs = []model.Verb{model.VerbCreate, model.VerbUpdate, model.VerbPatch, model.VerbDelete}

func (s *sampler) sample() {
	o := s.w.obs
	st := s.w.srv.Stats()
	secs := sampleInterval.Seconds()
	total, throttled := st.TotalRequests(), st.TooManyRequests()
	o.sample("apiserver.requests_per_second", "requests/s", float64(total-s.lastRequests)/secs)
	o.sample("apiserver.throttled_429_per_second", "requests/s", float64(throttled-s.last429)/secs)
	s.lastRequests, s.last429 = total, throttled
	ro, mut := st.Inflight()
	o.sample("apiserver.inflight_readonly", "requests", float64(ro))
	o.sample("apiserver.inflight_mutating", "requests", float64(mut))
	o.sample("apiserver.latency_p99_seconds", "seconds", s.mutatingP99(st))

	s.sampleAPF()

	o.sample("workqueue.replicaset-controller.depth", "items", float64(s.w.rs.Stats().Queue.Depth))
	s.sampleUserQueues()
	// Status walks every pod; a world without loads has nothing to report.
	if !s.hasLoads {
		return
	}
	for _, l := range s.w.metrics.Status() {
		prefix := "load." + l.Name + "."
		o.sample(prefix+"offered", "units/s", l.Offered)
		o.sample(prefix+"served", "units/s", l.Served)
		o.sample(prefix+"ready_pods", "pods", float64(l.ReadyPods))
		o.sample(prefix+"cpu_usage_millicores", "millicores", l.UsageCPUMillis)
		if l.CPUUtilization >= 0 {
			o.sample(prefix+"cpu_utilization_percent", "percent", float64(l.CPUUtilization))
		}
	}
	q := s.w.sched.QueueLengths()
	o.sample("workqueue.kube-scheduler.depth", "pods", float64(q.Active+q.Backoff+q.Unschedulable))
}

// mutatingP99 is the 99th percentile latency of the mutating requests finished during the last
// interval, from the difference of the cumulative histograms (the upper bound of the bucket
// holding the 99th percentile; the last finite bound when it falls in the +Inf bucket); 0 when
// none finished.
func (s *sampler) mutatingP99(st *apiserver.Stats) float64 {
	// The counts and each verb's previous counts are the sampler's own buffers, reused from
	// one sample to the next (a copy of four histograms per sample was a tenth of the
	// allocations of BenchmarkLeaseRenewalChain).
	counts := s.p99Counts[:0]
	for _, v := range mutatingVerbs {
		cur := st.LatencyCounts(v)
		prev := s.lastLatency[v]
		for i, c := range cur {
			if i >= len(counts) {
				counts = append(counts, 0)
			}
			var before uint64
			if i < len(prev.Counts) {
				before = prev.Counts[i]
			}
			counts[i] += c - before
		}
		prev.Counts = append(prev.Counts[:0], cur...)
		s.lastLatency[v] = prev
	}
	s.p99Counts = counts
	var n uint64
	for _, c := range counts {
		n += c
	}
	if n == 0 {
		return 0
	}
	rank := (n*99 + 99) / 100
	var seen uint64
	for i, c := range counts {
		seen += c
		if seen >= rank {
			if i < len(apiserver.LatencyBucketsSeconds) {
				return apiserver.LatencyBucketsSeconds[i]
			}
			return apiserver.LatencyBucketsSeconds[len(apiserver.LatencyBucketsSeconds)-1]
		}
	}
	return 0
}

// sampleAPF records, per API Priority and Fairness priority level that has seen a request:
// apf.<level>.inqueue (requests waiting), apf.<level>.executing_seats (seats in use, lingering
// watch fan-out seats included), apf.<level>.current_limit_seats (its concurrency limit after
// borrowing), apf.<level>.rejected_per_second (429s) and apf.<level>.wait_seconds (the mean
// queue wait of the requests that left the queue during the interval) — upstream's
// apiserver_flowcontrol_current_inqueue_requests, request_concurrency_in_use,
// current_limit_seats, rejected_requests_total and request_wait_duration_seconds.
func (s *sampler) sampleAPF() {
	levels := s.w.srv.APFLevels()
	if levels == nil {
		return
	}
	o := s.w.obs
	secs := sampleInterval.Seconds()
	for i, l := range levels {
		// A scenario's PriorityLevelConfigurations can add and remove levels as the run
		// goes, so the previous sample is found by name (at the same index when none did).
		var prev apiserver.APFLevelStats
		if i < len(s.lastAPF) && s.lastAPF[i].Name == l.Name {
			prev = s.lastAPF[i]
		} else {
			for _, p := range s.lastAPF {
				if p.Name == l.Name {
					prev = p
				}
			}
		}
		if l.Dispatched == 0 && l.Rejected() == 0 {
			continue
		}
		names := s.apfSeriesNames(l.Name)
		o.sample(names[0], "requests", float64(l.InQueue))
		o.sample(names[1], "seats", float64(l.ExecutingSeats))
		o.sample(names[2], "seats", float64(l.CurrentCL))
		o.sample(names[3], "requests/s", float64(l.Rejected()-prev.Rejected())/secs)
		wait := 0.0
		if left := (l.Dispatched + l.RejectedTimeOut) - (prev.Dispatched + prev.RejectedTimeOut); left > 0 {
			wait = (l.WaitSum - prev.WaitSum).Seconds() / float64(left)
		}
		o.sample(names[4], "seconds", wait)
	}
	s.lastAPF = levels
}
