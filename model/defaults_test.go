package model

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// externalKind stands for a kind registered from another package.
type externalKind struct {
	ObjectMeta `json:"metadata"`
	Defaulted  bool `json:"defaulted"`
}

func (e *externalKind) Meta() *ObjectMeta      { return &e.ObjectMeta }
func (e *externalKind) GetKind() Kind          { return "External" }
func (e *externalKind) DeepCopyObject() Object { c := *e; return &c }
func (e *externalKind) SetDefaults()           { e.Defaulted = true }
func (e *externalKind) Validate() field.ErrorList {
	if !e.Defaulted {
		return field.ErrorList{field.Required(field.NewPath("defaulted"), "")}
	}
	return nil
}

func TestSetDefaults(t *testing.T) {
	q := resource.MustParse
	tests := []struct {
		name      string
		obj, want Object
	}{
		{
			name: "pod spec, probes and requests from limits",
			obj: &Pod{Spec: PodSpec{
				Containers: []Container{{
					Name: "c",
					Resources: ResourceRequirements{
						Requests: ResourceList{"cpu": q("100m")},
						Limits:   ResourceList{"cpu": q("1"), "memory": q("1Gi")},
					},
					LivenessProbe:  &Probe{InitialDelaySeconds: 5},
					ReadinessProbe: &Probe{PeriodSeconds: 3, FailureThreshold: 7},
				}},
				InitContainers: []Container{{Name: "i", Resources: ResourceRequirements{Limits: ResourceList{"memory": q("64Mi")}}}},
			}},
			want: &Pod{Spec: PodSpec{
				Containers: []Container{{
					Name: "c",
					Resources: ResourceRequirements{
						Requests: ResourceList{"cpu": q("100m"), "memory": q("1Gi")},
						Limits:   ResourceList{"cpu": q("1"), "memory": q("1Gi")},
					},
					LivenessProbe:  &Probe{InitialDelaySeconds: 5, TimeoutSeconds: 1, PeriodSeconds: 10, SuccessThreshold: 1, FailureThreshold: 3},
					ReadinessProbe: &Probe{TimeoutSeconds: 1, PeriodSeconds: 3, SuccessThreshold: 1, FailureThreshold: 7},
				}},
				InitContainers: []Container{{Name: "i", Resources: ResourceRequirements{
					Requests: ResourceList{"memory": q("64Mi")},
					Limits:   ResourceList{"memory": q("64Mi")},
				}}},
				RestartPolicy:                 "Always",
				TerminationGracePeriodSeconds: Ptr(int64(30)),
				SchedulerName:                 "default-scheduler",
			}},
		},
		{
			name: "pod keeps what is set; toleration operator stays empty",
			obj: &Pod{Spec: PodSpec{
				Containers:                    []Container{{Name: "c"}},
				RestartPolicy:                 "Never",
				TerminationGracePeriodSeconds: Ptr(int64(0)),
				SchedulerName:                 "mine",
				Tolerations:                   []Toleration{{Key: "k", Value: "v"}},
			}},
			want: &Pod{Spec: PodSpec{
				Containers:                    []Container{{Name: "c"}},
				RestartPolicy:                 "Never",
				TerminationGracePeriodSeconds: Ptr(int64(0)),
				SchedulerName:                 "mine",
				Tolerations:                   []Toleration{{Key: "k", Value: "v"}},
			}},
		},
		{
			name: "replicaset: replicas 1, template spec defaults, no requests from limits, no selector",
			obj: &ReplicaSet{Spec: ReplicaSetSpec{Template: PodTemplateSpec{
				ObjectMeta: ObjectMeta{Labels: map[string]string{"app": "a"}},
				Spec: PodSpec{Containers: []Container{{
					Name:         "c",
					Resources:    ResourceRequirements{Limits: ResourceList{"cpu": q("1")}},
					StartupProbe: &Probe{},
				}}},
			}}},
			want: &ReplicaSet{Spec: ReplicaSetSpec{
				Replicas: Ptr(int32(1)),
				Template: PodTemplateSpec{
					ObjectMeta: ObjectMeta{Labels: map[string]string{"app": "a"}},
					Spec: PodSpec{
						Containers: []Container{{
							Name:         "c",
							Resources:    ResourceRequirements{Limits: ResourceList{"cpu": q("1")}},
							StartupProbe: &Probe{TimeoutSeconds: 1, PeriodSeconds: 10, SuccessThreshold: 1, FailureThreshold: 3},
						}},
						RestartPolicy:                 "Always",
						TerminationGracePeriodSeconds: Ptr(int64(30)),
						SchedulerName:                 "default-scheduler",
					},
				},
			}},
		},
		{
			name: "replicaset keeps zero replicas",
			obj:  &ReplicaSet{Spec: ReplicaSetSpec{Replicas: Ptr(int32(0))}},
			want: &ReplicaSet{Spec: ReplicaSetSpec{Replicas: Ptr(int32(0)), Template: PodTemplateSpec{Spec: PodSpec{
				RestartPolicy: "Always", TerminationGracePeriodSeconds: Ptr(int64(30)), SchedulerName: "default-scheduler",
			}}}},
		},
		{
			name: "node allocatable from capacity",
			obj:  &Node{Status: NodeStatus{Capacity: ResourceList{"cpu": q("4"), "pods": q("110")}}},
			want: &Node{Status: NodeStatus{Capacity: ResourceList{"cpu": q("4"), "pods": q("110")}, Allocatable: ResourceList{"cpu": q("4"), "pods": q("110")}}},
		},
		{
			name: "node keeps its allocatable",
			obj:  &Node{Status: NodeStatus{Capacity: ResourceList{"cpu": q("4")}, Allocatable: ResourceList{"cpu": q("3")}}},
			want: &Node{Status: NodeStatus{Capacity: ResourceList{"cpu": q("4")}, Allocatable: ResourceList{"cpu": q("3")}}},
		},
		{name: "namespace phase", obj: &Namespace{}, want: &Namespace{Status: NamespaceStatus{Phase: "Active"}}},
		{name: "namespace terminating kept", obj: &Namespace{Status: NamespaceStatus{Phase: "Terminating"}}, want: &Namespace{Status: NamespaceStatus{Phase: "Terminating"}}},
		{name: "lease untouched", obj: &Lease{}, want: &Lease{}},
		{name: "event untouched", obj: &Event{}, want: &Event{}},
		{name: "external kind uses Defaulter", obj: &externalKind{}, want: &externalKind{Defaulted: true}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			SetDefaults(tc.obj)
			assert.True(t, equality.Semantic.DeepEqual(tc.want, tc.obj), "got %+v", tc.obj)
			again := tc.obj.DeepCopyObject()
			SetDefaults(again)
			assert.True(t, equality.Semantic.DeepEqual(tc.obj, again), "defaulting twice changed the object")
		})
	}
	SetDefaults(nil) // must not panic
}

func TestSetDefaultsDoesNotAliasLimits(t *testing.T) {
	pod := &Pod{Spec: PodSpec{Containers: []Container{{Name: "c", Resources: ResourceRequirements{Limits: ResourceList{"cpu": resource.MustParse("1")}}}}}}
	SetDefaults(pod)
	req := pod.Spec.Containers[0].Resources.Requests["cpu"]
	req.Add(resource.MustParse("1"))
	pod.Spec.Containers[0].Resources.Requests["cpu"] = req
	limit := pod.Spec.Containers[0].Resources.Limits["cpu"]
	assert.Equal(t, "1", limit.String())
}

// TestDefaultedViewsLeaveTheOriginal checks, for every kind, filled at random and with the
// fields defaulting writes left empty, that a view equals a deep copy defaulted, and that
// making it (and making the next one into the same buffers) leaves the original as it was.
func TestDefaultedViewsLeaveTheOriginal(t *testing.T) {
	setNamespace := func(m *ObjectMeta) { m.Namespace = "default" }
	var views DefaultedViews
	for _, ki := range Kinds() {
		t.Run(string(ki.Kind), func(t *testing.T) {
			objects := []Object{ki.New()} // empty: every default is written
			for seed := int64(0); seed < 10; seed++ {
				filled := ki.New()
				newFiller(seed).Fill(filled)
				sparse := ki.New()
				newFiller(seed).NilChance(0.5).Fill(sparse)
				objects = append(objects, filled, sparse)
			}
			if ki.Kind == KindService { // ports that defaulting writes, one it leaves
				objects = append(objects, &Service{Spec: ServiceSpec{Ports: []ServicePort{{Port: 80}, {Port: 81, Protocol: "UDP"}}}})
			}
			for i, orig := range objects {
				before := mustJSON(t, orig)
				want := orig.DeepCopyObject()
				setNamespace(want.Meta())
				SetDefaults(want)

				got := views.View(orig, setNamespace)
				assert.True(t, equality.Semantic.DeepEqual(want, got), "object %d: the view differs from a defaulted copy", i)
				assert.JSONEq(t, string(before), string(mustJSON(t, orig)), "object %d: making its view changed the original", i)
				views.View(ki.New(), nil) // the next view reuses the buffers
				assert.JSONEq(t, string(before), string(mustJSON(t, orig)), "object %d: the next view changed the original", i)
			}
		})
	}
}
