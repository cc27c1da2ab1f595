package apiserver

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/vtime"
)

// refHistory is watch_cache_history.go's resize rule written plainly, over a slice of the
// held events' revisions and record times: what history, a ring with its times apart,
// must hold after every add.
type refHistory struct {
	rvs          []uint64
	ats          []vtime.Time
	capacity     int
	lower, upper int
	fresh        time.Duration
}

func (r *refHistory) add(rv uint64, at vtime.Time) {
	if len(r.rvs) == r.capacity {
		switch {
		case at.Sub(r.ats[0]) < r.fresh:
			r.capacity = min(r.capacity*2, r.upper)
		case at.Sub(r.ats[len(r.ats)-r.capacity/4]) > r.fresh:
			r.capacity = max(r.capacity/2, r.lower)
			if drop := len(r.rvs) - r.capacity; drop > 0 {
				r.rvs, r.ats = r.rvs[drop:], r.ats[drop:]
			}
		}
	}
	if len(r.rvs) == r.capacity {
		r.rvs, r.ats = r.rvs[1:], r.ats[1:]
	}
	r.rvs, r.ats = append(r.rvs, rv), append(r.ats, at)
}

// TestHistoryResizesAsUpstream holds the history's ring to the plain rule over seeded
// bursts and lulls of writes, which make it grow, drop its oldest events and shrink; and
// checks that no place of the ring keeps an event the window has dropped.
func TestHistoryResizesAsUpstream(t *testing.T) {
	const lower, upper, fresh = 8, 64, 10 * time.Second
	for seed := range uint64(20) {
		rng := rand.New(rand.NewPCG(seed, 7))
		h := newHistory(lower, upper, fresh, nil)
		ref := &refHistory{capacity: lower, lower: lower, upper: upper, fresh: fresh}
		now := vtime.Time(0)
		grew, shrank := false, false
		for rv := uint64(1); rv <= 3000; rv++ {
			// Bursts of writes a few milliseconds apart, and lulls of up to a minute.
			if rng.IntN(40) == 0 {
				now = now.Add(time.Duration(rng.IntN(60_000)) * time.Millisecond)
			} else {
				now = now.Add(time.Duration(rng.IntN(400)) * time.Millisecond)
			}
			before := h.capacity()
			h.add(histEvent{rv: rv, typ: Modified, obj: &model.Lease{}}, now)
			ref.add(rv, now)
			grew = grew || h.capacity() > before
			shrank = shrank || h.capacity() < before
			if h.capacity() != ref.capacity || h.size() != len(ref.rvs) {
				t.Fatalf("seed %d rv %d: capacity %d size %d, want %d and %d", seed, rv, h.capacity(), h.size(), ref.capacity, len(ref.rvs))
			}
			for i, want := range ref.rvs {
				if got, at := h.at(h.start+i).rv, h.recordedAt(h.start+i); got != want || at != ref.ats[i] {
					t.Fatalf("seed %d rv %d: event %d is rv %d at %v, want rv %d at %v", seed, rv, i, got, at, want, ref.ats[i])
				}
			}
			for i := range h.buf {
				if abs := h.start + (i-h.start%len(h.buf)+len(h.buf))%len(h.buf); abs >= h.end && h.buf[i] != (histEvent{}) {
					t.Fatalf("seed %d rv %d: place %d keeps dropped rv %d", seed, rv, i, h.buf[i].rv)
				}
			}
		}
		if !grew || !shrank {
			t.Fatalf("seed %d: the writes never made the history grow (%v) and shrink (%v)", seed, grew, shrank)
		}
	}
}
