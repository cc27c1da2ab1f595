package apiserver

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/reconsim/reconsim/model"
)

func admissionStore(t *testing.T) *Store {
	_, s := newTestStore(t, func(c *StoreConfig) { c.TaintNodesByCondition, c.Priority = true, true })
	return s
}

// TestTaintNodesByCondition follows plugin/pkg/admission/nodetaint/admission.go (Admit,
// addNotReadyTaint): a created Node gets node.kubernetes.io/not-ready:NoSchedule unless it has
// a taint with that key and effect; updates are not admitted; CreateRunningNode skips it.
func TestTaintNodesByCondition(t *testing.T) {
	notReady := model.Taint{Key: model.TaintNodeNotReady, Effect: model.TaintEffectNoSchedule}
	tests := []struct {
		name   string
		taints []model.Taint
		want   []model.Taint
	}{
		{"added to a node without taints", nil, []model.Taint{notReady}},
		{"appended after the node's own", []model.Taint{{Key: "gpu", Effect: model.TaintEffectNoSchedule}}, []model.Taint{{Key: "gpu", Effect: model.TaintEffectNoSchedule}, notReady}},
		{"not doubled", []model.Taint{notReady}, []model.Taint{notReady}},
		{"the NoExecute taint of the same key is another taint", []model.Taint{{Key: model.TaintNodeNotReady, Effect: model.TaintEffectNoExecute}},
			[]model.Taint{{Key: model.TaintNodeNotReady, Effect: model.TaintEffectNoExecute}, notReady}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := admissionStore(t)
			obj, err := s.Create(&model.Node{ObjectMeta: model.ObjectMeta{Name: "n1"}, Spec: model.NodeSpec{Taints: tt.taints}})
			require.NoError(t, err)
			assert.Equal(t, tt.want, obj.(*model.Node).Spec.Taints)
		})
	}
	t.Run("not on update", func(t *testing.T) {
		s := admissionStore(t)
		obj, err := s.Create(&model.Node{ObjectMeta: model.ObjectMeta{Name: "n1"}})
		require.NoError(t, err)
		n := obj.(*model.Node).DeepCopy()
		n.Spec.Taints = nil
		obj, err = s.Update(n)
		require.NoError(t, err)
		assert.Empty(t, obj.(*model.Node).Spec.Taints, "the node lifecycle controller may remove it")
	})
	t.Run("a node of a running cluster", func(t *testing.T) {
		s := admissionStore(t)
		obj, err := s.CreateRunningNode(&model.Node{ObjectMeta: model.ObjectMeta{Name: "n1"}})
		require.NoError(t, err)
		assert.Empty(t, obj.(*model.Node).Spec.Taints)
		obj, err = s.Create(&model.Node{ObjectMeta: model.ObjectMeta{Name: "n2"}})
		require.NoError(t, err)
		assert.Len(t, obj.(*model.Node).Spec.Taints, 1, "only that one create skips the plugin")
	})
	t.Run("off", func(t *testing.T) {
		_, s := newTestStore(t, nil)
		obj, err := s.Create(&model.Node{ObjectMeta: model.ObjectMeta{Name: "n1"}})
		require.NoError(t, err)
		assert.Empty(t, obj.(*model.Node).Spec.Taints)
	})
}

// TestPriorityAdmission follows plugin/pkg/admission/priority/admission.go admitPod and
// validatePriorityClass, and pkg/apis/scheduling/validation ValidatePriorityClass.
func TestPriorityAdmission(t *testing.T) {
	class := func(name string, value int32, def bool, policy string) *model.PriorityClass {
		pc := &model.PriorityClass{ObjectMeta: model.ObjectMeta{Name: name}, Value: value, GlobalDefault: def}
		if policy != "" {
			pc.PreemptionPolicy = model.Ptr(policy)
		}
		return pc
	}
	pod := func(class string, priority *int32, policy string) *model.Pod {
		p := newPod("p")
		p.Spec.PriorityClassName = class
		p.Spec.Priority = priority
		if policy != "" {
			p.Spec.PreemptionPolicy = model.Ptr(policy)
		}
		return p
	}
	tests := []struct {
		name       string
		classes    []*model.PriorityClass
		pod        *model.Pod
		wantErr    string // a Forbidden message
		wantClass  string
		wantValue  int32
		wantPolicy string
	}{
		{"no class, no default: 0 and PreemptLowerPriority", nil, pod("", nil, ""), "", "", 0, model.PreemptLowerPriority},
		{"no class: the global default, named on the pod", []*model.PriorityClass{class("low", 10, true, model.PreemptNever), class("high", 1000, false, "")},
			pod("", nil, ""), "", "low", 10, model.PreemptNever},
		{"a named class", []*model.PriorityClass{class("high", 1000, false, "")}, pod("high", nil, ""), "", "high", 1000, model.PreemptLowerPriority},
		{"a system class always exists", nil, pod(model.SystemNodeCritical, nil, ""), "", model.SystemNodeCritical, 2000001000, model.PreemptLowerPriority},
		{"system-cluster-critical", nil, pod(model.SystemClusterCritical, nil, ""), "", model.SystemClusterCritical, 2000000000, model.PreemptLowerPriority},
		{"an unknown class is Forbidden", nil, pod("gold", nil, ""), "no PriorityClass with name gold was found", "", 0, ""},
		{"a priority that matches the class is accepted", []*model.PriorityClass{class("high", 1000, false, "")}, pod("high", model.Ptr(int32(1000)), ""), "", "high", 1000, model.PreemptLowerPriority},
		{"a priority of its own is Forbidden", nil, pod("", model.Ptr(int32(7)), ""),
			"the integer value of priority (7) must not be provided in pod spec; priority admission controller computed 0 from the given PriorityClass name", "", 0, ""},
		{"a policy of its own is Forbidden", nil, pod("", nil, model.PreemptNever),
			"the string value of PreemptionPolicy (Never) must not be provided in pod spec; priority admission controller computed PreemptLowerPriority from the given PriorityClass name", "", 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := admissionStore(t)
			for _, pc := range tt.classes {
				_, err := s.Create(pc)
				require.NoError(t, err)
			}
			obj, err := s.Create(tt.pod)
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.True(t, apierrors.IsForbidden(err), "%v", err)
				assert.Contains(t, err.Error(), tt.wantErr)
				return
			}
			require.NoError(t, err)
			p := obj.(*model.Pod)
			assert.Equal(t, tt.wantClass, p.Spec.PriorityClassName)
			require.NotNil(t, p.Spec.Priority)
			assert.Equal(t, tt.wantValue, *p.Spec.Priority)
			require.NotNil(t, p.Spec.PreemptionPolicy)
			assert.Equal(t, tt.wantPolicy, *p.Spec.PreemptionPolicy)
		})
	}

	t.Run("one global default", func(t *testing.T) {
		s := admissionStore(t)
		_, err := s.Create(class("a", 1, true, ""))
		require.NoError(t, err)
		_, err = s.Create(class("b", 2, true, ""))
		require.Error(t, err)
		assert.True(t, apierrors.IsForbidden(err))
		assert.Contains(t, err.Error(), "PriorityClass a is already marked as default. Only one default can exist")
		obj, err := s.Get(model.KindPriorityClass, "", "a")
		require.NoError(t, err)
		again := obj.(*model.PriorityClass).DeepCopy()
		again.Description = "still the default"
		_, err = s.Update(again)
		assert.NoError(t, err, "the default itself may be updated")
	})
	t.Run("the priority is kept on update", func(t *testing.T) {
		s := admissionStore(t)
		obj, err := s.Create(pod("", nil, ""))
		require.NoError(t, err)
		p := obj.(*model.Pod).DeepCopy()
		p.Spec.Priority, p.Spec.PreemptionPolicy = nil, nil
		obj, err = s.Update(p)
		require.NoError(t, err)
		assert.Equal(t, int32(0), *obj.(*model.Pod).Spec.Priority)
	})
	t.Run("validation", func(t *testing.T) {
		for _, tc := range []struct {
			pc   *model.PriorityClass
			want string
		}{
			{class("huge", 1_000_000_001, false, ""), "value: Forbidden: maximum allowed value of a user defined priority is 1000000000"},
			{class("system-mine", 5, false, ""), "metadata.name: Forbidden: priority class names with 'system-' prefix are reserved for system use only. error: system-mine is not a known system priority class"},
			{class(model.SystemNodeCritical, 5, false, ""), "value of system-node-critical PriorityClass must be 2000001000"},
			{class("x", 5, false, "Sometimes"), `preemptionPolicy: Unsupported value: "Sometimes": supported values: "PreemptLowerPriority", "Never"`},
		} {
			_, err := admissionStore(t).Create(tc.pc)
			if assert.Error(t, err, tc.pc.Name) {
				assert.True(t, apierrors.IsInvalid(err))
				assert.Contains(t, err.Error(), tc.want)
			}
		}
		s := admissionStore(t)
		obj, err := s.Create(class("v", 5, false, ""))
		require.NoError(t, err)
		pc := obj.(*model.PriorityClass).DeepCopy()
		pc.Value = 6
		_, err = s.Update(pc)
		if assert.Error(t, err) {
			assert.Contains(t, err.Error(), "value: Forbidden: may not be changed in an update.")
		}
	})
}

// TestAdmittedPodsShareTheirPriority: pods given the same priority and preemption policy share
// the values, and a pod given others gets its own, in any order of classes.
func TestAdmittedPodsShareTheirPriority(t *testing.T) {
	s := admissionStore(t)
	_, err := s.Create(&model.PriorityClass{ObjectMeta: model.ObjectMeta{Name: "never"}, Value: 5, PreemptionPolicy: model.Ptr(model.PreemptNever)})
	require.NoError(t, err)
	_, err = s.Create(&model.PriorityClass{ObjectMeta: model.ObjectMeta{Name: "high"}, Value: 1000})
	require.NoError(t, err)
	want := map[string]struct {
		value  int32
		policy string
	}{"": {0, model.PreemptLowerPriority}, "never": {5, model.PreemptNever}, "high": {1000, model.PreemptLowerPriority}}
	var last *model.Pod
	for i, class := range []string{"", "", "never", "never", "high", "", "high", "high", "never"} {
		p := newPod(fmt.Sprintf("p%d", i))
		p.Spec.PriorityClassName = class
		obj, err := s.Create(p)
		require.NoError(t, err)
		got := obj.(*model.Pod)
		w := want[class]
		assert.Equal(t, w.value, *got.Spec.Priority, "pod %d of class %q", i, class)
		assert.Equal(t, w.policy, *got.Spec.PreemptionPolicy, "pod %d of class %q", i, class)
		if last != nil && *last.Spec.Priority == w.value {
			assert.Same(t, last.Spec.Priority, got.Spec.Priority, "pod %d shares the last pod's priority", i)
		}
		if last != nil && *last.Spec.PreemptionPolicy == w.policy {
			assert.Same(t, last.Spec.PreemptionPolicy, got.Spec.PreemptionPolicy, "pod %d shares the last pod's policy", i)
		}
		last = got
	}
}
