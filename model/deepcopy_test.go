package model

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/inf.v0"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	"sigs.k8s.io/randfill"
)

// newFiller fills every pointer, and every slice and map with at least one element, so that
// a deep copy that forgets a field is caught. Quantities are built through the resource
// package (their fields are unexported), in both the int64 and the inf.Dec representation:
// only the latter holds a pointer a shallow copy could share.
func newFiller(seed int64) *randfill.Filler {
	schemaDepth := 0
	return randfill.NewWithSeed(seed).NilChance(0).NumElements(1, 3).Funcs(
		func(q *resource.Quantity, c randfill.Continue) {
			switch c.Intn(3) {
			case 0:
				*q = *resource.NewQuantity(c.Int63n(1<<40), resource.DecimalSI)
			case 1:
				*q = *resource.NewMilliQuantity(c.Int63n(1<<40), resource.DecimalSI)
			default:
				*q = *resource.NewDecimalQuantity(*inf.NewDec(c.Int63n(1<<40), inf.Scale(c.Intn(4))), resource.DecimalSI)
			}
		},
		func(j *JSON, c randfill.Continue) {
			j.V = map[string]any{c.String(5): []any{c.Int63(), c.String(3), c.Bool(), nil}}
		},
		func(s *JSONSchemaPropsOrBool, c randfill.Continue) {
			// The JSON form holds a schema or a boolean, never both.
			if c.Bool() {
				*s = JSONSchemaPropsOrBool{Allows: c.Bool()}
				return
			}
			*s = JSONSchemaPropsOrBool{Allows: true, Schema: &JSONSchemaProps{Type: c.String(4)}}
		},
		func(s *JSONSchemaProps, c randfill.Continue) {
			// A schema is recursive: fill every field of two levels, then stop (a full fill
			// would never end).
			if schemaDepth >= 2 {
				*s = JSONSchemaProps{Type: c.String(4)}
				return
			}
			schemaDepth++
			c.FillNoCustom(s)
			schemaDepth--
		},
	)
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return b
}

func TestKindRegistry(t *testing.T) {
	seen := map[Kind]bool{}
	for _, ki := range Kinds() {
		obj := ki.New()
		assert.Equal(t, ki.Kind, obj.GetKind())
		assert.False(t, seen[ki.Kind], "kind %s registered twice", ki.Kind)
		seen[ki.Kind] = true
		obj.Meta().Name = "x"
		assert.Equal(t, "x", obj.Meta().Name, "Meta must point into the object")
		got, ok := LookupKind(ki.Kind)
		assert.True(t, ok)
		assert.Equal(t, ki.APIVersion, got.APIVersion)
	}
	_, ok := LookupKind("Nope")
	assert.False(t, ok)
}

// copyableKinds is every registered kind plus the subresource bodies (Eviction, Scale), which
// are objects with deep copies but are never stored, so they are not in the registry.
func copyableKinds() []KindInfo {
	return append(slices.Clone(Kinds()),
		KindInfo{Kind: KindEviction, New: func() Object { return &Eviction{} }},
		KindInfo{Kind: KindScale, New: func() Object { return &Scale{} }},
	)
}

func TestSubresourceBodiesAreNotRegistered(t *testing.T) {
	for _, k := range []Kind{KindEviction, KindScale} {
		_, ok := LookupKind(k)
		assert.False(t, ok, "%s must not be a stored kind", k)
	}
}

func TestDeepCopyObject(t *testing.T) {
	for _, ki := range copyableKinds() {
		t.Run(string(ki.Kind), func(t *testing.T) {
			for seed := int64(0); seed < 20; seed++ {
				orig := ki.New()
				newFiller(seed).Fill(orig)
				cp := orig.DeepCopyObject()
				require.IsType(t, orig, cp)
				require.True(t, reflect.DeepEqual(orig, cp), "deep copy differs from the original")
				require.NoError(t, checkIndependent(orig, cp), "seed %d", seed)
			}
		})
	}
}

// checkIndependent mutates every value reachable from cp (through pointers, slices and maps)
// and reports an error if that changes orig: then the two share memory. It also reports an
// error if the mutation changed nothing in cp, which would mean the walk missed the fields.
func checkIndependent(orig, cp Object) error {
	before, err := json.Marshal(orig)
	if err != nil {
		return err
	}
	mutateAll(reflect.ValueOf(cp).Elem())
	after, err := json.Marshal(orig)
	if err != nil {
		return err
	}
	if !bytes.Equal(before, after) {
		return fmt.Errorf("mutating the copy changed the original:\nbefore %s\nafter  %s", before, after)
	}
	mutated, err := json.Marshal(cp)
	if err != nil {
		return err
	}
	if bytes.Equal(before, mutated) {
		return fmt.Errorf("the mutation walk changed nothing")
	}
	return nil
}

var quantityReflectType = reflect.TypeFor[resource.Quantity]()

// mutateAll changes every leaf value reachable from v in place, following pointers, slices and
// maps without replacing them, so that any memory shared with another value shows up there.
func mutateAll(v reflect.Value) {
	if v.Type() == quantityReflectType {
		q := v.Addr().Interface().(*resource.Quantity)
		q.Add(resource.MustParse("7")) // in place: changes a shared inf.Dec
		return
	}
	switch v.Kind() {
	case reflect.Pointer:
		if !v.IsNil() {
			mutateAll(v.Elem())
		}
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				mutateAll(v.Field(i))
			}
		}
	case reflect.Slice:
		for i := 0; i < v.Len(); i++ {
			mutateAll(v.Index(i))
		}
	case reflect.Map:
		iter := v.MapRange()
		type kv struct{ k, v reflect.Value }
		var entries []kv
		for iter.Next() {
			elem := reflect.New(v.Type().Elem()).Elem()
			elem.Set(iter.Value())
			mutateAll(elem)
			entries = append(entries, kv{iter.Key(), elem})
		}
		for _, e := range entries {
			v.SetMapIndex(e.k, e.v)
		}
	case reflect.Interface:
		// A JSON value: containers are changed in place (so sharing shows), scalars
		// replaced.
		if !v.IsNil() {
			v.Set(reflect.ValueOf(mutateJSON(v.Interface())))
		}
	default:
		if !mutateScalar(v) {
			panic("mutateAll: unhandled kind " + v.Kind().String() + " in " + v.Type().String())
		}
	}
}

// mutateScalar changes v in place when it is a string, bool, integer or float (the leaves
// mutateAll and mutateNth change), and reports whether it was one.
func mutateScalar(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.String:
		v.SetString(v.String() + "~")
	case reflect.Bool:
		v.SetBool(!v.Bool())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(v.Int() ^ 1)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(v.Uint() ^ 1)
	case reflect.Float32, reflect.Float64:
		v.SetFloat(v.Float() + 1)
	default:
		return false
	}
	return true
}

// mutateJSON changes a JSON value: maps and lists in place, scalars by a new value.
func mutateJSON(x any) any {
	switch y := x.(type) {
	case map[string]any:
		for k, e := range y {
			y[k] = mutateJSON(e)
		}
		return y
	case []any:
		for i := range y {
			y[i] = mutateJSON(y[i])
		}
		return y
	case string:
		return y + "~"
	case int64:
		return y ^ 1
	case bool:
		return !y
	case nil:
		return "was-nil"
	}
	return "mutated"
}

// TestCheckIndependentCatchesSharing proves the checker can fail: a shallow copy, and a deep
// copy with one pointer pointing back into the original, are both caught.
func TestCheckIndependentCatchesSharing(t *testing.T) {
	for _, ki := range copyableKinds() {
		orig := ki.New()
		newFiller(1).Fill(orig)
		shallow := reflect.New(reflect.TypeOf(orig).Elem())
		shallow.Elem().Set(reflect.ValueOf(orig).Elem())
		assert.Error(t, checkIndependent(orig, shallow.Interface().(Object)), "shallow copy of %s not caught", ki.Kind)
	}

	orig := &Pod{}
	newFiller(2).Fill(orig)
	cp := orig.DeepCopy()
	cp.Spec.Containers[0].LivenessProbe = orig.Spec.Containers[0].LivenessProbe
	assert.Error(t, checkIndependent(orig, cp), "a forgotten pointer copy must be caught")

	orig = &Pod{}
	newFiller(3).Fill(orig)
	orig.Spec.Containers[0].Resources.Requests = ResourceList{"cpu": *resource.NewDecimalQuantity(*inf.NewDec(15, 1), resource.DecimalSI)}
	cp = orig.DeepCopy()
	shared := orig.Spec.Containers[0].Resources.Requests["cpu"]
	cp.Spec.Containers[0].Resources.Requests["cpu"] = shared // same *inf.Dec as the original
	assert.Error(t, checkIndependent(orig, cp), "a quantity sharing its inf.Dec must be caught")
}

func TestJSONRoundTrip(t *testing.T) {
	for _, ki := range copyableKinds() {
		t.Run(string(ki.Kind), func(t *testing.T) {
			for seed := int64(0); seed < 20; seed++ {
				orig := ki.New()
				newFiller(seed).Fill(orig)
				data := mustJSON(t, orig)
				back := ki.New()
				require.NoError(t, json.Unmarshal(data, back))
				require.True(t, equality.Semantic.DeepEqual(orig, back), "seed %d: round trip changed the object\n%s", seed, data)
				require.Equal(t, string(data), string(mustJSON(t, back)))
			}
		})
	}
}
