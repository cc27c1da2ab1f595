package scenarios

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reconsim/reconsim/model"
)

// TestDumpAsObjectFile loads a scenario whose objects are a kubectl dump as it comes: it is
// valid, what the cluster makes itself or the simulator does not model is skipped with a
// warning per kind, and with Strict every skip and ignored field is an error with a position.
func TestDumpAsObjectFile(t *testing.T) {
	const file = "testdata/import/dump-as-objects.yaml"
	data, err := os.ReadFile(file)
	require.NoError(t, err)

	s, warns, err := Parse(file, data, "testdata/import")
	require.NoError(t, err)
	var kinds []string
	for _, o := range s.Objects[0].Objects {
		kinds = append(kinds, string(o.GetKind()))
	}
	assert.Equal(t, "Deployment Deployment Deployment Deployment Deployment StatefulSet StatefulSet DaemonSet DaemonSet Service Service Service Service Service Service Service PodDisruptionBudget PodDisruptionBudget HorizontalPodAutoscaler Pod PriorityClass",
		strings.Join(kinds, " "))
	text := warnText(warns)
	assert.Contains(t, text, "skipped 2 objects: the simulator does not model Secret")
	assert.Contains(t, text, "skipped 5 objects: Nodes of a cluster dump are not created")
	assert.Contains(t, text, "the Namespaces the simulated cluster creates itself (default, kube-system, shop, payments, monitoring)")
	assert.NotContains(t, text, "unknown field")

	_, _, err = ParseWith(file, data, "testdata/import", ParseOptions{Strict: true})
	var errs Errors
	require.ErrorAs(t, err, &errs)
	msgs := err.Error()
	for _, want := range []string{
		"kubectl-dump.yaml:1872:3: items[43]: the simulator does not model ConfigMap; --strict refuses to skip it (remove it from the file, or run without --strict)",
		"kubectl-dump.yaml:801:3: items[15]: ReplicaSet objects of a cluster dump owned by a Deployment: the simulated cluster's controllers make their own; --strict refuses to skip it",
		"kubectl-dump.yaml:440:11: items[10].spec.template.spec.containers[0].imagePullPolicy: not modelled (--strict refuses fields the simulator ignores; remove it, or run without --strict)",
	} {
		assert.True(t, strings.Contains(msgs, want), "missing %q", want)
	}
	assert.False(t, strings.Contains(msgs, "resourceVersion"), "what the API server set is dropped, not refused")
}

// oneNodeScenario is the head of the small scenarios below: one node, then their objects.
const oneNodeScenario = `apiVersion: reconsim.dev/v1alpha1
kind: Scenario
name: t
duration: 1m
cluster:
  nodeGroups: [{name: w, count: 1, capacity: {cpu: "4", memory: 8Gi}}]
objects:
`

func TestManifestFieldsNotModelledOrUnknown(t *testing.T) {
	src := func(container string) string {
		return oneNodeScenario + `- manifest:
    apiVersion: v1
    kind: Pod
    metadata: {name: p}
    spec:
      schedulerName: my-scheduler
      containers:
      - {name: c, image: i, ` + container + `}
`
	}
	_, warns, err := Parse("s.yaml", []byte(src("imagePullPolicy: Always")), "")
	require.NoError(t, err)
	assert.Equal(t, []string{
		`s.yaml:13:7: objects[0].manifest.spec.schedulerName: only partly modelled: no scheduler called "my-scheduler" runs in the simulation (only default-scheduler): the pod stays Pending`,
		"s.yaml:15:29: objects[0].manifest.spec.containers[0].imagePullPolicy: not modelled (ignored)",
	}, warnStrings(warns))

	_, _, err = Parse("s.yaml", []byte(src("imagePulPolicy: Always")), "")
	require.Error(t, err)
	assert.Equal(t, `s.yaml:15:29: objects[0].manifest.spec.containers[0].imagePulPolicy: unknown field "imagePulPolicy" (did you mean "imagePullPolicy"?)`, err.Error())

	_, _, err = ParseWith("s.yaml", []byte(src("imagePullPolicy: Always")), "", ParseOptions{Strict: true})
	require.Error(t, err)
	assert.Equal(t, `s.yaml:15:29: objects[0].manifest.spec.containers[0].imagePullPolicy: not modelled (--strict refuses fields the simulator ignores; remove it, or run without --strict)`, err.Error())
}

func TestInlineManifestOfUnmodelledKindIsSkipped(t *testing.T) {
	src := oneNodeScenario + `- manifest: {apiVersion: v1, kind: ConfigMap, metadata: {name: c}, data: {a: b}}
- manifest: {apiVersion: v1, kind: ConfgMap, metadata: {name: c}}
`
	_, _, err := Parse("s.yaml", []byte(src), "")
	require.Error(t, err)
	assert.Equal(t, `s.yaml:9:36: objects[1].manifest.kind: unknown kind "ConfgMap" (did you mean "ConfigMap"? supported kinds: ControllerRevision, CronJob, CustomResourceDefinition, DaemonSet, Deployment, EndpointSlice, Event, FlowSchema, HorizontalPodAutoscaler, Job, Lease, Namespace, Node, Pod, PodDisruptionBudget, PriorityClass, PriorityLevelConfiguration, ReplicaSet, Service, StatefulSet)`, err.Error())

	src = strings.Replace(src, "- manifest: {apiVersion: v1, kind: ConfgMap, metadata: {name: c}}\n", "", 1)
	s, warns, err := Parse("s.yaml", []byte(src), "")
	require.NoError(t, err)
	assert.Empty(t, s.Objects[0].Objects)
	assert.Equal(t, []string{"s.yaml:8:13: objects[0].manifest: skipped 1 object: the simulator does not model ConfigMap"}, warnStrings(warns))
	_, _, err = ParseWith("s.yaml", []byte(src), "", ParseOptions{Strict: true})
	require.Error(t, err)
	assert.Equal(t, "s.yaml:8:13: objects[0].manifest: the simulator does not model ConfigMap; --strict refuses to skip it (remove it from the file, or run without --strict)", err.Error())
}

func TestNamespaceObjectRepeatingClusterNamespaces(t *testing.T) {
	src := `apiVersion: reconsim.dev/v1alpha1
kind: Scenario
name: t
duration: 1m
cluster:
  namespaces: [shop]
  nodeGroups: [{name: w, count: 1, capacity: {cpu: "4", memory: 8Gi}}]
objects:
- manifest: {apiVersion: v1, kind: Namespace, metadata: {name: shop}}
`
	s, warns, err := Parse("s.yaml", []byte(src), "")
	require.NoError(t, err)
	assert.Empty(t, s.Objects[0].Objects, "creating it again would fail at the start of the run")
	assert.Equal(t, []string{"s.yaml:9:13: objects[0].manifest: namespace shop is created by the cluster already (cluster.namespaces, or a system namespace); this Namespace object is left out"}, warnStrings(warns))
}

func warnStrings(ws []model.Warning) []string {
	var out []string
	for _, w := range ws {
		out = append(out, w.String())
	}
	return out
}

// TestAPFDumpAsObjectFile: a kubectl dump of FlowSchemas and PriorityLevelConfigurations
// loads as it comes (server-set metadata and the status conditions dropped); the bootstrap
// objects kube-apiserver keeps (annotated apf.kubernetes.io/autoupdate-spec: "true") are
// skipped, as the simulated API server has its own, and a user's objects are kept.
func TestAPFDumpAsObjectFile(t *testing.T) {
	src := `apiVersion: reconsim.dev/v1alpha1
kind: Scenario
name: apf-dump
duration: 1m
cluster:
  nodeGroups: [{name: w, count: 1, capacity: {cpu: "4", memory: 8Gi}}]
objects:
- file: apf-dump.yaml
`
	s, warns, err := Parse("apf-dump.scenario.yaml", []byte(src), "testdata/import")
	require.NoError(t, err)
	var got []string
	for _, o := range s.Objects[0].Objects {
		got = append(got, string(o.GetKind())+"/"+o.Meta().Name)
	}
	assert.Equal(t, []string{"FlowSchema/batch-runner", "PriorityLevelConfiguration/batch"}, got)
	text := warnText(warns)
	assert.NotContains(t, text, "unknown field")
	assert.Contains(t, text, "status of 2")
	assert.Contains(t, text, `skipped 1 object: the bootstrap FlowSchemas of a cluster dump (annotated apf.kubernetes.io/autoupdate-spec: "true"): the simulated API server has its own`)
	assert.Contains(t, text, `skipped 1 object: the bootstrap PriorityLevelConfigurations of a cluster dump`)
	fs := s.Objects[0].Objects[0].(*model.FlowSchema)
	assert.Equal(t, model.FlowDistinguisherMethodByNamespaceType, fs.Spec.DistinguisherMethod.Type)
	assert.Equal(t, "runner", fs.Spec.Rules[0].Subjects[0].ServiceAccount.Name)
	pl := s.Objects[0].Objects[1].(*model.PriorityLevelConfiguration)
	assert.Equal(t, int32(20), *pl.Spec.Limited.NominalConcurrencyShares)
	assert.Equal(t, int32(16), pl.Spec.Limited.LimitResponse.Queuing.Queues)
}
