package scenarios

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim"
	"github.com/reconsim/reconsim/sim/metrics"
)

func TestLoadWorkloadsScenario(t *testing.T) {
	s, warns, err := Load("testdata/valid/workloads.yaml")
	require.NoError(t, err)
	assert.Empty(t, warns)
	tl := s.Timeline
	require.Len(t, tl, 20)
	web := ObjectRef{Kind: model.KindDeployment, Namespace: "default", Name: "web"}
	db := ObjectRef{Kind: model.KindStatefulSet, Namespace: "prod", Name: "db"}

	t.Run("workload actions", func(t *testing.T) {
		assert.Equal(t, &RolloutArgs{Target: web, Image: &ImageChange{Container: "web", Image: "nginx:1.28"}}, tl[0].Action.Rollout,
			"the target's namespace defaults to default")
		require.NotNil(t, tl[1].Action.Rollout.Template)
		assert.Equal(t, map[string]string{"kubectl.kubernetes.io/restartedAt": "2024-05-01T00:00:00Z"}, tl[1].Action.Rollout.Annotations)
		assert.Equal(t, &db, tl[1].Action.Target())
		assert.Equal(t, &PauseArgs{Target: web}, tl[2].Action.Pause)
		assert.Equal(t, &ResumeArgs{Target: web}, tl[3].Action.Resume)
		assert.Equal(t, &RollbackArgs{Target: web}, tl[4].Action.Rollback, "toRevision defaults to 0, the previous revision")
		assert.Equal(t, int64(1), tl[5].Action.Rollback.ToRevision)
		assert.Equal(t, &ScaleArgs{Target: db, Replicas: 5}, tl[6].Action.Scale, "scale takes a StatefulSet")
	})

	t.Run("drain", func(t *testing.T) {
		d := tl[7].Action.Drain
		assert.Equal(t, &DrainArgs{Nodes: NodeTarget{Names: []string{"worker-3"}}, IgnoreDaemonSets: true}, d,
			"ignoreDaemonSets defaults to true, timeout to 0 and the grace period to the pod's own")
		assert.Equal(t, &tl[7].Action.Drain.Nodes, tl[7].Action.Nodes())
		d = tl[8].Action.Drain
		assert.False(t, d.IgnoreDaemonSets)
		assert.Equal(t, 10*time.Minute, d.Timeout)
		require.NotNil(t, d.GracePeriodSeconds)
		assert.Equal(t, int64(0), *d.GracePeriodSeconds, "an explicit 0 is kept")
	})

	t.Run("control-plane faults", func(t *testing.T) {
		lat := tl[9].Action.APILatency
		assert.Equal(t, RequestFilter{Verbs: []string{"update", "patch"}, Resources: []string{"pods/status", "nodes"}, Clients: []string{"kubelet/*"}}, lat.RequestFilter)
		assert.Equal(t, sim.Dist{Kind: sim.DistLogNormal, Median: 200 * time.Millisecond, P99: 2 * time.Second}, lat.Extra.Dist)
		assert.Equal(t, 3*time.Minute, lat.For)
		assert.Equal(t, sim.Dist{Kind: sim.DistUniform, Min: 10 * time.Millisecond, Max: 50 * time.Millisecond}, tl[10].Action.APILatency.Extra.Dist,
			"a distribution may be a mapping")
		assert.Equal(t, RequestFilter{}, tl[10].Action.APILatency.RequestFilter)

		e := tl[11].Action.APIErrors
		assert.Equal(t, 0.5, e.Fraction)
		assert.Equal(t, 429, e.Code)
		assert.Equal(t, model.DefaultRetryAfterSeconds, e.RetryAfterSeconds, "a 429 carries Retry-After 1 by default")
		assert.Equal(t, 3, tl[12].Action.APIErrors.RetryAfterSeconds)

		assert.Equal(t, &ControllerRestartArgs{Component: "kube-controller-manager", Downtime: 15 * time.Second}, tl[13].Action.ControllerRestart)
		assert.Equal(t, &ControllerRestartArgs{Component: "replicaset-controller"}, tl[14].Action.ControllerRestart)
		assert.Equal(t, &WatchStallArgs{Component: "kube-scheduler", For: time.Minute}, tl[15].Action.WatchStall)
		assert.Equal(t, []string{"node-controller", "kubelet/worker-0"}, tl[16].Action.WatchStall.Clients)
	})

	t.Run("loads", func(t *testing.T) {
		require.Len(t, s.Loads, 2)
		web := s.Loads[0]
		assert.Equal(t, "web", web.Name, "a load is named after its target by default")
		assert.Equal(t, metrics.WorkloadRef{Kind: "Deployment", Namespace: "default", Name: "web"}, web.Target)
		assert.Equal(t, "requests_per_second", web.Metric)
		require.NotNil(t, web.Noise)
		assert.Equal(t, 15*time.Second, web.Noise.Interval, "the noise interval defaults to one resolution")
		require.NotNil(t, web.Shape.Spikes)
		assert.Equal(t, model.Ptr(3.0), web.Shape.Spikes.Spikes[0].Factor)
		cpu := web.Usage.CPUPerUnit
		assert.Equal(t, "5m", cpu.String())
		assert.Equal(t, "queries_per_second", s.Loads[1].Metric)
		assert.Equal(t, &metrics.SineShape{Base: 200, Amplitude: 80, Period: 10 * time.Minute}, s.Loads[1].Shape.Sine)
	})

	t.Run("load actions", func(t *testing.T) {
		assert.Equal(t, &LoadArgs{Target: web, Shape: metrics.Shape{Constant: &metrics.ConstantShape{Value: 150}}}, tl[17].Action.Load)
		assert.Equal(t, &metrics.StepsShape{Initial: 100, Steps: []metrics.Step{{At: 5 * time.Minute, Value: 300}}}, tl[18].Action.Load.Shape.Steps)
		assert.Equal(t, db, tl[19].Action.Load.Target)
		assert.Equal(t, []metrics.SeriesPoint{{At: 0, Value: 100}, {At: time.Minute, Value: 180}, {At: 2 * time.Minute, Value: 150}},
			tl[19].Action.Load.Shape.Series.Points, "the series file is read, its header and comments skipped")
	})

	t.Run("expectations", func(t *testing.T) {
		x := s.Expect
		require.Len(t, x, 8)
		assert.Equal(t, &PodsAtMostArgs{Target: web, ReplicasPlusMaxSurge: true}, x[0].Always.Condition.PodsAtMost)
		assert.Equal(t, &PodsAtMostArgs{Target: db, Count: model.Ptr(int32(5))}, x[1].Always.Condition.PodsAtMost)
		assert.Equal(t, &AvailableAtLeastArgs{Target: web, ReplicasMinusMaxUnavailable: true}, x[2].Always.Condition.AvailableAtLeast)
		assert.Equal(t, &Window{After: "v2", Within: 10 * time.Minute}, x[2].Always.Within)
		assert.Equal(t, &ReadyEndpointsAtLeastArgs{Service: "web", Namespace: "default", Count: 6}, x[4].Always.Condition.ReadyEndpointsAtLeast)
		assert.Equal(t, &ReadyReplicasArgs{Target: web, Min: 10}, x[5].Eventually.Condition.ReadyReplicas)
		assert.Equal(t, "metric", x[6].Kind())
		assert.Equal(t, &MetricExpectation{Series: "apiserver.inflight_mutating", Aggregate: AggregateMax, Max: model.Ptr(150.0),
			Within: &Window{After: "drain", Within: 10 * time.Minute}}, x[6].Metric)
		assert.Equal(t, model.Ptr(6.0), x[7].Metric.Min)
		assert.Equal(t, model.Ptr(13.0), x[7].Metric.Max)
	})
}

// webTemplate is the pod template of the Deployment in testdata/valid/workloads.yaml.
func webTemplate(t *testing.T) model.PodTemplateSpec {
	s, _, err := Load("testdata/valid/workloads.yaml")
	require.NoError(t, err)
	return s.Objects[0].Objects[0].(*model.Deployment).Spec.Template
}

func yamlNode(t *testing.T, text string) *yaml.Node {
	var doc yaml.Node
	require.NoError(t, yaml.Unmarshal([]byte(text), &doc))
	return doc.Content[0]
}

func TestRolloutApplyTo(t *testing.T) {
	base := webTemplate(t)
	var before model.PodTemplateSpec
	base.DeepCopyInto(&before)

	t.Run("image", func(t *testing.T) {
		out, err := (&RolloutArgs{Image: &ImageChange{Container: "sidecar", Image: "envoy:1.31"}}).ApplyTo(base)
		require.NoError(t, err)
		assert.Equal(t, "nginx:1.27", out.Spec.Containers[0].Image)
		assert.Equal(t, "envoy:1.31", out.Spec.Containers[1].Image)
		assert.Equal(t, before, base, "the template given is not modified")
	})

	t.Run("template merges containers by name and mappings by key", func(t *testing.T) {
		frag := yamlNode(t, `
metadata:
  labels: {track: canary}
spec:
  containers:
  - name: web
    resources: {requests: {cpu: 750m}}
  - name: logger
    image: fluent-bit:3`)
		out, err := (&RolloutArgs{Template: frag}).ApplyTo(base)
		require.NoError(t, err)
		assert.Equal(t, map[string]string{"app": "web", "track": "canary"}, out.Labels)
		require.Len(t, out.Spec.Containers, 3, "an unknown name is appended")
		web := out.Spec.Containers[0]
		assert.Equal(t, "nginx:1.27", web.Image, "fields the fragment leaves out stay")
		cpu, mem := web.Resources.Requests["cpu"], web.Resources.Requests["memory"]
		assert.Equal(t, "750m", cpu.String())
		assert.Equal(t, "256Mi", mem.String(), "the requests mapping merges key by key")
		assert.Equal(t, "sidecar", out.Spec.Containers[1].Name)
		assert.Equal(t, "logger", out.Spec.Containers[2].Name)
	})

	t.Run("null removes a key", func(t *testing.T) {
		out, err := (&RolloutArgs{Template: yamlNode(t, "spec: {containers: [{name: web, resources: {requests: {memory: null}}}]}")}).ApplyTo(base)
		require.NoError(t, err)
		_, hasMem := out.Spec.Containers[0].Resources.Requests["memory"]
		assert.False(t, hasMem)
	})

	t.Run("template, then image, then annotations", func(t *testing.T) {
		r := &RolloutArgs{
			Template:    yamlNode(t, "spec: {containers: [{name: web, image: nginx:1.28}]}"),
			Image:       &ImageChange{Container: "web", Image: "nginx:1.29"},
			Annotations: map[string]string{"example.com/cause": "v3"},
		}
		out, err := r.ApplyTo(base)
		require.NoError(t, err)
		assert.Equal(t, "nginx:1.29", out.Spec.Containers[0].Image)
		assert.Equal(t, map[string]string{"example.com/cause": "v3"}, out.Annotations)
	})

	for name, c := range map[string]struct {
		r    *RolloutArgs
		want string
	}{
		"missing container": {&RolloutArgs{Image: &ImageChange{Container: "api", Image: "x"}}, `no container "api" (containers: web, sidecar)`},
		"not a mapping":     {&RolloutArgs{Template: yamlNode(t, "[1, 2]")}, "not a mapping"},
		"unknown field":     {&RolloutArgs{Template: yamlNode(t, "spec: {containers: [{name: web, ttyy: true}]}")}, `not a pod template: spec.containers[0].ttyy: unknown field "ttyy" (did you mean "tty"?)`},
		"item without key":  {&RolloutArgs{Template: yamlNode(t, "spec: {containers: [{image: x}]}")}, "every item of containers must have name"},
	} {
		t.Run(name, func(t *testing.T) {
			out, err := c.r.ApplyTo(base)
			require.Error(t, err)
			assert.Contains(t, err.Error(), c.want)
			assert.Equal(t, model.PodTemplateSpec{}, out)
		})
	}
}

func TestMatchClient(t *testing.T) {
	for _, c := range []struct {
		pattern, name string
		want          bool
	}{
		{"kubectl", "kubectl", true},
		{"kubectl", "kubectl2", false},
		{"*", "anything/at/all", true},
		{"kubelet/*", "kubelet/worker-0", true},
		{"kubelet/*", "kubelet", false},
		{"*-controller", "replicaset-controller", true},
		{"*-controller", "node-controller-x", false},
		{"kube*/*/x", "kube-controller-manager/a/x", true},
		{"a*b*c", "abc", true},
		{"a*bc*c", "abcc", true},
		{"ab*b", "ab", false},
		{"kubelet/worker-?", "kubelet/worker-1", false},
	} {
		assert.Equal(t, c.want, MatchClient(c.pattern, c.name), "%q ~ %q", c.pattern, c.name)
	}
}

func TestRequestFilterMatches(t *testing.T) {
	req := func(client string, verb model.Verb, kind model.Kind, sub string) RequestInfo {
		return RequestInfo{Client: client, Verb: verb, Kind: kind, Subresource: sub}
	}
	status := req("kubelet/worker-0", model.VerbUpdate, model.KindPod, "status")
	create := req("replicaset-controller", model.VerbCreate, model.KindPod, "")
	for _, c := range []struct {
		f    RequestFilter
		r    RequestInfo
		want bool
	}{
		{RequestFilter{}, status, true},
		{RequestFilter{Verbs: []string{"update"}}, status, true},
		{RequestFilter{Verbs: []string{"create", "patch"}}, status, false},
		{RequestFilter{Resources: []string{"pods"}}, status, true},
		{RequestFilter{Resources: []string{"pods/status"}}, status, true},
		{RequestFilter{Resources: []string{"pods/status"}}, create, false},
		{RequestFilter{Resources: []string{"nodes"}}, create, false},
		{RequestFilter{Clients: []string{"kubelet/*"}}, status, true},
		{RequestFilter{Clients: []string{"kubelet/*"}}, create, false},
		{RequestFilter{Verbs: []string{"create"}, Resources: []string{"pods"}, Clients: []string{"replicaset-controller"}}, create, true},
		{RequestFilter{Resources: []string{"pods"}}, req("x", model.VerbGet, "Frobnicator", ""), false},
	} {
		assert.Equal(t, c.want, c.f.Matches(c.r), "%+v ~ %+v", c.f, c.r)
	}
}

func TestUnionNames(t *testing.T) {
	assert.Equal(t, []string{"apply", "delete", "scale", "rollout", "rollback", "pause", "resume", "patch", "edit", "kill-container", "cordon", "uncordon", "drain",
		"node-crash", "node-partition", "kubelet-stall", "image-pull-failure", "node-recover", "node-delete", "zone-outage",
		"api-latency", "api-errors", "api-load", "controller-restart", "watch-stall", "watch-coalesce", "leader-crash", "leader-partition", "leader-release", "load"}, ActionNames())
	assert.Equal(t, []string{"no-pending-pods", "ready-replicas", "node-overcommitted", "pods-at-most", "replicas-at-most",
		"available-at-least", "ready-endpoints-at-least", "field-equals"}, ConditionNames())
	assert.Equal(t, []string{"converged", "event", "eventually", "always", "never", "metric", "verdict"}, ExpectationKinds())
}

func TestClientNames(t *testing.T) {
	s, _, err := Load("testdata/valid/workloads.yaml")
	require.NoError(t, err)
	names := s.ClientNames()
	assert.Contains(t, names, "kubectl")
	assert.Contains(t, names, "replicaset-controller")
	assert.Equal(t, "kubelet/worker-3", names[len(names)-1])
	assert.Len(t, names, len(controlPlaneClients)+4)
}

// TestRolloutTemplateFieldNotModelled: a rollout fragment may carry a field Kubernetes has
// and the simulator does not model, as a manifest may; it is ignored, not an error.
func TestRolloutTemplateFieldNotModelled(t *testing.T) {
	r := &RolloutArgs{Template: yamlNode(t, "spec: {containers: [{name: web, image: web:2, tty: true, imagePullPolicy: Always}]}")}
	out, err := r.ApplyTo(webTemplate(t))
	require.NoError(t, err)
	assert.Equal(t, "web:2", out.Spec.Containers[0].Image)
}
