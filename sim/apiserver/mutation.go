package apiserver

import (
	"fmt"
	"reflect"
	"sort"

	"github.com/reconsim/reconsim/model"
)

// maxMutationViolations bounds the violations one run records; the rest are counted.
const maxMutationViolations = 50

// mutationCheck is the store's ownership check (StoreConfig.CheckMutations), the simulator's
// counterpart of client-go's cache mutation detector (tools/cache/mutation_detector.go,
// KUBE_CACHE_MUTATION_DETECTOR): the store keeps a private deep copy of every object it stores
// and, when that object is next replaced or removed (and in MutationViolations, for the objects
// still stored), compares the shared object with the copy. Stored objects are shared with every
// reader (watch events, informer caches, List and GetShared answers) and must never change; a
// difference means some reader modified an object it did not own.
type mutationCheck struct {
	frozen     map[model.Kind]map[objKey]model.Object
	violations []string
	more       int
}

func newMutationCheck() *mutationCheck {
	return &mutationCheck{frozen: map[model.Kind]map[objKey]model.Object{}}
}

// replaced checks old (the object being replaced or removed, nil on a create) against its
// copy, then keeps a copy of obj (nil on a removal) at revision rev.
func (m *mutationCheck) replaced(ks *kindStore, key objKey, old, obj model.Object, rev uint64) {
	kind := ks.info.Kind
	byKey := m.frozen[kind]
	if byKey == nil {
		byKey = map[objKey]model.Object{}
		m.frozen[kind] = byKey
	}
	if old != nil {
		if want, ok := byKey[key]; ok {
			m.compare(kind, key, want, old, fmt.Sprintf("before revision %d replaced it", rev))
		}
	}
	if obj == nil {
		delete(byKey, key)
		return
	}
	byKey[key] = obj.DeepCopyObject()
}

// compare records a violation when the shared object got differs from the copy want.
func (m *mutationCheck) compare(kind model.Kind, key objKey, want, got model.Object, when string) {
	if objectsEqual(want, got) {
		return
	}
	if len(m.violations) >= maxMutationViolations {
		m.more++
		return
	}
	name := key.name
	if key.namespace != "" {
		name = key.namespace + "/" + name
	}
	m.violations = append(m.violations, fmt.Sprintf(
		"%s %s (resourceVersion %d) was modified after the API server stored it, %s: %s. Stored objects are shared and immutable; copy an object before changing it (DeepCopy)",
		kind, name, want.Meta().ResourceVersion, when, firstDifference(reflect.ValueOf(want), reflect.ValueOf(got), "")))
}

// MutationViolations returns every modification of a stored object the ownership check has
// seen, after comparing the objects still stored with their copies. Nil when
// StoreConfig.CheckMutations is off or nothing was modified.
func (s *Store) MutationViolations() []string {
	m := s.mutations
	if m == nil {
		return nil
	}
	for _, ks := range s.kindList {
		byKey := m.frozen[ks.info.Kind]
		keys := make([]objKey, 0, len(byKey))
		for k := range byKey { //detlint:ordered the keys are sorted below
			keys = append(keys, k)
		}
		sort.Slice(keys, func(i, j int) bool { return compareKeys(keys[i], keys[j]) < 0 })
		for _, k := range keys {
			if cur := ks.objects[k]; cur != nil {
				m.compare(ks.info.Kind, k, byKey[k], cur, "still stored at the end")
				byKey[k] = cur.DeepCopyObject() // report each modification once
			}
		}
	}
	out := append([]string(nil), m.violations...)
	if m.more > 0 {
		out = append(out, fmt.Sprintf("and %d more modified stored objects", m.more))
	}
	return out
}

// firstDifference names the first field path where want and got differ and both values, for
// the violation message. It walks in field order; it is only called once a difference is known.
func firstDifference(want, got reflect.Value, path string) string {
	if !want.IsValid() || !got.IsValid() {
		return fmt.Sprintf("%s changed", orRoot(path))
	}
	switch want.Kind() {
	case reflect.Pointer, reflect.Interface:
		if want.IsNil() || got.IsNil() {
			return fmt.Sprintf("%s changed from %s to %s", orRoot(path), describe(want), describe(got))
		}
		return firstDifference(want.Elem(), got.Elem(), path)
	case reflect.Struct:
		if semanticEqual(want.Interface(), got.Interface()) {
			break
		}
		for i := 0; i < want.NumField(); i++ {
			f := want.Type().Field(i)
			if !f.IsExported() {
				continue
			}
			if !semanticEqual(want.Field(i).Interface(), got.Field(i).Interface()) {
				return firstDifference(want.Field(i), got.Field(i), path+"."+f.Name)
			}
		}
	case reflect.Slice, reflect.Array:
		if want.Len() != got.Len() {
			return fmt.Sprintf("%s changed length from %d to %d", orRoot(path), want.Len(), got.Len())
		}
		for i := 0; i < want.Len(); i++ {
			if !semanticEqual(want.Index(i).Interface(), got.Index(i).Interface()) {
				return firstDifference(want.Index(i), got.Index(i), fmt.Sprintf("%s[%d]", path, i))
			}
		}
	case reflect.Map:
		keys := want.MapKeys()
		for _, k := range got.MapKeys() {
			if !want.MapIndex(k).IsValid() {
				return fmt.Sprintf("%s[%v] was added", orRoot(path), k)
			}
		}
		sort.Slice(keys, func(i, j int) bool { return fmt.Sprint(keys[i]) < fmt.Sprint(keys[j]) })
		for _, k := range keys {
			g := got.MapIndex(k)
			if !g.IsValid() {
				return fmt.Sprintf("%s[%v] was removed", orRoot(path), k)
			}
			if !semanticEqual(want.MapIndex(k).Interface(), g.Interface()) {
				return firstDifference(want.MapIndex(k), g, fmt.Sprintf("%s[%v]", path, k))
			}
		}
	}
	return fmt.Sprintf("%s changed from %s to %s", orRoot(path), describe(want), describe(got))
}

func orRoot(path string) string {
	if path == "" {
		return "the object"
	}
	return path[1:]
}

func describe(v reflect.Value) string {
	if !v.IsValid() || ((v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface || v.Kind() == reflect.Map || v.Kind() == reflect.Slice) && v.IsNil()) {
		return "nil"
	}
	// A copy is addressable, so that pointer-receiver String methods (resource.Quantity's)
	// apply too.
	cp := reflect.New(v.Type())
	cp.Elem().Set(v)
	if s, ok := cp.Interface().(fmt.Stringer); ok {
		return fmt.Sprintf("%q", s.String())
	}
	return fmt.Sprintf("%#v", v.Interface())
}
