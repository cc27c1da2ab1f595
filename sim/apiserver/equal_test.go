package apiserver

import (
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	"sigs.k8s.io/randfill"

	"github.com/reconsim/reconsim/internal/testsupport"
	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/vtime"
)

func TestSemanticEqualCases(t *testing.T) {
	pod := func(edit func(*model.Pod)) *model.Pod {
		p := newPod("p")
		p.Labels = map[string]string{"a": "b"}
		if edit != nil {
			edit(p)
		}
		return p
	}
	tests := []struct {
		name string
		a, b any
		want bool
	}{
		{"identical", pod(nil), pod(nil), true},
		{"nil and empty map", pod(func(p *model.Pod) { p.Annotations = nil }), pod(func(p *model.Pod) { p.Annotations = map[string]string{} }), true},
		{"nil and empty slice", pod(func(p *model.Pod) { p.Finalizers = nil }), pod(func(p *model.Pod) { p.Finalizers = []string{} }), true},
		{"quantity formats", pod(func(p *model.Pod) {
			p.Spec.Containers[0].Resources.Requests[model.ResourceCPU] = resource.MustParse("1")
		}), pod(func(p *model.Pod) {
			p.Spec.Containers[0].Resources.Requests[model.ResourceCPU] = resource.MustParse("1000m")
		}), true},
		{"quantity values", pod(nil), pod(func(p *model.Pod) {
			p.Spec.Containers[0].Resources.Requests[model.ResourceCPU] = resource.MustParse("200m")
		}), false},
		{"label value", pod(nil), pod(func(p *model.Pod) { p.Labels["a"] = "c" }), false},
		{"label key", pod(nil), pod(func(p *model.Pod) { p.Labels = map[string]string{"x": "b"} }), false},
		{"nil and set pointer", pod(nil), pod(func(p *model.Pod) { p.Spec.Priority = model.Ptr(int32(0)) }), false},
		{"pointer values", pod(func(p *model.Pod) { p.Spec.Priority = model.Ptr(int32(1)) }), pod(func(p *model.Pod) { p.Spec.Priority = model.Ptr(int32(2)) }), false},
		{"slice length", pod(nil), pod(func(p *model.Pod) { p.Finalizers = []string{"x"} }), false},
		{"different types", newPod("p"), newNode("p"), false},
		{"nil interface", nil, nil, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, semanticEqual(tc.a, tc.b))
			if tc.a != nil && tc.b != nil && reflect.TypeOf(tc.a) == reflect.TypeOf(tc.b) {
				assert.Equal(t, tc.want, equality.Semantic.DeepEqual(tc.a, tc.b), "agrees with apimachinery")
			}
		})
	}
}

// TestSemanticEqualAgreesWithApimachinery fills objects of every kind at random, derives a
// second object by changing one randomly chosen leaf (or nothing, or swapping nil and empty),
// and checks that semanticEqual and equality.Semantic.DeepEqual agree on every pair.
func TestSemanticEqualAgreesWithApimachinery(t *testing.T) {
	fill := randfill.NewWithSeed(7).NilChance(0.3).NumElements(0, 3).MaxDepth(6).Funcs(
		func(q *resource.Quantity, c randfill.Continue) {
			*q = *resource.NewMilliQuantity(c.Int63n(5000), resource.DecimalSI)
		},
	)
	r := rand.New(rand.NewPCG(7, 7))
	var outcomes testsupport.Outcomes
	for _, info := range model.Kinds() {
		for range 300 {
			a := info.New()
			fill.Fill(a)
			b := a.DeepCopyObject()
			if r.IntN(4) != 0 {
				mutateRandomLeaf(r, reflect.ValueOf(b).Elem())
			}
			want := equality.Semantic.DeepEqual(a, b)
			require.Equal(t, want, semanticEqual(a, b), "%s: %#v vs %#v", info.Kind, a, b)
			outcomes.Count(want)
		}
	}
	outcomes.RequireBoth(t, 301, "equal objects", 501, "differing objects")
}

// mutateRandomLeaf walks v along random fields and changes the leaf it ends on.
func mutateRandomLeaf(r *rand.Rand, v reflect.Value) {
	for depth := 0; depth < 12; depth++ {
		if v.Type() == quantityType {
			q := resource.NewQuantity(r.Int64N(1000)+5000, resource.BinarySI)
			v.Set(reflect.ValueOf(*q))
			return
		}
		switch v.Kind() {
		case reflect.Struct:
			if v.NumField() == 0 {
				return
			}
			v = v.Field(r.IntN(v.NumField()))
		case reflect.Pointer:
			if v.IsNil() {
				v.Set(reflect.New(v.Type().Elem()))
				return
			}
			v = v.Elem()
		case reflect.Slice:
			if v.Len() == 0 {
				if v.IsNil() {
					v.Set(reflect.MakeSlice(v.Type(), 0, 0)) // nil -> empty: still equal
				} else {
					v.Set(reflect.Append(v, reflect.Zero(v.Type().Elem())))
				}
				return
			}
			v = v.Index(r.IntN(v.Len()))
		case reflect.Map:
			key := reflect.New(v.Type().Key()).Elem()
			if key.Kind() == reflect.String {
				key.SetString("added-key")
			}
			if v.IsNil() {
				v.Set(reflect.MakeMap(v.Type()))
			}
			v.SetMapIndex(key, reflect.Zero(v.Type().Elem()))
			return
		case reflect.String:
			v.SetString(v.String() + "x")
			return
		case reflect.Bool:
			v.SetBool(!v.Bool())
			return
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			v.SetInt(v.Int() + 1)
			return
		case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
			v.SetUint(v.Uint() + 1)
			return
		default:
			return
		}
	}
}

func TestSemanticEqualExceptSpec(t *testing.T) {
	a := newReplicaSet("rs", 1)
	b := copyOf(a)
	b.Spec.Replicas = model.Ptr(int32(7))
	assert.True(t, semanticEqualExceptSpec(a, b), "the spec is not compared")
	b.Status.Replicas = 1
	assert.False(t, semanticEqualExceptSpec(a, b), "status is")
	c := copyOf(a)
	c.Labels = map[string]string{"x": "y"}
	assert.False(t, semanticEqualExceptSpec(a, c), "metadata is")
	assert.True(t, semanticEqualExceptSpec(a, a))
}

// TestComparerCacheFindsEveryType stores a comparer for each of many types (more than the
// cache's direct-mapped front holds, so types share slots), then loads them in turn, several
// times over: every load must give the comparer stored for that very type.
func TestComparerCacheFindsEveryType(t *testing.T) {
	seen := map[reflect.Type]bool{}
	var types []reflect.Type
	var walk func(reflect.Type)
	walk = func(typ reflect.Type) {
		if seen[typ] {
			return
		}
		seen[typ] = true
		types = append(types, typ)
		switch typ.Kind() {
		case reflect.Pointer, reflect.Slice, reflect.Array:
			walk(typ.Elem())
		case reflect.Map:
			walk(typ.Key())
			walk(typ.Elem())
		case reflect.Struct:
			for i := range typ.NumField() {
				walk(typ.Field(i).Type)
			}
		}
	}
	for _, info := range model.Kinds() {
		walk(reflect.TypeOf(info.New()))
	}
	var cc comparerCache
	require.Greater(t, len(types), 2*len(cc.recent), "enough types to share slots")
	hit := -1
	for i, typ := range types {
		require.Nil(t, cc.load(typ), "nothing stored yet for %s", typ)
		cc.store(typ, func(reflect.Value, reflect.Value) bool { hit = i; return true })
	}
	for round := range 3 {
		for j := range types {
			i := j
			if round == 1 {
				i = len(types) - 1 - j // the other way round
			}
			c := cc.load(types[i])
			require.NotNil(t, c, "%s", types[i])
			hit = -1
			c(reflect.Value{}, reflect.Value{})
			require.Equal(t, i, hit, "the comparer of %s", types[i])
		}
	}
}

// TestChangedOnlyWhenNotEqual holds every strategy's changed glance to the comparison it
// spares: on random pairs of objects of each kind (one a copy of the other with a random leaf
// changed, renewTime among them), changed may say true only when semanticEqual says false.
func TestChangedOnlyWhenNotEqual(t *testing.T) {
	fill := randfill.NewWithSeed(11).NilChance(0.3).NumElements(0, 3).MaxDepth(6).Funcs(
		func(q *resource.Quantity, c randfill.Continue) {
			*q = *resource.NewMilliQuantity(c.Int63n(5000), resource.DecimalSI)
		},
	)
	r := rand.New(rand.NewPCG(11, 11))
	said := 0
	for _, info := range model.Kinds() {
		st := strategyFor(info)
		if st.changed == nil {
			continue
		}
		for range 2000 {
			a := info.New()
			fill.Fill(a)
			b := a.DeepCopyObject()
			if r.IntN(4) != 0 {
				mutateRandomLeaf(r, reflect.ValueOf(b).Elem())
			}
			if st.changed(b, a) {
				said++
				require.False(t, semanticEqual(a, b), "%s: changed, but %#v equals %#v", info.Kind, a, b)
			}
		}
	}
	assert.Greater(t, said, 20, "the test must see changed say true")
	renewed := newLease("n")
	renewed.Spec.RenewTime = model.Ptr(vtime.Time(2))
	old := renewed.DeepCopy()
	old.Spec.RenewTime = model.Ptr(vtime.Time(1))
	assert.True(t, leaseRenewed(renewed, old), "a renewal is a change")
}
