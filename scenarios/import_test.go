package scenarios

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reconsim/reconsim/internal/rewrite"
	"github.com/reconsim/reconsim/model"
)

const dumpFile = "testdata/import/kubectl-dump.yaml"

func readDump(t *testing.T) []byte {
	t.Helper()
	data, err := os.ReadFile(dumpFile)
	require.NoError(t, err)
	return data
}

// TestImportKubectlDump imports a hand-written 61-object dump of a three-namespace cluster
// (what `kubectl get deploy,rs,sts,ds,svc,pdb,hpa,nodes -A -o yaml` prints, with ConfigMaps,
// Secrets, RBAC, a custom resource and more added) and checks the scenario against a golden
// file, and that it loads without a problem. sim/cluster's tests run it.
func TestImportKubectlDump(t *testing.T) {
	out, warns, err := Import(dumpFile, readDump(t))
	require.NoError(t, err)
	golden := "testdata/import/kubectl-dump.scenario.yaml"
	if rewrite.Enabled() {
		require.NoError(t, os.WriteFile(golden, out, 0o644))
	}
	want, err := os.ReadFile(golden)
	require.NoError(t, err)
	assert.Equal(t, string(want), string(out), "rerun with -rewrite to accept")

	s, _, err := Parse("imported.yaml", out, "")
	require.NoError(t, err)
	assert.Equal(t, "kubectl-dump", s.Name)
	var groups []string
	for _, g := range s.Cluster.NodeGroups {
		groups = append(groups, g.Name+"×"+strings.Repeat("I", g.Count))
	}
	assert.Equal(t, []string{"control-plane×I", "general-us-east-1a×II", "general-us-east-1b×II"}, groups)
	assert.Equal(t, []string{"monitoring", "payments", "shop"}, s.Cluster.Namespaces)
	g := s.Cluster.NodeGroups[1]
	assert.Equal(t, "us-east-1a", g.Zone)
	assert.Equal(t, "us-east-1", g.Region)
	cpu := g.Allocatable["cpu"]
	assert.Equal(t, int64(3920), cpu.MilliValue())
	assert.Equal(t, "general", g.Labels["eks.amazonaws.com/nodegroup"])
	assert.Equal(t, []model.Taint{{Key: "node-role.kubernetes.io/control-plane", Effect: model.TaintEffectNoSchedule}}, s.Cluster.NodeGroups[0].Taints)
	assert.Empty(t, s.Cluster.NodeGroups[2].Taints, "the node lifecycle's disk-pressure taint is not copied")

	var refs []string
	for _, src := range s.Objects {
		assert.Equal(t, containsKind(SettledKinds, src.Objects[0].GetKind()), src.Settled, model.Ref(src.Objects[0]))
		for _, o := range src.Objects {
			refs = append(refs, model.Ref(o))
		}
	}
	assert.Equal(t, []string{
		"Deployment shop/web", "Deployment shop/cart", "Deployment payments/api", "Deployment monitoring/grafana", "Deployment kube-system/coredns",
		"StatefulSet payments/postgres", "StatefulSet monitoring/prometheus-k8s",
		"DaemonSet kube-system/kube-proxy", "DaemonSet monitoring/node-exporter",
		"Service default/kubernetes", "Service kube-system/kube-dns", "Service shop/web", "Service shop/cart", "Service payments/api", "Service payments/postgres", "Service monitoring/grafana",
		"PodDisruptionBudget shop/web", "PodDisruptionBudget payments/api",
		"HorizontalPodAutoscaler shop/web",
		"Pod shop/debug",
		"PriorityClass payments-high",
	}, refs)
	web := s.Objects[0].Objects[0].(*model.Deployment)
	assert.Empty(t, web.Annotations, "bookkeeping annotations are dropped")
	assert.Empty(t, web.UID)
	debug := s.Objects[len(s.Objects)-2].Objects[0].(*model.Pod)
	assert.Empty(t, debug.Spec.NodeName, "the real cluster's placement is dropped")

	// The warnings say what was left out, once each, and are also in the scenario's header.
	text := warnText(warns)
	for _, want := range []string{
		"skipped 3 objects: the simulator does not model ConfigMap",
		"skipped 6 objects: ReplicaSet objects of a cluster dump owned by a Deployment",
		"skipped 1 object: monitoring.coreos.com/v1 Prometheus is a custom resource",
		"dropped what the API server set in 31 objects",
	} {
		assert.Contains(t, text, want)
		assert.Contains(t, string(out), want)
	}
	assert.Equal(t, 1, strings.Count(text, "dropped what the API server set"), "one summary line")
}

// TestImportTimelineExample checks that the commented example an import ends with is valid
// once uncommented.
func TestImportTimelineExample(t *testing.T) {
	out, _, err := Import(dumpFile, readDump(t))
	require.NoError(t, err)
	text := string(out)
	i := strings.Index(text, "# timeline:")
	require.Positive(t, i)
	var b strings.Builder
	b.WriteString(text[:i])
	for _, line := range strings.Split(text[i:], "\n") {
		b.WriteString(strings.TrimPrefix(strings.TrimPrefix(line, "# "), "#"))
		b.WriteString("\n")
	}
	s, _, err := Parse("example.yaml", []byte(b.String()), "")
	require.NoError(t, err)
	require.Len(t, s.Timeline, 2)
	assert.NotNil(t, s.Timeline[0].Action.NodeCrash)
	require.Len(t, s.Expect, 1)
}

func TestImportErrors(t *testing.T) {
	tests := []struct{ name, src, want string }{
		{"no nodes", "apiVersion: v1\nkind: List\nitems: []\n", "d.yaml:1:1: the dump has no Nodes, so the cluster's shape is unknown"},
		{"node without capacity", "apiVersion: v1\nkind: Node\nmetadata: {name: n, uid: x}\n", "d.yaml:1:1: node n has no cpu in status.capacity"},
		{"typo is an error", "apiVersion: v1\nkind: Node\nmetadata: {name: n, uid: x}\nspce: {}\n", `d.yaml:4:1: spce: unknown field "spce" (did you mean "spec"?)`},
		{"syntax", "items: [\n", "invalid YAML"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, _, err := Import("d.yaml", []byte(tc.src))
			require.Error(t, err)
			assert.Nil(t, out)
			assert.Contains(t, err.Error(), tc.want)
			var list model.DecodeErrors
			assert.ErrorAs(t, err, &list, "an import error is the user's: positioned, exit 2")
		})
	}
}

func TestImportGroupsAndNames(t *testing.T) {
	node := func(name, zone, cpu string, extra string) string {
		return `- apiVersion: v1
  kind: Node
  metadata:
    name: ` + name + `
    uid: u-` + name + `
    labels: {topology.kubernetes.io/zone: ` + zone + `, kubernetes.io/hostname: ` + name + extra + `}
  status:
    capacity: {cpu: "` + cpu + `", memory: 8Gi, pods: "110"}
    conditions: [{type: Ready, status: "True", lastHeartbeatTime: "2026-01-01T00:00:00Z"}]
`
	}
	src := "apiVersion: v1\nkind: List\nitems:\n" +
		node("a1", "z-a", "2", "") + node("a2", "z-a", "2", "") + node("b1", "z-b", "2", "") +
		node("big", "z-a", "16", ", node.kubernetes.io/instance-type: M5.4XLarge") + node("g1", "z-a", "2", ", tier: gold") +
		node("a3", "z-a", "2", ", node-id: a3")
	out, _, err := Import("My Cluster.yaml", []byte(src))
	require.NoError(t, err)
	s, _, err := Parse("i.yaml", out, "")
	require.NoError(t, err, string(out))
	assert.Equal(t, "my-cluster", s.Name)
	var got []string
	for _, g := range s.Cluster.NodeGroups {
		got = append(got, g.Name+"/"+g.Zone+"/"+strings.Repeat("I", g.Count))
	}
	assert.Equal(t, []string{"nodes-z-a/z-a/III", "nodes-z-b/z-b/I", "m5-4xlarge/z-a/I", "nodes-z-a-2/z-a/I"}, got,
		"identical nodes share a group; a label whose value is the node's name does not split them")
}

func warnText(ws []model.Warning) string {
	var b strings.Builder
	for _, w := range ws {
		b.WriteString(w.String())
		b.WriteString("\n")
	}
	return b.String()
}

// TestImportLeavesOutWhatWouldNotLoad: what the API server would have refused (an invalid
// workload, a bad label or taint, an unknown resource) or what comes twice is left out, so
// that the scenario always loads.
func TestImportLeavesOutWhatWouldNotLoad(t *testing.T) {
	src := `apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Node
  metadata:
    name: n
    uid: a
    labels: {"bad key!": x, good: "y", long: "` + strings.Repeat("v", 70) + `"}
  spec:
    taints: [{key: a, effect: Sometimes}, {key: b, effect: NoSchedule}, {key: b, effect: NoSchedule}]
  status:
    capacity: {cpu: "2", memory: 4Gi, pods: "2.5", widgets: "3", example.com/gpu: "1"}
    allocatable: {cpu: "3", memory: 3Gi}
- apiVersion: apps/v1
  kind: Deployment
  metadata: {name: bad, namespace: shop, uid: b}
  spec:
    selector: {matchLabels: {app: one}}
    template:
      metadata: {labels: {app: other}}
      spec: {containers: [{name: c, image: i}]}
- apiVersion: v1
  kind: Service
  metadata: {name: s, namespace: shop, uid: c}
  spec: {ports: [{port: 80}]}
- apiVersion: v1
  kind: Service
  metadata: {name: s, namespace: shop, uid: d}
  spec: {ports: [{port: 81}]}
`
	out, warns, err := Import("d.yaml", []byte(src))
	require.NoError(t, err)
	s, _, err := Parse("i.yaml", out, "")
	require.NoError(t, err, string(out))
	g := s.Cluster.NodeGroups[0]
	assert.Equal(t, map[string]string{"good": "y"}, g.Labels)
	assert.Equal(t, []model.Taint{{Key: "b", Effect: model.TaintEffectNoSchedule}}, g.Taints)
	assert.Contains(t, g.Capacity, "example.com/gpu")
	assert.NotContains(t, g.Capacity, "widgets")
	cpu := g.Allocatable["cpu"]
	assert.Equal(t, "2", cpu.String(), "allocatable above capacity is not copied")
	require.Len(t, s.Objects, 1)
	assert.Equal(t, "Service shop/s", model.Ref(s.Objects[0].Objects[0]))
	text := warnText(warns)
	assert.Contains(t, text, "d.yaml:15:3: spec.template.metadata.labels: skipped Deployment shop/bad: the API server would reject it: Invalid value")
	assert.Contains(t, text, "d.yaml:27:3: skipped Service shop/s: it comes twice in the dump")
}
