package daemonset

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim/controllers/internal/controllerutil"
	"github.com/reconsim/reconsim/sim/internal/testworld"
	"github.com/reconsim/reconsim/vtime"
)

func TestAddOrUpdateDaemonPodTolerations(t *testing.T) {
	want := []model.Toleration{
		{Key: model.TaintNodeNotReady, Operator: TolerationOpExists, Effect: model.TaintEffectNoExecute},
		{Key: model.TaintNodeUnreachable, Operator: TolerationOpExists, Effect: model.TaintEffectNoExecute},
		{Key: model.TaintNodeDiskPressure, Operator: TolerationOpExists, Effect: model.TaintEffectNoSchedule},
		{Key: model.TaintNodeMemoryPressure, Operator: TolerationOpExists, Effect: model.TaintEffectNoSchedule},
		{Key: model.TaintNodePIDPressure, Operator: TolerationOpExists, Effect: model.TaintEffectNoSchedule},
		{Key: model.TaintNodeUnschedulable, Operator: TolerationOpExists, Effect: model.TaintEffectNoSchedule},
	}
	t.Run("empty spec gets the six", func(t *testing.T) {
		var spec model.PodSpec
		addOrUpdateDaemonPodTolerations(&spec, false)
		assert.Equal(t, want, spec.Tolerations)
	})
	t.Run("hostNetwork adds network-unavailable", func(t *testing.T) {
		var spec model.PodSpec
		addOrUpdateDaemonPodTolerations(&spec, true)
		require.Len(t, spec.Tolerations, 7)
		assert.Equal(t, model.Toleration{Key: model.TaintNodeNetworkUnavailable, Operator: TolerationOpExists, Effect: model.TaintEffectNoSchedule}, spec.Tolerations[6])
	})
	t.Run("idempotent", func(t *testing.T) {
		var spec model.PodSpec
		addOrUpdateDaemonPodTolerations(&spec, false)
		addOrUpdateDaemonPodTolerations(&spec, false)
		assert.Equal(t, want, spec.Tolerations)
	})
	t.Run("a bounded not-ready toleration becomes unbounded; others are kept in place", func(t *testing.T) {
		spec := model.PodSpec{Tolerations: []model.Toleration{
			{Key: "dedicated", Operator: TolerationOpEqual, Value: "gpu", Effect: model.TaintEffectNoSchedule},
			{Key: model.TaintNodeNotReady, Operator: TolerationOpExists, Effect: model.TaintEffectNoExecute, TolerationSeconds: model.Ptr(int64(300))},
		}}
		addOrUpdateDaemonPodTolerations(&spec, false)
		require.Len(t, spec.Tolerations, 7)
		assert.Equal(t, "dedicated", spec.Tolerations[0].Key)
		assert.Equal(t, model.TaintNodeNotReady, spec.Tolerations[1].Key)
		assert.Nil(t, spec.Tolerations[1].TolerationSeconds, "daemon pods tolerate not-ready forever")
	})
}

func TestNodeShouldRunDaemonPod(t *testing.T) {
	node := func(lbls map[string]string, taints ...model.Taint) *model.Node {
		return testworld.ReadyNode("n1", lbls, taints)
	}
	ds := func(mutate func(ds *model.DaemonSet)) *model.DaemonSet {
		d := newDaemonSet("agent", "agent:v1")
		if mutate != nil {
			mutate(d)
		}
		return d
	}
	noSchedule := func(key string) model.Taint { return model.Taint{Key: key, Effect: model.TaintEffectNoSchedule} }
	noExecute := func(key string) model.Taint { return model.Taint{Key: key, Effect: model.TaintEffectNoExecute} }
	affinity := func(terms ...model.NodeSelectorTerm) func(*model.DaemonSet) {
		return func(d *model.DaemonSet) {
			d.Spec.Template.Spec.Affinity = &model.Affinity{NodeAffinity: &model.NodeAffinity{
				RequiredDuringSchedulingIgnoredDuringExecution: &model.NodeSelector{NodeSelectorTerms: terms}}}
		}
	}
	tests := []struct {
		name                 string
		node                 *model.Node
		ds                   *model.DaemonSet
		shouldRun, shouldRem bool
	}{
		{"plain node", node(nil), ds(nil), true, true},
		{"nodeSelector matches", node(map[string]string{"role": "edge"}), ds(func(d *model.DaemonSet) { d.Spec.Template.Spec.NodeSelector = map[string]string{"role": "edge"} }), true, true},
		{"nodeSelector does not match", node(map[string]string{"role": "core"}), ds(func(d *model.DaemonSet) { d.Spec.Template.Spec.NodeSelector = map[string]string{"role": "edge"} }), false, false},
		{"template nodeName is another node", node(nil), ds(func(d *model.DaemonSet) { d.Spec.Template.Spec.NodeName = "n2" }), false, false},
		{"template nodeName is this node", node(nil), ds(func(d *model.DaemonSet) { d.Spec.Template.Spec.NodeName = "n1" }), true, true},
		{"required affinity In matches", node(map[string]string{"zone": "a"}), ds(affinity(model.NodeSelectorTerm{MatchExpressions: []model.NodeSelectorRequirement{{Key: "zone", Operator: "In", Values: []string{"a", "b"}}}})), true, true},
		{"required affinity NotIn rejects", node(map[string]string{"zone": "a"}), ds(affinity(model.NodeSelectorTerm{MatchExpressions: []model.NodeSelectorRequirement{{Key: "zone", Operator: "NotIn", Values: []string{"a"}}}})), false, false},
		{"terms are ORed", node(map[string]string{"zone": "c"}), ds(affinity(
			model.NodeSelectorTerm{MatchExpressions: []model.NodeSelectorRequirement{{Key: "zone", Operator: "In", Values: []string{"a"}}}},
			model.NodeSelectorTerm{MatchExpressions: []model.NodeSelectorRequirement{{Key: "zone", Operator: "Exists"}}})), true, true},
		{"matchFields metadata.name", node(nil), ds(affinity(model.NodeSelectorTerm{MatchFields: []model.NodeSelectorRequirement{{Key: "metadata.name", Operator: "In", Values: []string{"n1"}}}})), true, true},
		{"matchFields other name", node(nil), ds(affinity(model.NodeSelectorTerm{MatchFields: []model.NodeSelectorRequirement{{Key: "metadata.name", Operator: "In", Values: []string{"n2"}}}})), false, false},
		{"required affinity with only empty terms matches nothing", node(nil), ds(affinity(model.NodeSelectorTerm{})), false, false},
		{"bad operator term matches nothing", node(nil), ds(affinity(model.NodeSelectorTerm{MatchExpressions: []model.NodeSelectorRequirement{{Key: "zone", Operator: "Near"}}})), false, false},
		{"untolerated NoSchedule: no new pod, keep existing", node(nil, noSchedule("dedicated")), ds(nil), false, true},
		{"untolerated NoExecute: none at all", node(nil, noExecute("dedicated")), ds(nil), false, false},
		{"PreferNoSchedule is ignored", node(nil, model.Taint{Key: "dedicated", Effect: model.TaintEffectPreferNoSchedule}), ds(nil), true, true},
		{"tolerated by the template", node(nil, noExecute("dedicated")), ds(func(d *model.DaemonSet) {
			d.Spec.Template.Spec.Tolerations = []model.Toleration{{Key: "dedicated", Operator: "Exists"}}
		}), true, true},
		{"cordoned node: unschedulable tolerated by default", node(nil, noSchedule(model.TaintNodeUnschedulable)), ds(nil), true, true},
		{"not-ready NoExecute tolerated by default", node(nil, noExecute(model.TaintNodeNotReady)), ds(nil), true, true},
		{"unreachable NoExecute tolerated by default", node(nil, noExecute(model.TaintNodeUnreachable)), ds(nil), true, true},
		{"memory pressure tolerated by default", node(nil, noSchedule(model.TaintNodeMemoryPressure)), ds(nil), true, true},
		{"network-unavailable is not (no hostNetwork)", node(nil, noSchedule(model.TaintNodeNetworkUnavailable)), ds(nil), false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			run, cont := nodeShouldRunDaemonPod(tt.node, tt.ds)
			assert.Equal(t, tt.shouldRun, run, "shouldRun")
			assert.Equal(t, tt.shouldRem, cont, "shouldContinueRunning")
		})
	}
}

func TestReplaceAffinityAndTargetNode(t *testing.T) {
	pref := []model.PreferredSchedulingTerm{{Weight: 1, Preference: model.NodeSelectorTerm{MatchExpressions: []model.NodeSelectorRequirement{{Key: "a", Operator: "Exists"}}}}}
	tests := []struct {
		name     string
		affinity *model.Affinity
	}{
		{"nil", nil},
		{"no node affinity", &model.Affinity{}},
		{"preferred only", &model.Affinity{NodeAffinity: &model.NodeAffinity{PreferredDuringSchedulingIgnoredDuringExecution: pref}}},
		{"required replaced", &model.Affinity{NodeAffinity: &model.NodeAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution:  &model.NodeSelector{NodeSelectorTerms: []model.NodeSelectorTerm{{MatchExpressions: []model.NodeSelectorRequirement{{Key: "zone", Operator: "In", Values: []string{"a"}}}}}},
			PreferredDuringSchedulingIgnoredDuringExecution: pref}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := replaceDaemonSetPodNodeNameNodeAffinity(tt.affinity, "worker-7")
			req := a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution
			require.Len(t, req.NodeSelectorTerms, 1)
			assert.Equal(t, []model.NodeSelectorRequirement{{Key: "metadata.name", Operator: "In", Values: []string{"worker-7"}}}, req.NodeSelectorTerms[0].MatchFields)
			assert.Empty(t, req.NodeSelectorTerms[0].MatchExpressions)
			if tt.affinity != nil && tt.affinity.NodeAffinity != nil {
				assert.Equal(t, tt.affinity.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution, a.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution)
			}
			pod := &model.Pod{Spec: model.PodSpec{Affinity: a}}
			target, err := getTargetNodeName(pod)
			require.NoError(t, err)
			assert.Equal(t, "worker-7", target)
			pod.Spec.NodeName = "bound"
			target, err = getTargetNodeName(pod)
			require.NoError(t, err)
			assert.Equal(t, "bound", target, "spec.nodeName wins once bound")
		})
	}
	_, err := getTargetNodeName(&model.Pod{})
	assert.Error(t, err)
	_, err = getTargetNodeName(&model.Pod{Spec: model.PodSpec{Affinity: &model.Affinity{NodeAffinity: &model.NodeAffinity{
		RequiredDuringSchedulingIgnoredDuringExecution: &model.NodeSelector{NodeSelectorTerms: []model.NodeSelectorTerm{{MatchFields: []model.NodeSelectorRequirement{{Key: "metadata.name", Operator: "In", Values: []string{"a", "b"}}}}}}}}}})
	assert.ErrorContains(t, err, "not unique")
}

func TestSurgeAndUnavailableCounts(t *testing.T) {
	mk := func(strategy string, unavail, surge *intstr.IntOrString) *model.DaemonSet {
		d := newDaemonSet("agent", "v1")
		d.Spec.UpdateStrategy.Type = strategy
		if unavail != nil || surge != nil {
			d.Spec.UpdateStrategy.RollingUpdate = &model.RollingUpdateDaemonSet{MaxUnavailable: unavail, MaxSurge: surge}
		}
		return d
	}
	i := func(v int32) *intstr.IntOrString { return model.Ptr(intstr.FromInt32(v)) }
	s := func(v string) *intstr.IntOrString { return model.Ptr(intstr.FromString(v)) }
	tests := []struct {
		name                    string
		ds                      *model.DaemonSet
		desired                 int
		wantUnavailable, wantSu int
		wantAllowsSurge         bool
	}{
		{"defaults: 1 and 0", mk("", nil, nil), 10, 1, 0, false},
		{"absolute", mk("RollingUpdate", i(3), i(0)), 10, 3, 0, false},
		{"percent rounds up", mk("RollingUpdate", s("25%"), s("15%")), 10, 3, 2, true},
		{"OnDelete counts nothing", mk("OnDelete", i(3), i(2)), 10, 0, 0, false},
		{"surge only", mk("RollingUpdate", i(0), i(1)), 4, 0, 1, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u, err := unavailableCount(tt.ds, tt.desired)
			require.NoError(t, err)
			su, err := surgeCount(tt.ds, tt.desired)
			require.NoError(t, err)
			assert.Equal(t, tt.wantUnavailable, u)
			assert.Equal(t, tt.wantSu, su)
			assert.Equal(t, tt.wantAllowsSurge, allowsSurge(tt.ds))
		})
	}
	_, err := unavailableCount(mk("RollingUpdate", s("lots"), nil), 10)
	assert.Error(t, err)
}

func TestComputeHash(t *testing.T) {
	d := newDaemonSet("agent", "agent:v1")
	h1 := controllerutil.ComputeHash(&d.Spec.Template, nil)
	again := controllerutil.ComputeHash(&d.DeepCopy().Spec.Template, nil)
	assert.Equal(t, h1, again)
	// Pinned: if this changes, so does every DaemonSet revision name and pod hash label.
	assert.Equal(t, "f74d6bdd6", h1)

	zero := controllerutil.ComputeHash(&d.Spec.Template, model.Ptr(int32(0)))
	one := controllerutil.ComputeHash(&d.Spec.Template, model.Ptr(int32(1)))
	assert.NotEqual(t, h1, zero, "a nil and a zero collision count hash differently, as upstream")
	assert.NotEqual(t, zero, one)

	d2 := d.DeepCopy()
	d2.Spec.Template.Spec.Containers[0].Image = "agent:v2"
	h2 := controllerutil.ComputeHash(&d2.Spec.Template, nil)
	assert.NotEqual(t, h1, h2)

	// match compares templates, whatever else the DaemonSet or the revision carry.
	rev := &model.ControllerRevision{}
	d.Spec.Template.DeepCopyInto(&rev.Data.Template)
	ok, err := match(d, rev)
	require.NoError(t, err)
	assert.True(t, ok)
	ok, err = match(d2, rev)
	require.NoError(t, err)
	assert.False(t, ok)
}

func TestCreatePodTemplateAndIsPodUpdated(t *testing.T) {
	d := newDaemonSet("agent", "agent:v1")
	tmpl := createPodTemplate(&d.Spec.Template, nil, "abc")
	assert.Equal(t, "abc", tmpl.Labels[DefaultDaemonSetUniqueLabelKey])
	assert.NotContains(t, tmpl.Labels, DaemonSetTemplateGenerationKey)
	assert.Len(t, tmpl.Spec.Tolerations, 6)
	assert.Empty(t, d.Spec.Template.Spec.Tolerations, "the DaemonSet's own template is not changed")

	gen := int64(4)
	tmpl = createPodTemplate(&d.Spec.Template, &gen, "abc")
	assert.Equal(t, "4", tmpl.Labels[DaemonSetTemplateGenerationKey])

	pod := &model.Pod{}
	pod.Labels = map[string]string{DefaultDaemonSetUniqueLabelKey: "abc"}
	assert.True(t, isPodUpdated(pod, "abc", nil))
	assert.False(t, isPodUpdated(pod, "def", nil))
	assert.False(t, isPodUpdated(pod, "", nil))
	pod.Labels[DaemonSetTemplateGenerationKey] = "4"
	assert.True(t, isPodUpdated(pod, "def", &gen), "the legacy generation label also counts")

	d.Annotations = map[string]string{DeprecatedTemplateGeneration: "x"}
	_, err := getTemplateGeneration(d)
	assert.Error(t, err)
	d.Annotations[DeprecatedTemplateGeneration] = "7"
	g, err := getTemplateGeneration(d)
	require.NoError(t, err)
	assert.Equal(t, int64(7), *g)
}

func TestNodeInSameConditionAndIgnoreUpdate(t *testing.T) {
	cond := func(typ string, st model.ConditionStatus, hb time.Duration) model.NodeCondition {
		return model.NodeCondition{Type: typ, Status: st, LastHeartbeatTime: vtime.FromDuration(hb)}
	}
	old := testworld.ReadyNode("n", map[string]string{"a": "b"}, nil)
	old.Status.Conditions = []model.NodeCondition{cond(model.NodeReady, model.ConditionTrue, 0), cond(model.NodeMemoryPressure, model.ConditionFalse, 0)}
	heartbeat := old.DeepCopy()
	heartbeat.ResourceVersion = 9
	heartbeat.Status.Conditions = []model.NodeCondition{cond(model.NodeReady, model.ConditionTrue, 10*time.Second), cond(model.NodeMemoryPressure, model.ConditionFalse, 10*time.Second)}
	assert.True(t, shouldIgnoreNodeUpdate(old, heartbeat), "a heartbeat changes nothing that matters")

	notReady := heartbeat.DeepCopy()
	notReady.Status.Conditions[0].Status = model.ConditionUnknown
	assert.False(t, shouldIgnoreNodeUpdate(old, notReady))

	relabelled := heartbeat.DeepCopy()
	relabelled.Labels = map[string]string{"a": "c"}
	assert.False(t, shouldIgnoreNodeUpdate(old, relabelled))

	tainted := heartbeat.DeepCopy()
	tainted.Spec.Taints = []model.Taint{{Key: "x", Effect: model.TaintEffectNoSchedule}}
	assert.False(t, shouldIgnoreNodeUpdate(old, tainted))

	assert.True(t, nodeInSameCondition(nil, nil))
	assert.False(t, nodeInSameCondition(nil, []model.NodeCondition{cond(model.NodeReady, model.ConditionTrue, 0)}))
}

func TestSortByCreationTimestampAndPhase(t *testing.T) {
	mk := func(name, node string, created time.Duration) *model.Pod {
		p := &model.Pod{}
		p.Name = name
		p.Spec.NodeName = node
		p.CreationTimestamp = vtime.FromDuration(created)
		return p
	}
	pods := []*model.Pod{mk("d", "", 0), mk("c", "n", 5*time.Second), mk("b", "n", time.Second), mk("a", "n", time.Second)}
	sortByCreationTimestampAndPhase(pods)
	var names []string
	for _, p := range pods {
		names = append(names, p.Name)
	}
	assert.Equal(t, []string{"a", "b", "c", "d"}, names, "scheduled first, then oldest, then by name")
}

func TestConfigValidate(t *testing.T) {
	testworld.CheckConfig(t, DefaultConfig, []testworld.ConfigCase[Config]{
		{Name: "no workers", Edit: func(c *Config) { c.ConcurrentDaemonSetSyncs = 0 }, Want: "concurrent-daemonset-syncs"},
		{Name: "burst", Edit: func(c *Config) { c.BurstReplicas = 0 }, Want: "burstReplicas"},
		{Name: "expectations", Edit: func(c *Config) { c.ExpectationsTimeout = 0 }, Want: "expectations timeout"},
		{Name: "backoff", Edit: func(c *Config) { c.FailedPodsBackoffMax = time.Millisecond }, Want: "back-off"},
		{Name: "retries", Edit: func(c *Config) { c.StatusUpdateRetries = -1 }, Want: "status update retries"},
	})
}
