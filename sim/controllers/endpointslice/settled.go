package endpointslice

import (
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
		desiredPorts := map[string][]model.EndpointPort{}
		desiredByPorts := map[string]*endpointSet{}
		for _, pod := range pods {
			if !r.shouldPodBeInEndpoints(pod) {
				continue
			}
			ports := getEndpointPorts(service)
			key := portMapKey(ports)
			if _, ok := desiredByPorts[key]; !ok {
				desiredByPorts[key] = newEndpointSet()
				desiredPorts[key] = ports
			}
			ep := r.podToEndpoint(pod, service, addressType)
			if len(ep.Addresses) > 0 {
				desiredByPorts[key].Insert(&ep)
			}
		}
		var created []*model.EndpointSlice
		for _, key := range sortedKeysOf(desiredByPorts) {
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
