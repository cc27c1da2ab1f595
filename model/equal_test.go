package model

import (
	"maps"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
)

// mutateNth makes the n-th of the single changes it can make to v (counted in walk order) and
// reports whether there was an n-th: every leaf changes value (quantities by 7), and every
// pointer, slice and map becomes nil. *n counts down as candidates are passed.
func mutateNth(v reflect.Value, n *int) bool {
	if v.Type() == quantityReflectType {
		if *n == 0 {
			q := v.Addr().Interface().(*resource.Quantity)
			q.Add(resource.MustParse("7"))
			return true
		}
		*n--
		return false
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Map:
		if v.IsNil() {
			return false
		}
		if *n == 0 {
			v.Set(reflect.Zero(v.Type()))
			return true
		}
		*n--
	}
	switch v.Kind() {
	case reflect.Pointer:
		return mutateNth(v.Elem(), n)
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() && mutateNth(v.Field(i), n) {
				return true
			}
		}
		return false
	case reflect.Slice:
		for i := 0; i < v.Len(); i++ {
			if mutateNth(v.Index(i), n) {
				return true
			}
		}
		return false
	case reflect.Map:
		for _, k := range v.MapKeys() {
			elem := reflect.New(v.Type().Elem()).Elem()
			elem.Set(v.MapIndex(k))
			if mutateNth(elem, n) {
				v.SetMapIndex(k, elem)
				return true
			}
		}
		return false
	}
	if *n > 0 {
		*n--
		return false
	}
	if !mutateScalar(v) {
		panic("mutateNth: unhandled kind " + v.Kind().String() + " in " + v.Type().String())
	}
	return true
}

// TestEqualPodSpecSeesEveryField fills every field of a spec and checks that equalPodSpec
// finds each single change (so a field added to PodSpec without a comparison fails here), and
// that what it calls equal Semantic.DeepEqual calls equal too.
func TestEqualPodSpecSeesEveryField(t *testing.T) {
	for seed := int64(0); seed < 10; seed++ {
		orig := &PodSpec{}
		newFiller(seed).Fill(orig)
		cp := &PodSpec{}
		orig.DeepCopyInto(cp)
		require.True(t, equalPodSpec(orig, cp), "seed %d: a deep copy is equal", seed)
		require.True(t, equalPodSpec(orig, orig))
		changes := 0
		for ; ; changes++ {
			mutated := &PodSpec{}
			orig.DeepCopyInto(mutated)
			n := changes
			if !mutateNth(reflect.ValueOf(mutated).Elem(), &n) {
				break
			}
			require.False(t, equalPodSpec(orig, mutated), "seed %d: change %d not seen", seed, changes)
			require.False(t, equalPodSpec(mutated, orig), "seed %d: change %d not seen (swapped)", seed, changes)
		}
		require.Greater(t, changes, 40, "seed %d: the walk reached the fields", seed)
	}
}

func TestEqualPodSpecImpliesSemanticEqual(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	equal := 0
	for seed := int64(0); seed < 200; seed++ {
		a, b := &PodSpec{}, &PodSpec{}
		// Few elements, small values: some pairs come out equal.
		f := newFiller(seed).NumElements(0, 1).NilChance(0.5)
		f.Fill(a)
		if r.IntN(2) == 0 {
			a.DeepCopyInto(b)
		} else {
			newFiller(seed+1000).NumElements(0, 1).NilChance(0.5).Fill(b)
		}
		if equalPodSpec(a, b) {
			equal++
			assert.True(t, equality.Semantic.DeepEqual(a, b), "seed %d", seed)
		}
	}
	assert.Greater(t, equal, 50, "some pairs are equal")
	// Quantities compare by value, as Semantic.DeepEqual compares them.
	a := &PodSpec{Containers: []Container{{Name: "c", Resources: ResourceRequirements{Requests: ResourceList{"cpu": resource.MustParse("1")}}}}}
	b := &PodSpec{Containers: []Container{{Name: "c", Resources: ResourceRequirements{Requests: ResourceList{"cpu": resource.MustParse("1000m")}}}}}
	assert.True(t, equalPodSpec(a, b))
	// nil and empty differ here, though Semantic.DeepEqual equates them.
	assert.False(t, equalPodSpec(&PodSpec{Tolerations: []Toleration{}}, &PodSpec{}))
}

func TestSameMemory(t *testing.T) {
	p := validPod()
	shared := p.Spec
	cp := &PodSpec{}
	p.Spec.DeepCopyInto(cp)
	spec := reflect.ValueOf(&p.Spec).Elem()
	assert.True(t, sameMemory(spec, reflect.ValueOf(&shared).Elem()), "a struct copy shares every slice, map and pointer")
	assert.False(t, sameMemory(spec, reflect.ValueOf(cp).Elem()), "a deep copy has memory of its own")
	f1, f2 := 1.5, 1.5
	assert.False(t, sameMemory(reflect.ValueOf(f1), reflect.ValueOf(f2)), "floats are never taken as the same")
}

// TestPodSpecIsReflexive guards what pod update validation assumes when it takes fields that
// are the same memory in the old and new spec as equal without comparing them: every PodSpec
// value is equal to itself under equality.Semantic.DeepEqual. A float or interface field added
// to PodSpec fails here, and validatePodSpecUpdate and changedFields must then compare it.
func TestPodSpecIsReflexive(t *testing.T) {
	assert.True(t, reflexive(reflect.TypeFor[PodSpec]()))
	assert.False(t, reflexive(reflect.TypeFor[struct{ X []float64 }]()))
	assert.False(t, reflexive(reflect.TypeFor[map[string]any]()))
	type node struct{ Next *node }
	assert.True(t, reflexive(reflect.TypeFor[node]()))
}

// reflexive reports whether every value of t is equal to itself and to its copies under
// equality.Semantic.DeepEqual: t holds no floats (NaN), funcs, channels, interfaces or unsafe
// pointers at any depth. Only then may a check that two values are the same memory stand in
// for a DeepEqual of them.
func reflexive(t reflect.Type) bool { return reflexiveType(t, map[reflect.Type]bool{}) }

func reflexiveType(t reflect.Type, seen map[reflect.Type]bool) bool {
	if seen[t] {
		return true // a recursive type is as reflexive as the rest of it
	}
	seen[t] = true
	switch t.Kind() {
	case reflect.Bool, reflect.String,
		reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return true
	case reflect.Pointer, reflect.Slice, reflect.Array:
		return reflexiveType(t.Elem(), seen)
	case reflect.Map:
		return reflexiveType(t.Key(), seen) && reflexiveType(t.Elem(), seen)
	case reflect.Struct:
		for i := range t.NumField() {
			if !reflexiveType(t.Field(i).Type, seen) {
				return false
			}
		}
		return true
	}
	return false
}

// TestValidateUpdateOfValidMatchesValidateUpdate is the property ValidateUpdateOfValid
// promises: for a valid old object it returns exactly ValidateUpdate's errors, in order, for
// updates that change nothing, change valid fields, or break any of the rules (metadata, pod
// spec, node taints and quantities, workload specs), alone or together. ValidateLike makes
// the same promise for the changed object as a create: Validate's errors, in order.
func TestValidateUpdateOfValidMatchesValidateUpdate(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	olds := []func() Object{
		func() Object { return benchPod() },
		func() Object { return validPod() },
		func() Object { return benchNode() },
		func() Object { return validNode() },
		func() Object { return validReplicaSet() },
		func() Object { return validDeployment() },
		func() Object { return validStatefulSet() },
		func() Object { return validDaemonSet() },
		func() Object { return validPDB() },
		func() Object { return validHPA() },
		func() Object { return validService() },
		func() Object { return validEndpointSlice() },
		func() Object {
			return &Lease{ObjectMeta: ObjectMeta{Name: "a", Namespace: "kube-node-lease", Labels: map[string]string{"k": "v"}},
				Spec: LeaseSpec{LeaseDurationSeconds: Ptr(int32(40))}}
		},
	}
	type mutation struct {
		name  string
		apply func(old, upd Object)
	}
	mutations := []mutation{
		{"labels valid", func(_, u Object) { u.Meta().Labels = map[string]string{"app": "x", "tier": "y"} }},
		{"labels invalid", func(_, u Object) { u.Meta().Labels = map[string]string{"bad key!": "v", "ok": "-bad-"} }},
		{"labels nil", func(_, u Object) { u.Meta().Labels = nil }},
		{"labels empty", func(_, u Object) { u.Meta().Labels = map[string]string{} }},
		{"labels and annotations shared", func(o, u Object) {
			// What a shallow copy of the stored object hands over: its very maps.
			u.Meta().Labels, u.Meta().Annotations = o.Meta().Labels, o.Meta().Annotations
		}},
		{"annotations valid", func(_, u Object) { u.Meta().Annotations = map[string]string{"a.example.com/x": "any value"} }},
		{"annotations invalid", func(_, u Object) { u.Meta().Annotations = map[string]string{"??": "v"} }},
		{"owner valid", func(_, u Object) {
			u.Meta().OwnerReferences = []OwnerReference{{APIVersion: "apps/v1", Kind: KindReplicaSet, Name: "o", UID: "u", Controller: Ptr(true)}}
		}},
		{"owner invalid", func(_, u Object) {
			u.Meta().OwnerReferences = []OwnerReference{{APIVersion: "apps/v1", Kind: KindReplicaSet, UID: "u"}}
		}},
		{"owner flag flipped", func(_, u Object) {
			for i := range u.Meta().OwnerReferences {
				u.Meta().OwnerReferences[i].Controller = Ptr(false)
			}
		}},
		{"two controllers", func(_, u Object) {
			ref := OwnerReference{APIVersion: "apps/v1", Kind: KindReplicaSet, Name: "o", UID: "u", Controller: Ptr(true)}
			ref2 := ref
			ref2.UID, ref2.Name = "u2", "o2"
			u.Meta().OwnerReferences = []OwnerReference{ref, ref2}
		}},
		{"finalizer valid", func(_, u Object) { u.Meta().Finalizers = []string{"example.com/hold"} }},
		{"finalizers conflicting", func(_, u Object) { u.Meta().Finalizers = []string{"orphan", "foregroundDeletion"} }},
		{"generation decremented", func(_, u Object) { u.Meta().Generation = -1 }},
		{"name changed", func(_, u Object) { u.Meta().Name = "other" }},
		{"spec shared", func(o, u Object) {
			// What a status update does: the stored spec, its memory included.
			if spec := reflect.ValueOf(u).Elem().FieldByName("Spec"); spec.IsValid() {
				spec.Set(reflect.ValueOf(o).Elem().FieldByName("Spec"))
			}
		}},
		{"image changed", func(_, u Object) {
			if p, ok := u.(*Pod); ok {
				p.Spec.Containers[0].Image = "other:2"
			}
		}},
		{"node name changed", func(_, u Object) {
			if p, ok := u.(*Pod); ok {
				p.Spec.NodeName = "Not_A_Node"
			}
		}},
		{"toleration invalid", func(_, u Object) {
			if p, ok := u.(*Pod); ok {
				p.Spec.Tolerations = append(p.Spec.Tolerations, Toleration{Key: "bad key!", Operator: "Equal", Value: "v"})
			}
		}},
		{"tolerations dropped", func(_, u Object) {
			if p, ok := u.(*Pod); ok {
				p.Spec.Tolerations = nil
			}
		}},
		{"request negative", func(_, u Object) {
			if p, ok := u.(*Pod); ok {
				p.Spec.Containers[0].Resources.Requests = ResourceList{"cpu": resource.MustParse("-1")}
			}
		}},
		{"request same value", func(_, u Object) {
			if p, ok := u.(*Pod); ok && p.Spec.Containers[0].Resources.Requests != nil {
				p.Spec.Containers[0].Resources.Requests = ResourceList{"cpu": resource.MustParse("0.1"), "memory": resource.MustParse("128Mi")}
			}
		}},
		{"status changed", func(_, u Object) {
			switch o := u.(type) {
			case *Pod:
				o.Status.Phase = PodSucceeded
			case *Node:
				o.Status.Conditions = append(o.Status.Conditions, NodeCondition{Type: "X", Status: ConditionTrue})
			}
		}},
		{"taint invalid", func(_, u Object) {
			if n, ok := u.(*Node); ok {
				n.Spec.Taints = append(n.Spec.Taints, Taint{Key: "bad key!", Effect: "Sometimes"})
			}
		}},
		{"taint duplicated", func(_, u Object) {
			if n, ok := u.(*Node); ok {
				n.Spec.Taints = append(n.Spec.Taints, Taint{Key: "k", Effect: TaintEffectNoSchedule}, Taint{Key: "k", Effect: TaintEffectNoSchedule})
			}
		}},
		{"taint time added", func(_, u Object) {
			if n, ok := u.(*Node); ok {
				for i := range n.Spec.Taints {
					n.Spec.Taints[i].TimeAdded = Ptr(n.CreationTimestamp + 1)
				}
			}
		}},
		{"capacity negative", func(_, u Object) {
			if n, ok := u.(*Node); ok {
				n.Status.Capacity = ResourceList{"cpu": resource.MustParse("-2"), "memory": resource.MustParse("-1Gi"), "pods": resource.MustParse("3")}
				n.Status.Allocatable = ResourceList{"cpu": resource.MustParse("-2")}
			}
		}},
		{"replicas negative", func(_, u Object) {
			if spec := reflect.ValueOf(u).Elem().FieldByName("Spec"); spec.IsValid() {
				if r := spec.FieldByName("Replicas"); r.IsValid() && r.Type() == reflect.TypeFor[*int32]() {
					r.Set(reflect.ValueOf(Ptr(int32(-1))))
				}
			}
		}},
		{"template label dropped", func(_, u Object) {
			if spec := reflect.ValueOf(u).Elem().FieldByName("Spec"); spec.IsValid() {
				if tmpl := spec.FieldByName("Template"); tmpl.IsValid() && tmpl.Type() == reflect.TypeFor[PodTemplateSpec]() {
					tmpl.Addr().Interface().(*PodTemplateSpec).Labels = map[string]string{"other": "x"}
				}
			}
		}},
		{"selector changed", func(_, u Object) {
			if rs, ok := u.(*ReplicaSet); ok {
				rs.Spec.Selector.MatchLabels = map[string]string{"app": "other"}
			}
		}},
		{"lease duration invalid", func(_, u Object) {
			if l, ok := u.(*Lease); ok {
				l.Spec.LeaseDurationSeconds = Ptr(int32(0))
			}
		}},
	}
	sharedSpecMutation := slices.IndexFunc(mutations, func(m mutation) bool { return m.name == "spec shared" })
	failing, failingCreates := 0, 0
	for i := 0; i < 6000; i++ {
		newOld := olds[r.IntN(len(olds))]
		old := newOld()
		require.Nil(t, Validate(old), "the old object must be valid")
		upd := old.DeepCopyObject()
		var applied []string
		shareSpec := false
		for range r.IntN(4) {
			m := mutations[r.IntN(len(mutations))]
			if m.name == "spec shared" {
				shareSpec = true // last: later in-place changes would reach the old object
				continue
			}
			m.apply(old, upd)
			applied = append(applied, m.name)
		}
		if shareSpec {
			mutations[sharedSpecMutation].apply(old, upd)
			applied = append(applied, "spec shared")
		}
		require.Nil(t, Validate(old), "the old object is still valid")
		want := ValidateUpdate(old, upd)
		got := ValidateUpdateOfValid(old, upd)
		require.Equal(t, want, got, "%s with %v", old.GetKind(), applied)
		if want != nil {
			failing++
		}
		// The same property for a create: ValidateLike against the valid old object.
		require.Equal(t, Validate(upd), ValidateLike(upd, old), "create of %s with %v", old.GetKind(), applied)
		if Validate(upd) != nil {
			failingCreates++
		}
	}
	assert.Greater(t, failing, 2000, "most updates break a rule")
	assert.Greater(t, failingCreates, 1500, "most creates break a rule")
	assert.Nil(t, ValidateLike(benchPod(), benchPod()))
	assert.Equal(t, Validate(benchPod()), ValidateLike(benchPod(), nil))
	assert.Equal(t, Validate(benchPod()), ValidateLike(benchPod(), benchNode()))
	assert.Equal(t, Validate(nil), ValidateLike(nil, benchPod()))
	assert.Nil(t, ValidateUpdateOfValid(benchPod(), benchPod()))
	assert.Equal(t, ValidateUpdate(nil, benchPod()), ValidateUpdateOfValid(nil, benchPod()))
	assert.Equal(t, ValidateUpdate(benchPod(), nil), ValidateUpdateOfValid(benchPod(), nil))
	assert.Equal(t, ValidateUpdate(benchNode(), benchPod()), ValidateUpdateOfValid(benchNode(), benchPod()))
}

// TestValidateUpdateOfValidTrustsTheOldObject shows what the contract allows: with an
// invalid old object, an unchanged invalid label is not reported again.
func TestValidateUpdateOfValidTrustsTheOldObject(t *testing.T) {
	old := validPod()
	old.Labels = map[string]string{"bad key!": "v"}
	upd := old.DeepCopy()
	require.NotNil(t, ValidateUpdate(old, upd))
	assert.Nil(t, ValidateUpdateOfValid(old, upd))
	upd.Labels["other"] = "v"
	assert.Equal(t, ValidateUpdate(old, upd), ValidateUpdateOfValid(old, upd), "changed labels are checked in full")
}

func TestResourceListsEqual(t *testing.T) {
	q := resource.MustParse
	tests := []struct {
		name string
		a, b ResourceList
		want bool
	}{
		{"nil and empty", nil, ResourceList{}, true},
		{"same quantity, other form", ResourceList{ResourceCPU: q("1")}, ResourceList{ResourceCPU: q("1000m")}, true},
		{"other quantity", ResourceList{ResourceCPU: q("1")}, ResourceList{ResourceCPU: q("2")}, false},
		{"other name", ResourceList{ResourceCPU: q("1")}, ResourceList{ResourceMemory: q("1")}, false},
		{"one more", ResourceList{ResourceCPU: q("1")}, ResourceList{ResourceCPU: q("1"), ResourceMemory: q("1Gi")}, false},
	}
	for _, tc := range tests {
		assert.Equal(t, tc.want, ResourceListsEqual(tc.a, tc.b), tc.name)
		assert.Equal(t, tc.want, ResourceListsEqual(tc.b, tc.a), tc.name+", swapped")
	}
	assert.False(t, equalResourceList(nil, ResourceList{}), "equalResourceList tells nil from empty")
}

// TestEqualStringMapsIsMapsEqual holds equalStringMaps, which answers for one map without
// reading it, to maps.Equal: the same map, equal and unequal maps of their own, nil and empty.
func TestEqualStringMapsIsMapsEqual(t *testing.T) {
	a := map[string]string{"app": "web", "tier": "front"}
	cases := [][2]map[string]string{
		{a, a},
		{a, {"app": "web", "tier": "front"}},
		{a, {"app": "web"}},
		{a, {"app": "web", "tier": "back"}},
		{nil, {}},
		{nil, nil},
		{{}, a},
	}
	for _, c := range cases {
		if got, want := equalStringMaps(c[0], c[1]), maps.Equal(c[0], c[1]); got != want {
			t.Errorf("equalStringMaps(%v, %v) = %v, maps.Equal says %v", c[0], c[1], got, want)
		}
	}
}

func TestSameSlice(t *testing.T) {
	backing := []int{1, 2, 3}
	other := []int{1, 2, 3}
	cases := []struct {
		name string
		a, b []int
		want bool
	}{
		{"the same slice", backing, backing, true},
		{"equal elements elsewhere", backing, other, false},
		{"a shorter view of the same array", backing[:2], backing, false},
		{"a view further along", backing[1:], backing[:2], false},
		{"both empty", nil, []int{}, true},
		{"empty views of different arrays", backing[:0], other[:0], true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.want, SameSlice(c.a, c.b))
			assert.Equal(t, c.want, SameSlice(c.b, c.a))
		})
	}
}
