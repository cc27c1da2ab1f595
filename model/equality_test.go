package model

import (
	"slices"
	"testing"

	"github.com/reconsim/reconsim/vtime"
	"github.com/stretchr/testify/assert"
)

func TestEqualOwnerReference(t *testing.T) {
	yes, no, alsoYes := true, false, true
	base := OwnerReference{APIVersion: "apps/v1", Kind: KindReplicaSet, Name: "web", UID: "u1", Controller: &yes}
	with := func(f func(r *OwnerReference)) OwnerReference { r := base; f(&r); return r }
	for _, tc := range []struct {
		name string
		b    OwnerReference
		want bool
	}{
		{"itself", base, true},
		{"another pointer to the same value", with(func(r *OwnerReference) { r.Controller = &alsoYes }), true},
		{"apiVersion", with(func(r *OwnerReference) { r.APIVersion = "v1" }), false},
		{"kind", with(func(r *OwnerReference) { r.Kind = KindDeployment }), false},
		{"name", with(func(r *OwnerReference) { r.Name = "api" }), false},
		{"uid", with(func(r *OwnerReference) { r.UID = "u2" }), false},
		{"controller false", with(func(r *OwnerReference) { r.Controller = &no }), false},
		{"controller unset", with(func(r *OwnerReference) { r.Controller = nil }), false},
		{"blockOwnerDeletion set", with(func(r *OwnerReference) { r.BlockOwnerDeletion = &yes }), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, EqualOwnerReference(base, tc.b))
			assert.Equal(t, tc.want, EqualOwnerReference(tc.b, base), "symmetric")
			assert.Equal(t, tc.want, EqualControllerRef(&base, &tc.b))
		})
	}
	assert.True(t, EqualControllerRef(nil, nil))
	assert.False(t, EqualControllerRef(&base, nil))
	assert.False(t, EqualControllerRef(nil, &base))
}

func TestEqualTaint(t *testing.T) {
	at, same, later := vtime.Time(5), vtime.Time(5), vtime.Time(6)
	base := Taint{Key: "k", Value: "v", Effect: TaintEffectNoExecute, TimeAdded: &at}
	with := func(f func(x *Taint)) Taint { x := base; f(&x); return x }
	for _, tc := range []struct {
		name string
		b    Taint
		want bool
	}{
		{"itself", base, true},
		{"another pointer to the same time", with(func(x *Taint) { x.TimeAdded = &same }), true},
		{"key", with(func(x *Taint) { x.Key = "j" }), false},
		{"value", with(func(x *Taint) { x.Value = "w" }), false},
		{"effect", with(func(x *Taint) { x.Effect = TaintEffectNoSchedule }), false},
		{"timeAdded later", with(func(x *Taint) { x.TimeAdded = &later }), false},
		{"timeAdded unset", with(func(x *Taint) { x.TimeAdded = nil }), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, EqualTaint(&base, &tc.b))
			assert.Equal(t, tc.want, EqualTaint(&tc.b, &base), "symmetric")
		})
	}
}

// TestSameOwnerReferences: the shortcut for references sharing their array agrees with
// comparing them element by element: the same array of another length differs, and equal or
// unequal references in arrays of their own are compared.
func TestSameOwnerReferences(t *testing.T) {
	yes := true
	refs := []OwnerReference{
		{APIVersion: "v1", Kind: KindNode, Name: "n1", UID: "u1"},
		{APIVersion: "apps/v1", Kind: KindReplicaSet, Name: "rs", UID: "u2", Controller: &yes},
	}
	shallow := refs // the same array, as a shallow copy of the object keeps it
	if !sameOwnerReferences(refs, shallow) || !sameOwnerReferences(refs[:1], shallow[:1]) {
		t.Fatal("the same array of the same length must be equal")
	}
	if sameOwnerReferences(refs, shallow[:1]) || sameOwnerReferences(refs[:1], refs[1:]) {
		t.Fatal("parts of one array that differ must not be equal")
	}
	deep := slices.Clone(refs)
	if !sameOwnerReferences(refs, deep) {
		t.Fatal("equal references in another array must be equal")
	}
	deep[1].UID = "other"
	if sameOwnerReferences(refs, deep) {
		t.Fatal("a changed reference in another array must not be equal")
	}
	if !sameOwnerReferences(nil, []OwnerReference{}) {
		t.Fatal("no references equal no references")
	}
}
