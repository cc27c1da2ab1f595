package apiserver

import (
	"math"
	"time"

	"github.com/reconsim/reconsim/model"
)

// workEstimate is request.WorkEstimate: seats taken while the request executes, and seats
// that linger after it for AdditionalLatency (the watch fan-out of a write).
type workEstimate struct {
	initialSeats, finalSeats int
	additionalLatency        time.Duration
}

// The work estimator's defaults ([apiserver@v0.37] pkg/util/flowcontrol/request/config.go
// DefaultWorkEstimatorConfig).
const (
	minimumSeats              = 1
	maximumMutatingSeatsLimit = 10
	// maximumListSeatsLimit is 100 with SizeBasedListCostEstimate (KEP-4988, beta and on
	// since 1.34), else 10.
	maximumListSeatsLimitSizeBased  = 100
	maximumListSeatsLimitCountBased = 10
	objectsPerSeat                  = 100
	watchesPerSeat                  = 10
	eventAdditionalDuration         = 5 * time.Millisecond
	// bytesPerSeat and cacheListBytesLimit are the size-based LIST estimator's: a seat per
	// 100 kB loaded, and a list served from the watch cache counts at most 1 MB
	// (list_work_estimator.go, SizeBasedListCostEstimate).
	bytesPerSeat        = 100_000
	cacheListBytesLimit = 1_000_000
)

// DefaultAPFObjectBytes is a simulator knob: the average stored size of an object, which the
// size-based LIST estimator multiplies by the number of objects (upstream reads it from the
// storage's object-size statistics; the simulator does not serialise objects).
const DefaultAPFObjectBytes = 2048

// estimateWork is workEstimator.estimate ([apiserver@v0.37] request/width.go): LIST by
// object count (list_work_estimator.go), create/update/patch/delete by the watchers the write
// fans out to (mutating_work_estimator.go), anything else one seat. plMaxSeats is the
// priority level's maxSeats (0: none).
//
// ks is the store of req.Kind when the caller has it (nil: looked up by name).
func (a *apf) estimateWork(req *Request, plMaxSeats int, ks *kindStore) workEstimate {
	if ks == nil {
		ks = a.srv.store.kinds[req.Kind]
	}
	switch req.Verb {
	case model.VerbList:
		return workEstimate{initialSeats: a.listSeats(req, plMaxSeats, ks)}
	case model.VerbCreate, model.VerbUpdate, model.VerbPatch, model.VerbDelete:
		return a.mutatingWork(req, plMaxSeats, ks)
	}
	return workEstimate{initialSeats: minimumSeats}
}

func effectiveMaxSeats(limit, plMaxSeats int) int {
	if plMaxSeats == 0 || plMaxSeats > limit {
		return limit
	}
	return plMaxSeats
}

// listSeats is listWorkEstimator.estimate for a list served from the watch cache (every
// simulated list is: the simulator's reads are consistent reads from the cache, as
// ConsistentListFromCache makes them since 1.31). A list of one named object costs one
// object's worth.
func (a *apf) listSeats(req *Request, plMaxSeats int, ks *kindStore) int {
	if ks == nil {
		return minimumSeats
	}
	n := int64(len(ks.objects))
	if req.Name != "" {
		n = 1
	}
	var seats int64
	var limit int
	if a.cfg.SizeBasedListCost {
		limit = maximumListSeatsLimitSizeBased
		bytes := min(n*int64(a.objectBytes()), cacheListBytesLimit)
		seats = int64(math.Ceil(float64(bytes) / bytesPerSeat))
	} else {
		limit = maximumListSeatsLimitCountBased
		seats = int64(math.Ceil(float64(n) / objectsPerSeat))
	}
	return int(max(minimumSeats, min(seats, int64(effectiveMaxSeats(limit, plMaxSeats)))))
}

func (a *apf) objectBytes() int {
	if a.cfg.ObjectBytes > 0 {
		return a.cfg.ObjectBytes
	}
	return DefaultAPFObjectBytes
}

// mutatingWork is mutatingWorkEstimator.estimate: with fewer than watchesPerSeat interested
// watchers one seat; else ceil(watchers/10) final seats (capped at the maximum) that linger
// for the fan-out's work of 5ms per final seat spread over the capped seats.
func (a *apf) mutatingWork(req *Request, plMaxSeats int, ks *kindStore) workEstimate {
	watchers := a.interestedWatchers(req, ks)
	if watchers < watchesPerSeat {
		return workEstimate{initialSeats: minimumSeats}
	}
	finalSeats := int(math.Ceil(float64(watchers) / watchesPerSeat))
	finalWork := seatsTimesDuration(float64(finalSeats), eventAdditionalDuration)
	finalSeats = min(finalSeats, effectiveMaxSeats(maximumMutatingSeatsLimit, plMaxSeats))
	return workEstimate{initialSeats: minimumSeats, finalSeats: finalSeats, additionalLatency: finalWork.durationPerSeat(float64(finalSeats))}
}

// interestedWatchers is the watch tracker's GetInterestedWatchCount
// ([apiserver@v0.37] pkg/endpoints/request/... watch_tracker.go): watches of the resource in
// every namespace plus those in the object's namespace. Watches that use the kind's trigger
// index (a kubelet's pods by spec.nodeName) are not counted, as the pods watch tracker
// counts indexed watches only for the node they name.
func (a *apf) interestedWatchers(req *Request, ks *kindStore) int {
	if ks == nil {
		return 0
	}
	ns := req.Namespace
	if ns == "" && req.Object != nil {
		ns = req.Object.Meta().Namespace
	}
	n := 0
	for _, w := range ks.general {
		if w.removed || w.closing {
			continue
		}
		if w.match.namespace == "" || w.match.namespace == ns {
			n++
		}
	}
	return n
}
