package model

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// defaultedPodSpec is a one-container PodSpec after SetDefaults_PodSpec.
func defaultedPodSpec() PodSpec {
	return PodSpec{
		Containers:                    []Container{{Name: "c"}},
		RestartPolicy:                 RestartPolicyAlways,
		TerminationGracePeriodSeconds: Ptr(int64(30)),
		SchedulerName:                 DefaultSchedulerName,
	}
}

func TestSetDefaultsWorkloads(t *testing.T) {
	bare := PodTemplateSpec{Spec: PodSpec{Containers: []Container{{Name: "c"}}}}
	done := PodTemplateSpec{Spec: defaultedPodSpec()}
	pct := intstr.FromString
	num := intstr.FromInt32
	tests := []struct {
		name      string
		obj, want Object
	}{
		{
			name: "deployment: everything defaulted",
			obj:  &Deployment{Spec: DeploymentSpec{Template: bare}},
			want: &Deployment{Spec: DeploymentSpec{
				Replicas: Ptr(int32(1)),
				Template: done,
				Strategy: DeploymentStrategy{Type: "RollingUpdate", RollingUpdate: &RollingUpdateDeployment{
					MaxUnavailable: Ptr(pct("25%")), MaxSurge: Ptr(pct("25%")),
				}},
				RevisionHistoryLimit:    Ptr(int32(10)),
				ProgressDeadlineSeconds: Ptr(int32(600)),
			}},
		},
		{
			name: "deployment: set values kept, half-set rollingUpdate completed",
			obj: &Deployment{Spec: DeploymentSpec{
				Replicas: Ptr(int32(0)), Template: bare,
				Strategy:             DeploymentStrategy{RollingUpdate: &RollingUpdateDeployment{MaxSurge: Ptr(num(3))}},
				RevisionHistoryLimit: Ptr(int32(0)), ProgressDeadlineSeconds: Ptr(int32(30)),
			}},
			want: &Deployment{Spec: DeploymentSpec{
				Replicas: Ptr(int32(0)), Template: done,
				Strategy: DeploymentStrategy{Type: "RollingUpdate", RollingUpdate: &RollingUpdateDeployment{
					MaxUnavailable: Ptr(pct("25%")), MaxSurge: Ptr(num(3)),
				}},
				RevisionHistoryLimit: Ptr(int32(0)), ProgressDeadlineSeconds: Ptr(int32(30)),
			}},
		},
		{
			name: "deployment: Recreate gets no rollingUpdate",
			obj:  &Deployment{Spec: DeploymentSpec{Template: bare, Strategy: DeploymentStrategy{Type: "Recreate"}}},
			want: &Deployment{Spec: DeploymentSpec{
				Replicas: Ptr(int32(1)), Template: done, Strategy: DeploymentStrategy{Type: "Recreate"},
				RevisionHistoryLimit: Ptr(int32(10)), ProgressDeadlineSeconds: Ptr(int32(600)),
			}},
		},
		{
			name: "statefulset: everything defaulted",
			obj:  &StatefulSet{Spec: StatefulSetSpec{Template: bare}},
			want: &StatefulSet{Spec: StatefulSetSpec{
				Replicas: Ptr(int32(1)), Template: done, PodManagementPolicy: "OrderedReady",
				UpdateStrategy:       StatefulSetUpdateStrategy{Type: "RollingUpdate", RollingUpdate: &RollingUpdateStatefulSetStrategy{Partition: Ptr(int32(0))}},
				RevisionHistoryLimit: Ptr(int32(10)),
			}},
		},
		{
			name: "statefulset: explicit RollingUpdate without rollingUpdate stays without (upstream)",
			obj:  &StatefulSet{Spec: StatefulSetSpec{Template: bare, PodManagementPolicy: "Parallel", UpdateStrategy: StatefulSetUpdateStrategy{Type: "RollingUpdate"}}},
			want: &StatefulSet{Spec: StatefulSetSpec{
				Replicas: Ptr(int32(1)), Template: done, PodManagementPolicy: "Parallel",
				UpdateStrategy:       StatefulSetUpdateStrategy{Type: "RollingUpdate"},
				RevisionHistoryLimit: Ptr(int32(10)),
			}},
		},
		{
			name: "statefulset: OnDelete",
			obj:  &StatefulSet{Spec: StatefulSetSpec{Template: bare, UpdateStrategy: StatefulSetUpdateStrategy{Type: "OnDelete"}}},
			want: &StatefulSet{Spec: StatefulSetSpec{
				Replicas: Ptr(int32(1)), Template: done, PodManagementPolicy: "OrderedReady",
				UpdateStrategy: StatefulSetUpdateStrategy{Type: "OnDelete"}, RevisionHistoryLimit: Ptr(int32(10)),
			}},
		},
		{
			name: "daemonset: everything defaulted",
			obj:  &DaemonSet{Spec: DaemonSetSpec{Template: bare}},
			want: &DaemonSet{Spec: DaemonSetSpec{
				Template: done,
				UpdateStrategy: DaemonSetUpdateStrategy{Type: "RollingUpdate", RollingUpdate: &RollingUpdateDaemonSet{
					MaxUnavailable: Ptr(num(1)), MaxSurge: Ptr(num(0)),
				}},
				RevisionHistoryLimit: Ptr(int32(10)),
			}},
		},
		{
			name: "daemonset: OnDelete",
			obj:  &DaemonSet{Spec: DaemonSetSpec{Template: bare, UpdateStrategy: DaemonSetUpdateStrategy{Type: "OnDelete"}, RevisionHistoryLimit: Ptr(int32(3))}},
			want: &DaemonSet{Spec: DaemonSetSpec{Template: done, UpdateStrategy: DaemonSetUpdateStrategy{Type: "OnDelete"}, RevisionHistoryLimit: Ptr(int32(3))}},
		},
		{
			name: "hpa: minReplicas and the cpu 80% metric, no behavior",
			obj:  &HorizontalPodAutoscaler{Spec: HorizontalPodAutoscalerSpec{MaxReplicas: 5}},
			want: &HorizontalPodAutoscaler{Spec: HorizontalPodAutoscalerSpec{
				MaxReplicas: 5, MinReplicas: Ptr(int32(1)),
				Metrics: []MetricSpec{{Type: "Resource", Resource: &ResourceMetricSource{Name: "cpu", Target: MetricTarget{Type: "Utilization", AverageUtilization: Ptr(int32(80))}}}},
			}},
		},
		{
			name: "hpa: an empty behavior gets both default rule sets",
			obj: &HorizontalPodAutoscaler{Spec: HorizontalPodAutoscalerSpec{MaxReplicas: 5, MinReplicas: Ptr(int32(2)),
				Metrics:  []MetricSpec{{Type: "Pods", Pods: &PodsMetricSource{Metric: MetricIdentifier{Name: "rps"}, Target: MetricTarget{Type: "AverageValue", AverageValue: Ptr(resource.MustParse("10"))}}}},
				Behavior: &HorizontalPodAutoscalerBehavior{}}},
			want: &HorizontalPodAutoscaler{Spec: HorizontalPodAutoscalerSpec{MaxReplicas: 5, MinReplicas: Ptr(int32(2)),
				Metrics: []MetricSpec{{Type: "Pods", Pods: &PodsMetricSource{Metric: MetricIdentifier{Name: "rps"}, Target: MetricTarget{Type: "AverageValue", AverageValue: Ptr(resource.MustParse("10"))}}}},
				Behavior: &HorizontalPodAutoscalerBehavior{
					ScaleUp: &HPAScalingRules{StabilizationWindowSeconds: Ptr(int32(0)), SelectPolicy: Ptr("Max"), Policies: []HPAScalingPolicy{
						{Type: "Pods", Value: 4, PeriodSeconds: 15}, {Type: "Percent", Value: 100, PeriodSeconds: 15},
					}},
					ScaleDown: &HPAScalingRules{SelectPolicy: Ptr("Max"), Policies: []HPAScalingPolicy{{Type: "Percent", Value: 100, PeriodSeconds: 15}}},
				}}},
		},
		{
			name: "hpa: what the user set wins, field by field",
			obj: &HorizontalPodAutoscaler{Spec: HorizontalPodAutoscalerSpec{MaxReplicas: 5, MinReplicas: Ptr(int32(1)),
				Metrics: []MetricSpec{{Type: "Resource", Resource: &ResourceMetricSource{Name: "memory", Target: MetricTarget{Type: "Utilization", AverageUtilization: Ptr(int32(60))}}}},
				Behavior: &HorizontalPodAutoscalerBehavior{
					ScaleDown: &HPAScalingRules{StabilizationWindowSeconds: Ptr(int32(60)), Tolerance: Ptr(resource.MustParse("0.05"))},
					ScaleUp:   &HPAScalingRules{SelectPolicy: Ptr("Disabled"), Policies: []HPAScalingPolicy{{Type: "Pods", Value: 1, PeriodSeconds: 60}}},
				}}},
			want: &HorizontalPodAutoscaler{Spec: HorizontalPodAutoscalerSpec{MaxReplicas: 5, MinReplicas: Ptr(int32(1)),
				Metrics: []MetricSpec{{Type: "Resource", Resource: &ResourceMetricSource{Name: "memory", Target: MetricTarget{Type: "Utilization", AverageUtilization: Ptr(int32(60))}}}},
				Behavior: &HorizontalPodAutoscalerBehavior{
					ScaleUp: &HPAScalingRules{StabilizationWindowSeconds: Ptr(int32(0)), SelectPolicy: Ptr("Disabled"), Policies: []HPAScalingPolicy{{Type: "Pods", Value: 1, PeriodSeconds: 60}}},
					ScaleDown: &HPAScalingRules{StabilizationWindowSeconds: Ptr(int32(60)), SelectPolicy: Ptr("Max"), Tolerance: Ptr(resource.MustParse("0.05")),
						Policies: []HPAScalingPolicy{{Type: "Percent", Value: 100, PeriodSeconds: 15}}},
				}}},
		},
		{
			name: "service: type, protocol and targetPort",
			obj: &Service{Spec: ServiceSpec{Ports: []ServicePort{
				{Name: "http", Port: 80},
				{Name: "named", Port: 443, TargetPort: intstr.FromString("https"), Protocol: "UDP"},
				{Name: "empty-name", Port: 8080, TargetPort: intstr.FromString("")},
			}}},
			want: &Service{Spec: ServiceSpec{Type: "ClusterIP", Ports: []ServicePort{
				{Name: "http", Port: 80, Protocol: "TCP", TargetPort: intstr.FromInt32(80)},
				{Name: "named", Port: 443, TargetPort: intstr.FromString("https"), Protocol: "UDP"},
				{Name: "empty-name", Port: 8080, Protocol: "TCP", TargetPort: intstr.FromInt32(8080)},
			}}},
		},
		{
			name: "endpointslice: port name and protocol",
			obj:  &EndpointSlice{AddressType: "IPv4", Ports: []EndpointPort{{Port: Ptr(int32(80))}, {Name: Ptr("x"), Protocol: Ptr("UDP")}}},
			want: &EndpointSlice{AddressType: "IPv4", Ports: []EndpointPort{{Name: Ptr(""), Protocol: Ptr("TCP"), Port: Ptr(int32(80))}, {Name: Ptr("x"), Protocol: Ptr("UDP")}}},
		},
		{
			name: "pdb and controllerrevision: nothing",
			obj:  &PodDisruptionBudget{Spec: PodDisruptionBudgetSpec{MinAvailable: Ptr(num(1))}},
			want: &PodDisruptionBudget{Spec: PodDisruptionBudgetSpec{MinAvailable: Ptr(num(1))}},
		},
		{
			name: "controllerrevision: template left as stored",
			obj:  &ControllerRevision{Revision: 2, Data: ControllerRevisionData{Template: bare}},
			want: &ControllerRevision{Revision: 2, Data: ControllerRevisionData{Template: bare}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			SetDefaults(tc.obj)
			assert.True(t, equality.Semantic.DeepEqual(tc.want, tc.obj), "got %+v\nwant %+v", tc.obj, tc.want)
			again := tc.obj.DeepCopyObject()
			SetDefaults(again)
			assert.True(t, equality.Semantic.DeepEqual(tc.obj, again), "defaulting twice changes nothing")
		})
	}
}

// TestDefaultHPARulesAreFresh: the default rule constructors return new memory each time, so
// that defaulting one HPA cannot change another.
func TestDefaultHPARulesAreFresh(t *testing.T) {
	a, b := DefaultHPAScaleUpRules(), DefaultHPAScaleUpRules()
	a.Policies[0].Value = 99
	*a.SelectPolicy = "Min"
	assert.Equal(t, int32(4), b.Policies[0].Value)
	assert.Equal(t, "Max", *b.SelectPolicy)
	assert.Nil(t, DefaultHPAScaleDownRules().StabilizationWindowSeconds, "the controller's flag fills it")

	h1 := &HorizontalPodAutoscaler{Spec: HorizontalPodAutoscalerSpec{MaxReplicas: 3, Behavior: &HorizontalPodAutoscalerBehavior{}}}
	h2 := &HorizontalPodAutoscaler{Spec: HorizontalPodAutoscalerSpec{MaxReplicas: 3, Behavior: &HorizontalPodAutoscalerBehavior{}}}
	SetDefaults(h1)
	SetDefaults(h2)
	h1.Spec.Behavior.ScaleUp.Policies[0].Value = 1
	assert.Equal(t, int32(4), h2.Spec.Behavior.ScaleUp.Policies[0].Value)
}
