package scheduler

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reconsim/reconsim/model"
)

func TestToleratesTaint(t *testing.T) {
	taint := model.Taint{Key: "dedicated", Value: "gpu", Effect: model.TaintEffectNoSchedule}
	tests := []struct {
		name string
		tol  model.Toleration
		want bool
	}{
		{"equal key value effect", model.Toleration{Key: "dedicated", Operator: "Equal", Value: "gpu", Effect: model.TaintEffectNoSchedule}, true},
		{"empty operator means Equal", model.Toleration{Key: "dedicated", Value: "gpu", Effect: model.TaintEffectNoSchedule}, true},
		{"equal with other value", model.Toleration{Key: "dedicated", Operator: "Equal", Value: "cpu", Effect: model.TaintEffectNoSchedule}, false},
		{"equal with empty value against a valued taint", model.Toleration{Key: "dedicated", Operator: "Equal"}, false},
		{"exists ignores the value", model.Toleration{Key: "dedicated", Operator: "Exists", Effect: model.TaintEffectNoSchedule}, true},
		{"empty effect matches every effect", model.Toleration{Key: "dedicated", Operator: "Exists"}, true},
		{"other effect", model.Toleration{Key: "dedicated", Operator: "Exists", Effect: model.TaintEffectNoExecute}, false},
		{"other key", model.Toleration{Key: "zone", Operator: "Exists"}, false},
		{"empty key with Exists matches everything", model.Toleration{Operator: "Exists"}, true},
		{"empty key with Exists and another effect", model.Toleration{Operator: "Exists", Effect: model.TaintEffectPreferNoSchedule}, false},
		{"unknown operator matches nothing", model.Toleration{Key: "dedicated", Operator: "Gt", Value: "gpu"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, tt.tol.ToleratesTaint(&taint))
		})
	}
}

// TestFilterTaintToleration follows tainttoleration.Filter
// (pkg/scheduler/framework/plugins/tainttoleration/taint_toleration.go): wantReason is the
// message up to v1.34, which names the first untolerated taint; from v1.35 (#134740, gate
// TaintTolerationGenericMessage) every rejection reads "node(s) had untolerated taint(s)".
func TestFilterTaintToleration(t *testing.T) {
	unreachable := model.Taint{Key: model.TaintNodeUnreachable, Effect: model.TaintEffectNoExecute}
	notReady := model.Taint{Key: model.TaintNodeNotReady, Effect: model.TaintEffectNoSchedule}
	prefer := model.Taint{Key: "spot", Value: "true", Effect: model.TaintEffectPreferNoSchedule}
	tests := []struct {
		name        string
		taints      []model.Taint
		tolerations []model.Toleration
		wantReason  string // "" means fits
	}{
		{"no taints", nil, nil, ""},
		{"PreferNoSchedule never filters", []model.Taint{prefer}, nil, ""},
		{"NoExecute must be tolerated", []model.Taint{unreachable}, nil, "node(s) had untolerated taint {node.kubernetes.io/unreachable: }"},
		{"NoExecute tolerated", []model.Taint{unreachable}, []model.Toleration{{Key: model.TaintNodeUnreachable, Operator: "Exists", Effect: model.TaintEffectNoExecute}}, ""},
		{"first untolerated taint in node order is named", []model.Taint{prefer, notReady, unreachable}, nil, "node(s) had untolerated taint {node.kubernetes.io/not-ready: }"},
		{"value shows in the reason", []model.Taint{{Key: "dedicated", Value: "gpu", Effect: model.TaintEffectNoSchedule}}, nil, "node(s) had untolerated taint {dedicated: gpu}"},
		{"tolerate-all", []model.Taint{notReady, unreachable}, []model.Toleration{{Operator: "Exists"}}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			node := testNode("n1", "4", "8Gi", 110)
			node.Spec.Taints = tt.taints
			pod := testPod("p")
			pod.Spec.Tolerations = tt.tolerations
			for _, withKey := range []bool{true, false} {
				s := newCycleState(pod)
				s.taintWithKey = withKey
				st := filterTaintToleration(s, nodeInfoWith(node))
				if tt.wantReason == "" {
					assert.True(t, st.IsSuccess())
					continue
				}
				want := tt.wantReason
				if !withKey {
					want = ErrReasonUntoleratedTaints
				}
				require.False(t, st.IsSuccess())
				assert.Equal(t, UnschedulableAndUnresolvable, st.Code())
				assert.Equal(t, []string{want}, st.Reasons())
				assert.Equal(t, PluginTaintToleration, st.Plugin())
			}
		})
	}
}

func TestFilterNodeUnschedulable(t *testing.T) {
	tests := []struct {
		name          string
		unschedulable bool
		tolerations   []model.Toleration
		want          bool
	}{
		{"schedulable node", false, nil, true},
		{"cordoned node", true, nil, false},
		{"cordoned, pod tolerates the unschedulable taint", true, []model.Toleration{{Key: model.TaintNodeUnschedulable, Operator: "Exists", Effect: model.TaintEffectNoSchedule}}, true},
		{"cordoned, toleration for another effect", true, []model.Toleration{{Key: model.TaintNodeUnschedulable, Operator: "Exists", Effect: model.TaintEffectNoExecute}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			node := testNode("n1", "4", "8Gi", 110)
			node.Spec.Unschedulable = tt.unschedulable
			pod := testPod("p")
			pod.Spec.Tolerations = tt.tolerations
			st := filterNodeUnschedulable(newCycleState(pod), nodeInfoWith(node))
			assert.Equal(t, tt.want, st.IsSuccess())
			if !tt.want {
				assert.Equal(t, []string{ErrReasonUnschedulable}, st.Reasons())
			}
		})
	}
}

func TestPodRequests(t *testing.T) {
	tests := []struct {
		name           string
		containers     []model.ResourceList
		initContainers []model.ResourceList
		nonMissing     bool
		wantCPU        int64
		wantMem        int64
	}{
		{"one container", []model.ResourceList{resources("cpu", "500m", "memory", "1Gi")}, nil, false, 500, 1 << 30},
		{"containers sum", []model.ResourceList{resources("cpu", "2"), resources("cpu", "1", "memory", "1G")}, nil, false, 3000, 1e9},
		// The upstream example in computePodResourceRequest's comment: CPU 3, memory 3G.
		{"init containers take the max", []model.ResourceList{resources("cpu", "2", "memory", "1G"), resources("cpu", "1", "memory", "1G")},
			[]model.ResourceList{resources("cpu", "2", "memory", "1G"), resources("cpu", "2", "memory", "3G")}, false, 3000, 3e9},
		{"a big init container dominates", []model.ResourceList{resources("cpu", "100m")}, []model.ResourceList{resources("cpu", "4")}, false, 4000, 0},
		{"no requests", []model.ResourceList{nil}, nil, false, 0, 0},
		{"no requests, scoring defaults", []model.ResourceList{nil, nil}, nil, true, 200, 2 * defaultMemoryRequest},
		{"explicit zero is not missing", []model.ResourceList{resources("cpu", "0", "memory", "0")}, nil, true, 0, 0},
		{"defaults apply per resource", []model.ResourceList{resources("cpu", "250m")}, nil, true, 250, defaultMemoryRequest},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pod := &model.Pod{}
			for _, r := range tt.containers {
				pod.Spec.Containers = append(pod.Spec.Containers, model.Container{Resources: model.ResourceRequirements{Requests: r}})
			}
			for _, r := range tt.initContainers {
				pod.Spec.InitContainers = append(pod.Spec.InitContainers, model.Container{Resources: model.ResourceRequirements{Requests: r}})
			}
			got := PodRequests(pod, tt.nonMissing)
			assert.Equal(t, tt.wantCPU, got.MilliCPU, "cpu")
			assert.Equal(t, tt.wantMem, got.Memory, "memory")
		})
	}
}

// TestPodRequestsWithSidecars: a restartable init container's requests add to the app
// containers' (aggregateContainerResourcesByFn), and the scoring defaults apply to it as to any
// container (applyNonMissing runs for init containers too).
func TestPodRequestsWithSidecars(t *testing.T) {
	sidecar := model.Container{RestartPolicy: model.Ptr(model.ContainerRestartPolicyAlways), Resources: model.ResourceRequirements{Requests: resources("cpu", "500m")}}
	pod := &model.Pod{}
	pod.Spec.InitContainers = []model.Container{sidecar, {Resources: model.ResourceRequirements{Requests: resources("cpu", "2")}}}
	pod.Spec.Containers = []model.Container{{Resources: model.ResourceRequirements{Requests: resources("cpu", "1", "memory", "1Gi")}}}
	got := PodRequests(pod, false)
	assert.Equal(t, int64(2500), got.MilliCPU, "the init container runs beside the sidecar: 2 + 0.5 > 1 + 0.5")
	assert.Equal(t, int64(1<<30), got.Memory)
	got = PodRequests(pod, true)
	assert.Equal(t, int64(1<<30)+defaultMemoryRequest, got.Memory, "the sidecar's missing memory request counts the default")
}

func TestFilterNodeResourcesFit(t *testing.T) {
	tests := []struct {
		name        string
		allocCPU    string
		allocMem    string
		allocPods   int
		existing    []*model.Pod
		pod         *model.Pod
		wantReasons []string
	}{
		{"fits", "4", "8Gi", 110, []*model.Pod{testPod("a", "cpu", "3")}, testPod("p", "cpu", "1", "memory", "1Gi"), nil},
		{"cpu exactly full is still a fit", "4", "8Gi", 110, []*model.Pod{testPod("a", "cpu", "3")}, testPod("p", "cpu", "1"), nil},
		{"insufficient cpu", "4", "8Gi", 110, []*model.Pod{testPod("a", "cpu", "3500m")}, testPod("p", "cpu", "1"), []string{"Insufficient cpu"}},
		{"insufficient cpu and memory", "1", "1Gi", 110, nil, testPod("p", "cpu", "2", "memory", "2Gi"), []string{"Insufficient cpu", "Insufficient memory"}},
		{"pods count first", "4", "8Gi", 1, []*model.Pod{testPod("a", "cpu", "4")}, testPod("p", "cpu", "1"), []string{ErrReasonTooManyPods, "Insufficient cpu"}},
		{"a pod without requests only needs a pod slot", "1", "1Gi", 1, []*model.Pod{testPod("a", "cpu", "1", "memory", "1Gi")}, testPod("p"), []string{ErrReasonTooManyPods}},
		{"a pod without requests fits a full node", "1", "1Gi", 110, []*model.Pod{testPod("a", "cpu", "1", "memory", "1Gi")}, testPod("p"), nil},
		{"init container counted", "2", "8Gi", 110, nil, func() *model.Pod {
			p := testPod("p", "cpu", "500m")
			p.Spec.InitContainers = []model.Container{{Resources: model.ResourceRequirements{Requests: resources("cpu", "3")}}}
			return p
		}(), []string{"Insufficient cpu"}},
		{"extended resource", "4", "8Gi", 110, nil, testPod("p", "cpu", "1", "example.com/gpu", "1"), []string{"Insufficient example.com/gpu"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ni := nodeInfoWith(testNode("n1", tt.allocCPU, tt.allocMem, tt.allocPods), tt.existing...)
			st := filterNodeResourcesFit(newCycleState(tt.pod), ni)
			if tt.wantReasons == nil {
				assert.True(t, st.IsSuccess(), "reasons %v", st.Reasons())
				return
			}
			require.False(t, st.IsSuccess())
			assert.Equal(t, Unschedulable, st.Code(), "resource misfits are resolvable by preemption")
			assert.Equal(t, tt.wantReasons, st.Reasons())
		})
	}
}

func TestFilterNodeAffinity(t *testing.T) {
	node := testNode("n1", "4", "8Gi", 110)
	node.Labels = map[string]string{"zone": "a", "disk": "ssd", "cores": "16"}
	req := func(key, op string, values ...string) model.NodeSelectorRequirement {
		return model.NodeSelectorRequirement{Key: key, Operator: op, Values: values}
	}
	term := func(rs ...model.NodeSelectorRequirement) model.NodeSelectorTerm {
		return model.NodeSelectorTerm{MatchExpressions: rs}
	}
	tests := []struct {
		name         string
		nodeSelector map[string]string
		terms        []model.NodeSelectorTerm // nil: no required affinity
		emptyReq     bool                     // required affinity set with no terms
		want         bool
	}{
		{"nothing required", nil, nil, false, true},
		{"nodeSelector matches", map[string]string{"zone": "a"}, nil, false, true},
		{"nodeSelector mismatch", map[string]string{"zone": "b"}, nil, false, false},
		{"In", nil, []model.NodeSelectorTerm{term(req("zone", "In", "a", "b"))}, false, true},
		{"In mismatch", nil, []model.NodeSelectorTerm{term(req("zone", "In", "b", "c"))}, false, false},
		{"NotIn", nil, []model.NodeSelectorTerm{term(req("zone", "NotIn", "b"))}, false, true},
		{"NotIn of a missing key", nil, []model.NodeSelectorTerm{term(req("gpu", "NotIn", "x"))}, false, true},
		{"NotIn mismatch", nil, []model.NodeSelectorTerm{term(req("zone", "NotIn", "a"))}, false, false},
		{"Exists", nil, []model.NodeSelectorTerm{term(req("disk", "Exists"))}, false, true},
		{"Exists mismatch", nil, []model.NodeSelectorTerm{term(req("gpu", "Exists"))}, false, false},
		{"DoesNotExist", nil, []model.NodeSelectorTerm{term(req("gpu", "DoesNotExist"))}, false, true},
		{"DoesNotExist mismatch", nil, []model.NodeSelectorTerm{term(req("disk", "DoesNotExist"))}, false, false},
		{"Gt", nil, []model.NodeSelectorTerm{term(req("cores", "Gt", "8"))}, false, true},
		{"Gt equal is false", nil, []model.NodeSelectorTerm{term(req("cores", "Gt", "16"))}, false, false},
		{"Lt", nil, []model.NodeSelectorTerm{term(req("cores", "Lt", "32"))}, false, true},
		{"Lt mismatch", nil, []model.NodeSelectorTerm{term(req("cores", "Lt", "4"))}, false, false},
		{"Gt on a non-integer label", nil, []model.NodeSelectorTerm{term(req("zone", "Gt", "1"))}, false, false},
		{"Gt with a non-integer value does not parse", nil, []model.NodeSelectorTerm{term(req("cores", "Gt", "many"))}, false, false},
		{"In without values does not parse", nil, []model.NodeSelectorTerm{term(req("zone", "In"))}, false, false},
		{"unknown operator does not parse", nil, []model.NodeSelectorTerm{term(req("zone", "Like", "a"))}, false, false},
		{"requirements in a term are ANDed", nil, []model.NodeSelectorTerm{term(req("zone", "In", "a"), req("disk", "In", "hdd"))}, false, false},
		{"terms are ORed", nil, []model.NodeSelectorTerm{term(req("zone", "In", "b")), term(req("disk", "In", "ssd"))}, false, true},
		{"a bad term does not spoil a good one", nil, []model.NodeSelectorTerm{term(req("zone", "In")), term(req("zone", "In", "a"))}, false, true},
		{"an empty term selects nothing", nil, []model.NodeSelectorTerm{{}}, false, false},
		{"required affinity without terms selects nothing", nil, nil, true, false},
		{"nodeSelector and affinity are ANDed", map[string]string{"zone": "b"}, []model.NodeSelectorTerm{term(req("zone", "In", "a"))}, false, false},
		{"matchFields metadata.name In", nil, []model.NodeSelectorTerm{{MatchFields: []model.NodeSelectorRequirement{req("metadata.name", "In", "n1")}}}, false, true},
		{"matchFields metadata.name NotIn", nil, []model.NodeSelectorTerm{{MatchFields: []model.NodeSelectorRequirement{req("metadata.name", "NotIn", "n1")}}}, false, false},
		{"matchFields other key does not parse", nil, []model.NodeSelectorTerm{{MatchFields: []model.NodeSelectorRequirement{req("metadata.uid", "In", "x")}}}, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pod := testPod("p")
			pod.Spec.NodeSelector = tt.nodeSelector
			if tt.terms != nil || tt.emptyReq {
				pod.Spec.Affinity = &model.Affinity{NodeAffinity: &model.NodeAffinity{
					RequiredDuringSchedulingIgnoredDuringExecution: &model.NodeSelector{NodeSelectorTerms: tt.terms},
				}}
			}
			st := filterNodeAffinity(newCycleState(pod), nodeInfoWith(node))
			assert.Equal(t, tt.want, st.IsSuccess())
			if !tt.want {
				assert.Equal(t, []string{ErrReasonAffinity}, st.Reasons())
				assert.Equal(t, UnschedulableAndUnresolvable, st.Code())
			}
		})
	}
}

func TestRunFilterPluginsOrder(t *testing.T) {
	// A cordoned, tainted, too small node is reported by the first plugin in profile order.
	node := testNode("n1", "1", "1Gi", 110)
	node.Spec.Unschedulable = true
	node.Spec.Taints = []model.Taint{{Key: "k", Effect: model.TaintEffectNoSchedule}}
	pod := testPod("p", "cpu", "2")
	st := runFilterPlugins(newCycleState(pod), nodeInfoWith(node))
	assert.Equal(t, PluginNodeUnschedulable, st.Plugin())

	node.Spec.Unschedulable = false
	st = runFilterPlugins(newCycleState(pod), nodeInfoWith(node))
	assert.Equal(t, PluginTaintToleration, st.Plugin())

	node.Spec.Taints = nil
	st = runFilterPlugins(newCycleState(pod), nodeInfoWith(node))
	assert.Equal(t, PluginNodeResourcesFit, st.Plugin())
	assert.Equal(t, []string{"Insufficient cpu"}, st.Reasons())
}
