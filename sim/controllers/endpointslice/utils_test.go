package endpointslice

import (
	"testing"
	"time"

	"github.com/reconsim/reconsim/sim/internal/testworld"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/vtime"
)

func endpoint(name, addr string, ready *bool) model.Endpoint {
	ep := model.Endpoint{TargetRef: &model.ObjectReference{Kind: model.KindPod, Namespace: testNS, Name: name}, Conditions: model.EndpointConditions{Ready: ready}}
	if addr != "" {
		ep.Addresses = []string{addr}
	}
	return ep
}

func TestCountReady(t *testing.T) {
	yes, no := model.Ptr(true), model.Ptr(false)
	a := &model.EndpointSlice{Endpoints: []model.Endpoint{
		endpoint("p0", "10.0.0.1", yes),
		endpoint("p1", "10.0.0.2", no),
		endpoint("p2", "10.0.0.3", nil), // unknown readiness counts as ready
		endpoint("p3", "", yes),         // no address: not an endpoint anyone can reach
	}}
	b := &model.EndpointSlice{Endpoints: []model.Endpoint{
		endpoint("p0", "10.0.0.1", yes), // the same address in two slices counts once
		endpoint("p4", "10.0.0.4", yes),
	}}
	tests := []struct {
		name   string
		slices []*model.EndpointSlice
		want   int
	}{
		{"none", nil, 0},
		{"one slice", []*model.EndpointSlice{a}, 2},
		{"two slices, one duplicate", []*model.EndpointSlice{a, b}, 3},
		{"nil slice skipped", []*model.EndpointSlice{nil, b}, 2},
	}
	for _, tc := range tests {
		assert.Equal(t, tc.want, CountReady(tc.slices), tc.name)
	}
}

func TestPodToEndpointConditions(t *testing.T) {
	now := vtime.Time(time.Second)
	tests := []struct {
		name                            string
		ready, terminating, publishNR   bool
		wantReady, wantServing, wantTer bool
	}{
		{name: "ready", ready: true, wantReady: true, wantServing: true},
		{name: "not ready", ready: false},
		{name: "ready and terminating", ready: true, terminating: true, wantServing: true, wantTer: true},
		{name: "not ready and terminating", terminating: true, wantTer: true},
		{name: "publishNotReadyAddresses", publishNR: true, wantReady: true},
		{name: "publishNotReadyAddresses while terminating", publishNR: true, terminating: true, wantReady: true, wantTer: true},
	}
	r := &reconciler{}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pod := &model.Pod{}
			pod.Name, pod.Namespace, pod.UID = "p", testNS, "uid-p"
			pod.Spec.NodeName = "node-a"
			pod.Status.PodIP = "10.0.0.9"
			st := model.ConditionFalse
			if tc.ready {
				st = model.ConditionTrue
			}
			pod.Status.Conditions = []model.PodCondition{{Type: model.PodReady, Status: st}}
			if tc.terminating {
				pod.DeletionTimestamp = &now
			}
			svc := &model.Service{}
			svc.Spec.PublishNotReadyAddresses = tc.publishNR
			ep := r.podToEndpoint(pod, svc, model.AddressTypeIPv4)
			assert.Equal(t, tc.wantReady, *ep.Conditions.Ready, "ready")
			assert.Equal(t, tc.wantServing, *ep.Conditions.Serving, "serving")
			assert.Equal(t, tc.wantTer, *ep.Conditions.Terminating, "terminating")
			assert.Equal(t, []string{"10.0.0.9"}, ep.Addresses)
			assert.Equal(t, "node-a", *ep.NodeName)
			assert.Equal(t, &model.ObjectReference{Kind: model.KindPod, Namespace: testNS, Name: "p", UID: "uid-p"}, ep.TargetRef)
		})
	}
}

func TestShouldPodBeInEndpoints(t *testing.T) {
	mk := func(phase, ip, node string) *model.Pod {
		p := &model.Pod{}
		p.Name = "p"
		p.Status.Phase, p.Status.PodIP, p.Spec.NodeName = phase, ip, node
		return p
	}
	tests := []struct {
		name     string
		pod      *model.Pod
		fallback bool
		want     bool
	}{
		{"running with IP", mk(model.PodRunning, "10.0.0.1", "n"), false, true},
		{"no IP", mk(model.PodRunning, "", "n"), false, false},
		{"no IP, fallback, bound", mk(model.PodRunning, "", "n"), true, true},
		{"no IP, fallback, unbound", mk(model.PodPending, "", ""), true, false},
		{"succeeded", mk(model.PodSucceeded, "10.0.0.1", "n"), false, false},
		{"failed", mk(model.PodFailed, "10.0.0.1", "n"), true, false},
	}
	for _, tc := range tests {
		r := &reconciler{podNameFallback: tc.fallback}
		assert.Equal(t, tc.want, r.shouldPodBeInEndpoints(tc.pod), tc.name)
	}
}

func TestEndpointPortsAndAddressTypes(t *testing.T) {
	svc := &model.Service{}
	svc.Spec.Ports = []model.ServicePort{
		{Name: "https", Port: 443, Protocol: model.ProtocolTCP, TargetPort: intstr.FromInt32(8443)},
		{Name: "named", Port: 81, Protocol: model.ProtocolTCP, TargetPort: intstr.FromString("web")},
		{Name: "dns", Port: 53, Protocol: model.ProtocolUDP, TargetPort: intstr.FromInt32(53)},
	}
	ports := getEndpointPorts(svc)
	require.Len(t, ports, 2, "a named targetPort cannot be found in model containers")
	key := portMapKey(ports)
	assert.Equal(t, "dns/UDP/53;https/TCP/8443", key)
	assert.Equal(t, "dns", *ports[0].Name, "sorted in place")

	headless := &model.Service{}
	headless.Spec.ClusterIP = "None"
	assert.Empty(t, getEndpointPorts(headless))

	assert.True(t, isIPv6String("fd00::1"))
	assert.False(t, isIPv6String("10.0.0.1"))
	assert.False(t, isIPv6String("web-0"), "a name counts as IPv4, as upstream's check does")
}

func TestSetEndpointSliceLabels(t *testing.T) {
	svc := &model.Service{}
	svc.Name = "web"
	svc.Labels = map[string]string{"tier": "front", model.LabelManagedBy: "someone-else"}
	slice := &model.EndpointSlice{}
	slice.Labels = map[string]string{model.LabelServiceName: "web", model.LabelManagedBy: ControllerName}
	got, changed := setEndpointSliceLabels(slice, svc)
	assert.True(t, changed, "tier is missing on the slice")
	assert.Equal(t, map[string]string{"tier": "front", model.LabelServiceName: "web", model.LabelManagedBy: ControllerName}, got)

	slice.Labels = got
	_, changed = setEndpointSliceLabels(slice, svc)
	assert.False(t, changed)

	svc.Spec.ClusterIP = "None"
	got, _ = setEndpointSliceLabels(slice, svc)
	assert.Contains(t, got, LabelIsHeadlessService)
}

func TestGetSliceToFill(t *testing.T) {
	withN := func(name string, n int) *model.EndpointSlice {
		s := &model.EndpointSlice{}
		s.Name = name
		s.Endpoints = make([]model.Endpoint, n)
		return s
	}
	slices := []*model.EndpointSlice{withN("a", 5), withN("b", 8), withN("c", 9)}
	assert.Equal(t, "b", getSliceToFill(slices, 2, 10).Name, "b ends exactly full")
	assert.Equal(t, "c", getSliceToFill(slices, 1, 10).Name)
	assert.Equal(t, "a", getSliceToFill(slices, 4, 10).Name, "only a has room for 4")
	assert.Nil(t, getSliceToFill(slices, 6, 10))
}

// TestReconcileByPortMappingPacking checks the three steps of reconcileByPortMapping: kept
// endpoints are updated in place, new endpoints fill slices being updated first, then a new
// slice when nothing fits.
func TestReconcileByPortMappingPacking(t *testing.T) {
	r := &reconciler{maxEndpointsPerSlice: 3}
	svc := &model.Service{}
	svc.Name, svc.Namespace, svc.UID = "web", testNS, "uid-web"
	ready := model.Ptr(true)
	existing := func(name string, pods ...string) *model.EndpointSlice {
		s := newEndpointSlice(svc, nil, model.AddressTypeIPv4)
		s.Name = name
		for _, p := range pods {
			s.Endpoints = append(s.Endpoints, endpoint(p, "ip-"+p, ready))
		}
		return s
	}
	desired := newEndpointSet()
	for _, p := range []string{"p0", "p2", "p3", "p4", "p5", "p6", "p7"} {
		ep := endpoint(p, "ip-"+p, ready)
		desired.Insert(&ep)
	}
	// s1 loses p1 (so it is updated), s2 is unchanged and full.
	s1 := existing("s1", "p0", "p1")
	s2 := existing("s2", "p2", "p3", "p4")
	create, update, del := r.reconcileByPortMapping(svc, []*model.EndpointSlice{s1, s2}, desired, nil, model.AddressTypeIPv4)
	require.Len(t, update, 1)
	assert.Equal(t, "s1", update[0].Name)
	assert.Equal(t, []string{"p0", "p5", "p6"}, targetNames(update[0]), "the slice being updated is filled first")
	require.Len(t, create, 1)
	assert.Equal(t, []string{"p7"}, targetNames(create[0]))
	assert.Empty(t, del)
	assert.Len(t, s1.Endpoints, 2, "the cached slice is not modified")
}

func targetNames(s *model.EndpointSlice) []string {
	out := make([]string, len(s.Endpoints))
	for i, ep := range s.Endpoints {
		out[i] = ep.TargetRef.Name
	}
	return out
}

func TestDetermineNeededServiceUpdates(t *testing.T) {
	oldS, newS := []string{"ns/a", "ns/b"}, []string{"ns/b", "ns/c"}
	assert.Equal(t, []string{"ns/a", "ns/b", "ns/c"}, determineNeededServiceUpdates(oldS, newS, true))
	assert.Equal(t, []string{"ns/a", "ns/c"}, determineNeededServiceUpdates(oldS, newS, false))
}

func TestPodEndpointsChanged(t *testing.T) {
	base := &model.Pod{}
	base.Labels = map[string]string{"app": "web"}
	base.Status.PodIP = "10.0.0.1"
	ts := vtime.Time(5)
	tests := []struct {
		name           string
		mutate         func(p *model.Pod)
		wantPod, wantL bool
	}{
		{"nothing", func(*model.Pod) {}, false, false},
		{"ready", func(p *model.Pod) {
			p.Status.Conditions = []model.PodCondition{{Type: model.PodReady, Status: model.ConditionTrue}}
		}, true, false},
		{"terminating", func(p *model.Pod) { p.DeletionTimestamp = &ts }, true, false},
		{"ip", func(p *model.Pod) { p.Status.PodIP = "10.0.0.2" }, true, false},
		{"labels", func(p *model.Pod) { p.Labels = map[string]string{"app": "other"} }, false, true},
		{"phase only", func(p *model.Pod) { p.Status.Phase = model.PodRunning }, false, false},
	}
	for _, tc := range tests {
		cur := base.DeepCopy()
		tc.mutate(cur)
		gotPod, gotL := podEndpointsChanged(base, cur)
		assert.Equal(t, tc.wantPod, gotPod, tc.name)
		assert.Equal(t, tc.wantL, gotL, tc.name)
	}
}

func TestTracker(t *testing.T) {
	tr := newEndpointSliceTracker()
	s := &model.EndpointSlice{}
	s.Namespace, s.Name, s.UID, s.Generation = testNS, "web-1", "u1", 1
	s.Labels = map[string]string{model.LabelServiceName: "web"}
	key := testNS + "/web"
	assert.True(t, tr.ShouldSync(s), "unknown slices are someone else's change")
	assert.False(t, tr.StaleSlices(key, nil), "an unknown service is never stale")
	tr.Update(s)
	assert.False(t, tr.ShouldSync(s), "our own write")
	assert.True(t, tr.StaleSlices(key, nil), "a slice we wrote is missing from the cache")
	assert.False(t, tr.StaleSlices(key, []*model.EndpointSlice{s}))
	newer := s.DeepCopy()
	newer.Generation = 2
	assert.True(t, tr.ShouldSync(newer))
	tr.Update(newer)
	assert.True(t, tr.StaleSlices(key, []*model.EndpointSlice{s}), "the cache has an older generation")
	tr.ExpectDeletion(newer)
	assert.True(t, tr.StaleSlices(key, []*model.EndpointSlice{newer}), "a slice we deleted is still cached")
	assert.False(t, tr.StaleSlices(key, nil))
	assert.True(t, tr.Has(newer))
	assert.True(t, tr.HandleDeletion(newer), "the deletion was expected")
	assert.False(t, tr.Has(newer))
	tr.Update(s)
	assert.False(t, tr.HandleDeletion(s), "a deletion nobody asked for")
}

func TestConfigValidate(t *testing.T) {
	testworld.CheckConfig(t, DefaultConfig, []testworld.ConfigCase[Config]{
		{Name: "no workers", Edit: func(c *Config) { c.ConcurrentServiceEndpointSyncs = 0 }, Want: "concurrent-service-endpoint-syncs must not be less than 1"},
		{Name: "too many workers", Edit: func(c *Config) { c.ConcurrentServiceEndpointSyncs = 51 }, Want: "concurrent-service-endpoint-syncs must not be more than 50"},
		{Name: "empty slices", Edit: func(c *Config) { c.MaxEndpointsPerSlice = 0 }, Want: "max-endpoints-per-slice must not be less than 1"},
		{Name: "huge slices", Edit: func(c *Config) { c.MaxEndpointsPerSlice = 1001 }, Want: "max-endpoints-per-slice must not be more than 1000"},
		{Name: "negative batch period", Edit: func(c *Config) { c.EndpointUpdatesBatchPeriod = -time.Second }, Want: "endpointslice-updates-batch-period"},
	})
}

func TestServiceControllerKey(t *testing.T) {
	s := &model.EndpointSlice{}
	s.Namespace = "ns"
	_, err := ServiceControllerKey(s)
	assert.Error(t, err)
	s.Labels = map[string]string{model.LabelServiceName: "web"}
	key, err := ServiceControllerKey(s)
	require.NoError(t, err)
	assert.Equal(t, "ns/web", key)
	_, err = ServiceControllerKey(nil)
	assert.Error(t, err)
}
