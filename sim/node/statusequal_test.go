package node

import (
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/reconsim/reconsim/internal/testsupport"
	"github.com/reconsim/reconsim/model"
)

// deepEqualStatus is the reference statusEqual is held to: reflect.DeepEqual with nil and
// empty top-level slices alike.
func deepEqualStatus(a, b *model.PodStatus) bool {
	norm := func(s *model.PodStatus) model.PodStatus {
		c := *s
		if len(c.Conditions) == 0 {
			c.Conditions = nil
		}
		if len(c.ContainerStatuses) == 0 {
			c.ContainerStatuses = nil
		}
		if len(c.InitContainerStatuses) == 0 {
			c.InitContainerStatuses = nil
		}
		return c
	}
	return reflect.DeepEqual(norm(a), norm(b))
}

// fillSmall sets v, recursively, to random values from a tiny domain, so that equal values
// are common: every pointer may be nil, every slice nil, empty or short.
func fillSmall(r *rand.Rand, v reflect.Value) {
	switch v.Kind() {
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			fillSmall(r, v.Field(i))
		}
	case reflect.Pointer:
		if r.IntN(3) == 0 {
			v.SetZero()
			return
		}
		v.Set(reflect.New(v.Type().Elem()))
		fillSmall(r, v.Elem())
	case reflect.Slice:
		switch n := r.IntN(4); n {
		case 0:
			v.SetZero()
		default:
			v.Set(reflect.MakeSlice(v.Type(), n-1, n-1))
			for i := 0; i < v.Len(); i++ {
				fillSmall(r, v.Index(i))
			}
		}
	case reflect.String:
		v.SetString([]string{"", "a", "b"}[r.IntN(3)])
	case reflect.Bool:
		v.SetBool(r.IntN(2) == 0)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(int64(r.IntN(3)))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(uint64(r.IntN(3)))
	default:
		panic("fillSmall: add a case for " + v.Kind().String())
	}
}

// leaves returns every settable place inside v (fields, pointers and slices themselves, and
// what they hold), so that a test can change any one of them.
func leaves(v reflect.Value) []reflect.Value {
	var out []reflect.Value
	switch v.Kind() {
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			out = append(out, leaves(v.Field(i))...)
		}
		return out
	case reflect.Pointer:
		out = append(out, v)
		if !v.IsNil() {
			out = append(out, leaves(v.Elem())...)
		}
		return out
	case reflect.Slice:
		out = append(out, v)
		for i := 0; i < v.Len(); i++ {
			out = append(out, leaves(v.Index(i))...)
		}
		return out
	}
	return []reflect.Value{v}
}

// TestStatusEqualMatchesDeepEqual is a property test: for random statuses and copies of them
// with up to two places changed (anywhere in the types, found by reflection, so a field added
// later is covered too), statusEqual agrees with reflect.DeepEqual.
func TestStatusEqualMatchesDeepEqual(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var outcomes testsupport.Outcomes
	for i := 0; i < 20000; i++ {
		var a model.PodStatus
		fillSmall(r, reflect.ValueOf(&a).Elem())
		var b model.PodStatus
		a.DeepCopyInto(&b)
		for n := r.IntN(3); n > 0; n-- {
			places := leaves(reflect.ValueOf(&b).Elem())
			fillSmall(r, places[r.IntN(len(places))])
		}
		want := deepEqualStatus(&a, &b)
		require.Equal(t, want, statusEqual(&a, &b), "statusEqual(%+v, %+v)", a, b)
		require.Equal(t, want, statusEqual(&b, &a), "statusEqual(%+v, %+v)", b, a)
		outcomes.Count(want)
	}
	outcomes.RequireBoth(t, 1001, "equal pairs", 1001, "unequal pairs")
}

// TestMergedStatusUnchangedIsMergeThenCompare is a property test: for random API and kubelet
// statuses, with condition types both the kubelet's and others', and API statuses that are a
// merge's result with up to two places changed, mergedStatusUnchanged answers what merging
// and comparing answers.
func TestMergedStatusUnchangedIsMergeThenCompare(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	types := []string{model.PodScheduled, model.PodReady, model.PodInitialized, model.PodContainersReady, "DisruptionTarget", "a"}
	randomStatus := func() model.PodStatus {
		var s model.PodStatus
		fillSmall(r, reflect.ValueOf(&s).Elem())
		for n := r.IntN(4); n > 0; n-- {
			var c model.PodCondition
			fillSmall(r, reflect.ValueOf(&c).Elem())
			s.Conditions = append(s.Conditions, c)
		}
		for i := range s.Conditions {
			s.Conditions[i].Type = types[r.IntN(len(types))]
		}
		return s
	}
	var outcomes testsupport.Outcomes
	for i := 0; i < 20000; i++ {
		kubelet, api := randomStatus(), randomStatus()
		if r.IntN(4) != 0 {
			merged := mergePodStatus(&api, &kubelet)
			merged.DeepCopyInto(&api)
			for n := r.IntN(3); n > 0; n-- {
				places := leaves(reflect.ValueOf(&api).Elem())
				fillSmall(r, places[r.IntN(len(places))])
			}
			if r.IntN(3) == 0 {
				// A condition more, of any type, anywhere (fillSmall's types are neither).
				c := model.PodCondition{Type: types[r.IntN(len(types))]}
				at := r.IntN(len(api.Conditions) + 1)
				api.Conditions = slices.Insert(slices.Clone(api.Conditions), at, c)
			}
		}
		merged := mergePodStatus(&api, &kubelet)
		want := statusEqual(&merged, &api)
		require.Equal(t, want, mergedStatusUnchanged(&api, &kubelet), "api %+v, kubelet %+v", api, kubelet)
		outcomes.Count(want)
	}
	outcomes.RequireBoth(t, 1001, "pairs a write would not change", 1001, "pairs a write would change")
}

// copyingMerge is mergePodStatus as it was before it shared the kubelet's lists: every list
// the merged status has is its own.
func copyingMerge(apiStatus, kubeletStatus *model.PodStatus) model.PodStatus {
	merged := *kubeletStatus
	merged.Conditions = []model.PodCondition{}
	for _, c := range apiStatus.Conditions {
		if !isKubeletCondition(c.Type) {
			merged.Conditions = append(merged.Conditions, c)
		}
	}
	for _, c := range kubeletStatus.Conditions {
		if isKubeletCondition(c.Type) {
			merged.Conditions = append(merged.Conditions, c)
		}
	}
	merged.NominatedNodeName = apiStatus.NominatedNodeName
	merged.ContainerStatuses = append([]model.ContainerStatus(nil), kubeletStatus.ContainerStatuses...)
	if kubeletStatus.InitContainerStatuses != nil {
		merged.InitContainerStatuses = append([]model.ContainerStatus(nil), kubeletStatus.InitContainerStatuses...)
	}
	return merged
}

// TestMergePodStatusIsCopyingMerge is a property test: for random API and kubelet statuses
// (condition types the kubelet's and others', lists nil, empty or not), mergePodStatus's
// result is reflect.DeepEqual to the copying merge's, nil and empty lists told apart as the
// stored pod's JSON tells them apart, and a list it shares with the kubelet's status is the
// kubelet's whole list.
func TestMergePodStatusIsCopyingMerge(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	types := []string{model.PodScheduled, model.PodReady, model.PodInitialized, model.PodContainersReady, model.PodReadyToStartContainers, "DisruptionTarget"}
	conditions := func(kubeletOnly bool) []model.PodCondition {
		var cs []model.PodCondition
		switch r.IntN(5) {
		case 0:
			return nil
		case 1:
			return []model.PodCondition{}
		}
		for n := 1 + r.IntN(5); n > 0; n-- {
			var c model.PodCondition
			fillSmall(r, reflect.ValueOf(&c).Elem())
			c.Type = types[r.IntN(len(types))]
			if kubeletOnly && !isKubeletCondition(c.Type) {
				c.Type = model.PodReady
			}
			cs = append(cs, c)
		}
		return cs
	}
	containers := func() []model.ContainerStatus {
		switch r.IntN(3) {
		case 0:
			return nil
		case 1:
			return []model.ContainerStatus{}
		}
		cs := make([]model.ContainerStatus, 1+r.IntN(3))
		for i := range cs {
			fillSmall(r, reflect.ValueOf(&cs[i]).Elem())
		}
		return cs
	}
	var outcomes testsupport.Outcomes
	for i := 0; i < 20000; i++ {
		var api, kubelet model.PodStatus
		fillSmall(r, reflect.ValueOf(&api).Elem())
		fillSmall(r, reflect.ValueOf(&kubelet).Elem())
		api.Conditions = conditions(r.IntN(2) == 0)
		kubelet.Conditions = conditions(r.IntN(2) == 0)
		kubelet.ContainerStatuses, kubelet.InitContainerStatuses = containers(), containers()
		merged := mergePodStatus(&api, &kubelet)
		want := copyingMerge(&api, &kubelet)
		require.True(t, reflect.DeepEqual(want, merged), "api %+v, kubelet %+v:\n%+v\n%+v", api, kubelet, want, merged)
		shared := len(merged.Conditions) > 0 && len(kubelet.Conditions) > 0 && &merged.Conditions[0] == &kubelet.Conditions[0]
		if shared {
			require.Equal(t, len(kubelet.Conditions), len(merged.Conditions), "a shared list is the kubelet's whole list")
		}
		outcomes.Count(shared)
	}
	outcomes.RequireBoth(t, 1001, "merges sharing the kubelet's conditions", 1001, "merges with a list of their own")
}

func TestDescribeStatus(t *testing.T) {
	started := true
	cases := []struct {
		name   string
		status model.PodStatus
		want   string
	}{
		{"empty", model.PodStatus{}, "phase= ready=false"},
		{"running and ready", model.PodStatus{
			Phase:      model.PodRunning,
			Conditions: []model.PodCondition{{Type: model.PodReady, Status: model.ConditionTrue}},
			ContainerStatuses: []model.ContainerStatus{{
				Name: "app", Ready: true, Started: &started, RestartCount: 3,
				State: model.ContainerState{Running: &model.ContainerStateRunning{StartedAt: 5}},
			}},
		}, "phase=Running ready=true app=running/r3/ready"},
		{"every state", model.PodStatus{
			Phase: model.PodFailed,
			ContainerStatuses: []model.ContainerStatus{
				{Name: "a", State: model.ContainerState{Waiting: &model.ContainerStateWaiting{Reason: reasonCrashLoopBackOff}}},
				{Name: "b", RestartCount: 12, State: model.ContainerState{Terminated: &model.ContainerStateTerminated{Reason: reasonError, ExitCode: -137}}},
				{Name: "c"},
			},
		}, "phase=Failed ready=false a=waiting:CrashLoopBackOff/r0 b=terminated:Error(-137)/r12 c=unknown/r0"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, describeStatus(&tc.status))
		})
	}
}
