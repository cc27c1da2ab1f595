package operator

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/reconsim/reconsim/sim/controllers/cronjob"
	"github.com/reconsim/reconsim/vtime"
)

// Conversion between the simulator's model types and k8s.io/api types.
//
// The model types mirror upstream's field for field under the same JSON names (a reduced
// set of them), so one converter serves every kind: it pairs the fields of the two Go types
// by JSON name, once per pair of types (a plan, cached), and copies values across, converting
// where the representations differ:
//
//   - vtime.Time (virtual nanoseconds) and metav1.Time (wall clock): virtual time 0 is the
//     simulator's epoch, 2026-01-01T00:00:00Z (cronjob.Epoch). A zero vtime.Time in a
//     non-pointer field is unset, as the model's omitempty treats it, and is a zero
//     metav1.Time; pointers are nil for nil.
//   - metav1.MicroTime (leases) likewise.
//   - resourceVersion: uint64 in the model, a decimal string upstream.
//   - named string and number types (model.Kind and string, types.UID and string, ...):
//     Go conversion.
//
// Converting into an existing value (fromModel with a base) overwrites only the fields the
// model holds; every other field of the base (volumes, env, ports, ...) is kept. Slices of
// structs of equal length are converted element by element into the base's elements, so the
// unmodelled fields of each container survive; a slice whose length changed is rebuilt.

// epoch is the wall-clock time of virtual time 0 (shared with the CronJob controller's
// schedules, so a Job's times and a CronJob's schedule agree).
var epoch = cronjob.Epoch()

// maxConvertDepth bounds the recursion of a conversion plan (the model's types nest about
// eight deep; a cycle through pointers would otherwise never end).
const maxConvertDepth = 32

var (
	timeType      = reflect.TypeFor[metav1.Time]()
	microTimeType = reflect.TypeFor[metav1.MicroTime]()
	vtimeType     = reflect.TypeFor[vtime.Time]()
)

// convertFunc converts src into dst (dst is settable and holds the base value, or zero).
type convertFunc func(dst, src reflect.Value) error

type planKey struct{ dst, src reflect.Type }

var plans sync.Map // planKey -> convertFunc; the cache is the same whatever order fills it

// convertValue converts src into dst (a pointer to the destination), keeping the fields of
// *dst the source type does not have.
func convertValue(dst, src any) error {
	d, s := reflect.ValueOf(dst), reflect.ValueOf(src)
	if d.Kind() != reflect.Pointer || d.IsNil() {
		return fmt.Errorf("convert: destination %T is not a non-nil pointer", dst)
	}
	if s.Kind() == reflect.Pointer {
		if s.IsNil() {
			return fmt.Errorf("convert: nil source %T", src)
		}
		s = s.Elem()
	}
	f, err := planFor(d.Elem().Type(), s.Type(), 0)
	if err != nil {
		return err
	}
	return f(d.Elem(), s)
}

// planFor returns the converter from src to dst values.
func planFor(dst, src reflect.Type, depth int) (convertFunc, error) {
	key := planKey{dst, src}
	if f, ok := plans.Load(key); ok {
		return f.(convertFunc), nil
	}
	if depth > maxConvertDepth {
		return nil, fmt.Errorf("convert: %s from %s nests more than %d deep", dst, src, maxConvertDepth)
	}
	// A recursive type reaches itself through a pointer or slice: store a forwarder first.
	var built convertFunc
	fwd := convertFunc(func(d, s reflect.Value) error { return built(d, s) })
	plans.Store(key, fwd)
	f, err := buildPlan(dst, src, depth+1)
	if err != nil {
		plans.Delete(key)
		return nil, err
	}
	built = f
	plans.Store(key, f)
	return f, nil
}

func buildPlan(dst, src reflect.Type, depth int) (convertFunc, error) {
	switch {
	case (dst == timeType || dst == microTimeType) && src == vtimeType:
		// metav1.MicroTime has metav1.Time's underlying type: one conversion serves both.
		return func(d, s reflect.Value) error {
			v := vtime.Time(s.Int())
			if v == 0 {
				d.Set(reflect.Zero(dst))
				return nil
			}
			d.Set(reflect.ValueOf(metav1.Time{Time: epoch.Add(v.Duration())}).Convert(dst))
			return nil
		}, nil
	case dst == vtimeType && (src == timeType || src == microTimeType):
		return func(d, s reflect.Value) error {
			v, err := toVirtual(s.Convert(timeType).Interface().(metav1.Time))
			if err != nil {
				return err
			}
			d.SetInt(int64(v))
			return nil
		}, nil
	case dst == src && plainType(dst):
		return func(d, s reflect.Value) error { d.Set(s); return nil }, nil
	case dst == src && hasDeepCopyInto(dst):
		m, _ := reflect.PointerTo(dst).MethodByName("DeepCopyInto")
		return func(d, s reflect.Value) error {
			tmp := reflect.New(dst)
			tmp.Elem().Set(s)
			m.Func.Call([]reflect.Value{tmp, d.Addr()})
			return nil
		}, nil
	}
	dk, sk := dst.Kind(), src.Kind()
	switch {
	case dk == reflect.String && sk == reflect.String,
		isInt(dk) && isInt(sk), isUint(dk) && isUint(sk), isFloat(dk) && isFloat(sk),
		dk == reflect.Bool && sk == reflect.Bool:
		return func(d, s reflect.Value) error { d.Set(s.Convert(dst)); return nil }, nil
	case dk == reflect.String && sk == reflect.Uint64:
		// resourceVersion: model uint64, upstream decimal string; 0 is unset ("").
		return func(d, s reflect.Value) error {
			if s.Uint() == 0 {
				d.SetString("")
			} else {
				d.SetString(strconv.FormatUint(s.Uint(), 10))
			}
			return nil
		}, nil
	case dk == reflect.Uint64 && sk == reflect.String:
		return func(d, s reflect.Value) error {
			if s.String() == "" {
				d.SetUint(0)
				return nil
			}
			n, err := strconv.ParseUint(s.String(), 10, 64)
			if err != nil {
				return fmt.Errorf("resourceVersion %q is not a resource version this server issued", s.String())
			}
			d.SetUint(n)
			return nil
		}, nil
	case dk == reflect.Pointer && sk == reflect.Pointer:
		elem, err := planFor(dst.Elem(), src.Elem(), depth)
		if err != nil {
			return nil, err
		}
		return zeroIfNil(dst, func(d, s reflect.Value) error {
			if d.IsNil() || dst.Elem() == timeType || dst.Elem() == microTimeType {
				// A time is replaced whole: a base's *metav1.Time may be shared.
				d.Set(reflect.New(dst.Elem()))
			}
			return elem(d.Elem(), s.Elem())
		}), nil
	case dk == reflect.Pointer:
		elem, err := planFor(dst.Elem(), src, depth)
		if err != nil {
			return nil, err
		}
		// A value the model holds where upstream has a pointer: zero is nil, unless the base
		// already points somewhere (an explicit empty value the user wrote stays explicit).
		return func(d, s reflect.Value) error {
			if d.IsNil() {
				if s.IsZero() {
					return nil
				}
				d.Set(reflect.New(dst.Elem()))
			}
			return elem(d.Elem(), s)
		}, nil
	case sk == reflect.Pointer:
		elem, err := planFor(dst, src.Elem(), depth)
		if err != nil {
			return nil, err
		}
		return zeroIfNil(dst, func(d, s reflect.Value) error { return elem(d, s.Elem()) }), nil
	case dk == reflect.Slice && sk == reflect.Slice:
		elem, err := planFor(dst.Elem(), src.Elem(), depth)
		if err != nil {
			return nil, err
		}
		return zeroIfNil(dst, func(d, s reflect.Value) error {
			n := s.Len()
			out := d
			if d.Len() != n || d.IsNil() {
				out = reflect.MakeSlice(dst, n, n)
			} else {
				// Same length: convert into a copy of the base's elements, keeping their
				// unmodelled fields without writing into the base's backing array.
				out = reflect.MakeSlice(dst, n, n)
				reflect.Copy(out, d)
			}
			for i := range n {
				if err := elem(out.Index(i), s.Index(i)); err != nil {
					return err
				}
			}
			d.Set(out)
			return nil
		}), nil
	case dk == reflect.Map && sk == reflect.Map:
		kf, err := planFor(dst.Key(), src.Key(), depth)
		if err != nil {
			return nil, err
		}
		vf, err := planFor(dst.Elem(), src.Elem(), depth)
		if err != nil {
			return nil, err
		}
		return zeroIfNil(dst, func(d, s reflect.Value) error {
			out := reflect.MakeMapWithSize(dst, s.Len())
			it := s.MapRange()
			for it.Next() {
				k, v := reflect.New(dst.Key()).Elem(), reflect.New(dst.Elem()).Elem()
				if err := kf(k, it.Key()); err != nil {
					return err
				}
				if err := vf(v, it.Value()); err != nil {
					return err
				}
				out.SetMapIndex(k, v)
			}
			d.Set(out)
			return nil
		}), nil
	case dk == reflect.Struct && sk == reflect.Struct:
		return structPlan(dst, src, depth)
	}
	return nil, fmt.Errorf("convert: no conversion from %s to %s", src, dst)
}

// zeroIfNil wraps f, a conversion from a pointer, slice or map, so that a nil source sets
// the zero value of dst (nil stays nil) and f sees only non-nil sources.
func zeroIfNil(dst reflect.Type, f convertFunc) convertFunc {
	return func(d, s reflect.Value) error {
		if s.IsNil() {
			d.Set(reflect.Zero(dst))
			return nil
		}
		return f(d, s)
	}
}

// fieldPair is one field both struct types have (by JSON name), with their index paths.
type fieldPair struct {
	name     string
	dst, src []int
	conv     convertFunc
}

func structPlan(dst, src reflect.Type, depth int) (convertFunc, error) {
	df, sf := jsonFields(dst), jsonFields(src)
	var pairs []fieldPair
	for _, s := range sf {
		var d *jsonField
		for i := range df {
			if df[i].name == s.name {
				d = &df[i]
				break
			}
		}
		if d == nil {
			continue
		}
		conv, err := planFor(d.typ, s.typ, depth)
		if err != nil {
			return nil, fmt.Errorf("%s.%s: %w", dst.Name(), s.name, err)
		}
		pairs = append(pairs, fieldPair{name: s.name, dst: d.index, src: s.index, conv: conv})
	}
	return func(d, s reflect.Value) error {
		for _, p := range pairs {
			if err := p.conv(d.FieldByIndex(p.dst), s.FieldByIndex(p.src)); err != nil {
				return fmt.Errorf("%s: %w", p.name, err)
			}
		}
		return nil
	}, nil
}

type jsonField struct {
	name  string
	index []int
	typ   reflect.Type
}

// jsonFields lists t's exported fields under their JSON names, inline and untagged embedded
// structs flattened (as encoding/json does), "-" fields left out.
func jsonFields(t reflect.Type) []jsonField {
	var out []jsonField
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if f.Anonymous && (name == "" || strings.Contains(opts, "inline")) && f.Type.Kind() == reflect.Struct {
			for _, sub := range jsonFields(f.Type) {
				sub.index = append([]int{i}, sub.index...)
				out = append(out, sub)
			}
			continue
		}
		if name == "" {
			name = f.Name
		}
		out = append(out, jsonField{name: name, index: []int{i}, typ: f.Type})
	}
	return out
}

// toVirtual converts a wall-clock time to virtual time: the zero time is 0 (unset), and a time
// more than ~292 years from the epoch does not fit.
func toVirtual(t metav1.Time) (vtime.Time, error) {
	if t.IsZero() {
		return 0, nil
	}
	d := t.Sub(epoch)
	if d == time.Duration(1<<63-1) || d == time.Duration(-1<<63) {
		return 0, fmt.Errorf("time %s is too far from the simulator's epoch %s", t.UTC().Format(time.RFC3339), epoch.Format(time.RFC3339))
	}
	return vtime.FromDuration(d), nil
}

func isInt(k reflect.Kind) bool {
	return k == reflect.Int || k == reflect.Int8 || k == reflect.Int16 || k == reflect.Int32 || k == reflect.Int64
}

func isUint(k reflect.Kind) bool {
	return k == reflect.Uint || k == reflect.Uint8 || k == reflect.Uint16 || k == reflect.Uint32 || k == reflect.Uint64
}

func isFloat(k reflect.Kind) bool { return k == reflect.Float32 || k == reflect.Float64 }

// plainType reports whether values of t hold no references (pointers, slices, maps,
// interfaces, channels, functions), so assignment copies them fully. Strings are immutable.
func plainType(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Map, reflect.Interface, reflect.Chan, reflect.Func, reflect.UnsafePointer:
		return false
	case reflect.Array:
		return plainType(t.Elem())
	case reflect.Struct:
		for i := range t.NumField() {
			if !plainType(t.Field(i).Type) {
				return false
			}
		}
	}
	return true
}

// hasDeepCopyInto reports whether *t has a generated DeepCopyInto(*t) method.
func hasDeepCopyInto(t reflect.Type) bool {
	m, ok := reflect.PointerTo(t).MethodByName("DeepCopyInto")
	return ok && m.Type.NumIn() == 2 && m.Type.In(1) == reflect.PointerTo(t)
}
