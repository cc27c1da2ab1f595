package model

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

func TestValidateWorkloads(t *testing.T) {
	pct := func(s string) *intstr.IntOrString { return Ptr(intstr.FromString(s)) }
	num := func(n int32) *intstr.IntOrString { return Ptr(intstr.FromInt32(n)) }
	checkValidate(t, []validateCase{
		{"valid deployment", func() Object { return validDeployment() }, nil},
		{"valid statefulset", func() Object { return validStatefulSet() }, nil},
		{"valid daemonset", func() Object { return validDaemonSet() }, nil},
		{"valid pdb", func() Object { return validPDB() }, nil},
		{"valid hpa", func() Object { return validHPA() }, nil},
		{"valid service", func() Object { return validService() }, nil},
		{"valid endpointslice", func() Object { return validEndpointSlice() }, nil},
		{"valid controllerrevision", func() Object {
			return &ControllerRevision{ObjectMeta: ObjectMeta{Name: "db-5d8f", Namespace: "default"}, Revision: 1, Data: ControllerRevisionData{Template: webPodTemplate()}}
		}, nil},

		// deployment
		{"deployment selector required", func() Object {
			d := validDeployment()
			d.Spec.Selector = nil
			return d
		}, []string{
			"spec.selector: Required value",
			"spec.template.metadata.labels: Invalid value: {\"app\":\"web\"}: `selector` does not match template `labels`",
		}},
		{"deployment selector does not match", func() Object {
			d := validDeployment()
			d.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": "db"}}
			return d
		}, []string{"spec.template.metadata.labels: Invalid value: {\"app\":\"web\"}: `selector` does not match template `labels`"}},
		{"deployment empty selector", func() Object {
			d := validDeployment()
			d.Spec.Selector = &metav1.LabelSelector{}
			return d
		}, []string{"spec.selector: Invalid value: {}: empty selector is invalid for deployment"}},
		{"deployment negative replicas and limits", func() Object {
			d := validDeployment()
			d.Spec.Replicas = Ptr(int32(-1))
			d.Spec.RevisionHistoryLimit = Ptr(int32(-2))
			d.Spec.MinReadySeconds = 10
			d.Spec.ProgressDeadlineSeconds = Ptr(int32(10))
			return d
		}, []string{
			"spec.replicas: Invalid value: -1: must be greater than or equal to 0",
			"spec.revisionHistoryLimit: Invalid value: -2: must be greater than or equal to 0",
			"spec.progressDeadlineSeconds: Invalid value: 10: must be greater than minReadySeconds",
		}},
		{"deployment maxSurge and maxUnavailable both 0", func() Object {
			d := validDeployment()
			d.Spec.Strategy.RollingUpdate = &RollingUpdateDeployment{MaxUnavailable: pct("0%"), MaxSurge: num(0)}
			return d
		}, []string{"spec.strategy.rollingUpdate.maxUnavailable: Invalid value: \"0%\": may not be 0 when `maxSurge` is 0"}},
		{"deployment bad percentages", func() Object {
			d := validDeployment()
			d.Spec.Strategy.RollingUpdate = &RollingUpdateDeployment{MaxUnavailable: pct("150%"), MaxSurge: pct("lots")}
			return d
		}, []string{
			`spec.strategy.rollingUpdate.maxSurge: Invalid value: "lots": a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')`,
			`spec.strategy.rollingUpdate.maxUnavailable: Invalid value: "150%": must not be greater than 100%`,
		}},
		{"deployment negative maxSurge", func() Object {
			d := validDeployment()
			d.Spec.Strategy.RollingUpdate.MaxSurge = num(-1)
			return d
		}, []string{"spec.strategy.rollingUpdate.maxSurge: Invalid value: -1: must be greater than or equal to 0"}},
		{"deployment Recreate with rollingUpdate", func() Object {
			d := validDeployment()
			d.Spec.Strategy.Type = RecreateDeploymentStrategyType
			return d
		}, []string{"spec.strategy.rollingUpdate: Forbidden: may not be specified when strategy `type` is 'Recreate'"}},
		{"deployment unknown strategy", func() Object {
			d := validDeployment()
			d.Spec.Strategy = DeploymentStrategy{Type: "BlueGreen"}
			return d
		}, []string{`spec.strategy.type: Unsupported value: "BlueGreen": supported values: "Recreate", "RollingUpdate"`}},
		{"deployment template restartPolicy", func() Object {
			d := validDeployment()
			d.Spec.Template.Spec.RestartPolicy = RestartPolicyNever
			return d
		}, []string{`spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always"`}},

		// statefulset
		{"statefulset policies", func() Object {
			s := validStatefulSet()
			s.Spec.PodManagementPolicy = "Random"
			s.Spec.UpdateStrategy = StatefulSetUpdateStrategy{Type: "OnDelete", RollingUpdate: &RollingUpdateStatefulSetStrategy{}}
			return s
		}, []string{
			`spec.podManagementPolicy: Invalid value: "Random": must be 'OrderedReady' or 'Parallel'`,
			`spec.updateStrategy.rollingUpdate: Invalid value: {}: only allowed for updateStrategy 'RollingUpdate'`,
		}},
		{"statefulset rolling update fields", func() Object {
			s := validStatefulSet()
			s.Spec.UpdateStrategy.RollingUpdate = &RollingUpdateStatefulSetStrategy{Partition: Ptr(int32(-1)), MaxUnavailable: num(0)}
			s.Spec.Replicas = Ptr(int32(-3))
			return s
		}, []string{
			"spec.updateStrategy.rollingUpdate.partition: Invalid value: -1: must be greater than or equal to 0",
			"spec.updateStrategy.rollingUpdate.maxUnavailable: Invalid value: 0: cannot be 0",
			"spec.replicas: Invalid value: -3: must be greater than or equal to 0",
		}},
		{"statefulset empty policies (not defaulted)", func() Object {
			s := validStatefulSet()
			s.Spec.PodManagementPolicy = ""
			s.Spec.UpdateStrategy = StatefulSetUpdateStrategy{Type: "Sometimes"}
			return s
		}, []string{
			"spec.podManagementPolicy: Required value",
			`spec.updateStrategy: Invalid value: "Sometimes": must be 'RollingUpdate' or 'OnDelete'`,
		}},
		{"statefulset selector mismatch", func() Object {
			s := validStatefulSet()
			s.Spec.Template.Labels = map[string]string{"app": "other"}
			return s
		}, []string{"spec.template.metadata.labels: Invalid value: {\"app\":\"other\"}: `selector` does not match template `labels`"}},

		// daemonset
		{"daemonset both surge and unavailable", func() Object {
			d := validDaemonSet()
			d.Spec.UpdateStrategy.RollingUpdate.MaxSurge = pct("10%")
			return d
		}, []string{`spec.updateStrategy.rollingUpdate.maxSurge: Invalid value: "10%": may not be set when maxUnavailable is non-zero`}},
		{"daemonset neither surge nor unavailable", func() Object {
			d := validDaemonSet()
			d.Spec.UpdateStrategy.RollingUpdate.MaxUnavailable = pct("0%")
			return d
		}, []string{"spec.updateStrategy.rollingUpdate.maxUnavailable: Required value: cannot be 0 when maxSurge is 0"}},
		{"daemonset surge over 100%", func() Object {
			d := validDaemonSet()
			d.Spec.UpdateStrategy.RollingUpdate = &RollingUpdateDaemonSet{MaxUnavailable: num(0), MaxSurge: pct("101%")}
			return d
		}, []string{`spec.updateStrategy.rollingUpdate.maxSurge: Invalid value: "101%": must not be greater than 100%`}},
		{"daemonset strategy", func() Object {
			d := validDaemonSet()
			d.Spec.UpdateStrategy = DaemonSetUpdateStrategy{Type: "Whenever"}
			d.Spec.Selector = &metav1.LabelSelector{}
			return d
		}, []string{
			"spec.selector: Invalid value: {}: empty selector is invalid for daemonset",
			`spec.updateStrategy.type: Unsupported value: "Whenever": supported values: "RollingUpdate", "OnDelete"`,
		}},
		{"daemonset rollingUpdate missing", func() Object {
			d := validDaemonSet()
			d.Spec.UpdateStrategy.RollingUpdate = nil
			return d
		}, []string{"spec.updateStrategy.rollingUpdate: Required value"}},

		// pdb
		{"pdb both min and max", func() Object {
			p := validPDB()
			p.Spec.MaxUnavailable = num(1)
			return p
		}, []string{`spec: Invalid value: "minAvailable and maxUnavailable": minAvailable and maxUnavailable cannot be both set`}},
		{"pdb bad values", func() Object {
			p := validPDB()
			p.Spec.MinAvailable = pct("120%")
			p.Spec.UnhealthyPodEvictionPolicy = Ptr("Sometimes")
			p.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": "a b"}}
			return p
		}, []string{
			`spec.minAvailable: Invalid value: "120%": must not be greater than 100%`,
			`spec.selector.matchLabels: Invalid value: "a b": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`,
			`spec.unhealthyPodEvictionPolicy: Unsupported value: "Sometimes": supported values: "AlwaysAllow", "IfHealthyBudget"`,
		}},
		{"pdb negative maxUnavailable", func() Object {
			p := validPDB()
			p.Spec.MinAvailable = nil
			p.Spec.MaxUnavailable = num(-1)
			return p
		}, []string{"spec.maxUnavailable: Invalid value: -1: must be greater than or equal to 0"}},

		// hpa
		{"hpa replicas", func() Object {
			h := validHPA()
			h.Spec.MinReplicas = Ptr(int32(0))
			h.Spec.MaxReplicas = -1
			return h
		}, []string{
			"spec.minReplicas: Invalid value: 0: must be greater than or equal to 1",
			"spec.maxReplicas: Invalid value: -1: must be greater than 0",
			"spec.maxReplicas: Invalid value: -1: must be greater than or equal to `minReplicas`",
		}},
		{"hpa max below min", func() Object {
			h := validHPA()
			h.Spec.MinReplicas = Ptr(int32(5))
			h.Spec.MaxReplicas = 3
			return h
		}, []string{"spec.maxReplicas: Invalid value: 3: must be greater than or equal to `minReplicas`"}},
		{"hpa target ref", func() Object {
			h := validHPA()
			h.Spec.ScaleTargetRef = CrossVersionObjectReference{Name: "a/b"}
			return h
		}, []string{
			"spec.scaleTargetRef.kind: Required value",
			`spec.scaleTargetRef.name: Invalid value: "a/b": may not contain '/'`,
		}},
		{"hpa metrics", func() Object {
			h := validHPA()
			h.Spec.Metrics = []MetricSpec{
				{Type: "Resource", Resource: &ResourceMetricSource{Name: "cpu", Target: MetricTarget{Type: "Utilization"}}},
				{Type: "Pods", Resource: &ResourceMetricSource{Name: "cpu", Target: MetricTarget{Type: "Utilization", AverageUtilization: Ptr(int32(0))}}},
				{Type: "External", External: &ExternalMetricSource{Metric: MetricIdentifier{Name: "queue"}, Target: MetricTarget{Type: "Value", Value: Ptr(resource.MustParse("-1")), AverageValue: Ptr(resource.MustParse("2"))}}},
				{Type: "Sideways"},
			}
			return h
		}, []string{
			"spec.metrics[0].resource.target.averageUtilization: Required value: must set either a target raw value or a target utilization",
			"spec.metrics[1].resource.target.averageUtilization: Invalid value: 0: must be greater than 0",
			"spec.metrics[1].pods: Required value: must populate information for the given metric source",
			"spec.metrics[1].resource: Forbidden: must populate the given metric source only",
			`spec.metrics[2].external.target.value: Invalid value: "-1": must be positive`,
			"spec.metrics[2].external.target.value: Forbidden: may not set both a target value for metric and a per-pod target",
			`spec.metrics[3].type: Unsupported value: "Sideways": supported values: "ContainerResource", "External", "Object", "Pods", "Resource"`,
		}},
		{"hpa object and pods metrics", func() Object {
			h := validHPA()
			h.Spec.Metrics = []MetricSpec{
				{Type: "Object", Object: &ObjectMetricSource{Metric: MetricIdentifier{Name: "rps"}, Target: MetricTarget{Type: "Value"}}},
				{Type: "Pods", Pods: &PodsMetricSource{Metric: MetricIdentifier{}, Target: MetricTarget{Type: "Average"}}},
			}
			return h
		}, []string{
			"spec.metrics[0].object.describedObject.kind: Required value",
			"spec.metrics[0].object.describedObject.name: Required value",
			"spec.metrics[0].object.target.averageValue: Required value: must set either a target value or averageValue",
			"spec.metrics[1].pods.metric.name: Required value: must specify a metric name",
			`spec.metrics[1].pods.target.type: Invalid value: "Average": must be either Utilization, Value, or AverageValue`,
			"spec.metrics[1].pods.target.averageValue: Required value: must specify a positive target averageValue",
		}},
		{"hpa behavior", func() Object {
			h := validHPA()
			h.Spec.Behavior.ScaleUp.StabilizationWindowSeconds = Ptr(int32(3601))
			h.Spec.Behavior.ScaleUp.SelectPolicy = Ptr("Most")
			h.Spec.Behavior.ScaleDown.Policies = []HPAScalingPolicy{{Type: "Nodes", Value: 0, PeriodSeconds: 1801}}
			h.Spec.Behavior.ScaleDown.Tolerance = Ptr(resource.MustParse("-0.1"))
			return h
		}, []string{
			"spec.behavior.scaleUp.stabilizationWindowSeconds: Invalid value: 3601: must be less than or equal to 3600",
			`spec.behavior.scaleUp.selectPolicy: Unsupported value: "Most": supported values: "Disabled", "Max", "Min"`,
			`spec.behavior.scaleDown.policies[0].type: Unsupported value: "Nodes": supported values: "Percent", "Pods"`,
			"spec.behavior.scaleDown.policies[0].value: Invalid value: 0: must be greater than zero",
			"spec.behavior.scaleDown.policies[0].periodSeconds: Invalid value: 1801: must be less than or equal to 1800",
			`spec.behavior.scaleDown.tolerance: Invalid value: "-100m": must be greater than or equal to 0`,
		}},
		{"hpa behavior without policies", func() Object {
			h := validHPA()
			h.Spec.Behavior.ScaleUp.Policies = []HPAScalingPolicy{}
			return h
		}, []string{"spec.behavior.scaleUp.policies: Required value: must specify at least one Policy"}},

		// service, endpointslice, controllerrevision
		{"service name is a DNS-1035 label", func() Object {
			s := validService()
			s.Name = "1web"
			return s
		}, []string{`metadata.name: Invalid value: "1web": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')`}},
		{"service ports", func() Object {
			s := validService()
			s.Spec.Type = "Magic"
			s.Spec.Ports = append(s.Spec.Ports, ServicePort{Port: 0, Protocol: "ICMP", TargetPort: intstr.FromInt32(70000)}, ServicePort{Name: "http", Port: 81, Protocol: "TCP", TargetPort: intstr.FromInt32(81)})
			return s
		}, []string{
			`spec.type: Unsupported value: "Magic": supported values: "ClusterIP", "ExternalName", "LoadBalancer", "NodePort"`,
			"spec.ports[2].name: Required value",
			"spec.ports[2].port: Invalid value: 0: must be between 1 and 65535, inclusive",
			`spec.ports[2].protocol: Unsupported value: "ICMP": supported values: "SCTP", "TCP", "UDP"`,
			"spec.ports[2].targetPort: Invalid value: 70000: must be between 1 and 65535, inclusive",
			`spec.ports[3].name: Duplicate value: "http"`,
		}},
		{"service without ports", func() Object {
			s := validService()
			s.Spec.Ports = nil
			return s
		}, []string{"spec.ports: Required value"}},
		{"headless service without ports", func() Object {
			s := validService()
			s.Spec.Ports, s.Spec.ClusterIP = nil, "None"
			return s
		}, nil},
		{"endpointslice", func() Object {
			e := validEndpointSlice()
			e.AddressType = "IPv5"
			e.Endpoints = append(e.Endpoints, Endpoint{NodeName: Ptr("Node_A")})
			e.Ports = append(e.Ports, EndpointPort{Name: Ptr("Bad"), Protocol: Ptr("ICMP"), Port: Ptr(int32(0))})
			return e
		}, []string{
			`addressType: Unsupported value: "IPv5": supported values: "FQDN", "IPv4", "IPv6"`,
			"endpoints[1].addresses: Required value: must contain at least 1 address",
			`endpoints[1].nodeName: Invalid value: "Node_A": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
			`ports[1].name: Invalid value: "Bad": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`,
			`ports[1].protocol: Unsupported value: "ICMP": supported values: "SCTP", "TCP", "UDP"`,
			"ports[1].port: Invalid value: 0: must be between 1 and 65535, inclusive",
		}},
		{"controllerrevision negative revision", func() Object {
			return &ControllerRevision{ObjectMeta: ObjectMeta{Name: "db-1", Namespace: "default"}, Revision: -1}
		}, []string{"revision: Invalid value: -1: must be greater than or equal to 0"}},
	})
}

func TestValidateUpdateWorkloads(t *testing.T) {
	checkValidateUpdate(t, []updateCase{
		{"deployment replicas and template may change", func() Object { return validDeployment() }, func() Object {
			d := validDeployment()
			d.Spec.Replicas = Ptr(int32(7))
			d.Spec.Template.Spec.Containers[0].Image = "nginx:2"
			return d
		}, nil},
		{"deployment selector is immutable", func() Object { return validDeployment() }, func() Object {
			d := validDeployment()
			d.Spec.Selector.MatchLabels["tier"] = "front"
			d.Spec.Template.Labels["tier"] = "front"
			return d
		}, []string{`spec.selector: Invalid value: {"matchLabels":{"app":"web","tier":"front"}}: field is immutable`}},
		{"daemonset selector is immutable", func() Object { return validDaemonSet() }, func() Object {
			d := validDaemonSet()
			d.Spec.Selector.MatchLabels["tier"] = "front"
			d.Spec.Template.Labels["tier"] = "front"
			return d
		}, []string{`spec.selector: Invalid value: {"matchLabels":{"app":"web","tier":"front"}}: field is immutable`}},
		{"statefulset mutable fields", func() Object { return validStatefulSet() }, func() Object {
			s := validStatefulSet()
			s.Spec.Replicas = Ptr(int32(5))
			s.Spec.Template.Spec.Containers[0].Image = "postgres:17"
			s.Spec.UpdateStrategy = StatefulSetUpdateStrategy{Type: OnDeleteStatefulSetStrategyType}
			s.Spec.RevisionHistoryLimit = Ptr(int32(2))
			s.Spec.MinReadySeconds = 3
			return s
		}, nil},
		{"statefulset serviceName is forbidden", func() Object { return validStatefulSet() }, func() Object {
			s := validStatefulSet()
			s.Spec.ServiceName = "other"
			s.Spec.PodManagementPolicy = ParallelPodManagement
			return s
		}, []string{"spec: Forbidden: updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden"}},
		{"controllerrevision data is immutable", func() Object {
			return &ControllerRevision{ObjectMeta: ObjectMeta{Name: "db-1", Namespace: "default"}, Revision: 1, Data: ControllerRevisionData{Template: webPodTemplate()}}
		}, func() Object {
			c := &ControllerRevision{ObjectMeta: ObjectMeta{Name: "db-1", Namespace: "default"}, Revision: 2, Data: ControllerRevisionData{Template: webPodTemplate()}}
			c.Data.Template.Spec.Containers[0].Image = "x"
			return c
		}, []string{`data: Invalid value: {"template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"web","image":"x","resources":{}}]}}}: field is immutable`}},
		{"endpointslice addressType is immutable", func() Object { return validEndpointSlice() }, func() Object {
			e := validEndpointSlice()
			e.AddressType = AddressTypeIPv6
			return e
		}, []string{`addressType: Invalid value: "IPv6": field is immutable`}},
		{"pdb spec may change", func() Object { return validPDB() }, func() Object {
			p := validPDB()
			p.Spec.MinAvailable = Ptr(intstr.FromInt32(3))
			p.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": "db"}}
			return p
		}, nil},
	})
}

func TestValidateScale(t *testing.T) {
	assert.Nil(t, ValidateScale(&Scale{Spec: ScaleSpec{Replicas: 0}}))
	assert.Equal(t, []string{"spec.replicas: Invalid value: -1: must be greater than or equal to 0"}, validationStrings(ValidateScale(&Scale{Spec: ScaleSpec{Replicas: -1}})))
	assert.Equal(t, []string{"object: Required value"}, validationStrings(ValidateScale(nil)))
}
