package endpointslice

import (
	"cmp"
	"fmt"
	"maps"
	"net"
	"slices"
	"strconv"
	"strings"

	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/reconsim/reconsim/model"
)

// Well-known names ([api@HEAD] core/v1 well_known_labels.go and types.go).
const (
	// LabelIsHeadlessService marks the slices of a headless Service (v1.IsHeadlessService).
	LabelIsHeadlessService = "service.kubernetes.io/headless"
	// clusterIPNone is the ClusterIP of a headless Service (v1.ClusterIPNone).
	clusterIPNone = "None"
)

// CountReady returns the number of distinct ready endpoints in slices: endpoints are told
// apart by their address set, as a consumer such as kube-proxy merges the slices of a Service,
// and an endpoint counts as ready when conditions.ready is true or unset (discovery/v1: "nil
// should be interpreted as ready"). Endpoints without addresses are not counted. The slices
// are only read.
func CountReady(slices []*model.EndpointSlice) int {
	seen := map[string]bool{}
	n := 0
	for _, s := range slices {
		if s == nil {
			continue
		}
		for i := range s.Endpoints {
			ep := &s.Endpoints[i]
			if len(ep.Addresses) == 0 || (ep.Conditions.Ready != nil && !*ep.Conditions.Ready) {
				continue
			}
			key := addressKey(ep.Addresses)
			if seen[key] {
				continue
			}
			seen[key] = true
			n++
		}
	}
	return n
}

// ServiceControllerKey returns the "namespace/name" key of the Service a slice belongs to,
// from its kubernetes.io/service-name label; an error when the label is missing or empty
// (upstream ServiceControllerKey).
func ServiceControllerKey(s *model.EndpointSlice) (string, error) {
	if s == nil {
		return "", fmt.Errorf("nil EndpointSlice passed to ServiceControllerKey()")
	}
	name := s.Labels[model.LabelServiceName]
	if name == "" {
		return "", fmt.Errorf("EndpointSlice missing %s label", model.LabelServiceName)
	}
	return s.Namespace + "/" + name, nil
}

func addressKey(addresses []string) string {
	if len(addresses) == 1 {
		return addresses[0]
	}
	sorted := slices.Clone(addresses)
	slices.Sort(sorted)
	return strings.Join(sorted, ",")
}

// isIPv6String reports whether s parses as an IPv6 address (utilnet.IsIPv6String): anything
// else, including a string that is not an IP, counts as IPv4.
func isIPv6String(s string) bool {
	ip := net.ParseIP(s)
	return ip != nil && ip.To4() == nil
}

// podAddress returns the address a pod is published under: status.podIP, or, with the
// PodNameAddressFallback knob, the pod's name when it is bound but has no IP; "" when it has
// none.
func (r *reconciler) podAddress(pod *model.Pod) string {
	if pod.Status.PodIP != "" {
		return pod.Status.PodIP
	}
	if r.podNameFallback && pod.Spec.NodeName != "" {
		return pod.Name
	}
	return ""
}

// shouldPodBeInEndpoints is upstream ShouldPodBeInEndpoints(pod, includeTerminating=true): a
// pod in a terminal phase or without an address is left out; a terminating pod stays in.
func (r *reconciler) shouldPodBeInEndpoints(pod *model.Pod) bool {
	return !model.IsPodTerminal(pod) && r.podAddress(pod) != ""
}

// podToEndpoint builds a pod's endpoint for an address type (upstream podToEndpoint): serving
// is the pod's readiness, terminating whether it has a deletionTimestamp, and ready is serving
// and not terminating, or always true for a Service with publishNotReadyAddresses.
func (r *reconciler) podToEndpoint(pod *model.Pod, service *model.Service, addressType string) model.Endpoint {
	serving := model.IsPodReady(pod)
	terminating := pod.DeletionTimestamp != nil
	ready := service.Spec.PublishNotReadyAddresses || (serving && !terminating)
	ep := model.Endpoint{
		Addresses: []string{},
		Conditions: model.EndpointConditions{
			Ready:       model.Ptr(ready),
			Serving:     model.Ptr(serving),
			Terminating: model.Ptr(terminating),
		},
		TargetRef: &model.ObjectReference{Kind: model.KindPod, Namespace: pod.Namespace, Name: pod.Name, UID: pod.UID},
	}
	if addr := r.podAddress(pod); addr != "" && isIPv6String(addr) == (addressType == model.AddressTypeIPv6) {
		ep.Addresses = append(ep.Addresses, addr)
	}
	if pod.Spec.NodeName != "" {
		ep.NodeName = model.Ptr(pod.Spec.NodeName)
	}
	return ep
}

// getEndpointPorts returns the endpoint ports of a pod for a Service (upstream
// getEndpointPorts): one per Service port whose target port can be found. A numeric
// targetPort is used as is; a named one must match a container port, and the model's
// containers declare none, so a named targetPort drops that port. A headless Service without
// ports has none.
func getEndpointPorts(service *model.Service) []model.EndpointPort {
	out := []model.EndpointPort{}
	if len(service.Spec.Ports) == 0 && service.Spec.ClusterIP == clusterIPNone {
		return out
	}
	for i := range service.Spec.Ports {
		sp := &service.Spec.Ports[i]
		if sp.TargetPort.Type != intstr.Int {
			continue
		}
		out = append(out, model.EndpointPort{
			Name:     model.Ptr(sp.Name),
			Port:     model.Ptr(int32(sp.TargetPort.IntValue())),
			Protocol: model.Ptr(sp.Protocol),
		})
	}
	return out
}

// portString renders one endpoint port for ordering and keys.
func portString(p model.EndpointPort) string {
	var b strings.Builder
	if p.Name != nil {
		b.WriteString(*p.Name)
	}
	b.WriteByte('/')
	if p.Protocol != nil {
		b.WriteString(*p.Protocol)
	}
	b.WriteByte('/')
	if p.Port != nil {
		b.WriteString(strconv.Itoa(int(*p.Port)))
	}
	return b.String()
}

// portMapKey identifies a set of endpoint ports (upstream NewPortMapKey). Like upstream it sorts
// ports in place, so slices carry their ports in a canonical order; upstream orders by an md5
// of each port, this by name, protocol and number.
func portMapKey(ports []model.EndpointPort) string {
	slices.SortStableFunc(ports, func(a, b model.EndpointPort) int { return cmp.Compare(portString(a), portString(b)) })
	parts := make([]string, len(ports))
	for i, p := range ports {
		parts[i] = portString(p)
	}
	return strings.Join(parts, ";")
}

// endpointKey identifies an endpoint by its addresses and target pod (upstream hashEndpoint;
// hostnames are not modelled), so that condition changes are updates in place. Its parts are
// kept apart rather than joined into a string as upstream's hash input is: namespace and pod
// names cannot hold the separators, so the two tell the same endpoints apart, and building the
// key allocates nothing for the usual single address.
type endpointKey struct {
	addresses, namespace, name string
}

func keyOfEndpoint(ep *model.Endpoint) endpointKey {
	k := endpointKey{addresses: addressKey(ep.Addresses)}
	if ep.TargetRef != nil {
		k.namespace, k.name = ep.TargetRef.Namespace, ep.TargetRef.Name
	}
	return k
}

// endpointSet is upstream EndpointSet with a fixed order: PopAny returns endpoints in
// insertion order (the pods' key order), where upstream's map gives them in random order.
type endpointSet struct {
	order []endpointKey
	next  int
	items map[endpointKey]*model.Endpoint
}

func newEndpointSet() *endpointSet { return &endpointSet{items: map[endpointKey]*model.Endpoint{}} }

func (s *endpointSet) Insert(ep *model.Endpoint) {
	h := keyOfEndpoint(ep)
	if _, ok := s.items[h]; !ok {
		s.order = append(s.order, h)
	}
	s.items[h] = ep
}

func (s *endpointSet) Get(ep *model.Endpoint) *model.Endpoint { return s.items[keyOfEndpoint(ep)] }

func (s *endpointSet) Delete(ep *model.Endpoint) { delete(s.items, keyOfEndpoint(ep)) }

// Take removes and returns the endpoint of the set with ep's key (Get then Delete), nil if
// there is none.
func (s *endpointSet) Take(ep *model.Endpoint) *model.Endpoint {
	h := keyOfEndpoint(ep)
	got, ok := s.items[h]
	if !ok {
		return nil
	}
	delete(s.items, h)
	return got
}

func (s *endpointSet) Len() int { return len(s.items) }

// PopAny removes and returns the earliest inserted endpoint still in the set.
func (s *endpointSet) PopAny() (*model.Endpoint, bool) {
	for s.next < len(s.order) {
		h := s.order[s.next]
		s.next++
		if ep, ok := s.items[h]; ok {
			delete(s.items, h)
			return ep, true
		}
	}
	return nil, false
}

// endpointsEqualBeyondHash compares what the hash leaves out: node name, conditions and the
// target reference without its resourceVersion (upstream EndpointsEqualBeyondHash; zones are
// not modelled).
func endpointsEqualBeyondHash(a, b *model.Endpoint) bool {
	if !ptr.Equal(a.NodeName, b.NodeName) || !ptr.Equal(a.Conditions.Ready, b.Conditions.Ready) ||
		!ptr.Equal(a.Conditions.Serving, b.Conditions.Serving) || !ptr.Equal(a.Conditions.Terminating, b.Conditions.Terminating) {
		return false
	}
	if (a.TargetRef == nil) != (b.TargetRef == nil) {
		return false
	}
	if a.TargetRef != nil {
		x, y := *a.TargetRef, *b.TargetRef
		x.ResourceVersion, y.ResourceVersion = 0, 0
		return x == y
	}
	return true
}

// isServiceIPSet reports whether the Service has a cluster IP. The simulated API server does
// not allocate cluster IPs, so an empty ClusterIP stands for an allocated one: only "None"
// (headless) counts as unset.
func isServiceIPSet(service *model.Service) bool { return service.Spec.ClusterIP != clusterIPNone }

func isReservedLabelKey(key string) bool {
	return key == model.LabelServiceName || key == model.LabelManagedBy || key == LabelIsHeadlessService
}

// setEndpointSliceLabels returns the labels a slice of the Service must carry — the Service's
// labels except the reserved ones, the headless label when the Service has no cluster IP, the
// service-name and managed-by labels — and whether the non-reserved labels differ from the
// slice's (upstream setEndpointSliceLabels).
func setEndpointSliceLabels(slice *model.EndpointSlice, service *model.Service) (map[string]string, bool) {
	sliceLabels := map[string]string{}
	for k, v := range slice.Labels { //detlint:ordered copying into a map
		if !isReservedLabelKey(k) {
			sliceLabels[k] = v
		}
	}
	svcLabels := map[string]string{}
	for k, v := range service.Labels { //detlint:ordered copying into a map
		if !isReservedLabelKey(k) {
			svcLabels[k] = v
		}
	}
	updated := !maps.Equal(sliceLabels, svcLabels)
	if !isServiceIPSet(service) {
		svcLabels[LabelIsHeadlessService] = ""
	}
	svcLabels[model.LabelServiceName] = service.Name
	svcLabels[model.LabelManagedBy] = ControllerName
	return svcLabels, updated
}

// endpointSlicePrefix is the generateName of a Service's slices: "<service>-" when that is a
// valid name prefix, else the name alone (upstream getEndpointSlicePrefix).
func endpointSlicePrefix(serviceName string) string {
	prefix := serviceName + "-"
	if len(apivalidation.NameIsDNSSubdomain(prefix, true)) != 0 {
		return serviceName
	}
	return prefix
}

// newEndpointSlice returns an empty slice of the Service for the given ports and address
// type, controlled by the Service (upstream newEndpointSlice).
func newEndpointSlice(service *model.Service, ports []model.EndpointPort, addressType string) *model.EndpointSlice {
	s := &model.EndpointSlice{
		ObjectMeta: model.ObjectMeta{
			GenerateName: endpointSlicePrefix(service.Name),
			Namespace:    service.Namespace,
			OwnerReferences: []model.OwnerReference{{
				APIVersion: "v1", Kind: model.KindService, Name: service.Name, UID: service.UID,
				Controller: model.Ptr(true), BlockOwnerDeletion: model.Ptr(true),
			}},
		},
		AddressType: addressType,
		Ports:       ports,
		Endpoints:   []model.Endpoint{},
	}
	s.Labels, _ = setEndpointSliceLabels(s, service)
	return s
}

// ownedBy reports whether the slice has an owner reference to the Service (upstream ownedBy).
func ownedBy(s *model.EndpointSlice, service *model.Service) bool {
	for _, o := range s.OwnerReferences {
		if o.UID == service.UID && o.Kind == model.KindService && o.APIVersion == "v1" {
			return true
		}
	}
	return false
}

// getSliceToFill returns the slice that comes closest to full when numEndpoints are added
// without overflowing, the first such in slice order on ties; nil when none fits (upstream
// getSliceToFill).
func getSliceToFill(candidates []*model.EndpointSlice, numEndpoints, maxEndpoints int) *model.EndpointSlice {
	closestDiff := maxEndpoints
	var closest *model.EndpointSlice
	for _, s := range candidates {
		diff := maxEndpoints - (numEndpoints + len(s.Endpoints))
		if diff >= 0 && diff < closestDiff {
			closestDiff, closest = diff, s
			if closestDiff == 0 {
				return closest
			}
		}
	}
	return closest
}

// isPlaceholder reports whether a slice has the fields a placeholder has — namespace, labels,
// address type, no ports and no endpoints — the comparison upstream's placeholderSliceCompare
// makes.
func isPlaceholder(s, placeholder *model.EndpointSlice) bool {
	return s.Namespace == placeholder.Namespace && maps.Equal(s.Labels, placeholder.Labels) &&
		s.AddressType == placeholder.AddressType && len(s.Ports) == 0 && len(s.Endpoints) == 0
}
