package apiserver

import (
	"slices"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/reconsim/reconsim/model"
)

// LatencyBucketsSeconds are the upper bounds of the request latency histogram: those of
// apiserver_request_duration_seconds ([apiserver@HEAD] pkg/endpoints/metrics/metrics.go),
// so the API call latency SLO (p99 <= 1s for mutating calls) can be read off them.
var LatencyBucketsSeconds = []float64{0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60}

// latencyBounds are LatencyBucketsSeconds as durations.
var latencyBounds = func() []time.Duration {
	out := make([]time.Duration, len(LatencyBucketsSeconds))
	for i, s := range LatencyBucketsSeconds {
		out[i] = time.Duration(s * float64(time.Second))
	}
	return out
}()

// LatencyHistogram is a cumulative latency histogram over LatencyBucketsSeconds.
type LatencyHistogram struct {
	// Counts[i] counts samples at most LatencyBucketsSeconds[i] and above the bound before it;
	// the last entry counts samples above every bound.
	Counts []uint64
	Count  uint64
	Sum    time.Duration
	Max    time.Duration
}

func newLatencyHistogram() LatencyHistogram {
	return LatencyHistogram{Counts: make([]uint64, len(latencyBounds)+1)}
}

func (h *LatencyHistogram) observe(d time.Duration) {
	i, _ := slices.BinarySearch(latencyBounds, d)
	h.Counts[i]++
	h.Count++
	h.Sum += d
	h.Max = max(h.Max, d)
}

// Quantile estimates the q-quantile (0 < q <= 1) the way Prometheus' histogram_quantile does:
// linear interpolation inside the bucket that holds it; Max for the overflow bucket; 0 when
// there are no samples.
func (h *LatencyHistogram) Quantile(q float64) time.Duration {
	if h.Count == 0 {
		return 0
	}
	q = min(max(q, 0), 1)
	rank := q * float64(h.Count)
	var seen uint64
	for i, c := range h.Counts {
		if c == 0 || float64(seen+c) < rank {
			seen += c
			continue
		}
		if i == len(latencyBounds) {
			return h.Max
		}
		var lower time.Duration
		if i > 0 {
			lower = latencyBounds[i-1]
		}
		upper := latencyBounds[i]
		frac := (rank - float64(seen)) / float64(c)
		return lower + time.Duration(frac*float64(upper-lower))
	}
	return h.Max
}

// Mean returns the average sample, 0 when there are none.
func (h *LatencyHistogram) Mean() time.Duration {
	if h.Count == 0 {
		return 0
	}
	return h.Sum / time.Duration(h.Count)
}

func (h *LatencyHistogram) clone() LatencyHistogram {
	c := *h
	c.Counts = slices.Clone(h.Counts)
	return c
}

// RequestCount is the cumulative count of one (verb, resource) pair.
type RequestCount struct {
	Verb     model.Verb
	Resource string // plural resource name, e.g. "pods"; the kind for kinds the server does not know
	// Total counts every request, failed ones included.
	Total uint64
	// Errors counts requests that failed for any reason (429s and conflicts included).
	Errors uint64
	// TooManyRequests counts 429 answers (the in-flight limit, or a fault returning 429).
	TooManyRequests uint64
	// Conflicts counts 409 Conflict answers (stale resourceVersion, failed preconditions,
	// binding conflicts; AlreadyExists is not counted here).
	Conflicts uint64
}

// Stats are the server's cumulative counters. They are updated as requests finish (the
// in-flight gauges as they start and finish) and read through the accessors, whose output is
// deterministic.
type Stats struct {
	store     *Store
	byKind    map[model.Kind]*[numVerbs]RequestCount
	kindOrder []model.Kind
	latency   [numVerbs]LatencyHistogram

	total, errors, tooMany, conflicts uint64

	inflightReadonly, inflightMutating         int
	peakInflightReadonly, peakInflightMutating int
}

func newStats(store *Store) *Stats {
	s := &Stats{store: store, byKind: make(map[model.Kind]*[numVerbs]RequestCount)}
	for i := range s.latency {
		s.latency[i] = newLatencyHistogram()
	}
	return s
}

// observe records one finished request.
func (s *Stats) observe(kind model.Kind, vi int, err error, latency time.Duration) {
	s.observeIn(nil, kind, vi, err, latency)
}

// observeIn is observe with the kind's counters when the caller has them from an earlier
// request (nil: found by kind); it returns them.
func (s *Stats) observeIn(counts *[numVerbs]RequestCount, kind model.Kind, vi int, err error, latency time.Duration) *[numVerbs]RequestCount {
	if counts == nil {
		counts = s.byKind[kind]
	}
	if counts == nil {
		resource := s.store.resourceName(kind)
		counts = new([numVerbs]RequestCount)
		for i := range counts {
			counts[i].Verb, counts[i].Resource = allVerbs[i], resource
		}
		s.byKind[kind] = counts
		s.kindOrder = append(s.kindOrder, kind)
	}
	c := &counts[vi]
	c.Total++
	s.total++
	s.latency[vi].observe(latency)
	if err == nil {
		return counts
	}
	c.Errors++
	s.errors++
	switch {
	case apierrors.IsTooManyRequests(err):
		c.TooManyRequests++
		s.tooMany++
	case apierrors.IsConflict(err):
		c.Conflicts++
		s.conflicts++
	}
	return counts
}

// Requests returns the non-zero (verb, resource) counts, sorted by resource, then by verb in
// the order get, list, watch, create, update, patch, delete.
func (s *Stats) Requests() []RequestCount {
	kinds := slices.Clone(s.kindOrder)
	slices.SortFunc(kinds, func(a, b model.Kind) int {
		if c := strings.Compare(s.byKind[a][0].Resource, s.byKind[b][0].Resource); c != 0 {
			return c
		}
		return strings.Compare(string(a), string(b))
	})
	var out []RequestCount
	for _, k := range kinds {
		for _, c := range s.byKind[k] {
			if c.Total > 0 {
				out = append(out, c)
			}
		}
	}
	return out
}

// TotalRequests returns the number of requests served (watches included), failed ones too.
func (s *Stats) TotalRequests() uint64 { return s.total }

// Errors returns the number of failed requests.
func (s *Stats) Errors() uint64 { return s.errors }

// TooManyRequests returns the number of 429 answers.
func (s *Stats) TooManyRequests() uint64 { return s.tooMany }

// Conflicts returns the number of 409 Conflict answers.
func (s *Stats) Conflicts() uint64 { return s.conflicts }

// Inflight returns the requests holding a read-only and a mutating in-flight slot now.
func (s *Stats) Inflight() (readonly, mutating int) {
	return s.inflightReadonly, s.inflightMutating
}

// PeakInflight returns the highest read-only and mutating in-flight counts seen.
func (s *Stats) PeakInflight() (readonly, mutating int) {
	return s.peakInflightReadonly, s.peakInflightMutating
}

// LatencyCounts returns the bucket counts of a verb's latency histogram (Latency's Counts)
// without copying them: the slice is the server's own, must not be changed, and is valid
// only until the server serves its next request. It is nil for an unknown verb.
func (s *Stats) LatencyCounts(v model.Verb) []uint64 {
	i := verbIndex(v)
	if i < 0 {
		return nil
	}
	return s.latency[i].Counts
}

// Latency returns a copy of the latency histogram of a verb (every request of that verb,
// from Do's start to its return, faults and 429s included); empty for an unknown verb.
func (s *Stats) Latency(v model.Verb) LatencyHistogram {
	i := verbIndex(v)
	if i < 0 {
		return newLatencyHistogram()
	}
	return s.latency[i].clone()
}

// Watch returns the store's watch counters.
func (s *Stats) Watch() WatchStats { return s.store.WatchStats() }
