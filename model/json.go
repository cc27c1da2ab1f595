package model

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"

	"gopkg.in/yaml.v3"
)

// JSON is an arbitrary JSON value written in a manifest: a CRD schema's default, enum and
// example values, and the fields of a custom resource. V holds what encoding/json would
// decode into an `any`, except that integers are int64 (as apimachinery's unstructured
// content holds them): nil, bool, int64, float64, string, []any, map[string]any.
type JSON struct {
	V any
}

// MarshalJSON writes the value.
func (j JSON) MarshalJSON() ([]byte, error) { return json.Marshal(j.V) }

// UnmarshalJSON reads a value, integers as int64.
func (j *JSON) UnmarshalJSON(data []byte) error {
	v, err := DecodeJSONValue(data)
	if err != nil {
		return err
	}
	j.V = v
	return nil
}

// DecodeYAMLWith decodes any YAML value (see DecoderUnmarshaler).
func (j *JSON) DecodeYAMLWith(d *Decoder, n *yaml.Node) {
	j.V = d.jsonValue(n, d.path, 0)
}

// maxJSONDepth bounds the nesting of a JSON value decoded from YAML or JSON (upstream's
// apimachinery JSON decoding limits nesting to 10000; a tighter bound keeps recursion small
// here).
const maxJSONDepth = 100

// jsonValue converts a YAML node into a JSON value (see JSON), spending the decoder's node
// budget; problems are recorded at path and give nil.
func (d *Decoder) jsonValue(n *yaml.Node, path string, depth int) any {
	if depth > maxJSONDepth {
		d.fail(n, path, fmt.Sprintf("value nests deeper than %d levels", maxJSONDepth), "")
		return nil
	}
	if !d.spend(n, 1) {
		return nil
	}
	if n.Kind == yaml.AliasNode {
		if d.expanding[n] {
			d.fail(n, path, fmt.Sprintf("alias *%s refers to a value that contains it", n.Value), "an anchor cannot contain an alias to itself")
			return nil
		}
		d.expanding[n] = true
		defer delete(d.expanding, n)
	}
	r := d.Resolve(n)
	if r == nil {
		return nil
	}
	switch r.Kind {
	case yaml.ScalarNode:
		return d.jsonScalar(r, path)
	case yaml.SequenceNode:
		out := make([]any, 0, len(r.Content))
		for i, c := range r.Content {
			out = append(out, d.jsonValue(c, path+"["+strconv.Itoa(i)+"]", depth+1))
			if d.aborted {
				return nil
			}
		}
		return out
	case yaml.MappingNode:
		entries := d.mappingEntries(r, path, 0)
		out := make(map[string]any, len(entries))
		for _, e := range entries {
			k := e.key
			if k.Kind != yaml.ScalarNode || (k.ShortTag() != "!!str" && k.ShortTag() != "!!int" && k.ShortTag() != "!!bool") {
				d.fail(k, path, "a mapping key must be a string", "quote the key")
				continue
			}
			out[k.Value] = d.jsonValue(e.value, childPath(path, k.Value), depth+1)
			if d.aborted {
				return nil
			}
		}
		return out
	}
	d.fail(r, path, "malformed YAML node", "")
	return nil
}

// jsonScalar converts a scalar by its YAML 1.2 tag, as sigs.k8s.io/yaml (YAML to JSON, then
// encoding/json) does for a manifest kubectl sends.
func (d *Decoder) jsonScalar(n *yaml.Node, path string) any {
	switch n.ShortTag() {
	case "!!null":
		return nil
	case "!!bool":
		var b bool
		if err := n.Decode(&b); err != nil {
			d.fail(n, path, "invalid boolean "+strconv.Quote(n.Value), "")
		}
		return b
	case "!!int":
		var i int64
		if err := n.Decode(&i); err != nil {
			var f float64
			if n.Decode(&f) == nil {
				return f // an integer too large for int64 becomes a float, as in JSON
			}
			d.fail(n, path, "invalid integer "+strconv.Quote(n.Value), "")
		}
		return i
	case "!!float":
		var f float64
		if err := n.Decode(&f); err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
			d.fail(n, path, "invalid number "+strconv.Quote(n.Value), "JSON has no infinity or NaN")
			return nil
		}
		return f
	case "!!str":
		return n.Value
	case "!!timestamp":
		return n.Value // JSON has no timestamps: the text, as sigs.k8s.io/yaml keeps it
	}
	d.fail(n, path, "unsupported YAML value of tag "+n.ShortTag(), "")
	return nil
}

// DecodeJSONValue decodes one JSON document into a JSON value (integers as int64, other
// numbers as float64), as apimachinery's unstructured JSON decoding does.
func DecodeJSONValue(data []byte) (any, error) {
	v, err := DecodeJSONExact(data)
	if err != nil {
		return nil, err
	}
	return normalizeJSON(v, 0)
}

// DecodeJSONExact decodes one JSON document into a JSON value with its numbers kept exact, as
// json.Number; anything after the document is an error.
func DecodeJSONExact(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, fmt.Errorf("unexpected data after the JSON document")
	}
	return v, nil
}

// normalizeJSON turns json.Number into int64 or float64.
func normalizeJSON(v any, depth int) (any, error) {
	if depth > maxJSONDepth {
		return nil, fmt.Errorf("JSON value nests deeper than %d levels", maxJSONDepth)
	}
	switch x := v.(type) {
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return i, nil
		}
		f, err := x.Float64()
		if err != nil {
			return nil, err
		}
		return f, nil
	case []any:
		for i := range x {
			n, err := normalizeJSON(x[i], depth+1)
			if err != nil {
				return nil, err
			}
			x[i] = n
		}
	case map[string]any:
		for k, e := range x { //detlint:ordered each entry is rewritten in place; order cannot matter
			n, err := normalizeJSON(e, depth+1)
			if err != nil {
				return nil, err
			}
			x[k] = n
		}
	}
	return v, nil
}

// DeepCopyJSON copies a JSON value; it shares no memory with v.
func DeepCopyJSON(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x { //detlint:ordered copying a map; order cannot matter
			out[k] = DeepCopyJSON(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = DeepCopyJSON(e)
		}
		return out
	}
	return v
}

// EqualJSON reports whether two JSON values are equal. Numbers compare by value (an int64 and
// a float64 holding the same number are equal, as apimachinery's unstructured equality
// treats JSON numbers); a nil and an empty map or list are not equal.
func EqualJSON(a, b any) bool {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, e := range x { //detlint:ordered a yes/no answer; order cannot matter
			f, ok := y[k]
			if !ok || !EqualJSON(e, f) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !EqualJSON(x[i], y[i]) {
				return false
			}
		}
		return true
	case int64:
		switch y := b.(type) {
		case int64:
			return x == y
		case float64:
			return float64(x) == y
		}
		return false
	case float64:
		switch y := b.(type) {
		case int64:
			return x == float64(y)
		case float64:
			return x == y
		}
		return false
	}
	return a == b
}
