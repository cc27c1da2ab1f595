package model

import (
	"testing"

	"github.com/reconsim/reconsim/vtime"
	"k8s.io/apimachinery/pkg/api/resource"
)

// benchPod is a pod as a large cluster holds thousands of: created by a ReplicaSet, bound,
// running, with the default tolerations the API server adds.
func benchPod() *Pod {
	p := &Pod{
		ObjectMeta: ObjectMeta{
			Name: "svc-00-x7k2p", GenerateName: "svc-00-", Namespace: "default", UID: "u-1",
			ResourceVersion: 12, Generation: 1, CreationTimestamp: 5,
			Labels:          map[string]string{"app": "svc-00"},
			OwnerReferences: []OwnerReference{{APIVersion: "apps/v1", Kind: KindReplicaSet, Name: "svc-00", UID: "u-0", Controller: Ptr(true), BlockOwnerDeletion: Ptr(true)}},
		},
		Spec: PodSpec{
			Containers: []Container{{Name: "app", Image: "app:1.0", Resources: ResourceRequirements{
				Requests: ResourceList{ResourceCPU: resource.MustParse("100m"), ResourceMemory: resource.MustParse("128Mi")},
			}}},
			NodeName: "a-001",
			Tolerations: []Toleration{
				{Key: "node.kubernetes.io/not-ready", Operator: "Exists", Effect: TaintEffectNoExecute, TolerationSeconds: Ptr(int64(300))},
				{Key: "node.kubernetes.io/unreachable", Operator: "Exists", Effect: TaintEffectNoExecute, TolerationSeconds: Ptr(int64(300))},
			},
		},
		Status: PodStatus{
			Phase: PodRunning,
			Conditions: []PodCondition{
				{Type: PodScheduled, Status: ConditionTrue, LastTransitionTime: 6},
				{Type: PodReady, Status: ConditionTrue, LastTransitionTime: 9},
			},
			HostIP: "10.0.0.1", PodIP: "10.1.0.7", StartTime: Ptr(vtime.Time(7)),
			ContainerStatuses: []ContainerStatus{{Name: "app", Ready: true, Started: Ptr(true),
				State: ContainerState{Running: &ContainerStateRunning{StartedAt: 8}}}},
		},
	}
	SetDefaults(p)
	return p
}

// benchNode is a registered, Ready node with the kubelet's labels, capacity and conditions.
func benchNode() *Node {
	n := &Node{
		ObjectMeta: ObjectMeta{Name: "a-001", UID: "u-n", ResourceVersion: 40, Labels: map[string]string{
			"kubernetes.io/hostname": "a-001", "kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64",
			"topology.kubernetes.io/zone": "zone-a", "topology.kubernetes.io/region": "region-1",
		}},
		Status: NodeStatus{
			Capacity:    ResourceList{ResourceCPU: resource.MustParse("16"), ResourceMemory: resource.MustParse("64Gi"), ResourcePods: resource.MustParse("110")},
			Allocatable: ResourceList{ResourceCPU: resource.MustParse("16"), ResourceMemory: resource.MustParse("64Gi"), ResourcePods: resource.MustParse("110")},
			Conditions: []NodeCondition{
				{Type: "MemoryPressure", Status: ConditionFalse}, {Type: "DiskPressure", Status: ConditionFalse},
				{Type: "PIDPressure", Status: ConditionFalse}, {Type: "Ready", Status: ConditionTrue},
			},
		},
	}
	SetDefaults(n)
	return n
}

func BenchmarkDeepCopyPod(b *testing.B) {
	p := benchPod()
	b.ReportAllocs()
	for b.Loop() {
		_ = p.DeepCopy()
	}
}

func BenchmarkDeepCopyNode(b *testing.B) {
	n := benchNode()
	b.ReportAllocs()
	for b.Loop() {
		_ = n.DeepCopy()
	}
}

func BenchmarkDeepCopyLease(b *testing.B) {
	l := &Lease{ObjectMeta: ObjectMeta{Name: "a-001", Namespace: "kube-node-lease"},
		Spec: LeaseSpec{HolderIdentity: "a-001", LeaseDurationSeconds: Ptr(int32(40)), RenewTime: Ptr(vtime.Time(9))}}
	b.ReportAllocs()
	for b.Loop() {
		_ = l.DeepCopy()
	}
}

// benchmarkValidateUpdate measures ValidateUpdate and ValidateUpdateOfValid on the update
// that change makes of a copy of old.
func benchmarkValidateUpdate(b *testing.B, old Object, change func(old, upd Object)) {
	for _, bc := range []struct {
		name     string
		validate func(old, obj Object) error
	}{
		{"ValidateUpdate", func(old, obj Object) error { return ValidateUpdate(old, obj).ToAggregate() }},
		{"ValidateUpdateOfValid", func(old, obj Object) error { return ValidateUpdateOfValid(old, obj).ToAggregate() }},
	} {
		b.Run(bc.name, func(b *testing.B) {
			upd := old.DeepCopyObject()
			change(old, upd)
			b.ReportAllocs()
			for b.Loop() {
				if err := bc.validate(old, upd); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkValidateUpdatePodStatus is a kubelet's pod status update as the API server
// validates it: the status subresource has put the stored spec back into the update.
func BenchmarkValidateUpdatePodStatus(b *testing.B) {
	benchmarkValidateUpdate(b, benchPod(), func(old, upd Object) {
		p := upd.(*Pod)
		p.Spec = old.(*Pod).Spec
		p.Status.Conditions[1].Status = ConditionFalse
	})
}

// BenchmarkValidateUpdateNodeStatus is a kubelet's node status heartbeat as the API server
// validates it.
func BenchmarkValidateUpdateNodeStatus(b *testing.B) {
	benchmarkValidateUpdate(b, benchNode(), func(_, upd Object) {
		upd.(*Node).Status.Conditions[3].LastHeartbeatTime = 10
	})
}

// BenchmarkValidateUpdatePodLabels is a controller relabelling a pod through the main
// resource: the spec is the client's copy, equal to the stored one but not the same memory.
func BenchmarkValidateUpdatePodLabels(b *testing.B) {
	benchmarkValidateUpdate(b, benchPod(), func(_, upd Object) {
		upd.Meta().Labels["tier"] = "web"
	})
}

// BenchmarkValidateCreate is the API server's validation of a ReplicaSet's next replica
// (ValidateLike against the replica before it, as the store does) and of an Event.
func BenchmarkValidateCreate(b *testing.B) {
	prev := benchPod()
	pod := benchPod()
	pod.Name, pod.UID, pod.Spec.NodeName = "svc-00-q9z4m", "u-2", ""
	event := &Event{
		ObjectMeta:     ObjectMeta{Name: "svc-00-q9z4m.187a3c5f0e2b4d61", Namespace: "default"},
		InvolvedObject: ObjectReference{Kind: KindPod, Namespace: "default", Name: "svc-00-q9z4m", UID: "u-2"},
		Reason:         "Scheduled", Message: "Successfully assigned default/svc-00-q9z4m to a-001", Type: "Normal", Count: 1,
	}
	SetDefaults(event)
	for _, bc := range []struct {
		name     string
		validate func() error
	}{
		{"Pod", func() error { return Validate(pod).ToAggregate() }},
		{"PodLikePrevious", func() error { return ValidateLike(pod, prev).ToAggregate() }},
		{"Event", func() error { return Validate(event).ToAggregate() }},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := bc.validate(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
