package scheduler

import (
	"maps"
	"slices"
	"strings"

	"github.com/reconsim/reconsim/model"
)

// Resource is the scheduler's flat view of a resource list (upstream framework.Resource): CPU
// in millicores, memory and ephemeral storage in bytes, the pod count, and scalar (extended
// and hugepages) resources by name.
type Resource struct {
	MilliCPU         int64
	Memory           int64
	EphemeralStorage int64
	AllowedPodNumber int64
	Scalar           map[string]int64
}

const resourceEphemeralStorage = "ephemeral-storage"

// Defaults the scoring plugins assume for a container that does not request cpu or memory
// (pkg/scheduler/util/pod_resources.go DefaultMilliCPURequest, DefaultMemoryRequest), so that
// best-effort pods still spread.
const (
	defaultMilliCPURequest int64 = 100
	defaultMemoryRequest   int64 = 200 * 1024 * 1024
)

// isScalarResourceName reports whether name is one of the resources upstream tracks in
// ScalarResources: extended resources (a domain-qualified name outside kubernetes.io) and
// hugepages (pkg/scheduler/util IsScalarResourceName). Other unknown names are ignored, as
// upstream ignores them.
func isScalarResourceName(name string) bool {
	if strings.HasPrefix(name, "hugepages-") {
		return true
	}
	if i := strings.IndexByte(name, '/'); i > 0 {
		domain := name[:i]
		return domain != "kubernetes.io" && !strings.HasSuffix(domain, ".kubernetes.io")
	}
	return false
}

// add adds one resource list to r.
func (r *Resource) add(list model.ResourceList) {
	for name, q := range list { //detlint:ordered sums; order does not matter
		switch name {
		case model.ResourceCPU:
			r.MilliCPU += q.MilliValue()
		case model.ResourceMemory:
			r.Memory += q.Value()
		case resourceEphemeralStorage:
			r.EphemeralStorage += q.Value()
		case model.ResourcePods:
			r.AllowedPodNumber += q.Value()
		default:
			if isScalarResourceName(name) {
				if r.Scalar == nil {
					r.Scalar = map[string]int64{}
				}
				r.Scalar[name] += q.Value()
			}
		}
	}
}

// addResource adds o to r.
func (r *Resource) addResource(o Resource) {
	r.MilliCPU += o.MilliCPU
	r.Memory += o.Memory
	r.EphemeralStorage += o.EphemeralStorage
	r.AllowedPodNumber += o.AllowedPodNumber
	for name, v := range o.Scalar { //detlint:ordered per-name arithmetic; order does not matter
		if r.Scalar == nil {
			r.Scalar = map[string]int64{}
		}
		r.Scalar[name] += v
	}
}

// subResource subtracts o from r.
func (r *Resource) subResource(o Resource) {
	r.MilliCPU -= o.MilliCPU
	r.Memory -= o.Memory
	r.EphemeralStorage -= o.EphemeralStorage
	r.AllowedPodNumber -= o.AllowedPodNumber
	for name, v := range o.Scalar { //detlint:ordered per-name arithmetic; order does not matter
		if r.Scalar == nil {
			r.Scalar = map[string]int64{}
		}
		r.Scalar[name] -= v
	}
}

// setMax raises every dimension of r to at least the one of o (init containers run one after
// another, so a pod needs the largest of them, not their sum).
func (r *Resource) setMax(o Resource) {
	r.MilliCPU = max(r.MilliCPU, o.MilliCPU)
	r.Memory = max(r.Memory, o.Memory)
	r.EphemeralStorage = max(r.EphemeralStorage, o.EphemeralStorage)
	r.AllowedPodNumber = max(r.AllowedPodNumber, o.AllowedPodNumber)
	for name, v := range o.Scalar { //detlint:ordered per-name arithmetic; order does not matter
		if r.Scalar == nil {
			r.Scalar = map[string]int64{}
		}
		r.Scalar[name] = max(r.Scalar[name], v)
	}
}

// clone returns a copy of r that shares no map with it.
func (r Resource) clone() Resource {
	out := r
	if r.Scalar != nil {
		out.Scalar = make(map[string]int64, len(r.Scalar))
		for name, v := range r.Scalar { //detlint:ordered a copy; order does not matter
			out.Scalar[name] = v
		}
	}
	return out
}

// isZero reports whether r requests nothing.
func (r Resource) isZero() bool {
	if r.MilliCPU != 0 || r.Memory != 0 || r.EphemeralStorage != 0 {
		return false
	}
	for _, v := range r.Scalar { //detlint:ordered an all-zero check; order does not matter
		if v != 0 {
			return false
		}
	}
	return true
}

// scalarNames returns the scalar resource names of r, sorted.
func (r Resource) scalarNames() []string { return slices.Sorted(maps.Keys(r.Scalar)) }

// containerRequests returns c's requests; with nonMissing, a cpu or memory request that is
// absent (not merely zero) is replaced by the scoring default (upstream PodResourcesOptions
// NonMissingContainerRequests).
func containerRequests(c *model.Container, nonMissing bool) Resource {
	var r Resource
	r.add(c.Resources.Requests)
	if nonMissing {
		if _, ok := c.Resources.Requests[model.ResourceCPU]; !ok {
			r.MilliCPU = defaultMilliCPURequest
		}
		if _, ok := c.Resources.Requests[model.ResourceMemory]; !ok {
			r.Memory = defaultMemoryRequest
		}
	}
	return r
}

// PodRequests computes a pod's effective requests as upstream resourcehelper.PodRequests
// (k8s.io/component-helpers/resource), sidecars included (model.AggregateContainers). With
// nonMissing, absent cpu/memory requests count as 100m/200Mi per container, which is what the
// scoring plugins use (NonZeroRequested). Pod overhead and pod-level resources are not
// modelled. The pods dimension (AllowedPodNumber) is always 0: a pod's "pods" request is
// implicit.
func PodRequests(pod *model.Pod, nonMissing bool) Resource {
	reqs := model.AggregateContainers(pod, func(c *model.Container) Resource {
		return containerRequests(c, nonMissing)
	}, func(a, b Resource) Resource {
		a.addResource(b)
		return a
	}, func(a, b Resource) Resource {
		a.setMax(b)
		return a
	})
	reqs.AllowedPodNumber = 0
	return reqs
}

// nodeAllocatable returns the node's status.allocatable as a Resource.
func nodeAllocatable(node *model.Node) Resource {
	var r Resource
	if node != nil {
		r.add(node.Status.Allocatable)
	}
	return r
}
