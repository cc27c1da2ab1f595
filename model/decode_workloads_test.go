package model

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// TestDecodeWorkloadManifests decodes real-looking manifests of the workload, policy,
// discovery and autoscaling kinds: int-or-string, quantities, selectors with expressions and
// nested optional structs all come through, with no warnings, and the objects are valid once
// defaulted.
func TestDecodeWorkloadManifests(t *testing.T) {
	objs, warnings, err := DecodeManifests("workloads.yaml", readTestdata(t, "workloads.yaml"))
	require.NoError(t, err)
	assert.Empty(t, warnings)
	var refs []string
	for _, o := range objs {
		refs = append(refs, Ref(o))
	}
	require.Equal(t, []string{
		"Deployment shop/web", "StatefulSet shop/db", "DaemonSet kube-system/agent",
		"PodDisruptionBudget shop/web", "Service shop/web", "HorizontalPodAutoscaler shop/web",
	}, refs)

	d := objs[0].(*Deployment)
	assert.Equal(t, &RollingUpdateDeployment{MaxSurge: Ptr(intstr.FromInt32(3)), MaxUnavailable: Ptr(intstr.FromString("25%"))}, d.Spec.Strategy.RollingUpdate)
	assert.Equal(t, int32(10), *d.Spec.Replicas)

	ss := objs[1].(*StatefulSet)
	assert.Equal(t, []metav1.LabelSelectorRequirement{{Key: "app", Operator: metav1.LabelSelectorOpIn, Values: []string{"db"}}}, ss.Spec.Selector.MatchExpressions)
	assert.Equal(t, Ptr(int32(1)), ss.Spec.UpdateStrategy.RollingUpdate.Partition)
	assert.Equal(t, "", ss.Spec.UpdateStrategy.Type, "defaulting, not decoding, fills the type")

	ds := objs[2].(*DaemonSet)
	assert.Equal(t, Ptr(intstr.FromString("10%")), ds.Spec.UpdateStrategy.RollingUpdate.MaxSurge)

	pdb := objs[3].(*PodDisruptionBudget)
	assert.Equal(t, Ptr(intstr.FromInt32(1)), pdb.Spec.MaxUnavailable)
	assert.Equal(t, Ptr(AlwaysAllow), pdb.Spec.UnhealthyPodEvictionPolicy)

	svc := objs[4].(*Service)
	assert.Equal(t, []ServicePort{{Name: "http", Port: 80, TargetPort: intstr.FromString("http")}}, svc.Spec.Ports)

	hpa := objs[5].(*HorizontalPodAutoscaler)
	require.Len(t, hpa.Spec.Metrics, 2)
	assert.Equal(t, Ptr(int32(60)), hpa.Spec.Metrics[0].Resource.Target.AverageUtilization)
	ext := hpa.Spec.Metrics[1].External
	require.NotNil(t, ext)
	assert.Equal(t, "orders", ext.Metric.Selector.MatchLabels["queue"])
	assert.Equal(t, int64(500), ext.Target.AverageValue.MilliValue())
	assert.Equal(t, []HPAScalingPolicy{{Type: PodsScalingPolicy, Value: 2, PeriodSeconds: 30}}, hpa.Spec.Behavior.ScaleDown.Policies)
	assert.Nil(t, hpa.Spec.Behavior.ScaleUp)

	for _, o := range objs {
		SetDefaults(o)
		assert.Empty(t, Validate(o), Ref(o))
	}
	assert.Equal(t, RollingUpdateStatefulSetStrategyType, ss.Spec.UpdateStrategy.Type)
	assert.Equal(t, DefaultHPAScaleUpRules(), hpa.Spec.Behavior.ScaleUp)
	assert.Equal(t, Ptr(int32(60)), hpa.Spec.Behavior.ScaleDown.StabilizationWindowSeconds)
	assert.Equal(t, intstr.FromString("http"), svc.Spec.Ports[0].TargetPort)
}
