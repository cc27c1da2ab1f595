package endpointslice

import (
	"maps"
	"slices"

	"github.com/reconsim/reconsim/model"
)

// SettledSlices returns the EndpointSlices the controller would create for service from
// nothing, given the pods its selector matches (with their status; pods that should not be
// in endpoints are left out, as upstream does): the same grouping by ports, the same
// endpoints, at most maxEndpointsPerSlice per slice, and an empty placeholder slice when there
// is no endpoint. The slices are not created (generateName is set) and the pods' nodes are
// assumed to exist. A scenario's settled Services use it, so that their endpoints exist at
// time 0 and the controller's first sync finds nothing to change.
func SettledSlices(service *model.Service, pods []*model.Pod, maxEndpointsPerSlice int) []*model.EndpointSlice {
	r := &reconciler{maxEndpointsPerSlice: maxEndpointsPerSlice}
	var out []*model.EndpointSlice
	for _, addressType := range addressTypesForService(service) {
		desiredPorts, desiredByPorts, _ := r.desiredEndpoints(service, pods, addressType, false)
		var created []*model.EndpointSlice
		for _, key := range slices.Sorted(maps.Keys(desiredByPorts)) {
			c, _, _ := r.reconcileByPortMapping(service, nil, desiredByPorts[key], slices.Clone(desiredPorts[key]), addressType)
			created = append(created, c...)
		}
		if len(created) == 0 {
			created = append(created, newEndpointSlice(service, []model.EndpointPort{}, addressType))
		}
		out = append(out, created...)
	}
	return out
}
