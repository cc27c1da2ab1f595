package model

import (
	"encoding/json"
	"errors"
	"testing"

	"gopkg.in/yaml.v3"
)

// checkPositioned fails unless err is a *DecodeError with a real position in file.
func checkPositioned(t *testing.T, file string, err error) {
	t.Helper()
	var de *DecodeError
	if !errors.As(err, &de) {
		t.Fatalf("error without position: %T %v", err, err)
	}
	if de.Pos.File != file || de.Pos.Line < 1 || de.Pos.Column < 1 {
		t.Fatalf("bad position %+v in %v", de.Pos, de)
	}
}

// FuzzDecodeManifests: any input decodes without panicking, every error has a position, and
// the objects that come back survive defaulting, validation, deep copy and JSON encoding.
func FuzzDecodeManifests(f *testing.F) {
	f.Add([]byte("apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: d}\nspec: {containers: [{name: c, image: i}]}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		objs, warnings, err := DecodeManifests("fuzz.yaml", data)
		if err != nil {
			if objs != nil {
				t.Fatalf("objects returned with an error")
			}
			var list DecodeErrors
			if !errors.As(err, &list) || len(list) == 0 {
				t.Fatalf("error is not a non-empty DecodeErrors: %T %v", err, err)
			}
			for _, e := range list {
				checkPositioned(t, "fuzz.yaml", e)
			}
		}
		for _, w := range warnings {
			if w.Pos.Line < 1 || w.Pos.Column < 1 {
				t.Fatalf("warning without position: %+v", w)
			}
		}
		for _, o := range objs {
			SetDefaults(o)
			_ = Validate(o)
			_ = ValidateUpdate(o, o.DeepCopyObject())
			if _, err := json.Marshal(o); err != nil {
				t.Fatalf("decoded object does not encode: %v", err)
			}
		}
	})
}

// FuzzDecodeNode: decoding any YAML into a struct with every supported field type never
// panics and reports every error with a position, in strict and non-strict mode.
func FuzzDecodeNode(f *testing.F) {
	f.Add([]byte("s: x\ni: 1\nq: 100m\nt: 90s\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		var node yaml.Node
		if err := parseYAMLQuiet(data, &node); err != nil {
			return
		}
		strict := len(data) > 0 && data[0]%2 == 0
		var out decodeAll
		warnings, errs := DecodeNode(&node, &out, DecodeOptions{File: "node.yaml", Strict: strict, MaxNodes: 100_000})
		for _, e := range errs {
			checkPositioned(t, "node.yaml", e)
		}
		for _, w := range warnings {
			if w.Pos.Line < 1 || w.Pos.Column < 1 {
				t.Fatalf("warning without position: %+v", w)
			}
		}
	})
}

// parseYAMLQuiet parses data, turning a panic inside yaml.v3 into an error: the target here
// is the decoder, not the parser.
func parseYAMLQuiet(data []byte, node *yaml.Node) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = errors.New("yaml parser panicked")
		}
	}()
	return yaml.Unmarshal(data, node)
}

// FuzzParseIndexesFromString: the interval-list parser of successPolicy.succeededIndexes and
// status.completedIndexes never panics, and what it accepts is ordered, non-overlapping and
// below completions.
func FuzzParseIndexesFromString(f *testing.F) {
	for _, s := range []string{"", "0", "1,3-5", "5-3", "0-0,1", "-1", "99999999999", "1,,2", "1-2-3"} {
		f.Add(s, int32(10))
	}
	f.Fuzz(func(t *testing.T, s string, completions int32) {
		iv, err := ParseIndexesFromString(s, completions)
		if err != nil {
			return
		}
		last := int32(-1)
		for _, x := range iv {
			if x[0] <= last || x[1] < x[0] || x[1] >= completions {
				t.Fatalf("%q (completions %d) parsed to bad intervals %v", s, completions, iv)
			}
			last = x[1]
		}
	})
}
