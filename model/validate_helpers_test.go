package model

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// validateCase is a row of the Validate tables: an object and the field errors Validate
// reports for it, as kube-apiserver prints them (nil: none).
type validateCase struct {
	name string
	obj  func() Object
	want []string
}

// updateCase is a row of the ValidateUpdate tables: an update from old to new and the field
// errors it gets (nil: none).
type updateCase struct {
	name     string
	old, new func() Object
	want     []string
}

// checkValidate runs a Validate table, one subtest a row.
func checkValidate(t *testing.T, cases []validateCase) {
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { checkErrors(t, tc.want, Validate(tc.obj())) })
	}
}

// checkValidateUpdate runs a ValidateUpdate table, one subtest a row.
func checkValidateUpdate(t *testing.T, cases []updateCase) {
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { checkErrors(t, tc.want, ValidateUpdate(tc.old(), tc.new())) })
	}
}

// checkErrors: got is nil when want is, else it prints as want.
func checkErrors(t *testing.T, want []string, got field.ErrorList) {
	t.Helper()
	if want == nil {
		assert.Nil(t, got)
		return
	}
	assert.Equal(t, want, validationStrings(got))
}

func validationStrings(errs field.ErrorList) []string {
	out := make([]string, len(errs))
	for i, e := range errs {
		out[i] = e.Error()
	}
	return out
}

// The fixtures: one valid object of each kind, which a table row edits.

func validPod() *Pod {
	p := &Pod{
		ObjectMeta: ObjectMeta{Name: "web-1", Namespace: "default", Labels: map[string]string{"app": "web"}},
		Spec: PodSpec{Containers: []Container{{
			Name:  "web",
			Image: "nginx",
			Resources: ResourceRequirements{
				Requests: ResourceList{"cpu": resource.MustParse("100m")},
				Limits:   ResourceList{"cpu": resource.MustParse("1")},
			},
			LivenessProbe: &Probe{},
		}}},
	}
	SetDefaults(p)
	return p
}

func validReplicaSet() *ReplicaSet {
	rs := &ReplicaSet{
		ObjectMeta: ObjectMeta{Name: "web", Namespace: "default"},
		Spec: ReplicaSetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: PodTemplateSpec{
				ObjectMeta: ObjectMeta{Labels: map[string]string{"app": "web", "tier": "front"}},
				Spec:       PodSpec{Containers: []Container{{Name: "web", Image: "nginx"}}},
			},
		},
	}
	SetDefaults(rs)
	return rs
}

func validNode() *Node {
	n := &Node{
		ObjectMeta: ObjectMeta{Name: "node-a"},
		Spec:       NodeSpec{Taints: []Taint{{Key: "dedicated", Value: "db", Effect: TaintEffectNoSchedule}}},
		Status:     NodeStatus{Capacity: ResourceList{"cpu": resource.MustParse("4")}},
	}
	SetDefaults(n)
	return n
}

func webLabels() map[string]string { return map[string]string{"app": "web"} }

func webPodTemplate() PodTemplateSpec {
	return PodTemplateSpec{ObjectMeta: ObjectMeta{Labels: webLabels()}, Spec: PodSpec{Containers: []Container{{Name: "web", Image: "nginx"}}}}
}

func validDeployment() *Deployment {
	d := &Deployment{
		ObjectMeta: ObjectMeta{Name: "web", Namespace: "default"},
		Spec:       DeploymentSpec{Selector: &metav1.LabelSelector{MatchLabels: webLabels()}, Template: webPodTemplate()},
	}
	SetDefaults(d)
	return d
}

func validStatefulSet() *StatefulSet {
	s := &StatefulSet{
		ObjectMeta: ObjectMeta{Name: "db", Namespace: "default"},
		Spec:       StatefulSetSpec{Selector: &metav1.LabelSelector{MatchLabels: webLabels()}, Template: webPodTemplate(), ServiceName: "db"},
	}
	SetDefaults(s)
	return s
}

func validDaemonSet() *DaemonSet {
	d := &DaemonSet{
		ObjectMeta: ObjectMeta{Name: "agent", Namespace: "kube-system"},
		Spec:       DaemonSetSpec{Selector: &metav1.LabelSelector{MatchLabels: webLabels()}, Template: webPodTemplate()},
	}
	SetDefaults(d)
	return d
}

func validPDB() *PodDisruptionBudget {
	return &PodDisruptionBudget{
		ObjectMeta: ObjectMeta{Name: "web", Namespace: "default"},
		Spec:       PodDisruptionBudgetSpec{MinAvailable: Ptr(intstr.FromString("50%")), Selector: &metav1.LabelSelector{MatchLabels: webLabels()}},
	}
}

func validHPA() *HorizontalPodAutoscaler {
	h := &HorizontalPodAutoscaler{
		ObjectMeta: ObjectMeta{Name: "web", Namespace: "default"},
		Spec: HorizontalPodAutoscalerSpec{
			ScaleTargetRef: CrossVersionObjectReference{Kind: "Deployment", Name: "web", APIVersion: "apps/v1"},
			MaxReplicas:    10,
			Behavior:       &HorizontalPodAutoscalerBehavior{},
		},
	}
	SetDefaults(h)
	return h
}

func validService() *Service {
	s := &Service{
		ObjectMeta: ObjectMeta{Name: "web", Namespace: "default"},
		Spec:       ServiceSpec{Selector: webLabels(), Ports: []ServicePort{{Name: "http", Port: 80, TargetPort: intstr.FromString("http")}, {Name: "metrics", Port: 9090}}},
	}
	SetDefaults(s)
	return s
}

func validEndpointSlice() *EndpointSlice {
	e := &EndpointSlice{
		ObjectMeta:  ObjectMeta{Name: "web-x1", Namespace: "default", Labels: map[string]string{LabelServiceName: "web"}},
		AddressType: AddressTypeIPv4,
		Endpoints:   []Endpoint{{Addresses: []string{"10.0.0.1"}, Conditions: EndpointConditions{Ready: Ptr(true)}, NodeName: Ptr("node-a")}},
		Ports:       []EndpointPort{{Name: Ptr("http"), Port: Ptr(int32(8080))}},
	}
	SetDefaults(e)
	return e
}
