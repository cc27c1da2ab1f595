package scenarios

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim/metrics"
)

// Key is one key of the scenario format, derived from the Go types and documented in the key
// table. `sim explain`, the JSON Schema and the reference in docs/scenario.md are made from
// Keys, so they agree with the loader.
type Key struct {
	// Path is the canonical key. Keys are YAML names joined by dots, without list indexes
	// (cluster.nodeGroups.count); a union member is written by its name in place of the
	// discriminator (timeline.drain, timeline.drain.timeout, timeline.load.shape.ramp);
	// the built-in conditions and the shared types are documented once, at the top level
	// (condition.pods-at-most, nodes.random, target.kind, window.within).
	Path string
	// Role is "field", "action", "condition", "expectation" (a kind of expect entry) or
	// "shape" (a load shape).
	Role string
	// Type says what the value is: "duration", "list of strings", "node target", ...
	Type string
	// Required is true when the key must be written (where its parent is).
	Required bool
	// Enum lists the accepted values of a closed set.
	Enum []string
	// Doc, Default and Example document the key (Default is "" when there is none to say).
	Doc, Default, Example string
	// Children are the paths of the keys directly inside this one, in order.
	Children []string
}

var (
	keysOnce  sync.Once
	keysList  []Key
	keysIndex map[string]int
)

// Keys returns every key of the scenario format, parents before their children, in the order
// of the Go types; then the shared types nodes, target, window and condition. The slice is a
// copy.
func Keys() []Key {
	keysOnce.Do(buildKeys)
	out := make([]Key, len(keysList))
	copy(out, keysList)
	return out
}

// LookupKey returns the key with the canonical path, if there is one.
func LookupKey(path string) (Key, bool) {
	keysOnce.Do(buildKeys)
	i, ok := keysIndex[path]
	if !ok {
		return Key{}, false
	}
	return keysList[i], true
}

type keyWalker struct {
	keys  []Key
	index map[string]int
}

func buildKeys() {
	w := &keyWalker{index: map[string]int{}}
	w.structKeys(reflect.TypeFor[Scenario](), "")
	w.add(Key{Path: "nodes", Role: "field", Type: "node target"})
	w.structKeys(reflect.TypeFor[NodeTarget](), "nodes")
	w.add(Key{Path: "target", Role: "field", Type: "object reference"})
	w.structKeys(reflect.TypeFor[ObjectRef](), "target")
	w.add(Key{Path: "window", Role: "field", Type: "window"})
	w.structKeys(reflect.TypeFor[Window](), "window")
	w.add(Key{Path: "shape", Role: "field", Type: "load shape"})
	w.structKeys(shapeType, "shape")
	w.add(Key{Path: "condition", Role: "field", Type: "condition"})
	w.members(reflect.TypeFor[Condition](), "condition", "condition")
	keysList, keysIndex = w.keys, w.index
}

// parentKey drops the last segment of a key path.
func parentKey(path string) string {
	if i := strings.LastIndexByte(path, '.'); i >= 0 {
		return path[:i]
	}
	return ""
}

func joinKey(prefix, name string) string {
	if prefix == "" {
		return name
	}
	return prefix + "." + name
}

func (w *keyWalker) add(k Key) {
	if d, ok := lookupKeyDoc(k.Path); ok {
		k.Doc, k.Default, k.Example = d.Doc, d.Default, d.Example
		if d.Type != "" {
			k.Type = d.Type
		}
		if len(d.Enum) > 0 {
			k.Enum = d.Enum
		}
	}
	if _, dup := w.index[k.Path]; dup {
		panic("scenarios: key " + k.Path + " is derived twice")
	}
	w.index[k.Path] = len(w.keys)
	w.keys = append(w.keys, k)
	if i, ok := w.index[parentKey(k.Path)]; ok && parentKey(k.Path) != "" {
		w.keys[i].Children = append(w.keys[i].Children, k.Path)
	}
}

var (
	durationType     = reflect.TypeFor[time.Duration]()
	distributionType = reflect.TypeFor[Distribution]()
	resourceListType = reflect.TypeFor[model.ResourceList]()
	taintsType       = reflect.TypeFor[[]model.Taint]()
	componentsType   = reflect.TypeFor[Components]()
	atType           = reflect.TypeFor[At]()
	nodeTargetType   = reflect.TypeFor[NodeTarget]()
	objectRefType    = reflect.TypeFor[ObjectRef]()
	windowType       = reflect.TypeFor[Window]()
	actionType       = reflect.TypeFor[Action]()
	conditionType    = reflect.TypeFor[Condition]()
	expectationType  = reflect.TypeFor[Expectation]()
	kindType         = reflect.TypeFor[model.Kind]()
	verdictType      = reflect.TypeFor[VerdictExpectation]()
	aggregateType    = reflect.TypeFor[MetricAggregate]()
	stringMapType    = reflect.TypeFor[map[string]string]()
	shapeType        = reflect.TypeFor[metrics.Shape]()
	jsonValueType    = reflect.TypeFor[model.JSON]()
)

// typeWord says in words what a value of type t is.
func typeWord(t reflect.Type) string {
	if t != yamlNodePtrType && t.Kind() == reflect.Pointer {
		return typeWord(t.Elem())
	}
	switch t {
	case durationType:
		return "duration"
	case distributionType:
		return "distribution"
	case resourceListType:
		return "resource quantities"
	case taintsType:
		return "list of taints"
	case yamlNodePtrType:
		return "manifest"
	case componentsType:
		return "component flags"
	case atType:
		return "time"
	case nodeTargetType:
		return "node target"
	case objectRefType:
		return "object reference"
	case windowType:
		return "window"
	case shapeType:
		return "load shape"
	case jsonValueType:
		return "value"
	case quantityType:
		return "quantity"
	case actionType:
		return "action name"
	case conditionType:
		return "condition name"
	case kindType:
		return "kind"
	case verdictType:
		return "verdict expectation"
	case aggregateType:
		return "aggregate"
	case stringMapType:
		return "mapping of strings"
	}
	switch t.Kind() {
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "integer"
	case reflect.Float32, reflect.Float64:
		return "number"
	case reflect.Slice:
		if t.Elem().Kind() == reflect.String {
			return "list of strings"
		}
		return "list of mappings"
	}
	return "mapping"
}

// structKeys adds the keys of struct type t under prefix. The pointer fields of Expectation
// are its kinds.
func (w *keyWalker) structKeys(t reflect.Type, prefix string) {
	for _, f := range argFields(t) {
		if t == expectationType && f.typ.Kind() == reflect.Pointer {
			w.field(joinKey(prefix, f.name), f.typ, false, "expectation")
			continue
		}
		w.field(joinKey(prefix, f.name), f.typ, f.required(), "field")
	}
}

// field adds the key at path of type t and the keys inside it.
func (w *keyWalker) field(path string, t reflect.Type, required bool, role string) {
	k := Key{Path: path, Role: role, Type: typeWord(t), Required: required}
	switch t {
	case actionType:
		k.Enum = ActionNames()
	case conditionType:
		k.Enum = ConditionNames()
	}
	w.add(k)
	if t != yamlNodePtrType && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t {
	case actionType:
		w.members(t, parentKey(path), "action")
		return
	case conditionType, nodeTargetType, objectRefType, windowType, atType, componentsType,
		distributionType, durationType, resourceListType, taintsType, shapeType, quantityType, jsonValueType:
		return
	}
	switch {
	case t.Kind() == reflect.Struct:
		w.structKeys(t, path)
	case t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Struct:
		w.structKeys(t.Elem(), path)
	}
}

// members adds a key per member of the union type t under prefix, and their arguments.
func (w *keyWalker) members(t reflect.Type, prefix, role string) {
	for _, v := range unionVariants(t) {
		path := joinKey(prefix, v.name)
		w.add(Key{Path: path, Role: role, Type: role})
		for _, f := range v.fields {
			w.field(path+"."+f.name, f.typ, f.required(), "field")
		}
	}
}

// resolveKey finds the key a user means: the canonical path; a path through a condition
// (expect.always.pods-at-most, expect.pods-at-most -> condition.pods-at-most); a path that
// ends with what was asked (node-crash -> timeline.node-crash). It returns the candidates when
// several keys end that way.
func resolveKey(q string) (Key, []string, bool) {
	keysOnce.Do(buildKeys)
	if k, ok := LookupKey(q); ok {
		return k, nil, true
	}
	segs := strings.Split(q, ".")
	for i := range segs {
		if k, ok := LookupKey("condition." + strings.Join(segs[i:], ".")); ok && i > 0 && (segs[0] == "expect" || segs[0] == "condition") {
			return k, nil, true
		}
	}
	var matches []string
	for _, k := range keysList {
		if strings.HasSuffix(k.Path, "."+q) {
			matches = append(matches, k.Path)
		}
	}
	if len(matches) == 1 {
		return keysList[keysIndex[matches[0]]], nil, true
	}
	return Key{}, matches, false
}

// explainKey writes the explanation of a key.
func explainKey(k Key) string {
	var b strings.Builder
	what := k.Role
	if k.Role == "field" {
		what = k.Type
		if k.Required {
			what += ", required"
		} else {
			what += ", optional"
		}
	}
	fmt.Fprintf(&b, "%s (%s)\n", k.Path, what)
	writeWrapped(&b, "  ", k.Doc, 92)
	if len(k.Enum) > 0 {
		fmt.Fprintf(&b, "  values     %s\n", strings.Join(k.Enum, ", "))
	}
	if k.Default != "" {
		fmt.Fprintf(&b, "  default    %s\n", k.Default)
	}
	if slices.Contains(scenarioOverrideKeys, k.Path) {
		fmt.Fprintf(&b, "  set it     --set %s=VALUE on `sim run`\n", k.Path)
	}
	if len(k.Children) > 0 {
		title := "keys"
		if k.Role == "action" || k.Role == "condition" || k.Role == "shape" {
			title = "arguments"
		}
		fmt.Fprintf(&b, "  %s\n", title)
		width := 0
		for _, c := range k.Children {
			width = max(width, len(c)-len(k.Path)-1)
		}
		for _, c := range k.Children {
			ck, _ := LookupKey(c)
			desc := ck.Type
			switch {
			case ck.Role != "field":
				desc = summary(ck.Doc, 72)
			case ck.Required:
				desc += ", required"
			case ck.Default != "":
				desc += ", default " + ck.Default
			}
			fmt.Fprintf(&b, "    %-*s  %s\n", width, c[len(k.Path)+1:], desc)
		}
	}
	if shared := sharedOf(k); shared != "" {
		fmt.Fprintf(&b, "  see        sim explain %s\n", shared)
	}
	if k.Example != "" {
		b.WriteString("  example\n")
		for _, line := range strings.Split(k.Example, "\n") {
			fmt.Fprintf(&b, "    %s\n", line)
		}
	}
	if len(k.Children) > 0 {
		fmt.Fprintf(&b, "  more       sim explain %s\n", k.Children[0])
	}
	return b.String()
}

// summary returns the first sentence of doc, cut to at most width bytes at a word boundary.
func summary(doc string, width int) string {
	first, _, _ := strings.Cut(doc, ". ")
	first = strings.TrimSuffix(first, ".")
	if len(first) <= width {
		return first
	}
	cut := strings.LastIndexByte(first[:width-3], ' ')
	if cut <= 0 {
		cut = width - 3
	}
	return first[:cut] + "..."
}

// sharedOf names the shared key that documents a key's value (nodes, target, window,
// condition), or "".
func sharedOf(k Key) string {
	if parentKey(k.Path) == "" {
		return ""
	}
	switch k.Type {
	case "node target":
		return "nodes"
	case "object reference":
		return "target"
	case "window":
		return "window"
	case "condition name":
		return "condition"
	case "load shape":
		return "shape"
	}
	return ""
}

// writeWrapped writes text wrapped at width columns, each line indented.
func writeWrapped(b *strings.Builder, indent, text string, width int) {
	if text == "" {
		return
	}
	line := indent
	for _, word := range strings.Fields(text) {
		if len(line) > len(indent) && len(line)+1+len(word) > width {
			b.WriteString(line + "\n")
			line = indent
		}
		if len(line) > len(indent) {
			line += " "
		}
		line += word
	}
	b.WriteString(line + "\n")
}

// keyPaths returns every canonical key path, in Keys order.
func keyPaths() []string {
	keysOnce.Do(buildKeys)
	out := make([]string, len(keysList))
	for i, k := range keysList {
		out[i] = k.Path
	}
	return out
}
