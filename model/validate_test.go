package model

import (
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/resource"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

func TestValidate(t *testing.T) {
	checkValidate(t, []validateCase{
		{"valid pod", func() Object { return validPod() }, nil},
		{"valid replicaset", func() Object { return validReplicaSet() }, nil},
		{"valid node", func() Object { return validNode() }, nil},
		{"valid namespace", func() Object { return &Namespace{ObjectMeta: ObjectMeta{Name: "shop"}} }, nil},
		{"valid lease", func() Object {
			return &Lease{ObjectMeta: ObjectMeta{Name: "node-a", Namespace: "kube-node-lease"}, Spec: LeaseSpec{LeaseDurationSeconds: Ptr(int32(40))}}
		}, nil},
		{"valid event", func() Object {
			return &Event{ObjectMeta: ObjectMeta{Name: "web.1", Namespace: "default"}, InvolvedObject: ObjectReference{Kind: KindPod, Namespace: "default", Name: "web"}}
		}, nil},
		{"generateName without name", func() Object {
			p := validPod()
			p.Name, p.GenerateName = "", "web-"
			return p
		}, nil},

		// metadata
		{"name required", func() Object {
			p := validPod()
			p.Name = ""
			return p
		}, []string{"metadata.name: Required value: name or generateName is required"}},
		{"name not a subdomain", func() Object {
			p := validPod()
			p.Name = "Web_1"
			return p
		}, []string{`metadata.name: Invalid value: "Web_1": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`}},
		{"bad generateName", func() Object {
			p := validPod()
			p.Name, p.GenerateName = "", "Web-"
			return p
		}, []string{`metadata.generateName: Invalid value: "Web-": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`}},
		{"namespace required", func() Object {
			p := validPod()
			p.Namespace = ""
			return p
		}, []string{"metadata.namespace: Required value"}},
		{"namespace forbidden on cluster-scoped", func() Object {
			n := validNode()
			n.Namespace = "default"
			return n
		}, []string{"metadata.namespace: Forbidden: not allowed on this type"}},
		{"namespace name must be a label", func() Object { return &Namespace{ObjectMeta: ObjectMeta{Name: "a.b"}} },
			[]string{`metadata.name: Invalid value: "a.b": must not contain dots`}},
		{"label key and value", func() Object {
			p := validPod()
			p.Labels = map[string]string{"z/": "ok", "app": "not ok!"}
			return p
		}, []string{
			`metadata.labels: Invalid value: "not ok!": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`,
			`metadata.labels: Invalid value: "z/": name part must be non-empty`,
			`metadata.labels: Invalid value: "z/": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
		}},
		{"owner reference", func() Object {
			p := validPod()
			p.OwnerReferences = []OwnerReference{{APIVersion: "apps/v1", Kind: KindReplicaSet, Name: "web"}}
			return p
		}, []string{"metadata.ownerReferences[0].uid: Required value: must not be empty"}},

		// pod
		{"no containers", func() Object {
			p := validPod()
			p.Spec.Containers = nil
			return p
		}, []string{"spec.containers: Required value"}},
		{"container names", func() Object {
			p := validPod()
			c := p.Spec.Containers[0]
			p.Spec.Containers = append(p.Spec.Containers, c, Container{Name: "Bad_Name", Image: "x"}, Container{Image: "x"})
			return p
		}, []string{
			`spec.containers[1].name: Duplicate value: "web"`,
			`spec.containers[2].name: Invalid value: "Bad_Name": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`,
			"spec.containers[3].name: Required value",
		}},
		{"init container name clashes and probes", func() Object {
			p := validPod()
			p.Spec.InitContainers = []Container{{Name: "web", Image: "x", ReadinessProbe: &Probe{}}}
			return p
		}, []string{
			`spec.initContainers[0].name: Duplicate value: "web"`,
			"spec.initContainers[0].readinessProbe: Forbidden: may not be set for init containers without restartPolicy=Always",
		}},
		{"container restartPolicy: sidecars only", func() Object {
			p := validPod()
			p.Spec.Containers[0].RestartPolicy = Ptr(ContainerRestartPolicyAlways)
			p.Spec.InitContainers = []Container{
				{Name: "proxy", Image: "x", RestartPolicy: Ptr(ContainerRestartPolicyAlways), ReadinessProbe: &Probe{}, StartupProbe: &Probe{SuccessThreshold: 1}},
				{Name: "once", Image: "x", RestartPolicy: Ptr("OnFailure")},
			}
			return p
		}, []string{
			"spec.containers[0].restartPolicy: Forbidden: may not be set for non-init containers",
			`spec.initContainers[1].restartPolicy: Unsupported value: "OnFailure": supported values: "Always"`,
		}},
		{"image required", func() Object {
			p := validPod()
			p.Spec.Containers[0].Image = ""
			return p
		}, []string{"spec.containers[0].image: Required value"}},
		{"negative quantity, request above limit, bad resource name", func() Object {
			p := validPod()
			p.Spec.Containers[0].Resources = ResourceRequirements{
				Requests: ResourceList{"cpu": resource.MustParse("2"), "memory": resource.MustParse("-1"), "cpus": resource.MustParse("1")},
				Limits:   ResourceList{"cpu": resource.MustParse("1"), "example.com/gpu": resource.MustParse("1")},
			}
			return p
		}, []string{
			`spec.containers[0].resources.requests[cpu]: Invalid value: "2": must be less than or equal to cpu limit of 1`,
			`spec.containers[0].resources.requests[cpus]: Invalid value: "cpus": must be a standard resource for containers`,
			`spec.containers[0].resources.requests[memory]: Invalid value: "-1": must be greater than or equal to 0`,
		}},
		{"restart policy", func() Object {
			p := validPod()
			p.Spec.RestartPolicy = "Sometimes"
			return p
		}, []string{`spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"`}},
		{"restart policy not defaulted", func() Object {
			p := validPod()
			p.Spec.RestartPolicy = ""
			return p
		}, []string{"spec.restartPolicy: Required value"}},
		{"probes", func() Object {
			p := validPod()
			p.Spec.Containers[0].LivenessProbe = &Probe{PeriodSeconds: -1, SuccessThreshold: 2, FailureThreshold: 3, TimeoutSeconds: 1}
			p.Spec.Containers[0].ReadinessProbe = &Probe{InitialDelaySeconds: -5, SuccessThreshold: 3}
			return p
		}, []string{
			"spec.containers[0].livenessProbe.periodSeconds: Invalid value: -1: must be greater than or equal to 0",
			"spec.containers[0].livenessProbe.successThreshold: Invalid value: 2: must be 1",
			"spec.containers[0].readinessProbe.initialDelaySeconds: Invalid value: -5: must be greater than or equal to 0",
		}},
		{"tolerations", func() Object {
			p := validPod()
			p.Spec.Tolerations = []Toleration{
				{Key: "a", Operator: "Exists", Value: "v"},
				{Operator: "Equal", Value: "v"},
				{Key: "c", Effect: TaintEffectNoSchedule, TolerationSeconds: Ptr(int64(10))},
				{Key: "d", Operator: "Matches"},
				{Key: "e", Effect: "Sometimes"},
				{Key: "node.kubernetes.io/unreachable", Operator: "Exists", Effect: TaintEffectNoExecute, TolerationSeconds: Ptr(int64(300))},
				{Operator: "Exists"},
			}
			return p
		}, []string{
			`spec.tolerations[0].operator: Invalid value: {"key":"a","operator":"Exists","value":"v"}: value must be empty when ` + "`operator`" + ` is 'Exists'`,
			`spec.tolerations[1].operator: Invalid value: "Equal": operator must be Exists when ` + "`key`" + ` is empty, which means "match all values and all keys"`,
			`spec.tolerations[2].effect: Invalid value: "NoSchedule": effect must be 'NoExecute' when ` + "`tolerationSeconds`" + ` is set`,
			`spec.tolerations[3].operator: Unsupported value: "Matches": supported values: "Equal", "Exists"`,
			`spec.tolerations[4].effect: Unsupported value: "Sometimes": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"`,
		}},
		{"node affinity", func() Object {
			p := validPod()
			p.Spec.Affinity = &Affinity{NodeAffinity: &NodeAffinity{
				RequiredDuringSchedulingIgnoredDuringExecution: &NodeSelector{NodeSelectorTerms: []NodeSelectorTerm{{
					MatchExpressions: []NodeSelectorRequirement{{Key: "zone", Operator: "In"}, {Key: "gpu", Operator: "Exists", Values: []string{"x"}}, {Key: "n", Operator: "Gt", Values: []string{"1", "2"}}, {Key: "k", Operator: "Like"}},
					MatchFields:      []NodeSelectorRequirement{{Key: "metadata.labels", Operator: "In", Values: []string{"a", "b"}}},
				}}},
				PreferredDuringSchedulingIgnoredDuringExecution: []PreferredSchedulingTerm{{Weight: 0, Preference: NodeSelectorTerm{}}},
			}}
			return p
		}, []string{
			"spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
			"spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[1].values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
			"spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[2].values: Required value: must be specified single value when `operator` is 'Lt' or 'Gt'",
			`spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[3].operator: Unsupported value: "Like": supported values: "DoesNotExist", "Exists", "Gt", "In", "Lt", "NotIn"`,
			"spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchFields[0].values: Required value: must be only one value when `operator` is 'In' or 'NotIn' for node field selector",
			`spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchFields[0].key: Unsupported value: "metadata.labels": supported values: "metadata.name"`,
			"spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight: Invalid value: 0: must be in the range 1-100",
		}},
		{"node name and node selector", func() Object {
			p := validPod()
			p.Spec.NodeName = "Node_A"
			p.Spec.NodeSelector = map[string]string{"zone": "a b"}
			return p
		}, []string{
			`spec.nodeSelector: Invalid value: "a b": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`,
			`spec.nodeName: Invalid value: "Node_A": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
		}},

		// replicaset
		{"replicas and minReadySeconds", func() Object {
			rs := validReplicaSet()
			rs.Spec.Replicas = Ptr(int32(-1))
			rs.Spec.MinReadySeconds = -2
			return rs
		}, []string{
			"spec.replicas: Invalid value: -1: must be greater than or equal to 0",
			"spec.minReadySeconds: Invalid value: -2: must be greater than or equal to 0",
		}},
		{"selector required", func() Object {
			rs := validReplicaSet()
			rs.Spec.Selector = nil
			return rs
		}, []string{
			"spec.selector: Required value",
			"spec.template.metadata.labels: Invalid value: {\"app\":\"web\",\"tier\":\"front\"}: `selector` does not match template `labels`",
		}},
		{"empty selector", func() Object {
			rs := validReplicaSet()
			rs.Spec.Selector = &metav1.LabelSelector{}
			return rs
		}, []string{"spec.selector: Invalid value: {}: empty selector is invalid for deployment"}},
		{"selector does not match", func() Object {
			rs := validReplicaSet()
			rs.Spec.Selector.MatchLabels["app"] = "db"
			return rs
		}, []string{"spec.template.metadata.labels: Invalid value: {\"app\":\"web\",\"tier\":\"front\"}: `selector` does not match template `labels`"}},
		{"selector expression invalid", func() Object {
			rs := validReplicaSet()
			rs.Spec.Selector.MatchExpressions = []metav1.LabelSelectorRequirement{{Key: "tier", Operator: "In"}}
			return rs
		}, []string{
			"spec.selector.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
			`spec.selector: Invalid value: {"matchLabels":{"app":"web"},"matchExpressions":[{"key":"tier","operator":"In"}]}: invalid label selector`,
		}},
		{"template restart policy must be Always", func() Object {
			rs := validReplicaSet()
			rs.Spec.Template.Spec.RestartPolicy = RestartPolicyNever
			return rs
		}, []string{`spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always"`}},
		{"template container path", func() Object {
			rs := validReplicaSet()
			rs.Spec.Template.Spec.Containers[0].Resources.Requests = ResourceList{"memory": resource.MustParse("-1Mi")}
			return rs
		}, []string{`spec.template.spec.containers[0].resources.requests[memory]: Invalid value: "-1Mi": must be greater than or equal to 0`}},

		// node
		{"taints", func() Object {
			n := validNode()
			n.Spec.Taints = append(n.Spec.Taints,
				Taint{Key: "dedicated", Effect: TaintEffectNoSchedule},
				Taint{Key: "x"},
				Taint{Key: "y", Effect: "Never"},
				Taint{Key: "z", Value: "a b", Effect: TaintEffectNoExecute},
			)
			return n
		}, []string{
			`spec.taints[1]: Duplicate value: {"key":"dedicated","effect":"NoSchedule"}: taints must be unique by key and effect pair`,
			"spec.taints[2].effect: Required value",
			`spec.taints[3].effect: Unsupported value: "Never": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"`,
			`spec.taints[4].value: Invalid value: "a b": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`,
		}},
		{"negative capacity", func() Object {
			n := validNode()
			n.Status.Capacity["cpu"] = resource.MustParse("-1")
			return n
		}, []string{`status.capacity.cpu: Invalid value: "-1": must be greater than or equal to 0`}},

		// lease, event
		{"lease duration", func() Object {
			return &Lease{ObjectMeta: ObjectMeta{Name: "n", Namespace: "kube-node-lease"}, Spec: LeaseSpec{LeaseDurationSeconds: Ptr(int32(0))}}
		}, []string{"spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0"}},
		{"event namespace", func() Object {
			return &Event{ObjectMeta: ObjectMeta{Name: "e", Namespace: "default"}, InvolvedObject: ObjectReference{Kind: KindPod, Namespace: "shop", Name: "web"}}
		}, []string{`involvedObject.namespace: Invalid value: "shop": does not match event.namespace`}},
		{"event for cluster-scoped object in default", func() Object {
			return &Event{ObjectMeta: ObjectMeta{Name: "e", Namespace: "default"}, InvolvedObject: ObjectReference{Kind: KindNode, Name: "node-a"}}
		}, nil},
	})
}

func TestValidateIsDeterministic(t *testing.T) {
	p := validPod()
	p.Labels = map[string]string{}
	for _, k := range []string{"a!", "b!", "c!", "d!", "e!", "f!", "g!", "h!"} {
		p.Labels[k] = "bad value"
	}
	first := strings.Join(validationStrings(Validate(p)), "\n")
	for i := 0; i < 20; i++ {
		require.Equal(t, first, strings.Join(validationStrings(Validate(p)), "\n"))
	}
}

func TestValidateOtherKinds(t *testing.T) {
	assert.Equal(t, []string{"object: Required value"}, validationStrings(Validate(nil)))
	assert.Equal(t, []string{`kind: Invalid value: "External": kind is not registered`}, validationStrings(Validate(&externalKind{})))

	saved := kinds
	defer func() { kinds = saved }()
	kinds = append(slices.Clone(kinds), KindInfo{Kind: "External", APIVersion: "example.com/v1", Namespaced: true, New: func() Object { return &externalKind{} }})
	assert.Equal(t, []string{"metadata.name: Required value: name or generateName is required", "metadata.namespace: Required value", "defaulted: Required value"},
		validationStrings(Validate(&externalKind{})))
	assert.Nil(t, Validate(&externalKind{ObjectMeta: ObjectMeta{Name: "x", Namespace: "y"}, Defaulted: true}))
}

func TestValidateUpdate(t *testing.T) {
	checkValidateUpdate(t, []updateCase{
		{"pod image change allowed", func() Object { return validPod() }, func() Object {
			p := validPod()
			p.Spec.Containers[0].Image = "nginx:2"
			return p
		}, nil},
		{"pod toleration added", func() Object { return validPod() }, func() Object {
			p := validPod()
			p.Spec.Tolerations = append(p.Spec.Tolerations, Toleration{Key: "k", Operator: "Exists"})
			return p
		}, nil},
		{"pod toleration seconds changed", func() Object {
			p := validPod()
			p.Spec.Tolerations = []Toleration{{Key: "k", Operator: "Exists", Effect: TaintEffectNoExecute, TolerationSeconds: Ptr(int64(300))}}
			return p
		}, func() Object {
			p := validPod()
			p.Spec.Tolerations = []Toleration{{Key: "k", Operator: "Exists", Effect: TaintEffectNoExecute, TolerationSeconds: Ptr(int64(10))}}
			return p
		}, nil},
		{"pod toleration removed", func() Object {
			p := validPod()
			p.Spec.Tolerations = []Toleration{{Key: "k", Operator: "Exists"}}
			return p
		}, func() Object { return validPod() }, []string{"spec.tolerations: Forbidden: existing toleration can not be modified except its tolerationSeconds"}},
		{"pod spec change forbidden", func() Object { return validPod() }, func() Object {
			p := validPod()
			p.Spec.NodeName = "node-a"
			p.Spec.Containers[0].Resources.Limits["cpu"] = resource.MustParse("2")
			return p
		}, []string{"spec: Forbidden: pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.tolerations` (only additions to existing tolerations)\nchanged: spec.containers, spec.nodeName"}},
		{"pod container added", func() Object { return validPod() }, func() Object {
			p := validPod()
			p.Spec.Containers = append(p.Spec.Containers, Container{Name: "side", Image: "x"})
			return p
		}, []string{"spec.containers: Forbidden: pod updates may not add or remove containers"}},
		{"metadata immutables", func() Object {
			p := validPod()
			p.UID, p.Generation, p.CreationTimestamp = "u1", 3, 5
			return p
		}, func() Object {
			p := validPod()
			p.Name, p.UID, p.Generation, p.CreationTimestamp = "web-2", "u2", 2, 6
			return p
		}, []string{
			"metadata.generation: Invalid value: 2: must not be decremented",
			`metadata.name: Invalid value: "web-2": field is immutable`,
			`metadata.uid: Invalid value: "u2": field is immutable`,
			"metadata.creationTimestamp: Invalid value: 6: field is immutable",
		}},
		{"labels may change", func() Object { return validPod() }, func() Object {
			p := validPod()
			p.Labels["extra"] = "yes"
			return p
		}, nil},
		{"no new finalizers while deleting", func() Object {
			p := validPod()
			p.DeletionTimestamp = Ptr(validPod().CreationTimestamp)
			p.DeletionGracePeriodSeconds = Ptr(int64(30))
			return p
		}, func() Object {
			p := validPod()
			p.DeletionTimestamp = Ptr(validPod().CreationTimestamp)
			p.DeletionGracePeriodSeconds = Ptr(int64(30))
			p.Finalizers = []string{"example.com/hold"}
			return p
		}, []string{`metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{"example.com/hold"}`}},
		{"replicaset scale allowed", func() Object { return validReplicaSet() }, func() Object {
			rs := validReplicaSet()
			rs.Spec.Replicas = Ptr(int32(5))
			rs.Spec.Template.Spec.Containers[0].Image = "nginx:2"
			return rs
		}, nil},
		{"replicaset selector immutable", func() Object { return validReplicaSet() }, func() Object {
			rs := validReplicaSet()
			rs.Spec.Selector.MatchLabels["tier"] = "front"
			return rs
		}, []string{`spec.selector: Invalid value: {"matchLabels":{"app":"web","tier":"front"}}: field is immutable`}},
		{"node providerID set once", func() Object { return validNode() }, func() Object {
			n := validNode()
			n.Spec.ProviderID = "sim://a"
			return n
		}, nil},
		{"node providerID change", func() Object {
			n := validNode()
			n.Spec.ProviderID = "sim://a"
			return n
		}, func() Object {
			n := validNode()
			n.Spec.ProviderID = "sim://b"
			return n
		}, []string{`spec.providerID: Forbidden: node updates may not change providerID except from "" to valid`}},
		{"kind change", func() Object { return validNode() }, func() Object { return validPod() }, []string{`kind: Invalid value: "Pod": field is immutable`}},
		{"new object is validated too", func() Object { return validReplicaSet() }, func() Object {
			rs := validReplicaSet()
			rs.Spec.Replicas = Ptr(int32(-3))
			return rs
		}, []string{"spec.replicas: Invalid value: -3: must be greater than or equal to 0"}},
	})
	assert.Equal(t, []string{"object: Required value", "object: Required value: old and new objects are required"}, validationStrings(ValidateUpdate(validPod(), nil)))
}

// TestValidateImmutableSelectorIsUpstreams: the selector check gives what
// apivalidation.ValidateImmutableField gives, for the same selector, an equal copy, another
// selector and a removed one.
func TestValidateImmutableSelectorIsUpstreams(t *testing.T) {
	sel := &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}
	for _, c := range []struct {
		name string
		n, o *metav1.LabelSelector
	}{
		{"same", sel, sel},
		{"equal copy", sel.DeepCopy(), sel},
		{"changed", &metav1.LabelSelector{MatchLabels: map[string]string{"app": "db"}}, sel},
		{"removed", nil, sel},
		{"both nil", nil, nil},
	} {
		want := apivalidation.ValidateImmutableField(c.n, c.o, field.NewPath("spec", "selector"))
		got := validateImmutableSelector(c.n, c.o)
		assert.Equal(t, want.ToAggregate(), got.ToAggregate(), c.name)
		assert.Equal(t, len(want) == 0, len(got) == 0, c.name)
	}
}

// TestResourcesValidIsResourceErrorsEmpty: the fast check of a container's resources accepts
// exactly the requirements in which the full check finds no error, over every combination of
// up to two limits and two requests from names and quantities of each kind (standard,
// hugepages, extended, unprefixed non-standard, malformed; negative, zero, below, equal to
// and above another).
func TestResourcesValidIsResourceErrorsEmpty(t *testing.T) {
	names := []string{ResourceCPU, ResourceMemory, "hugepages-2Mi", "example.com/gpu", "gpu", "Bad_/x", "a/b/c"}
	quantities := []string{"-1", "0", "100m", "1", "2Gi"}
	entries := [][2]string{{}} // the empty entry means none
	for _, n := range names {
		for _, q := range quantities {
			entries = append(entries, [2]string{n, q})
		}
	}
	list := func(es ...[2]string) ResourceList {
		l := ResourceList{}
		for _, e := range es {
			if e[0] != "" {
				l[e[0]] = resource.MustParse(e[1])
			}
		}
		return l
	}
	path := field.NewPath("spec", "containers").Index(0).Child("resources")
	checked, valid := 0, 0
	for _, l1 := range entries {
		for _, l2 := range entries[:8] {
			for _, r1 := range entries {
				for _, r2 := range entries[:8] {
					r := ResourceRequirements{Limits: list(l1, l2), Requests: list(r1, r2)}
					errs := resourceErrors(&r, path)
					if resourcesValid(&r) != (len(errs) == 0) {
						t.Fatalf("resourcesValid(%v) = %v, resourceErrors %v", r, resourcesValid(&r), errs)
					}
					checked++
					if len(errs) == 0 {
						valid++
					}
				}
			}
		}
	}
	if valid == 0 || valid == checked {
		t.Fatalf("%d of %d requirements valid: the table does not tell the checks apart", valid, checked)
	}
}
