package endpointslice

import (
	"context"
	"fmt"
	"maps"
	"slices"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim"
	"github.com/reconsim/reconsim/sim/client"
	"github.com/reconsim/reconsim/sim/controllers/internal/controllerutil"
)

// reconciler turns the pods matching a Service into EndpointSlices
// ([k8s:staging/src/k8s.io/endpointslice/reconciler.go@0b1dcaba] Reconciler), without
// topology hints or traffic distribution, which the model does not have.
type reconciler struct {
	k                    *sim.Kernel
	client               *client.Client
	nodeInformer         *client.Informer
	maxEndpointsPerSlice int
	tracker              *endpointSliceTracker
	podNameFallback      bool
	stats                *Stats
}

// addressTypesForService returns the address types a Service's slices use. The model has no
// ipFamilies; every Service is single-stack IPv4, as the API server defaults ipFamilies on an
// IPv4 cluster.
func addressTypesForService(*model.Service) []string { return []string{model.AddressTypeIPv4} }

// reconcile creates, updates and deletes slices so that the Service's slices hold exactly one
// endpoint per pod that should be in them (upstream Reconcile). existing are the Service's
// cached slices, not being deleted. Errors of all address types and the deletions of slices
// of unsupported types are aggregated.
func (r *reconciler) reconcile(ctx context.Context, service *model.Service, pods []*model.Pod, existing []*model.EndpointSlice) error {
	var errs []error
	supported := addressTypesForService(service)
	var toDelete []*model.EndpointSlice
	byType := map[string][]*model.EndpointSlice{}
	for _, s := range existing {
		if !slices.Contains(supported, s.AddressType) {
			toDelete = append(toDelete, s)
			continue
		}
		byType[s.AddressType] = append(byType[s.AddressType], s)
	}
	for _, addressType := range supported {
		if err := r.reconcileByAddressType(ctx, service, pods, byType[addressType], addressType); err != nil {
			errs = append(errs, err)
		}
	}
	for _, s := range toDelete {
		if err := r.client.Delete(ctx, model.KindEndpointSlice, service.Namespace, s.Name, model.DeleteOptions{}); err != nil {
			errs = append(errs, fmt.Errorf("error deleting %s EndpointSlice for Service %s/%s: %w", s.Name, service.Namespace, service.Name, err))
			continue
		}
		r.tracker.ExpectDeletion(s)
		r.stats.SlicesDeleted++
	}
	return utilerrors.NewAggregate(errs)
}

// reconcileByAddressType is upstream reconcileByAddressType for one address type: slices not
// owned by the Service are deleted; the desired endpoints are grouped by their port set and
// each group is reconciled with the existing slices of the same ports; port sets no longer
// wanted lose their slices; a Service with no endpoints keeps one empty placeholder slice.
// A pod whose node is not in the cache is skipped and reported as an error (so the Service is
// retried), unless the Service publishes not-ready addresses.
func (r *reconciler) reconcileByAddressType(ctx context.Context, service *model.Service, pods []*model.Pod, existing []*model.EndpointSlice, addressType string) error {
	var toCreate, toUpdate, toDelete []*model.EndpointSlice

	existingByPorts := map[string][]*model.EndpointSlice{}
	for _, s := range existing {
		if ownedBy(s, service) {
			key := portMapKey(slices.Clone(s.Ports))
			existingByPorts[key] = append(existingByPorts[key], s)
		} else {
			toDelete = append(toDelete, s)
		}
	}

	desiredPorts, desiredByPorts, errs := r.desiredEndpoints(service, pods, addressType, true)

	for _, key := range slices.Sorted(maps.Keys(desiredByPorts)) {
		c, u, d := r.reconcileByPortMapping(service, existingByPorts[key], desiredByPorts[key], desiredPorts[key], addressType)
		toCreate = append(toCreate, c...)
		toUpdate = append(toUpdate, u...)
		toDelete = append(toDelete, d...)
	}
	for _, key := range slices.Sorted(maps.Keys(existingByPorts)) {
		if _, ok := desiredByPorts[key]; !ok {
			toDelete = append(toDelete, existingByPorts[key]...)
		}
	}

	if len(existing) == len(toDelete) && len(toCreate) < 1 {
		placeholder := newEndpointSlice(service, []model.EndpointPort{}, addressType)
		if len(toDelete) == 1 && isPlaceholder(toDelete[0], placeholder) {
			// The placeholder is already there: keep it instead of replacing it.
			toDelete = toDelete[:0]
		} else {
			toCreate = append(toCreate, placeholder)
		}
	}

	if err := r.finalize(ctx, service, toCreate, toUpdate, toDelete); err != nil {
		errs = append(errs, err)
	}
	return utilerrors.NewAggregate(errs)
}

// desiredEndpoints groups the endpoints of the pods that should be in service's endpoints by
// their port set, keyed by portMapKey (the first loop of upstream reconcileByAddressType).
// With checkNodes, a pod whose node is not in the cache is skipped and reported in errs,
// unless the Service publishes not-ready addresses; its port set is wanted all the same, as
// upstream creates the group before the node check.
func (r *reconciler) desiredEndpoints(service *model.Service, pods []*model.Pod, addressType string, checkNodes bool) (map[string][]model.EndpointPort, map[string]*endpointSet, []error) {
	var errs []error
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
		if checkNodes && !service.Spec.PublishNotReadyAddresses {
			if _, found := r.nodeInformer.Get("", pod.Spec.NodeName); !found {
				errs = append(errs, fmt.Errorf("skipping Pod %s for Service %s/%s: Node %s Not Found", pod.Name, service.Namespace, service.Name, pod.Spec.NodeName))
				continue
			}
		}
		ep := r.podToEndpoint(pod, service, addressType)
		if len(ep.Addresses) > 0 {
			desiredByPorts[key].Insert(&ep)
		}
	}
	return desiredPorts, desiredByPorts, errs
}

// reconcileByPortMapping compares the existing slices of one port set with the desired
// endpoints (upstream reconcileByPortMapping):
//
//  1. each existing slice keeps the endpoints still desired (taking their desired version);
//     a slice that lost or changed endpoints is updated, or deleted when none are left; a
//     slice whose labels no longer mirror the Service's is updated; the rest are unchanged;
//  2. remaining endpoints fill the slices being updated, fullest first;
//  3. then the unchanged slice that comes closest to full, if all remaining endpoints fit in
//     one, else new slices of at most maxEndpointsPerSlice.
//
// Slices are visited in name order and endpoints taken in pod order, where upstream iterates
// maps; the result is otherwise the same.
func (r *reconciler) reconcileByPortMapping(service *model.Service, existing []*model.EndpointSlice, desired *endpointSet,
	ports []model.EndpointPort, addressType string) (toCreate, toUpdate, toDelete []*model.EndpointSlice) {
	byName := map[string]*model.EndpointSlice{}
	unchanged, update, del := map[string]bool{}, map[string]bool{}, map[string]bool{}

	for _, s := range existing {
		byName[s.Name] = s
		var kept []model.Endpoint
		changed := false
		for i := range s.Endpoints {
			ep := &s.Endpoints[i]
			got := desired.Take(ep)
			if got == nil {
				continue
			}
			kept = append(kept, *got)
			if !endpointsEqualBeyondHash(got, ep) {
				changed = true
			}
		}
		labels, labelsChanged := setEndpointSliceLabels(s, service)
		switch {
		case changed || len(s.Endpoints) != len(kept):
			if len(kept) == 0 {
				del[s.Name] = true
				continue
			}
			c := deepCopyWithoutEndpoints(s)
			c.Endpoints = kept
			c.Labels = labels
			byName[s.Name] = c
			update[s.Name] = true
		case labelsChanged:
			c := s.DeepCopy()
			c.Labels = labels
			byName[s.Name] = c
			update[s.Name] = true
		default:
			unchanged[s.Name] = true
		}
	}

	if desired.Len() > 0 && len(update) > 0 {
		fill := make([]*model.EndpointSlice, 0, len(update))
		for _, name := range slices.Sorted(maps.Keys(update)) {
			fill = append(fill, byName[name])
		}
		slices.SortStableFunc(fill, func(a, b *model.EndpointSlice) int { return len(b.Endpoints) - len(a.Endpoints) })
		for _, s := range fill {
			for desired.Len() > 0 && len(s.Endpoints) < r.maxEndpointsPerSlice {
				ep, _ := desired.PopAny()
				s.Endpoints = append(s.Endpoints, *ep)
			}
		}
	}

	for desired.Len() > 0 {
		var s *model.EndpointSlice
		if desired.Len() < r.maxEndpointsPerSlice && len(unchanged) > 0 {
			candidates := make([]*model.EndpointSlice, 0, len(unchanged))
			for _, name := range slices.Sorted(maps.Keys(unchanged)) {
				candidates = append(candidates, byName[name])
			}
			s = getSliceToFill(candidates, desired.Len(), r.maxEndpointsPerSlice)
		}
		if s == nil {
			s = newEndpointSlice(service, slices.Clone(ports), addressType)
		} else {
			s = s.DeepCopy()
			byName[s.Name] = s
		}
		for desired.Len() > 0 && len(s.Endpoints) < r.maxEndpointsPerSlice {
			ep, _ := desired.PopAny()
			s.Endpoints = append(s.Endpoints, *ep)
		}
		if s.Name != "" {
			update[s.Name] = true
			delete(unchanged, s.Name)
		} else {
			toCreate = append(toCreate, s)
		}
	}

	for _, name := range slices.Sorted(maps.Keys(update)) {
		toUpdate = append(toUpdate, byName[name])
	}
	for _, name := range slices.Sorted(maps.Keys(del)) {
		toDelete = append(toDelete, byName[name])
	}
	return toCreate, toUpdate, toDelete
}

// finalize writes the changes (upstream finalize): a slice to create takes over a slice to
// delete of the same Service and address type instead (one update for a create and a delete);
// then creations (none while the Service is being deleted, so as not to race the garbage
// collector; a namespace being terminated ends the sync quietly), updates and deletions, in
// that order, each one request, stopping at the first failure.
func (r *reconciler) finalize(ctx context.Context, service *model.Service, toCreate, toUpdate, toDelete []*model.EndpointSlice) error {
	for i := 0; i < len(toDelete); {
		if len(toCreate) == 0 {
			break
		}
		del := toDelete[i]
		s := toCreate[len(toCreate)-1]
		if del.AddressType == s.AddressType && ownedBy(del, service) {
			// Like upstream, the update carries no resourceVersion: EndpointSlices allow
			// unconditional updates.
			s.Name = del.Name
			toCreate = toCreate[:len(toCreate)-1]
			toUpdate = append(toUpdate, s)
			toDelete = append(toDelete[:i], toDelete[i+1:]...)
		} else {
			i++
		}
	}
	ref := "Service " + model.Key(service)
	if service.DeletionTimestamp == nil {
		for _, s := range toCreate {
			got, err := client.CreateAs(ctx, r.client, s)
			if err != nil {
				if apierrors.HasStatusCause(err, model.NamespaceTerminatingCause) {
					return nil
				}
				r.k.Emit(Component, "create-error", ref, 0, controllerutil.ErrorReason(err))
				return fmt.Errorf("failed to create EndpointSlice for Service %s/%s: %v", service.Namespace, service.Name, err)
			}
			r.tracker.Update(got)
			r.stats.SlicesCreated++
			r.k.Emit(Component, "create", ref, got.ResourceVersion, sliceSummary(got))
		}
	}
	for _, s := range toUpdate {
		got, err := client.UpdateAs(ctx, r.client, s)
		if err != nil {
			r.k.Emit(Component, "update-error", ref, s.ResourceVersion, s.Name+" "+controllerutil.ErrorReason(err))
			return fmt.Errorf("failed to update %s EndpointSlice for Service %s/%s: %v", s.Name, service.Namespace, service.Name, err)
		}
		r.tracker.Update(got)
		r.stats.SlicesUpdated++
		r.k.Emit(Component, "update", ref, got.ResourceVersion, sliceSummary(got))
	}
	for _, s := range toDelete {
		if err := r.client.Delete(ctx, model.KindEndpointSlice, service.Namespace, s.Name, model.DeleteOptions{}); err != nil {
			r.k.Emit(Component, "delete-error", ref, s.ResourceVersion, s.Name+" "+controllerutil.ErrorReason(err))
			return fmt.Errorf("failed to delete %s EndpointSlice for Service %s/%s: %v", s.Name, service.Namespace, service.Name, err)
		}
		r.tracker.ExpectDeletion(s)
		r.stats.SlicesDeleted++
		r.k.Emit(Component, "delete", ref, 0, s.Name)
	}
	return nil
}

// sliceSummary renders a slice for the trace: its name, endpoint count and ready count.
func sliceSummary(s *model.EndpointSlice) string {
	return fmt.Sprintf("%s endpoints=%d ready=%d", s.Name, len(s.Endpoints), CountReady([]*model.EndpointSlice{s}))
}

// deepCopyWithoutEndpoints is s.DeepCopy() for a caller that replaces the endpoints: the
// endpoints, which it would throw away, are not copied.
func deepCopyWithoutEndpoints(s *model.EndpointSlice) *model.EndpointSlice {
	shallow := *s
	shallow.Endpoints = nil
	return shallow.DeepCopy()
}
