package model

import (
	"maps"
	"reflect"

	"k8s.io/utils/ptr"
)

// sameMemory reports whether a and b, two values of one type, are the same data: equal
// scalars, and slices, maps and pointers that point at the same memory (slices with the same
// length too). Two such values have the same content, so any check of one gives the other's
// result. It answers false for anything else, floats and interfaces included, so false only
// means "not known to be the same".
func sameMemory(a, b reflect.Value) bool {
	switch a.Kind() {
	case reflect.Bool:
		return a.Bool() == b.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return a.Int() == b.Int()
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return a.Uint() == b.Uint()
	case reflect.String:
		return a.String() == b.String()
	case reflect.Pointer, reflect.Map:
		return a.Pointer() == b.Pointer()
	case reflect.Slice:
		return a.Pointer() == b.Pointer() && a.Len() == b.Len()
	case reflect.Struct:
		for i := range a.NumField() {
			if !sameMemory(a.Field(i), b.Field(i)) {
				return false
			}
		}
		return true
	case reflect.Array:
		for i := range a.Len() {
			if !sameMemory(a.Index(i), b.Index(i)) {
				return false
			}
		}
		return true
	}
	return false
}

// sameValue is sameMemory for two values of one type given by pointer.
func sameValue[T any](a, b *T) bool {
	return a == b || sameMemory(reflect.ValueOf(a).Elem(), reflect.ValueOf(b).Elem())
}

// equalPodSpec reports whether a and b have the same content: every field equal, quantities
// by value (as Semantic.DeepEqual compares them), and a nil slice, map or pointer equal only
// to a nil one (finer than Semantic.DeepEqual, which also equates nil and empty). So equal
// specs are equal under Semantic.DeepEqual, and every check of a spec gives both the same
// result. Fields that are the same memory are not walked.
func equalPodSpec(a, b *PodSpec) bool {
	if a == b {
		return true
	}
	return a.RestartPolicy == b.RestartPolicy && a.NodeName == b.NodeName && a.Hostname == b.Hostname &&
		a.SchedulerName == b.SchedulerName && a.PriorityClassName == b.PriorityClassName &&
		ptr.Equal(a.TerminationGracePeriodSeconds, b.TerminationGracePeriodSeconds) &&
		ptr.Equal(a.Priority, b.Priority) && ptr.Equal(a.PreemptionPolicy, b.PreemptionPolicy) &&
		equalStringMap(a.NodeSelector, b.NodeSelector) &&
		equalSlice(a.Containers, b.Containers, equalContainer) &&
		equalSlice(a.InitContainers, b.InitContainers, equalContainer) &&
		equalSlice(a.Tolerations, b.Tolerations, TolerationEqual) &&
		equalAffinity(a.Affinity, b.Affinity) &&
		equalRare(a.TopologySpreadConstraints, b.TopologySpreadConstraints)
}

// equalPodSpecButNodeName is equalPodSpec with spec.nodeName left out.
func equalPodSpecButNodeName(a, b *PodSpec) bool {
	if a.NodeName == b.NodeName {
		return equalPodSpec(a, b)
	}
	c := *a
	c.NodeName = b.NodeName
	return equalPodSpec(&c, b)
}

// SameSlice reports whether a and b are the same slice: the same length and, unless empty,
// the same backing array, so that what is true of one is true of the other. Stored objects
// never change and a shallow copy hands its slices over, so a new version that kept a slice
// of the one it replaces needs none of its elements read again. Holding b keeps its array
// alive, so an equal address is never a new slice at a reused address.
func SameSlice[T any](a, b []T) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// equalSlice reports whether a and b are both nil, or both non-nil with equal elements.
func equalSlice[T any](a, b []T, eq func(a, b *T) bool) bool {
	if (a == nil) != (b == nil) || len(a) != len(b) {
		return false
	}
	if SameSlice(a, b) {
		return true
	}
	for i := range a {
		if !eq(&a[i], &b[i]) {
			return false
		}
	}
	return true
}

// equalStringMap reports whether a and b are both nil, or both non-nil with the same entries.
func equalStringMap(a, b map[string]string) bool {
	return (a == nil) == (b == nil) && maps.Equal(a, b)
}

// equalResourceList reports whether a and b are both nil, or both non-nil and
// ResourceListsEqual.
func equalResourceList(a, b ResourceList) bool {
	return (a == nil) == (b == nil) && ResourceListsEqual(a, b)
}

// ResourceListsEqual reports whether a and b hold the same names with quantities of the same
// value (Quantity.Cmp, so 1 and 1000m are equal); nil and empty are equal.
func ResourceListsEqual(a, b ResourceList) bool {
	if len(a) != len(b) {
		return false
	}
	for name, qa := range a { //detlint:ordered an all-entries check; order cannot matter
		qb, ok := b[name]
		if !ok || qa.Cmp(qb) != 0 {
			return false
		}
	}
	return true
}

func equalContainer(a, b *Container) bool {
	return a.Name == b.Name && a.Image == b.Image &&
		equalResourceList(a.Resources.Requests, b.Resources.Requests) &&
		equalResourceList(a.Resources.Limits, b.Resources.Limits) &&
		ptr.Equal(a.ReadinessProbe, b.ReadinessProbe) &&
		ptr.Equal(a.LivenessProbe, b.LivenessProbe) &&
		ptr.Equal(a.StartupProbe, b.StartupProbe) &&
		ptr.Equal(a.RestartPolicy, b.RestartPolicy) &&
		equalSlice(a.Env, b.Env, func(x, y *EnvVar) bool { return *x == *y })
}

func equalAffinity(a, b *Affinity) bool {
	if a == nil || b == nil {
		return a == b
	}
	return equalNodeAffinity(a.NodeAffinity, b.NodeAffinity) &&
		equalRare(a.PodAffinity, b.PodAffinity) && equalRare(a.PodAntiAffinity, b.PodAntiAffinity)
}

// equalRare compares values that few objects carry (inter-pod affinity, topology spread
// constraints): both nil or empty is the common case and costs no reflection.
func equalRare[T any](a, b T) bool {
	return reflect.DeepEqual(a, b)
}

func equalNodeAffinity(na, nb *NodeAffinity) bool {
	if na == nil || nb == nil {
		return na == nb
	}
	ra, rb := na.RequiredDuringSchedulingIgnoredDuringExecution, nb.RequiredDuringSchedulingIgnoredDuringExecution
	if (ra == nil) != (rb == nil) || ra != nil && !equalSlice(ra.NodeSelectorTerms, rb.NodeSelectorTerms, equalNodeSelectorTerm) {
		return false
	}
	return equalSlice(na.PreferredDuringSchedulingIgnoredDuringExecution, nb.PreferredDuringSchedulingIgnoredDuringExecution,
		func(pa, pb *PreferredSchedulingTerm) bool {
			return pa.Weight == pb.Weight && equalNodeSelectorTerm(&pa.Preference, &pb.Preference)
		})
}

func equalNodeSelectorTerm(a, b *NodeSelectorTerm) bool {
	return equalSlice(a.MatchExpressions, b.MatchExpressions, equalNodeSelectorRequirement) &&
		equalSlice(a.MatchFields, b.MatchFields, equalNodeSelectorRequirement)
}

func equalNodeSelectorRequirement(a, b *NodeSelectorRequirement) bool {
	return a.Key == b.Key && a.Operator == b.Operator &&
		equalSlice(a.Values, b.Values, func(x, y *string) bool { return *x == *y })
}
