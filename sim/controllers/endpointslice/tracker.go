package endpointslice

import (
	"github.com/reconsim/reconsim/model"
)

// deletionExpected marks a slice the controller has deleted and expects to see go.
const deletionExpected = -1

// endpointSliceTracker remembers, per Service, the generation of every EndpointSlice the
// controller last wrote (or deletionExpected), so that it can tell its own writes from other
// changes and detect a cache that has not caught up yet ([k8s:staging/src/k8s.io/endpointslice/util/endpointslice_tracker.go]
// EndpointSliceTracker). Keys are "namespace/service" and slice UIDs.
type endpointSliceTracker struct {
	generationsByService map[string]map[string]int64
}

func newEndpointSliceTracker() *endpointSliceTracker {
	return &endpointSliceTracker{generationsByService: map[string]map[string]int64{}}
}

// serviceKeyOfSlice is the tracker's key of the Service a slice belongs to, from its
// kubernetes.io/service-name label ("" service name when the label is missing).
func serviceKeyOfSlice(s *model.EndpointSlice) string {
	return model.KeyOf(s.Namespace, s.Labels[model.LabelServiceName])
}

// Has reports whether the tracker knows the slice.
func (t *endpointSliceTracker) Has(s *model.EndpointSlice) bool {
	gens, ok := t.generationsByService[serviceKeyOfSlice(s)]
	if !ok {
		return false
	}
	_, ok = gens[s.UID]
	return ok
}

// ShouldSync reports whether the slice is not the controller's latest write: unknown, or of a
// newer generation than the one recorded.
func (t *endpointSliceTracker) ShouldSync(s *model.EndpointSlice) bool {
	gens, ok := t.generationsByService[serviceKeyOfSlice(s)]
	if !ok {
		return true
	}
	g, ok := gens[s.UID]
	return !ok || s.Generation > g
}

// StaleSlices reports whether the cached slices of a Service lag behind what the controller
// wrote: a slice older than recorded, a slice expected to be deleted, or a recorded slice
// missing from the cache.
func (t *endpointSliceTracker) StaleSlices(serviceKey string, slices []*model.EndpointSlice) bool {
	gens, ok := t.generationsByService[serviceKey]
	if !ok {
		return false
	}
	provided := make(map[string]bool, len(slices))
	for _, s := range slices {
		provided[s.UID] = true
		if g, ok := gens[s.UID]; ok && (g == deletionExpected || g > s.Generation) {
			return true
		}
	}
	for uid, g := range gens { //detlint:ordered a membership test; the answer does not depend on order
		if g != deletionExpected && !provided[uid] {
			return true
		}
	}
	return false
}

// Update records the slice's generation as the controller's latest write.
func (t *endpointSliceTracker) Update(s *model.EndpointSlice) {
	t.gensFor(s)[s.UID] = s.Generation
}

// ExpectDeletion records that the controller deleted the slice.
func (t *endpointSliceTracker) ExpectDeletion(s *model.EndpointSlice) {
	t.gensFor(s)[s.UID] = deletionExpected
}

// HandleDeletion forgets the slice and reports whether its deletion was expected (true also
// when the tracker did not know it).
func (t *endpointSliceTracker) HandleDeletion(s *model.EndpointSlice) bool {
	gens, ok := t.generationsByService[serviceKeyOfSlice(s)]
	if !ok {
		return true
	}
	g, known := gens[s.UID]
	delete(gens, s.UID)
	return !known || g == deletionExpected
}

// DeleteService forgets a Service.
func (t *endpointSliceTracker) DeleteService(serviceKey string) {
	delete(t.generationsByService, serviceKey)
}

func (t *endpointSliceTracker) gensFor(s *model.EndpointSlice) map[string]int64 {
	key := serviceKeyOfSlice(s)
	gens, ok := t.generationsByService[key]
	if !ok {
		gens = map[string]int64{}
		t.generationsByService[key] = gens
	}
	return gens
}
