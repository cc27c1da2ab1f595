package scenarios

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"
)

// TestSchemaIsCurrent regenerates the schema and fails when scenarios/schema.json differs.
func TestSchemaIsCurrent(t *testing.T) {
	got, err := os.ReadFile("schema.json")
	require.NoError(t, err)
	if line := firstDiff(string(Schema()), string(got)); line != "" {
		t.Errorf("scenarios/schema.json is stale (first difference: %s): run go run ./scenarios/internal/gendocs", line)
	}
	assert.Equal(t, Schema(), Schema(), "the schema is deterministic")
}

// loadSchema parses the generated schema, numbers as json.Number.
func loadSchema(t *testing.T) map[string]any {
	dec := json.NewDecoder(bytes.NewReader(Schema()))
	dec.UseNumber()
	var s map[string]any
	require.NoError(t, dec.Decode(&s))
	return s
}

// yamlDoc reads a YAML document as the JSON value a schema validator sees.
func yamlDoc(t *testing.T, text string) any {
	var n yaml.Node
	require.NoError(t, yaml.Unmarshal([]byte(text), &n))
	v, err := yamlValue(&n, 0)
	require.NoError(t, err)
	return v
}

// TestSchemaAcceptsValidScenarios validates every valid scenario of the repository, the
// built-ins and the documentation's examples against the schema: an editor must never flag
// a scenario the loader accepts.
func TestSchemaAcceptsValidScenarios(t *testing.T) {
	schema := loadSchema(t)
	docs := map[string]string{"examples": exampleScenario(t)}
	files, _ := filepath.Glob("testdata/valid/*.yaml")
	for _, f := range files {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		docs[f] = string(data)
	}
	for _, name := range BuiltinNames() {
		data, _ := Builtin(name)
		docs[name] = string(data)
	}
	require.Greater(t, len(docs), 5)
	for name, text := range docs {
		v := &schemaValidator{root: schema}
		errs := v.validate(schema, yamlDoc(t, text), "")
		assert.Empty(t, errs, "%s is valid but the schema rejects it", name)
	}
}

// TestSchemaRejectsBrokenScenarios checks that the schema catches the mistakes an editor
// should underline.
func TestSchemaRejectsBrokenScenarios(t *testing.T) {
	schema := loadSchema(t)
	base := exampleFixture + "timeline:\n"
	for name, text := range map[string]string{
		"unknown top-level key":            exampleFixture + "timline: []\n",
		"unknown action":                   base + "- {at: 1m, action: node-crsh, nodes: {names: [worker-0]}}\n",
		"argument of another":              base + "- {at: 1m, action: node-crash, nodes: {names: [worker-0]}, replicas: 3}\n",
		"missing argument":                 base + "- {at: 1m, action: kubelet-stall, nodes: {names: [worker-0]}}\n",
		"missing at":                       base + "- {action: node-crash, nodes: {names: [worker-0]}}\n",
		"bad duration":                     base + "- {at: 1 minute, action: node-crash, nodes: {names: [worker-0]}}\n",
		"duration without unit":            base + "- {at: 60, action: node-crash, nodes: {names: [worker-0]}}\n",
		"unknown flag":                     exampleFixture + "components: {kubelet: {max-pod: 3}}\n",
		"flag of wrong type":               exampleFixture + "components: {kubelet: {max-pods: many}}\n",
		"bad api-errors code":              base + "- {at: 1m, action: api-errors, fraction: 0.5, code: 404, for: 1m}\n",
		"unknown verb":                     base + "- {at: 1m, action: api-latency, verbs: [updte], extra: 5ms, for: 1m}\n",
		"rollout without change":           base + "- {at: 1m, action: rollout, target: {kind: Deployment, name: web}}\n",
		"unknown shape":                    base + "- {at: 1m, action: load, target: {kind: Deployment, name: web}, shape: {type: square}}\n",
		"condition argument":               exampleFixture + "expect:\n- {name: x, always: {condition: no-pending-pods, min: 3}}\n",
		"bare condition needing arguments": exampleFixture + "expect:\n- {name: x, always: pods-at-most}\n",
		"two expectation kinds":            exampleFixture + "expect:\n- {name: x, verdict: none, converged: {within: 1m}}\n",
		"metric without threshold":         exampleFixture + "expect:\n- {name: x, metric: {series: pods.pending, aggregate: max}}\n",
		"both count and derived":           exampleFixture + "expect:\n- {name: x, always: {condition: pods-at-most, target: {kind: Deployment, name: web}, count: 3, replicasPlusMaxSurge: true}}\n",
		"unknown manifest kind":            exampleFixture + "- manifest: {apiVersion: v1, kind: Frobnicator, metadata: {name: x}}\n",
		"manifest field of wrong type":     strings.Replace(exampleFixture, "replicas: 10", "replicas: ten", 1),
	} {
		v := &schemaValidator{root: schema}
		errs := v.validate(schema, yamlDoc(t, text), "")
		assert.NotEmpty(t, errs, "the schema accepts: %s", name)
	}
}

// schemaValidator checks a value against the subset of JSON Schema draft-07 that Schema
// uses: $ref, type, enum, const, pattern, minimum, properties, required,
// additionalProperties, items, oneOf, anyOf, allOf, if/then.
type schemaValidator struct {
	root map[string]any
}

func (v *schemaValidator) validate(s map[string]any, x any, path string) []string {
	var errs []string
	fail := func(format string, args ...any) { errs = append(errs, path+": "+fmt.Sprintf(format, args...)) }
	if r, ok := s["$ref"].(string); ok {
		name := strings.TrimPrefix(r, "#/definitions/")
		def, ok := v.root["definitions"].(map[string]any)[name].(map[string]any)
		if !ok {
			fail("unresolved $ref %s", r)
			return errs
		}
		return v.validate(def, x, path)
	}
	if ty, ok := s["type"]; ok && !hasType(ty, x) {
		fail("want type %v, got %T", ty, x)
		return errs
	}
	if e, ok := s["enum"].([]any); ok {
		found := false
		for _, c := range e {
			found = found || sameJSON(c, x)
		}
		if !found {
			fail("%v is not one of %v", x, e)
		}
	}
	if c, ok := s["const"]; ok && !sameJSON(c, x) {
		fail("%v is not %v", x, c)
	}
	if p, ok := s["pattern"].(string); ok {
		if str, isStr := x.(string); isStr && !regexp.MustCompile(p).MatchString(str) {
			fail("%q does not match %s", str, p)
		}
	}
	if m, ok := s["minimum"]; ok {
		if n, isNum := x.(json.Number); isNum {
			lo, _ := strconv.ParseFloat(fmt.Sprint(m), 64)
			if f, _ := n.Float64(); f < lo {
				fail("%v is less than %v", x, m)
			}
		}
	}
	if obj, isObj := x.(map[string]any); isObj {
		props, _ := s["properties"].(map[string]any)
		for _, r := range asList(s["required"]) {
			if _, ok := obj[r.(string)]; !ok {
				fail("missing %s", r)
			}
		}
		for _, k := range slices.Sorted(maps.Keys(obj)) {
			if ps, ok := props[k].(map[string]any); ok {
				errs = append(errs, v.validate(ps, obj[k], path+"."+k)...)
				continue
			}
			switch ap := s["additionalProperties"].(type) {
			case bool:
				if !ap {
					fail("unknown key %q", k)
				}
			case map[string]any:
				errs = append(errs, v.validate(ap, obj[k], path+"."+k)...)
			}
		}
	}
	if list, isList := x.([]any); isList {
		if items, ok := s["items"].(map[string]any); ok {
			for i, item := range list {
				errs = append(errs, v.validate(items, item, fmt.Sprintf("%s[%d]", path, i))...)
			}
		}
	}
	for _, sub := range asList(s["allOf"]) {
		errs = append(errs, v.validate(sub.(map[string]any), x, path)...)
	}
	if anyOf := asList(s["anyOf"]); len(anyOf) > 0 {
		ok := false
		for _, sub := range anyOf {
			ok = ok || len(v.validate(sub.(map[string]any), x, path)) == 0
		}
		if !ok {
			fail("matches none of anyOf")
		}
	}
	if oneOf := asList(s["oneOf"]); len(oneOf) > 0 {
		n := 0
		for _, sub := range oneOf {
			if len(v.validate(sub.(map[string]any), x, path)) == 0 {
				n++
			}
		}
		if n != 1 {
			fail("matches %d branches of oneOf, want 1", n)
		}
	}
	if cond, ok := s["if"].(map[string]any); ok && len(v.validate(cond, x, path)) == 0 {
		if then, ok := s["then"].(map[string]any); ok {
			errs = append(errs, v.validate(then, x, path)...)
		}
	}
	return errs
}

func asList(v any) []any {
	l, _ := v.([]any)
	return l
}

func hasType(ty any, x any) bool {
	if list, ok := ty.([]any); ok {
		for _, t := range list {
			if hasType(t, x) {
				return true
			}
		}
		return false
	}
	switch ty {
	case "object":
		_, ok := x.(map[string]any)
		return ok
	case "array":
		_, ok := x.([]any)
		return ok
	case "string":
		_, ok := x.(string)
		return ok
	case "boolean":
		_, ok := x.(bool)
		return ok
	case "number":
		_, ok := x.(json.Number)
		return ok
	case "integer":
		n, ok := x.(json.Number)
		if !ok {
			return false
		}
		_, err := n.Int64()
		return err == nil
	case "null":
		return x == nil
	}
	return false
}

// sameJSON compares two JSON values, numbers by value.
func sameJSON(a, b any) bool {
	na, aNum := a.(json.Number)
	nb, bNum := b.(json.Number)
	if aNum && bNum {
		fa, _ := na.Float64()
		fb, _ := nb.Float64()
		return fa == fb
	}
	return fmt.Sprint(a) == fmt.Sprint(b) && fmt.Sprintf("%T", a) == fmt.Sprintf("%T", b)
}
