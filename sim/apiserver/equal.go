package apiserver

import (
	"reflect"
	"sync"
	"sync/atomic"
	"unsafe"

	"k8s.io/apimachinery/pkg/api/resource"
)

// semanticEqual reports whether a and b are equal in the sense of apimachinery's
// equality.Semantic.DeepEqual, which upstream's strategies use to decide whether a spec
// changed: nil and empty maps and slices are equal, and quantities compare by value; every
// other field compares exactly. It is written for the write path: a comparer is compiled
// once per type (reflection on the type, not on every call) and runs without defers or
// allocation, where Semantic.DeepEqual costs several microseconds per object.
func semanticEqual(a, b any) bool {
	va, vb := reflect.ValueOf(a), reflect.ValueOf(b)
	if !va.IsValid() || !vb.IsValid() {
		return va.IsValid() == vb.IsValid()
	}
	if va.Type() != vb.Type() {
		return false
	}
	return comparerFor(va.Type())(va, vb)
}

// semanticEqualExceptSpec is semanticEqual for two objects (pointers to structs of the same
// type) whose Spec fields the caller already knows to be equal: it skips the Spec field.
func semanticEqualExceptSpec(a, b any) bool {
	va, vb := reflect.ValueOf(a), reflect.ValueOf(b)
	if va.Type() != vb.Type() || va.Kind() != reflect.Pointer || va.Elem().Kind() != reflect.Struct {
		return semanticEqual(a, b)
	}
	if va.Pointer() == vb.Pointer() {
		return true
	}
	t := va.Type().Elem()
	c := exceptSpec.load(t)
	if c == nil {
		c = compileExceptSpec(t)
		exceptSpec.store(t, c)
	}
	return c(va.Elem(), vb.Elem())
}

// exceptSpec caches the struct comparers that skip the Spec field, per struct type.
var exceptSpec comparerCache

func compileExceptSpec(t reflect.Type) comparer {
	var idx []int
	var fields []comparer
	for i := t.NumField() - 1; i >= 0; i-- { // last field first, as compileKind does
		if t.Field(i).Name == "Spec" {
			continue
		}
		idx = append(idx, i)
		fields = append(fields, comparerFor(t.Field(i).Type))
	}
	return func(a, b reflect.Value) bool {
		for j, eq := range fields {
			if !eq(a.Field(idx[j]), b.Field(idx[j])) {
				return false
			}
		}
		return true
	}
}

// comparer compares two values of one type.
type comparer func(a, b reflect.Value) bool

// comparerCache maps types to comparers. Runs in parallel (a sweep) share it, so it is safe
// for concurrent use; which goroutine compiles a type first cannot change a result. In front of
// its sync.Map, which hashes the key and walks a trie on every load (a third of the cost of
// comparing two Leases on the write path), a small direct-mapped table finds the types in use
// by their address with one atomic load; a type whose slot another holds is found in the map.
type comparerCache struct {
	all    sync.Map // reflect.Type -> comparer
	recent [64]atomic.Pointer[typedComparer]
}

// typedComparer is an entry of comparerCache.recent.
type typedComparer struct {
	t reflect.Type
	c comparer
}

// slot is t's entry of recent, chosen by the address of t's type descriptor (it decides only
// where an entry is kept, never what a load returns).
func (cc *comparerCache) slot(t reflect.Type) *atomic.Pointer[typedComparer] {
	addr := uintptr((*[2]unsafe.Pointer)(unsafe.Pointer(&t))[1])
	return &cc.recent[(addr>>4)%uintptr(len(cc.recent))]
}

// load returns t's comparer, nil when none is stored.
func (cc *comparerCache) load(t reflect.Type) comparer {
	slot := cc.slot(t)
	if e := slot.Load(); e != nil && e.t == t {
		return e.c
	}
	v, ok := cc.all.Load(t)
	if !ok {
		return nil
	}
	c := v.(comparer)
	slot.Store(&typedComparer{t: t, c: c})
	return c
}

// store records c as t's comparer.
func (cc *comparerCache) store(t reflect.Type, c comparer) { cc.all.Store(t, c) }

var (
	// comparers caches a compiled comparer per type.
	comparers   comparerCache
	compileLock sync.Mutex

	quantityType    = reflect.TypeFor[resource.Quantity]()
	stringMapType   = reflect.TypeFor[map[string]string]()
	quantityMapType = reflect.TypeFor[map[string]resource.Quantity]()
)

// mapAs returns the map v holds as a map of type M, whose type v's converts to. It allocates
// nothing: v is first taken out of its (possibly addressable) place, which Convert would copy.
func mapAs[M any](v reflect.Value, to reflect.Type) M {
	if v.Type() == to {
		return v.Interface().(M)
	}
	return reflect.ValueOf(v.Interface()).Convert(to).Interface().(M)
}

func comparerFor(t reflect.Type) comparer {
	if c := comparers.load(t); c != nil {
		return c
	}
	compileLock.Lock()
	defer compileLock.Unlock()
	if c := comparers.load(t); c != nil {
		return c
	}
	building := map[reflect.Type]*comparer{}
	c := compile(t, building)
	for typ, built := range building { //detlint:ordered publishing a cache; order cannot matter
		comparers.store(typ, *built)
	}
	return c
}

// compile builds the comparer of t; building holds the types being compiled, so that a
// recursive type refers to its own comparer through a pointer filled in at the end.
func compile(t reflect.Type, building map[reflect.Type]*comparer) comparer {
	if c := comparers.load(t); c != nil {
		return c
	}
	if slot, ok := building[t]; ok {
		return func(a, b reflect.Value) bool { return (*slot)(a, b) }
	}
	slot := new(comparer)
	building[t] = slot
	*slot = compileKind(t, building)
	return *slot
}

func compileKind(t reflect.Type, building map[reflect.Type]*comparer) comparer {
	if t == quantityType {
		return equalQuantities
	}
	switch t.Kind() {
	case reflect.Bool:
		return func(a, b reflect.Value) bool { return a.Bool() == b.Bool() }
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return func(a, b reflect.Value) bool { return a.Int() == b.Int() }
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return func(a, b reflect.Value) bool { return a.Uint() == b.Uint() }
	case reflect.Float32, reflect.Float64:
		return func(a, b reflect.Value) bool { return a.Float() == b.Float() }
	case reflect.Complex64, reflect.Complex128:
		return func(a, b reflect.Value) bool { return a.Complex() == b.Complex() }
	case reflect.String:
		return func(a, b reflect.Value) bool { return a.String() == b.String() }
	case reflect.Pointer:
		elem := compile(t.Elem(), building)
		return func(a, b reflect.Value) bool {
			if a.IsNil() || b.IsNil() {
				return a.IsNil() == b.IsNil()
			}
			return a.Pointer() == b.Pointer() || elem(a.Elem(), b.Elem())
		}
	case reflect.Struct:
		n := t.NumField()
		fields := make([]comparer, n)
		for i := range n {
			fields[i] = compile(t.Field(i).Type, building)
		}
		// Last field first: an update usually changes spec or status, which objects declare
		// after their metadata, so the difference is found sooner.
		return func(a, b reflect.Value) bool {
			for i := n - 1; i >= 0; i-- {
				if !fields[i](a.Field(i), b.Field(i)) {
					return false
				}
			}
			return true
		}
	case reflect.Array:
		elem := compile(t.Elem(), building)
		return func(a, b reflect.Value) bool {
			for i := range a.Len() {
				if !elem(a.Index(i), b.Index(i)) {
					return false
				}
			}
			return true
		}
	case reflect.Slice:
		elem := compile(t.Elem(), building)
		return func(a, b reflect.Value) bool {
			n := a.Len()
			if n != b.Len() {
				return false // nil and empty both have length 0
			}
			if n == 0 || a.Pointer() == b.Pointer() {
				return true
			}
			for i := range n {
				if !elem(a.Index(i), b.Index(i)) {
					return false
				}
			}
			return true
		}
	case reflect.Map:
		return compileMap(t, building)
	case reflect.Interface:
		return func(a, b reflect.Value) bool {
			if a.IsNil() || b.IsNil() {
				return a.IsNil() == b.IsNil()
			}
			ea, eb := a.Elem(), b.Elem()
			if ea.Type() != eb.Type() {
				return false
			}
			return comparerFor(ea.Type())(ea, eb)
		}
	default:
		// Funcs, channels and unsafe pointers: equal only when both are nil.
		return func(a, b reflect.Value) bool { return a.IsNil() && b.IsNil() }
	}
}

func compileMap(t reflect.Type, building map[reflect.Type]*comparer) comparer {
	sizesDiffer := func(a, b reflect.Value) (decided, equal bool) {
		n := a.Len()
		if n != b.Len() {
			return true, false
		}
		if n == 0 || a.Pointer() == b.Pointer() {
			return true, true
		}
		return false, false
	}
	if t.Key().Kind() == reflect.String && t.Elem().Kind() == reflect.String && t.ConvertibleTo(stringMapType) {
		// Labels, annotations, node selectors: compared natively, without iterators.
		return func(a, b reflect.Value) bool {
			if decided, eq := sizesDiffer(a, b); decided {
				return eq
			}
			ma, mb := mapAs[map[string]string](a, stringMapType), mapAs[map[string]string](b, stringMapType)
			for k, va := range ma { //detlint:ordered an all-keys check; order cannot matter
				if vb, ok := mb[k]; !ok || va != vb {
					return false
				}
			}
			return true
		}
	}
	if t.Key().Kind() == reflect.String && t.Elem() == quantityType && t.ConvertibleTo(quantityMapType) {
		// Resource lists: compared natively, each quantity by value on copies (as
		// equalQuantities does for map values, which are not addressable).
		return func(a, b reflect.Value) bool {
			if decided, eq := sizesDiffer(a, b); decided {
				return eq
			}
			ma, mb := mapAs[map[string]resource.Quantity](a, quantityMapType), mapAs[map[string]resource.Quantity](b, quantityMapType)
			for k, qa := range ma { //detlint:ordered an all-keys check; order cannot matter
				if qb, ok := mb[k]; !ok || qa.Cmp(qb) != 0 {
					return false
				}
			}
			return true
		}
	}
	elem := compile(t.Elem(), building)
	return func(a, b reflect.Value) bool {
		if decided, eq := sizesDiffer(a, b); decided {
			return eq
		}
		it := a.MapRange()
		for it.Next() {
			vb := b.MapIndex(it.Key())
			if !vb.IsValid() || !elem(it.Value(), vb) {
				return false
			}
		}
		return true
	}
}

// equalQuantities compares quantities by value, as Semantic.DeepEqual does.
func equalQuantities(a, b reflect.Value) bool {
	qa, qb := quantityOf(a), quantityOf(b)
	return qa.Cmp(*qb) == 0
}

func quantityOf(v reflect.Value) *resource.Quantity {
	if v.CanAddr() && v.CanInterface() {
		return v.Addr().Interface().(*resource.Quantity)
	}
	q := v.Interface().(resource.Quantity)
	return &q
}
