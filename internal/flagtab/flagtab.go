package flagtab

import (
	"fmt"
	"reflect"
	"time"
)

// Type is the type of a flag's value, written as on the command line.
type Type string

// The flag types: durations with a unit ("50s"), integers, floats, true/false, strings, and
// latency distributions (scenarios.ParseDist).
const (
	Duration Type = "duration"
	Int      Type = "int"
	Float    Type = "float"
	Bool     Type = "bool"
	String   Type = "string"
	Dist     Type = "dist"
)

// Flag is one upstream flag of a component whose Config is C.
type Flag[C any] struct {
	// Name is the upstream command-line flag name, without dashes.
	Name string
	Type Type
	// Default is the default for the upstream version the simulator follows by default,
	// written as on the command line. It must equal the field's value in the table's Defaults.
	Default string
	// Source cites where the default comes from (upstream file, function or flag at a release).
	Source string
	// Field is the name of the Config field the flag sets.
	Field string
	// Ptr returns a pointer to that field of c.
	Ptr func(c *C) any
}

// Table is a component's flag table.
type Table[C any] struct {
	// Component is the scenario component the flags belong to ("kube-controller-manager").
	Component string
	// Defaults returns the component's DefaultConfig.
	Defaults func() C
	Flags    []Flag[C]
}

// Info is a flag of a table without its Config type.
type Info struct {
	Component, Name string
	Type            Type
	Default, Source string
	Field           string
	// Config is the Go type whose Field the flag sets ("node.Config").
	Config string
}

// Value is a flag's effective value, read with the accessor of its Type.
type Value interface {
	Int() int64
	Float() float64
	Duration() time.Duration
	Bool() bool
	StringValue() string
	// Dist returns a distribution flag's value (the kernel's sim.Dist).
	Dist() any
}

// Described is what every Table provides whatever its Config type.
type Described interface {
	Infos() []Info
	// Mismatches sets each flag's documented value (given by value) on a copy of the
	// component's Defaults and reports the flags where that changed the field.
	Mismatches(value func(Info) Value) []string
}

// For returns the table as component's: for flags that several components take alike
// (component-base's --leader-elect* of kube-controller-manager and kube-scheduler).
func (t Table[C]) For(component string) Table[C] {
	t.Component = component
	return t
}

// Infos returns the table's flags, in table order.
func (t Table[C]) Infos() []Info {
	out := make([]Info, len(t.Flags))
	for i, f := range t.Flags {
		out[i] = t.info(f)
	}
	return out
}

func (t Table[C]) info(f Flag[C]) Info {
	return Info{Component: t.Component, Name: f.Name, Type: f.Type, Default: f.Default, Source: f.Source, Field: f.Field,
		Config: reflect.TypeFor[C]().String()}
}

// Apply sets every field the table names on cfg, from value.
func (t Table[C]) Apply(cfg *C, value func(Info) Value) {
	t.ApplySome(cfg, func(in Info) (Value, bool) { return value(in), true })
}

// ApplySome sets the fields of the flags for which value reports true (the flags a scenario
// set explicitly, say) and leaves the others as they are.
func (t Table[C]) ApplySome(cfg *C, value func(Info) (Value, bool)) {
	for _, f := range t.Flags {
		if v, ok := value(t.info(f)); ok {
			set(f, f.Ptr(cfg), v)
		}
	}
}

// Mismatches implements Described.
func (t Table[C]) Mismatches(value func(Info) Value) []string {
	var out []string
	for _, f := range t.Flags {
		want := t.Defaults()
		got := t.Defaults()
		set(f, f.Ptr(&got), value(t.info(f)))
		w := reflect.ValueOf(f.Ptr(&want)).Elem().Interface()
		g := reflect.ValueOf(f.Ptr(&got)).Elem().Interface()
		if !reflect.DeepEqual(w, g) {
			out = append(out, fmt.Sprintf("%s.%s: documented default %q sets %s to %v; DefaultConfig has %v", t.Component, f.Name, f.Default, f.Field, g, w))
		}
	}
	return out
}

// set stores v in the field ptr points to, converting to the field's type.
func set[C any](f Flag[C], ptr any, v Value) {
	field := reflect.ValueOf(ptr)
	if field.Kind() != reflect.Pointer {
		panic(fmt.Sprintf("flagtab: %s: Ptr returned %T, not a pointer", f.Name, ptr))
	}
	field = field.Elem()
	kind := field.Kind()
	switch {
	case f.Type == Duration && kind == reflect.Int64:
		field.SetInt(int64(v.Duration()))
	case f.Type == Int && kind >= reflect.Int && kind <= reflect.Int64:
		field.SetInt(v.Int())
	case f.Type == Float && (kind == reflect.Float32 || kind == reflect.Float64):
		field.SetFloat(v.Float())
	case f.Type == Bool && kind == reflect.Bool:
		field.SetBool(v.Bool())
	case f.Type == String && kind == reflect.String:
		field.SetString(v.StringValue())
	case f.Type == Dist && reflect.TypeOf(v.Dist()) == field.Type():
		field.Set(reflect.ValueOf(v.Dist()))
	default:
		panic(fmt.Sprintf("flagtab: %s flag %s cannot set a field of type %s", f.Type, f.Name, field.Type()))
	}
}
