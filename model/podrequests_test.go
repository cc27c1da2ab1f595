package model

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"k8s.io/apimachinery/pkg/api/resource"
)

// TestPodCPUMemoryRequestsWithSidecars follows the examples of KEP-753 ("Resources calculation
// for scheduling and pod admission") and the cases of k8s.io/component-helpers resource
// TestPodResourceRequests: sidecars add to the app containers, and each plain init container
// needs itself plus the sidecars started before it.
func TestPodCPUMemoryRequestsWithSidecars(t *testing.T) {
	type ctr struct {
		cpu, mem string
		sidecar  bool
	}
	container := func(c ctr) Container {
		out := Container{Resources: ResourceRequirements{Requests: ResourceList{
			ResourceCPU: resource.MustParse(c.cpu), ResourceMemory: resource.MustParse(c.mem),
		}}}
		if c.sidecar {
			out.RestartPolicy = Ptr(ContainerRestartPolicyAlways)
		}
		return out
	}
	for _, tc := range []struct {
		name         string
		init, app    []ctr
		wantMilliCPU int64
		wantMemory   int64
	}{
		{name: "app containers add up", app: []ctr{{cpu: "1", mem: "1Gi"}, {cpu: "2", mem: "1Gi"}}, wantMilliCPU: 3000, wantMemory: 2 << 30},
		{name: "a larger plain init container wins", init: []ctr{{cpu: "5", mem: "100Mi"}}, app: []ctr{{cpu: "1", mem: "1Gi"}}, wantMilliCPU: 5000, wantMemory: 1 << 30},
		{name: "a sidecar adds to the app containers", init: []ctr{{cpu: "1", mem: "1Gi", sidecar: true}}, app: []ctr{{cpu: "2", mem: "1Gi"}}, wantMilliCPU: 3000, wantMemory: 2 << 30},
		{
			name:         "an init container after a sidecar needs both",
			init:         []ctr{{cpu: "1", mem: "100Mi", sidecar: true}, {cpu: "3", mem: "100Mi"}},
			app:          []ctr{{cpu: "2", mem: "100Mi"}},
			wantMilliCPU: 4000, wantMemory: 200 << 20,
		},
		{
			name:         "an init container before the sidecar needs only itself",
			init:         []ctr{{cpu: "3", mem: "100Mi"}, {cpu: "1", mem: "100Mi", sidecar: true}},
			app:          []ctr{{cpu: "1", mem: "100Mi"}},
			wantMilliCPU: 3000, wantMemory: 200 << 20,
		},
		{
			name:         "KEP-753 example",
			init:         []ctr{{cpu: "1", mem: "1Gi"}, {cpu: "2", mem: "2Gi", sidecar: true}, {cpu: "3", mem: "1Gi"}, {cpu: "1", mem: "1Gi", sidecar: true}},
			app:          []ctr{{cpu: "1", mem: "1Gi"}},
			wantMilliCPU: 5000, wantMemory: 4 << 30,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pod := &Pod{}
			for _, c := range tc.init {
				pod.Spec.InitContainers = append(pod.Spec.InitContainers, container(c))
			}
			for _, c := range tc.app {
				pod.Spec.Containers = append(pod.Spec.Containers, container(c))
			}
			cpu, mem := PodCPUMemoryRequests(pod)
			assert.Equal(t, tc.wantMilliCPU, cpu, "milli-CPU")
			assert.Equal(t, tc.wantMemory, mem, "memory bytes")
		})
	}
}
