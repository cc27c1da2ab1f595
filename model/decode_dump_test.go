package model

import (
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDecodeKubectlDump decodes a `kubectl get -o yaml` List: what the API server set is
// dropped with one summary warning, objects the simulated cluster makes itself and kinds the
// simulator does not model are skipped with one warning per kind, and only the fields that
// Kubernetes does not have would be errors.
func TestDecodeKubectlDump(t *testing.T) {
	objs, warnings, err := DecodeManifestsWith("dump.yaml", []byte(dumpSeed), ManifestOptions{ExistingNamespaces: map[string]bool{"kube-system": true}})
	require.NoError(t, err)
	require.Len(t, objs, 1)
	d := objs[0].(*Deployment)
	assert.Equal(t, "shop/web", Key(d))
	assert.Empty(t, d.UID)
	assert.Zero(t, d.Generation)
	assert.Zero(t, d.Status.Replicas, "status is dropped")
	assert.Equal(t, []string{
		"dump.yaml:13:90: items[0].spec.template.spec.containers[0].readinessProbe.httpGet: not modelled (ignored): probe handlers are not run: probes succeed unless the pod's sim.reconsim.dev/* annotations say otherwise (`sim explain sim.reconsim.dev/ready-after`)",
		"dump.yaml:13:48: items[0].spec.template.spec.containers[0].imagePullPolicy: not modelled (ignored)",
		"dump.yaml:16:3: skipped 1 object: ReplicaSet objects of a cluster dump owned by a Deployment: the simulated cluster's controllers make their own",
		"dump.yaml:19:3: skipped 1 object: the simulator does not model ConfigMap",
		"dump.yaml:22:3: skipped 1 object: example.com/v1 Widget is a custom resource, which the simulator does not model",
		"dump.yaml:25:3: skipped 1 object: Nodes of a cluster dump are not created: the simulated nodes, each with its kubelet, come from cluster.nodeGroups (`sim import FILE` writes node groups from them)",
		"dump.yaml:4:3: dropped what the API server set in 2 objects (metadata creationTimestamp, generation, managedFields, resourceVersion, uid; status of 1; the Namespaces the simulated cluster creates itself (kube-system)): the simulated cluster sets its own",
	}, warnStrings(warnings))

	// KeepNodes keeps a dump's Nodes with their capacity, without times of the real cluster.
	objs, _, err = DecodeManifestsWith("dump.yaml", []byte(dumpSeed), ManifestOptions{KeepNodes: true})
	require.NoError(t, err)
	require.Len(t, objs, 3)
	n := objs[1].(*Node)
	assert.Equal(t, int64(4), ptrQ(n.Status.Capacity[ResourceCPU]).Value())
	assert.Empty(t, n.Status.Conditions)
	assert.Equal(t, []Taint{{Key: "a", Effect: TaintEffectNoSchedule}}, n.Spec.Taints)
}

func TestDecodeKindsAndFields(t *testing.T) {
	tests := []struct {
		name, src string
		strict    bool
		errs      []string
		warnings  []string
	}{
		{name: "unmodelled kind is skipped", src: "apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata: {name: r}\n",
			warnings: []string{"m.yaml:1:1: skipped 1 object: the simulator does not model Role"}},
		{name: "unmodelled kind refused when strict", src: "apiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\nmetadata: {name: r}\n", strict: true,
			errs: []string{"m.yaml:1:1: the simulator does not model NetworkPolicy; --strict refuses to skip it (remove it from the file, or run without --strict)"}},
		{name: "built-in kind under the wrong apiVersion", src: "apiVersion: v1\nkind: Ingress\nmetadata: {name: r}\n",
			errs: []string{`m.yaml:1:13: apiVersion: apiVersion "v1" does not serve kind Ingress (Kubernetes serves it as apiVersion: extensions/v1beta1, networking.k8s.io/v1, networking.k8s.io/v1beta1)`}},
		{name: "kind typo", src: "apiVersion: v1\nkind: Secrett\nmetadata: {name: r}\n",
			errs: []string{`m.yaml:2:7: kind: unknown kind "Secrett" (did you mean "Secret"? supported kinds: ControllerRevision, CronJob, CustomResourceDefinition, DaemonSet, Deployment, EndpointSlice, Event, FlowSchema, HorizontalPodAutoscaler, Job, Lease, Namespace, Node, Pod, PodDisruptionBudget, PriorityClass, PriorityLevelConfiguration, ReplicaSet, Service, StatefulSet)`}},
		{name: "field typo suggests the upstream name", src: "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: c, image: i}], tolerationz: []}\n",
			errs: []string{`m.yaml:4:43: spec.tolerationz: unknown field "tolerationz" (did you mean "tolerations"?)`}},
		{name: "field Kubernetes has", src: "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: c, image: i}], hostNetwork: true}\n",
			warnings: []string{"m.yaml:4:43: spec.hostNetwork: not modelled (ignored)"}},
		{name: "field Kubernetes has, strict", src: "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: c, image: i}], hostNetwork: true}\n", strict: true,
			errs: []string{"m.yaml:4:43: spec.hostNetwork: not modelled (--strict refuses fields the simulator ignores; remove it, or run without --strict)"}},
		{name: "several ignored fields share a line", src: "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: c, image: i, tty: true}], hostNetwork: true, dnsPolicy: Default}\n",
			warnings: []string{"m.yaml:4:41: 3 fields that Kubernetes has are not modelled (ignored); none changes scheduling or a pod's lifecycle: Container.tty, PodSpec.dnsPolicy, PodSpec.hostNetwork (--strict lists each)"}},
		{name: "behaviour notes are one per note", src: "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - {name: a, image: i, readinessProbe: {exec: {}}, livenessProbe: {httpGet: {}}}\n  initContainers: [{name: b, image: i}]\n  priorityClassName: high\n  schedulerName: default-scheduler\n  affinity: {podAntiAffinity: {}, podAffinity: {}}\n  volumes: []\n",
			warnings: []string{
				"m.yaml:6:42: spec.containers[0].readinessProbe.exec: not modelled (ignored): probe handlers are not run: probes succeed unless the pod's sim.reconsim.dev/* annotations say otherwise (`sim explain sim.reconsim.dev/ready-after`) (and 1 more place)",
				"m.yaml:11:3: spec.volumes: not modelled (ignored): volumes are not modelled: pods start with no attach, mount or provisioning delay, and the scheduler checks no volume limits or zones",
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, warnings, err := DecodeManifestsWith("m.yaml", []byte(tc.src), ManifestOptions{Strict: tc.strict})
			if tc.errs == nil {
				require.NoError(t, err)
			} else {
				var list DecodeErrors
				require.ErrorAs(t, err, &list)
				assert.Equal(t, tc.errs, errStrings(list))
			}
			if tc.warnings == nil {
				assert.Empty(t, warnings)
			} else {
				assert.Equal(t, tc.warnings, warnStrings(warnings))
			}
		})
	}
}

// TestBehaviourNoteTables checks the hand-written tables against the model and upstream: a
// note for an ignored field names a field Kubernetes has and the model does not (else it
// would never be given), and a note for a partly modelled field names a field the model has.
func TestBehaviourNoteTables(t *testing.T) {
	modelTypes := map[string]reflect.Type{}
	for _, ty := range []reflect.Type{
		reflect.TypeFor[PodSpec](), reflect.TypeFor[Container](), reflect.TypeFor[Probe](), reflect.TypeFor[Affinity](),
		reflect.TypeFor[StatefulSetSpec](),
	} {
		modelTypes[ty.Name()] = ty
	}
	for field := range behaviourNotes {
		typ, name, _ := strings.Cut(field, ".")
		assert.True(t, IsUpstreamField(typ, name), "%s is not a Kubernetes field", field)
		ty, ok := modelTypes[typ]
		require.True(t, ok, field)
		_, modelled := structInfoOf(ty).fields[name]
		assert.False(t, modelled, "%s is modelled; its note would never be given", field)
	}
	for field := range partlyModelled {
		typ, name, _ := strings.Cut(field, ".")
		assert.True(t, IsUpstreamField(typ, name), field)
		_, modelled := structInfoOf(modelTypes[typ]).fields[name]
		assert.True(t, modelled, "%s is not modelled", field)
	}
}
