package scenarios

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/reconsim/reconsim/internal/flagtab"
	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim/metrics"
	"github.com/reconsim/reconsim/vtime"
)

// SchemaID is the $id of the scenario JSON Schema.
const SchemaID = "https://reconsim.dev/schemas/scenario-v1alpha1.json"

// SchemaFile is where the generated schema is checked in, relative to the repository root.
const SchemaFile = "scenarios/schema.json"

// Schema returns the JSON Schema (draft-07) of the scenario format, generated from the Go
// types, the flag registry and the key documentation. It describes the YAML as written: a
// timeline entry is `action: <name>` with the action's arguments beside it (a oneOf with one
// branch per action, told apart by the const action), a condition is `condition: <name>`
// with its arguments (or a bare name), a load shape is `type: <name>` with its fields.
// Manifests are described per kind from the model types, permissively (fields the simulator
// does not model are warnings, not errors). The output is deterministic: keys sorted, two
// spaces of indentation, a final newline. Editors using yaml-language-server pick it up with
// a `# yaml-language-server: $schema=...` comment.
func Schema() []byte {
	g := &schemaGen{defs: map[string]any{}}
	root := g.object(reflect.TypeFor[Scenario](), "")
	root["$schema"] = "http://json-schema.org/draft-07/schema#"
	root["$id"] = SchemaID
	root["title"] = "reconsim scenario (" + APIVersion + ")"
	root["description"] = "A reconsim scenario: a cluster, the objects in it, a timeline of actions and faults, and expectations. See docs/scenario.md."
	root["definitions"] = g.defs
	data, err := json.MarshalIndent(root, "", "  ")
	if err != nil {
		panic("scenarios: the schema does not encode: " + err.Error())
	}
	return append(data, '\n')
}

type schemaGen struct {
	defs map[string]any
}

func ref(name string) map[string]any { return map[string]any{"$ref": "#/definitions/" + name} }

// describe attaches the documentation of key to schema s, keeping $ref schemas intact (in
// draft-07 keywords beside $ref are ignored, so the reference moves into allOf).
func describeSchema(s map[string]any, key string) map[string]any {
	d, ok := lookupKeyDoc(key)
	if !ok || d.Doc == "" {
		return s
	}
	text := d.Doc
	if d.Default != "" {
		text += " Default: " + d.Default + "."
	}
	if _, isRef := s["$ref"]; isRef {
		return map[string]any{"description": text, "allOf": []any{s}}
	}
	out := make(map[string]any, len(s)+1)
	for k, v := range s { //detlint:ordered a copy into a map
		out[k] = v
	}
	out["description"] = text
	return out
}

// define adds a definition once and returns a reference to it.
func (g *schemaGen) define(name string, build func() map[string]any) map[string]any {
	if _, ok := g.defs[name]; !ok {
		g.defs[name] = map[string]any{} // placeholder against recursion
		g.defs[name] = build()
	}
	return ref(name)
}

// durationPattern matches what time.ParseDuration accepts.
const durationPattern = `^[-+]?(0|((\d+(\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h))+)$`

// quantityPattern is upstream's quantity pattern (the OpenAPI of resource.Quantity).
const quantityPattern = `^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$`

func (g *schemaGen) duration() map[string]any {
	return g.define("duration", func() map[string]any {
		return map[string]any{
			"description": "A Go duration with a unit: 90s, 1m30s, 500ms, 2h (0 needs none).",
			"oneOf": []any{
				map[string]any{"type": "string", "pattern": durationPattern},
				map[string]any{"const": 0},
			},
		}
	})
}

func (g *schemaGen) quantity() map[string]any {
	return g.define("quantity", func() map[string]any {
		return map[string]any{
			"description": "A Kubernetes quantity: \"4\", 3900m, 16Gi.",
			"oneOf": []any{
				map[string]any{"type": "string", "pattern": quantityPattern},
				map[string]any{"type": "number"},
			},
		}
	})
}

func (g *schemaGen) distribution() map[string]any {
	return g.define("distribution", func() map[string]any {
		props := map[string]any{"kind": map[string]any{"enum": []any{"constant", "uniform", "exponential", "lognormal"}}}
		for _, k := range distKeys {
			props[k] = g.duration()
		}
		return map[string]any{
			"description": "A latency distribution: a duration (constant), uniform(1ms..5ms), exponential(min=1ms,mean=3ms), lognormal(median=2ms,p99=20ms,max=1s), or a mapping {kind: lognormal, median: 2ms, p99: 20ms}.",
			"oneOf": []any{
				map[string]any{"type": "string", "pattern": `^\s*([-+]?(0|((\d+(\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h))+)|(constant|uniform|exponential|lognormal)\s*\(.*\))\s*$`},
				map[string]any{"type": "object", "properties": props, "additionalProperties": false},
			},
		}
	})
}

// object returns the schema of a struct written as a plain mapping, its properties
// documented under key.
func (g *schemaGen) object(t reflect.Type, key string) map[string]any {
	props := map[string]any{}
	var required []any
	for _, f := range argFields(t) {
		fk := joinKey(key, f.name)
		props[f.name] = describeSchema(g.value(f.typ, fk), fk)
		if f.required() {
			required = append(required, f.name)
		}
	}
	s := map[string]any{"type": "object", "properties": props, "additionalProperties": false}
	if len(required) > 0 {
		s["required"] = required
	}
	for k, c := range structConstraints[t] { //detlint:ordered a copy into a map
		s[k] = c
	}
	return s
}

// structConstraints are rules between the fields of a struct that its tags do not say.
var structConstraints = map[reflect.Type]map[string]any{
	reflect.TypeFor[metrics.Spike](): {"oneOf": []any{map[string]any{"required": []any{"factor"}}, map[string]any{"required": []any{"value"}}}},
}

// value returns the schema of a value of type t at key.
func (g *schemaGen) value(t reflect.Type, key string) map[string]any {
	if t != yamlNodePtrType && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t {
	case durationType:
		return g.duration()
	case distributionType:
		return g.distribution()
	case resourceListType:
		return map[string]any{"type": "object", "additionalProperties": g.quantity()}
	case taintsType:
		return map[string]any{"type": "array", "items": g.define("taint", func() map[string]any {
			return map[string]any{"type": "object", "required": []any{"key", "effect"}, "additionalProperties": false,
				"properties": map[string]any{
					"key":    map[string]any{"type": "string"},
					"value":  map[string]any{"type": "string"},
					"effect": map[string]any{"enum": toAny(taintEffects)},
				}}
		})}
	case yamlNodePtrType:
		switch key {
		case "timeline.rollout.template":
			return g.model(reflect.TypeFor[model.PodTemplateSpec]())
		case "timeline.patch.body":
			return map[string]any{"type": []any{"object", "array"}}
		case "timeline.edit.set":
			return map[string]any{"type": "object"}
		}
		return g.manifest()
	case componentsType:
		return g.components()
	case atType:
		return g.at()
	case nodeTargetType:
		return g.define("nodeTarget", func() map[string]any { return describeSchema(g.object(t, "nodes"), "nodes") })
	case objectRefType:
		return g.define("objectRef", func() map[string]any { return describeSchema(g.object(t, "target"), "target") })
	case windowType:
		return g.define("window", func() map[string]any { return describeSchema(g.object(t, "window"), "window") })
	case shapeType:
		return g.loadShape()
	case jsonValueType:
		return map[string]any{"type": []any{"string", "number", "boolean", "null"}}
	case quantityType:
		return g.quantity()
	case reflect.TypeFor[TimelineEntry]():
		return g.timelineEntry()
	case expectationType:
		return g.expectation()
	case reflect.TypeFor[ConditionExpectation]():
		return g.conditionExpectation()
	case kindType:
		return kindSchema(toAny(kindNames()))
	}
	enum := func(s map[string]any) map[string]any {
		if d, ok := lookupKeyDoc(key); ok && len(d.Enum) > 0 {
			s["enum"] = enumValues(d.Enum, t)
		}
		return s
	}
	switch t.Kind() {
	case reflect.String:
		return enum(map[string]any{"type": "string"})
	case reflect.Bool:
		return map[string]any{"type": "boolean"}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return enum(map[string]any{"type": "integer"})
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return map[string]any{"type": "integer", "minimum": 0}
	case reflect.Float32, reflect.Float64:
		return map[string]any{"type": "number"}
	case reflect.Slice:
		items := g.value(t.Elem(), key)
		if d, ok := lookupKeyDoc(key); ok && len(d.Enum) > 0 && t.Elem().Kind() == reflect.String {
			items = map[string]any{"enum": toAny(d.Enum)}
		}
		return map[string]any{"type": "array", "items": items}
	case reflect.Map:
		return map[string]any{"type": "object", "additionalProperties": g.value(t.Elem(), key)}
	case reflect.Struct:
		return g.object(t, key)
	}
	panic("scenarios: no schema for Go type " + t.String())
}

// enumValues writes an enum's values as the JSON type of t (integers for int fields).
func enumValues(vals []string, t reflect.Type) []any {
	out := make([]any, len(vals))
	for i, v := range vals {
		out[i] = v
		if t.Kind() >= reflect.Int && t.Kind() <= reflect.Int64 {
			if n, err := strconv.Atoi(v); err == nil {
				out[i] = n
			}
		}
	}
	return out
}

func toAny(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

func (g *schemaGen) at() map[string]any {
	return g.define("at", func() map[string]any {
		return map[string]any{
			"oneOf": []any{
				g.duration(),
				map[string]any{"const": "converged"},
				map[string]any{"type": "object", "required": []any{"after"}, "additionalProperties": false,
					"properties": map[string]any{"after": map[string]any{"type": "string"}, "delay": g.duration()}},
				map[string]any{"type": "object", "required": []any{"converged"}, "additionalProperties": false,
					"properties": map[string]any{"converged": map[string]any{"const": true}, "delay": g.duration()}},
				map[string]any{"type": "object", "required": []any{"write", "by"}, "additionalProperties": false,
					"properties": map[string]any{"write": map[string]any{"type": "integer", "minimum": 1, "maximum": MaxWriteIndex},
						"by": map[string]any{"enum": toAny(restartableComponents())}, "delay": g.duration()}},
			},
		}
	})
}

func (g *schemaGen) components() map[string]any {
	return g.define("components", func() map[string]any {
		props := map[string]any{}
		for _, c := range componentNames {
			flagProps := map[string]any{}
			for _, f := range flags {
				if f.Component != c {
					continue
				}
				var s map[string]any
				switch f.Type {
				case flagtab.Duration:
					s = map[string]any{"allOf": []any{g.duration()}}
				case flagtab.Int:
					s = map[string]any{"type": "integer"}
				case flagtab.Float:
					s = map[string]any{"type": "number"}
				case flagtab.Bool:
					s = map[string]any{"type": "boolean"}
				case flagtab.String:
					s = map[string]any{"type": "string"}
				case flagtab.Dist:
					s = map[string]any{"allOf": []any{g.distribution()}}
				}
				s["description"] = fmt.Sprintf("%s Default: %s (Kubernetes %s). Source: %s.", f.Help, f.Default, DefaultUpstreamVersion, f.Source)
				flagProps[f.Name] = s
			}
			props[c] = map[string]any{"type": "object", "properties": flagProps, "additionalProperties": false}
		}
		return map[string]any{"type": "object", "properties": props, "additionalProperties": false}
	})
}

// manifest describes a Kubernetes manifest: apiVersion and kind, then each kind's fields.
func (g *schemaGen) manifest() map[string]any {
	return g.define("manifest", func() map[string]any {
		var kinds []any
		var perKind []any
		for _, ki := range model.Kinds() {
			kinds = append(kinds, string(ki.Kind))
			perKind = append(perKind, map[string]any{
				"if":   map[string]any{"properties": map[string]any{"kind": map[string]any{"const": string(ki.Kind)}}, "required": []any{"kind"}},
				"then": map[string]any{"allOf": []any{g.model(reflect.TypeOf(ki.New()).Elem())}, "properties": map[string]any{"apiVersion": map[string]any{"const": ki.APIVersion}}},
			})
		}
		return map[string]any{
			"description": "A Kubernetes manifest as kubectl takes it. Fields the simulator does not model are accepted with a warning.",
			"type":        "object",
			"required":    []any{"apiVersion", "kind"},
			"properties":  map[string]any{"apiVersion": map[string]any{"type": "string"}, "kind": kindSchema(kinds)},
			"allOf":       perKind,
			// A kind that is not built in is a custom resource: its apiVersion names a group
			// with a dot, which a CustomResourceDefinition in the scenario serves.
			"anyOf": []any{
				map[string]any{"properties": map[string]any{"kind": map[string]any{"enum": kinds}}},
				map[string]any{"properties": map[string]any{"apiVersion": map[string]any{"pattern": "^[^/]+\\.[^/]+/[^/]+$"}}},
			},
		}
	})
}

var (
	simTimeType     = reflect.TypeFor[vtime.Time]()
	quantityType    = reflect.TypeFor[resource.Quantity]()
	intOrStringType = reflect.TypeFor[intstr.IntOrString]()
)

// kindSchema accepts a built-in kind (offered by name) or the kind of a custom resource,
// which a CustomResourceDefinition in the scenario defines.
func kindSchema(builtin []any) map[string]any {
	return map[string]any{"anyOf": []any{
		map[string]any{"enum": builtin},
		map[string]any{"type": "string", "pattern": "^[A-Za-z][A-Za-z0-9]{0,62}$", "description": "the kind of a custom resource"},
	}}
}

// model describes a model (or apimachinery) type by its JSON fields, permissively.
func (g *schemaGen) model(t reflect.Type) map[string]any {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t {
	case simTimeType:
		return map[string]any{"type": []any{"string", "number"}}
	case durationType:
		return g.duration()
	case quantityType:
		return g.quantity()
	case intOrStringType:
		return map[string]any{"type": []any{"string", "integer"}}
	case jsonValueType:
		return map[string]any{}
	case reflect.TypeFor[model.JSONSchemaPropsOrBool]():
		return map[string]any{"type": []any{"boolean", "object"}}
	}
	switch t.Kind() {
	case reflect.String:
		return map[string]any{"type": "string"}
	case reflect.Bool:
		return map[string]any{"type": "boolean"}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return map[string]any{"type": "integer"}
	case reflect.Float32, reflect.Float64:
		return map[string]any{"type": "number"}
	case reflect.Slice:
		return map[string]any{"type": "array", "items": g.model(t.Elem())}
	case reflect.Map:
		return map[string]any{"type": "object", "additionalProperties": g.model(t.Elem())}
	case reflect.Interface:
		return map[string]any{}
	case reflect.Struct:
		name := "k8s." + t.Name()
		if !strings.HasSuffix(t.PkgPath(), "/model") {
			name = "k8s." + t.PkgPath()[strings.LastIndexByte(t.PkgPath(), '/')+1:] + "." + t.Name()
		}
		return g.define(name, func() map[string]any {
			props := map[string]any{}
			g.modelFields(t, props)
			return map[string]any{"type": "object", "properties": props}
		})
	}
	return map[string]any{}
}

// modelFields adds the JSON fields of struct t to props, inlining untagged embedded structs.
func (g *schemaGen) modelFields(t reflect.Type, props map[string]any) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if !f.IsExported() || tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct {
			g.modelFields(f.Type, props)
			continue
		}
		if name == "" {
			name = f.Name
		}
		props[name] = g.model(f.Type)
	}
}

// unionConstraints are the rules between a union member's arguments that the struct tags do
// not say, by member key, as JSON Schema keywords.
var unionConstraints = map[string]map[string]any{
	"timeline.apply":   {"oneOf": []any{map[string]any{"required": []any{"manifest"}}, map[string]any{"required": []any{"file"}}}},
	"timeline.rollout": {"anyOf": []any{map[string]any{"required": []any{"image"}}, map[string]any{"required": []any{"template"}}, map[string]any{"required": []any{"annotations"}}}},
	"timeline.watch-stall": {"oneOf": []any{
		map[string]any{"required": []any{"component"}}, map[string]any{"required": []any{"clients"}}}},
	"timeline.watch-coalesce": {"oneOf": []any{
		map[string]any{"required": []any{"component"}}, map[string]any{"required": []any{"clients"}}}},
	"condition.pods-at-most": {"oneOf": []any{
		map[string]any{"required": []any{"count"}}, map[string]any{"required": []any{"replicasPlusMaxSurge"}}}},
	"condition.replicas-at-most": {"oneOf": []any{
		map[string]any{"required": []any{"count"}}, map[string]any{"required": []any{"replicasPlusMaxSurge"}}}},
	"condition.available-at-least": {"oneOf": []any{
		map[string]any{"required": []any{"count"}}, map[string]any{"required": []any{"replicasMinusMaxUnavailable"}}}},
}

// branches returns one schema per member of union type u, written flat: disc holds the
// member's name (a const) and its arguments sit beside it, with the fixed properties of the
// enclosing mapping.
func (g *schemaGen) branches(u reflect.Type, disc, keyPrefix string, fixed map[string]any, fixedRequired []string) []any {
	var out []any
	for _, v := range unionVariants(u) {
		mk := joinKey(keyPrefix, v.name)
		props := map[string]any{disc: map[string]any{"const": v.name}}
		for k, s := range fixed { //detlint:ordered a copy into a map
			props[k] = s
		}
		required := []any{disc}
		for _, r := range fixedRequired {
			required = append(required, r)
		}
		for _, f := range v.fields {
			ak := mk + "." + f.name
			props[f.name] = describeSchema(g.value(f.typ, ak), ak)
			if f.required() {
				required = append(required, f.name)
			}
		}
		b := map[string]any{"title": v.name, "type": "object", "properties": props, "required": required, "additionalProperties": false}
		if d, ok := lookupKeyDoc(mk); ok {
			b["description"] = d.Doc
		}
		for k, c := range unionConstraints[mk] { //detlint:ordered a copy into a map
			b[k] = c
		}
		out = append(out, b)
	}
	return out
}

func (g *schemaGen) timelineEntry() map[string]any {
	return g.define("timelineEntry", func() map[string]any {
		fixed := map[string]any{
			"name": describeSchema(map[string]any{"type": "string"}, "timeline.name"),
			"at":   describeSchema(g.at(), "timeline.at"),
			"as":   describeSchema(map[string]any{"type": "string"}, "timeline.as"),
		}
		return map[string]any{
			"type":       "object",
			"required":   []any{"at", "action"},
			"properties": map[string]any{"action": describeSchema(map[string]any{"enum": toAny(ActionNames())}, "timeline.action")},
			"oneOf":      g.branches(actionType, "action", "timeline", fixed, []string{"at"}),
		}
	})
}

func (g *schemaGen) conditionExpectation() map[string]any {
	return g.define("conditionExpectation", func() map[string]any {
		var bare []any
		for _, v := range unionVariants(conditionType) {
			needsArgs := false
			for _, f := range v.fields {
				needsArgs = needsArgs || f.required()
			}
			if !needsArgs {
				bare = append(bare, v.name)
			}
		}
		fixed := map[string]any{"within": describeSchema(g.value(windowType, "window"), "expect.eventually.within")}
		oneOf := append([]any{map[string]any{"enum": bare, "description": "A condition without arguments, by name."}},
			g.branches(conditionType, "condition", "condition", fixed, nil)...)
		return map[string]any{"oneOf": oneOf}
	})
}

func (g *schemaGen) loadShape() map[string]any {
	return g.define("loadShape", func() map[string]any {
		s := describeSchema(g.object(shapeType, "shape"), "shape")
		var oneOf []any
		for _, f := range argFields(shapeType) {
			oneOf = append(oneOf, map[string]any{"required": []any{f.name}})
		}
		s["oneOf"] = oneOf
		return s
	})
}

func (g *schemaGen) expectation() map[string]any {
	return g.define("expectation", func() map[string]any {
		s := g.object(expectationType, "expect")
		var oneOf []any
		for _, k := range ExpectationKinds() {
			oneOf = append(oneOf, map[string]any{"required": []any{k}})
		}
		s["required"] = []any{"name"}
		s["oneOf"] = oneOf
		props := s["properties"].(map[string]any)
		props["metric"] = describeSchema(map[string]any{
			"allOf": []any{g.object(reflect.TypeFor[MetricExpectation](), "expect.metric")},
			"anyOf": []any{map[string]any{"required": []any{"max"}}, map[string]any{"required": []any{"min"}}},
		}, "expect.metric")
		verdict := g.object(verdictType, "expect.verdict")
		verdict["minProperties"] = 1
		props["verdict"] = describeSchema(map[string]any{
			"oneOf": []any{map[string]any{"enum": []any{string(VerdictNone), string(VerdictAny)}}, verdict},
		}, "expect.verdict")
		return s
	})
}
