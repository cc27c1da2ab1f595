package model

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/reconsim/reconsim/vtime"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

func readTestdata(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile("testdata/" + name)
	require.NoError(t, err)
	return data
}

func ptrQ(q resource.Quantity) *resource.Quantity { return &q }

func TestDecodeManifestsMultiDocument(t *testing.T) {
	objs, warnings, err := DecodeManifests("cluster.yaml", readTestdata(t, "cluster.yaml"))
	require.NoError(t, err)

	var refs []string
	for _, o := range objs {
		refs = append(refs, Ref(o))
	}
	assert.Equal(t, []string{"Namespace shop", "Node node-a", "ReplicaSet shop/web", "Pod shop/solo", "Lease kube-node-lease/node-a"}, refs)

	node := objs[1].(*Node)
	assert.Equal(t, []Taint{{Key: "dedicated", Value: "shop", Effect: TaintEffectNoSchedule}}, node.Spec.Taints)
	assert.Equal(t, int64(4), ptrQ(node.Status.Capacity[ResourceCPU]).Value())
	assert.Equal(t, "zone-a", node.Labels["topology.kubernetes.io/zone"])

	rs := objs[2].(*ReplicaSet)
	assert.Equal(t, int32(3), *rs.Spec.Replicas)
	assert.Equal(t, int32(5), rs.Spec.MinReadySeconds)
	assert.Equal(t, &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}, rs.Spec.Selector)
	assert.Empty(t, rs.UID, "server-set metadata is dropped")
	assert.Zero(t, rs.ResourceVersion)
	c := rs.Spec.Template.Spec.Containers[0]
	assert.Equal(t, "nginx:1.27", c.Image)
	assert.Equal(t, int64(250), ptrQ(c.Resources.Requests[ResourceCPU]).MilliValue())
	assert.Equal(t, int64(256<<20), ptrQ(c.Resources.Limits[ResourceMemory]).Value())
	assert.Equal(t, &Probe{PeriodSeconds: 5}, c.ReadinessProbe)
	assert.Equal(t, int64(10), *rs.Spec.Template.Spec.TerminationGracePeriodSeconds)

	lease := objs[4].(*Lease)
	assert.Equal(t, Ptr(vtime.Time(10e9)), lease.Spec.RenewTime)
	assert.Equal(t, Ptr(int32(40)), lease.Spec.LeaseDurationSeconds)

	assert.Equal(t, []string{
		"cluster.yaml:60:13: spec.template.spec.containers[0].readinessProbe.httpGet: not modelled (ignored): probe handlers are not run: probes succeed unless the pod's sim.reconsim.dev/* annotations say otherwise (`sim explain sim.reconsim.dev/ready-after`)",
		"cluster.yaml:53:11: 2 fields that Kubernetes has are not modelled (ignored); none changes scheduling or a pod's lifecycle: Container.imagePullPolicy, Container.ports (--strict lists each)",
		"cluster.yaml:25:1: dropped what the API server set in 1 object (metadata creationTimestamp, resourceVersion, uid): the simulated cluster sets its own",
	}, warnStrings(warnings))

	// The decoded objects are valid once defaulted.
	for _, o := range objs {
		SetDefaults(o)
		assert.Empty(t, Validate(o), Ref(o))
	}
}

func TestDecodeManifestsCollectsAllErrors(t *testing.T) {
	objs, _, err := DecodeManifests("broken.yaml", readTestdata(t, "broken.yaml"))
	require.Error(t, err)
	assert.Nil(t, objs)
	var list DecodeErrors
	require.ErrorAs(t, err, &list)
	assert.Equal(t, []string{
		`broken.yaml:1:13: apiVersion: apiVersion "apps/v1" does not serve kind Pod (use apiVersion: v1)`,
		`broken.yaml:6:7: kind: unknown kind "Deploymnet" (did you mean "Deployment"? supported kinds: ControllerRevision, CronJob, CustomResourceDefinition, DaemonSet, Deployment, EndpointSlice, Event, FlowSchema, HorizontalPodAutoscaler, Job, Lease, Namespace, Node, Pod, PodDisruptionBudget, PriorityClass, PriorityLevelConfiguration, ReplicaSet, Service, StatefulSet)`,
		`broken.yaml:13:13: spec.replicas: expected an integer, got a string "three"`,
		`broken.yaml:19:29: spec.template.spec.containers[0].resources.requests.cpu: invalid quantity "lots" (a quantity is a number with an optional suffix, e.g. "100m", "0.5", "128Mi", "2Gi")`,
		`broken.yaml:21:1: missing apiVersion (kind Node is served by apiVersion: v1)`,
		`broken.yaml:24:1: missing kind (every manifest needs apiVersion and kind, e.g. "apiVersion: v1" and "kind: Pod")`,
		`broken.yaml:26:1: a manifest must be a mapping with apiVersion and kind, got a sequence`,
	}, errStrings(list))
	assert.Equal(t, strings.Join(errStrings(list), "\n"), err.Error())
}

func TestDecodeManifestsErrors(t *testing.T) {
	tests := []struct {
		name, src string
		want      []string
	}{
		{"syntax error with line", "apiVersion: v1\nkind: Pod\nmetadata:\n  name: [a,\n", []string{`m.yaml:4:1: invalid YAML: did not find expected node content`}},
		{"syntax error on first line", "kind: a: b\n", []string{`m.yaml:1:1: invalid YAML: mapping values are not allowed in this context`}},
		{"unknown anchor located", "apiVersion: v1\nkind: Pod\nmetadata: *nope\n", []string{`m.yaml:3:11: invalid YAML: unknown anchor 'nope' referenced`}},
		{"control character located", "apiVersion: v1\nkind: \x01Pod\n", []string{`m.yaml:2:7: invalid YAML: control characters are not allowed`}},
		{"kind suggestion", "apiVersion: apps/v1\nkind: Replicaset\nmetadata: {name: x}\n", []string{`m.yaml:2:7: kind: unknown kind "Replicaset" (did you mean "ReplicaSet"? supported kinds: ControllerRevision, CronJob, CustomResourceDefinition, DaemonSet, Deployment, EndpointSlice, Event, FlowSchema, HorizontalPodAutoscaler, Job, Lease, Namespace, Node, Pod, PodDisruptionBudget, PriorityClass, PriorityLevelConfiguration, ReplicaSet, Service, StatefulSet)`}},
		{"kind not a string", "apiVersion: v1\nkind: {a: b}\nmetadata: {name: x}\n", []string{`m.yaml:2:7: kind: expected a string, got a mapping`}},
		{"empty kind", "apiVersion: v1\nkind: ''\nmetadata: {name: x}\n", []string{`m.yaml:2:7: kind: must not be empty`}},
		{"missing metadata", "apiVersion: v1\nkind: Pod\n", []string{`m.yaml:1:1: missing metadata (a manifest needs metadata with at least a name)`}},
		{"duplicate kind", "apiVersion: v1\nkind: Pod\nkind: Node\nmetadata: {name: x}\n", []string{`m.yaml:3:1: kind: duplicate key "kind"`}},
		{"nested list", "apiVersion: v1\nkind: List\nitems:\n  - {apiVersion: v1, kind: List, items: []}\n", []string{`m.yaml:4:28: items[0].kind: a List is not allowed here (write each object as its own manifest)`}},
		{"list items not a sequence", "apiVersion: v1\nkind: List\nitems: {a: b}\n", []string{`m.yaml:3:8: items: expected a sequence, got a mapping`}},
		{"server-set field with wrong type is still dropped", "apiVersion: v1\nkind: Pod\nmetadata: {name: x, uid: {a: b}}\nspec: {containers: [{name: c, image: i, ports: [1]}]}\n", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := DecodeManifests("m.yaml", []byte(tc.src))
			if tc.want == nil {
				require.NoError(t, err)
				return
			}
			var list DecodeErrors
			require.ErrorAs(t, err, &list)
			assert.Equal(t, tc.want, errStrings(list))
		})
	}
}

func TestDecodeManifestsEmptyAndLimits(t *testing.T) {
	objs, warnings, err := DecodeManifests("e.yaml", []byte("---\n# nothing\n---\n"))
	require.NoError(t, err)
	assert.Empty(t, objs)
	assert.Empty(t, warnings)

	objs, _, err = DecodeManifests("e.yaml", nil)
	require.NoError(t, err)
	assert.Empty(t, objs)

	_, _, err = DecodeManifests("big.yaml", make([]byte, MaxManifestBytes+1))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "big.yaml:1:1: manifest stream is")
}

func TestDecodeManifestsAliasBombIsBounded(t *testing.T) {
	// Each level merges four copies of the one before: 4^30 entries if expanded.
	var b strings.Builder
	b.WriteString("apiVersion: v1\nkind: Pod\nmetadata: {name: a, namespace: b}\nx0: &m0 {a: b, c: d}\n")
	for i := 1; i <= 30; i++ {
		fmt.Fprintf(&b, "x%d: &m%d {<<: [*m%d, *m%d, *m%d, *m%d]}\n", i, i, i-1, i-1, i-1, i-1)
	}
	b.WriteString("spec: {containers: [{name: c, image: i}], nodeSelector: *m30}\n")
	_, _, err := DecodeManifests("bomb.yaml", []byte(b.String()))
	require.Error(t, err)
	assert.Contains(t, err.Error(), fmt.Sprintf("document expands to more than %d values", DefaultMaxDecodeNodes))
}

func TestDecodeManifestNodeInScenario(t *testing.T) {
	scenario := `
name: inline
objects:
  - apiVersion: apps/v1
    kind: ReplicaSet
    metadata: {name: web, namespace: default}
    spec:
      replicas: -1
      selector: {matchLabels: {app: web}}
      template:
        metadata: {labels: {app: other}}
        spec:
          containers: [{name: web, image: nginx, resources: {requests: {cpu: 100m}}}]
  - apiVersion: v1
    kind: Pod
    metadata: {name: p, namespace: default}
    spec: {containers: [{name: c, image: i, livenessProbe: {periodSeconds: x}}]}
`
	root := parseNode(t, scenario)
	items := root.Content[0].Content[3].Content

	obj, warnings, err := DecodeManifestNode("scenario.yaml", items[0])
	require.NoError(t, err)
	assert.Empty(t, warnings)
	rs := obj.(*ReplicaSet)
	assert.Equal(t, int32(-1), *rs.Spec.Replicas)

	// Validation errors map back to positions in the scenario file.
	SetDefaults(rs)
	verrs := Validate(rs)
	assert.Equal(t, []string{
		"scenario.yaml:8:17: spec.replicas: Invalid value: -1: must be greater than or equal to 0",
		"scenario.yaml:11:28: spec.template.metadata.labels: Invalid value: {\"app\":\"other\"}: `selector` does not match template `labels`",
	}, errStrings(ValidationErrors("scenario.yaml", items[0], verrs).Unwrap()))

	_, _, err = DecodeManifestNode("scenario.yaml", items[1])
	assert.EqualError(t, err, `scenario.yaml:17:76: spec.containers[0].livenessProbe.periodSeconds: expected an integer, got a string "x"`)

	list := parseNode(t, "apiVersion: v1\nkind: List\nitems: []\n")
	_, _, err = DecodeManifestNode("s.yaml", list)
	assert.EqualError(t, err, "s.yaml:2:7: kind: a List is not allowed here (write each object as its own manifest)")

	_, _, err = DecodeManifestNode("s.yaml", nil)
	assert.EqualError(t, err, "s.yaml:1:1: empty manifest (a manifest needs apiVersion, kind and metadata)")
}

func TestSplitManifestsAndValidationPositions(t *testing.T) {
	src := "apiVersion: v1\nkind: Pod\nmetadata: {name: Bad_Name, namespace: default}\nspec:\n  containers:\n    - name: c\n---\n---\napiVersion: v1\nkind: Namespace\nmetadata: {name: ok}\n"
	docs, err := SplitManifests("p.yaml", []byte(src))
	require.NoError(t, err)
	require.Len(t, docs, 2)
	var got []string
	for _, doc := range docs {
		obj, _, err := DecodeManifestNode("p.yaml", doc)
		require.NoError(t, err)
		SetDefaults(obj)
		got = append(got, errStrings(ValidationErrors("p.yaml", doc, Validate(obj)).Unwrap())...)
	}
	assert.Equal(t, []string{
		`p.yaml:3:18: metadata.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
		"p.yaml:6:7: spec.containers[0].image: Required value",
	}, got)

	docs, err = SplitManifests("p.yaml", []byte("kind: Pod\n---\nkind: [\n"))
	assert.Len(t, docs, 1)
	assert.EqualError(t, err, "p.yaml:3:1: invalid YAML: did not find expected node content")
}

func TestFindNode(t *testing.T) {
	root := parseNode(t, `
spec:
  template:
    metadata:
      labels: {app.kubernetes.io/name: web}
    spec:
      containers:
        - name: a
        - name: b
          resources: {requests: {cpu: 1}}
`)
	tests := []struct {
		path      string
		line, col int
		exact     bool
	}{
		{"spec.template.spec.containers[1].resources.requests[cpu]", 10, 39, true},
		{"spec.template.spec.containers[1].resources.requests.cpu", 10, 39, true},
		{"spec.template.metadata.labels[app.kubernetes.io/name]", 5, 40, true},
		{"spec.template.spec.containers[0].image", 8, 11, false},
		{"spec.template.spec.containers[7]", 8, 9, false},
		{"spec.template.spec.restartPolicy", 7, 7, false},
		{"", 2, 1, true},
	}
	for _, tc := range tests {
		n, exact := FindNode(root, tc.path)
		assert.Equal(t, tc.exact, exact, tc.path)
		assert.Equal(t, [2]int{tc.line, tc.col}, [2]int{n.Line, n.Column}, tc.path)
	}
	assert.Nil(t, ValidationErrors("x", root, nil))
	errs := ValidationErrors("x.yaml", root, field.ErrorList{field.Required(field.NewPath("spec", "template", "spec", "containers").Index(0).Child("image"), "")})
	assert.Equal(t, "x.yaml:8:11: spec.template.spec.containers[0].image: Required value", errs.Error())
}

func TestSplitFieldPath(t *testing.T) {
	assert.Equal(t, []string{"a", "b", "0", "c", "x.y/z"}, splitFieldPath("a.b[0].c[x.y/z]"))
	assert.Equal(t, []string{"a", "unterminated"}, splitFieldPath("a[unterminated"))
	assert.Empty(t, splitFieldPath(""))
	var empty yaml.Node
	n, exact := FindNode(&empty, "a")
	assert.Equal(t, &empty, n)
	assert.False(t, exact)
}

func BenchmarkDecodeManifests(b *testing.B) {
	data, err := os.ReadFile("testdata/cluster.yaml")
	require.NoError(b, err)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := DecodeManifests("cluster.yaml", data); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkValidateReplicaSet(b *testing.B) {
	rs := validReplicaSet()
	b.ReportAllocs()
	for b.Loop() {
		if errs := Validate(rs); errs != nil {
			b.Fatal(errs)
		}
	}
}

// TestDecodeManifestsShareEqualMaps checks that ShareEqualMaps gives equal string maps (the
// same entries in the same order) one map across manifests, and that nothing else is shared.
func TestDecodeManifestsShareEqualMaps(t *testing.T) {
	const docs = `apiVersion: v1
kind: Service
metadata: {name: a, labels: {app: web, tier: front}}
spec: {selector: {app: web}, ports: [{port: 80}]}
---
apiVersion: v1
kind: Service
metadata: {name: b, labels: {app: web, tier: front}}
spec: {selector: {app: web}, ports: [{port: 80}]}
---
apiVersion: v1
kind: Service
metadata: {name: c, labels: {tier: front, app: web}}
spec: {selector: {app: api}, ports: [{port: 80}]}
`
	same := func(a, b map[string]string) bool { return fmt.Sprintf("%p", a) == fmt.Sprintf("%p", b) }
	services := func(opts ManifestOptions) []*Service {
		objs, _, err := DecodeManifestsWith("s.yaml", []byte(docs), opts)
		require.NoError(t, err)
		var out []*Service
		for _, o := range objs {
			out = append(out, o.(*Service))
		}
		return out
	}
	s := services(ManifestOptions{ShareEqualMaps: true})
	assert.True(t, same(s[0].Labels, s[1].Labels), "equal labels share a map")
	assert.True(t, same(s[0].Spec.Selector, s[1].Spec.Selector), "equal selectors share a map")
	assert.False(t, same(s[0].Labels, s[2].Labels), "the same entries in another order are another map")
	assert.Equal(t, s[0].Labels, s[2].Labels)
	assert.False(t, same(s[0].Spec.Selector, s[2].Spec.Selector))
	assert.Equal(t, map[string]string{"app": "api"}, s[2].Spec.Selector)
	assert.NotSame(t, &s[0].Spec.Ports[0], &s[1].Spec.Ports[0], "slices are not shared")

	s = services(ManifestOptions{})
	assert.False(t, same(s[0].Labels, s[1].Labels), "without the option every map is the object's own")
	assert.Equal(t, s[0].Labels, s[1].Labels)

	// A copy is the caller's own: changing it leaves the shared map alone.
	s = services(ManifestOptions{ShareEqualMaps: true})
	c := s[0].DeepCopy()
	c.Labels["tier"] = "back"
	assert.Equal(t, "front", s[1].Labels["tier"])
}

// TestDecodeManifestsShareEqualMapsKeepsProblems checks that a map with a bad value is
// reported as without the option, and is not shared.
func TestDecodeManifestsShareEqualMapsKeepsProblems(t *testing.T) {
	const doc = `apiVersion: v1
kind: Service
metadata: {name: a, labels: {app: [web]}}
`
	_, _, errShared := DecodeManifestsWith("s.yaml", []byte(doc), ManifestOptions{ShareEqualMaps: true})
	_, _, errOwn := DecodeManifestsWith("s.yaml", []byte(doc), ManifestOptions{})
	require.Error(t, errShared)
	assert.Equal(t, errOwn.Error(), errShared.Error())
}
