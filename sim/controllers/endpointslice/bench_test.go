package endpointslice

import (
	"fmt"
	"testing"

	"github.com/reconsim/reconsim/model"
)

// BenchmarkReconcileByPortMapping measures the packing step for a Service of 1000 endpoints
// in slices of 100, where one endpoint in ten changed readiness since the last sync.
func BenchmarkReconcileByPortMapping(b *testing.B) {
	r := &reconciler{maxEndpointsPerSlice: DefaultMaxEndpointsPerSlice}
	svc := &model.Service{}
	svc.Name, svc.Namespace, svc.UID = "web", testNS, "uid-web"
	const n = 1000
	var existing []*model.EndpointSlice
	for s := 0; s < n/DefaultMaxEndpointsPerSlice; s++ {
		slice := newEndpointSlice(svc, nil, model.AddressTypeIPv4)
		slice.Name = fmt.Sprintf("web-%03d", s)
		for i := range DefaultMaxEndpointsPerSlice {
			p := fmt.Sprintf("p%04d", s*DefaultMaxEndpointsPerSlice+i)
			slice.Endpoints = append(slice.Endpoints, endpoint(p, "ip-"+p, model.Ptr(true)))
		}
		existing = append(existing, slice)
	}
	desiredEndpoints := make([]model.Endpoint, n)
	for i := range n {
		p := fmt.Sprintf("p%04d", i)
		desiredEndpoints[i] = endpoint(p, "ip-"+p, model.Ptr(i%10 != 0))
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		desired := newEndpointSet()
		for i := range desiredEndpoints {
			desired.Insert(&desiredEndpoints[i])
		}
		_, update, _ := r.reconcileByPortMapping(svc, existing, desired, nil, model.AddressTypeIPv4)
		if len(update) != n/DefaultMaxEndpointsPerSlice {
			b.Fatalf("updated %d slices", len(update))
		}
	}
}
