package scenarios

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"
)

// sameNodes returns where two YAML trees differ (kind, style, tag, value, anchor, alias,
// line, column, children), or "" when they do not. Comments are not compared: the fast
// parser does not keep them (nothing the loader reads uses them).
func sameNodes(want, got *yaml.Node, path string) string {
	switch {
	case want == nil && got == nil:
		return ""
	case want == nil || got == nil:
		return fmt.Sprintf("%s: node %v, want %v", path, got, want)
	}
	w := fmt.Sprintf("kind %d style %d tag %q value %q anchor %q alias %t at %d:%d, %d children",
		want.Kind, want.Style, want.Tag, want.Value, want.Anchor, want.Alias != nil, want.Line, want.Column, len(want.Content))
	g := fmt.Sprintf("kind %d style %d tag %q value %q anchor %q alias %t at %d:%d, %d children",
		got.Kind, got.Style, got.Tag, got.Value, got.Anchor, got.Alias != nil, got.Line, got.Column, len(got.Content))
	if w != g {
		return fmt.Sprintf("%s: got %s, want (yaml.v3) %s", path, g, w)
	}
	for i := range want.Content {
		if d := sameNodes(want.Content[i], got.Content[i], fmt.Sprintf("%s/%d", path, i)); d != "" {
			return d
		}
	}
	return ""
}

// checkFastAgainstYAMLv3 parses data with the fast parser and, if it accepts it, with
// yaml.v3, and fails unless both build the same tree. It reports whether the fast parser
// accepted data.
func checkFastAgainstYAMLv3(t *testing.T, data []byte) bool {
	t.Helper()
	const firstLine = 7
	seq := fastParseItems(data, firstLine, nil, nil)
	if seq == nil {
		return false
	}
	var doc yaml.Node
	err := unmarshalNode(data, &doc)
	require.NoError(t, err, "the fast parser accepted what yaml.v3 rejects:\n%s", data)
	require.Equal(t, yaml.DocumentNode, doc.Kind)
	require.Len(t, doc.Content, 1)
	want := doc.Content[0]
	shiftLines(want, firstLine-1)
	if d := sameNodes(want, seq, ""); d != "" {
		t.Fatalf("the fast parser and yaml.v3 differ on\n%s\n%s", data, d)
	}
	return true
}

// fastSeeds are item lists the fast parser must accept (and build as yaml.v3 does).
var fastSeeds = []string{
	string(manyObjects(8)[strings.Index(string(manyObjects(8)), "- manifest"):]),
	"- manifest:\n    apiVersion: apps/v1\n    kind: Deployment\n    metadata:\n      name: web\n      namespace: default\n      labels: {app: web, tier: \"front\"}\n    spec:\n      replicas: 3\n      selector:\n        matchLabels:\n          app: web\n      template:\n        metadata:\n          labels:\n            app: web\n        spec:\n          containers:\n          - name: web\n            image: nginx:1.25\n            ports:\n            - containerPort: 80\n            resources:\n              requests: {cpu: 100m, memory: 128Mi}\n  settled: true\n",
	"  - manifest: {apiVersion: v1, kind: Namespace, metadata: {name: a}}   # a comment\n\n  # between\n  - manifest:\n      apiVersion: v1\n      kind: Service\n      metadata: {name: s, namespace: a}\n      spec: {selector: {app: x}, ports: [{port: 80}, {port: 443, name: 'https'}]}\n",
	"- manifest:\n    kind: ConfigMap\n    metadata:\n      annotations:\n        kubectl.kubernetes.io/last-applied-configuration: \"{\\\"apiVersion\\\":\\\"v1\\\",\\\"x\\\":\\\"\\\\u00e9\\\\n\\\"}\\n\"\n        note: 'it''s'\n        empty: \"\"\n        nul: ~\n        yes: yes\n        when: 2024-01-02T03:04:05Z\n        num: -1.5e3\n        hex: 0x1F\n        url: http://example.com/a#b\n        \"quoted key\": v\n        'single key': v\n        unicode: \"é\\u00e9\\x41\\U0001F600\\t\\N\\_\\L\\P\\ \"\n",
	"- a: ÿéü日本\n  日本: [ü, \"é\", 'ñ']\n  b: [ ]\n  c: { }\n  d: [[1, 2], [3], {x: y}]\n",
	"-\n  a: 1\n-\n  - x\n  - y\n- b:\n  - 1\n  - 2\n  c: 3\n- plain\n- 'single'\n- \"double\"\n- [flow]\n- {flow: map}\n",
	"- k:\n    v\n- k:\n   -   x\n   -   y\n-   a: 1\n    b: 2\n- a-b.c/d_e: -x\n  a#b: c#d\n",
}

// TestFastItemsMatchYAMLv3 checks the seeds and every built-in's objects list against yaml.v3,
// and that the fast parser accepts them: each is in the part of YAML it exists for.
func TestFastItemsMatchYAMLv3(t *testing.T) {
	for _, s := range fastSeeds {
		assert.True(t, checkFastAgainstYAMLv3(t, []byte(s)), "the fast parser accepts\n%s", s)
	}
	accepted := 0
	for _, name := range BuiltinNames() {
		data, _ := Builtin(name)
		list := splitObjects(data)
		if list == nil {
			continue
		}
		if checkFastAgainstYAMLv3(t, data[list.items[0].start:list.end]) {
			accepted++
		}
	}
	t.Logf("the fast parser accepted the objects lists of %d built-ins", accepted)
	assert.Positive(t, accepted)
}

// TestFastItemsFallBack lists inputs the fast parser leaves to yaml.v3: each uses a feature
// it does not handle, or is not valid YAML.
func TestFastItemsFallBack(t *testing.T) {
	for name, text := range map[string]string{
		"anchor":                  "- a: &x 1\n- b: 2\n",
		"alias":                   "- a: *x\n",
		"tag":                     "- a: !!str 1\n",
		"local tag":               "- !thing {a: 1}\n",
		"merge key":               "- <<: {a: 1}\n  b: 2\n",
		"merge value":             "- a: <<\n",
		"flow over two lines":     "- a: {b: 1,\n    c: 2}\n",
		"flow seq over two lines": "- a: [1,\n    2]\n",
		"literal block scalar":    "- a: |\n    text\n",
		"folded block scalar":     "- a: >\n    text\n",
		"multi-line plain":        "- a: one\n    two\n",
		"multi-line plain item":   "- one\n  two\n",
		"multi-line single":       "- a: 'one\n    two'\n",
		"multi-line double":       "- a: \"one\n    two\"\n",
		"line continuation":       "- a: \"one\\\n    two\"\n",
		"empty value":             "- a:\n  b: 1\n",
		"empty value at the end":  "- a:\n",
		"empty entry":             "-\n- a\n",
		"empty flow value":        "- {a: , b: 1}\n",
		"flow key without value":  "- {a}\n",
		"trailing comma":          "- [1, 2, ]\n",
		"pair in flow seq":        "- [a: 1]\n",
		"colon in flow scalar":    "- {a: b:c}\n",
		"explicit key":            "- ? a\n  : b\n",
		"compact nested sequence": "- - a\n  - b\n",
		"sequence after a key":    "- a: - b\n",
		"mapping in a value":      "- a: b: c\n",
		"tab":                     "- a:\tb\n",
		"carriage return":         "- a: b\r\n",
		"control character":       "- a: b\x01\n",
		"byte-order mark":         "- a: \ufeffb\n",
		"line separator":          "- a: b\u2028c\n",
		"astral character":        "- a: \U0001F600\n",
		"unknown escape":          "- a: \"\\q\"\n",
		"surrogate escape":        "- a: \"\\ud800\"\n",
		"short escape":            "- a: \"\\x4\"\n",
		"slash escape":            "- a: \"\\/\"\n",
		"long key":                "- " + strings.Repeat("k", fastMaxKeyBytes+1) + ": v\n",
		"deep flow":               "- " + strings.Repeat("[", fastMaxDepth+1) + strings.Repeat("]", fastMaxDepth+1) + "\n",
		"deeper line":             "- a: 1\n   b: 2\n",
		"dedent to no collection": "  - a:\n      b: 1\n    c: 2\n   d: 3\n",
		"dash under a value":      "- a: 1\n  - b\n",
		"text after a quote":      "- 'a' b\n",
		"comment after a quote":   "- 'a'#b\n",
		"directive":               "- %a\n",
		"reserved indicator":      "- @a\n",
		"not a sequence":          "a: 1\n",
		"a scalar":                "a\n",
		"flow key":                "- {a: 1}: 2\n",
		"quoted key no space":     "- \"a\":b\n",
		"a lone dash value":       "- a: -\n",
		"question mark":           "- ?a\n",
		"comment only":            "# nothing\n",
		"empty":                   "",
	} {
		t.Run(name, func(t *testing.T) {
			assert.Nil(t, fastParseItems([]byte(text), 1, nil, nil), "the fast parser leaves %q to yaml.v3", text)
		})
	}
}

// TestFastItemsLoadAsBefore checks that the whole loader returns the same scenario, warnings
// and errors with and without the fast parser, on the stream seeds and a generated file.
func TestFastItemsLoadAsBefore(t *testing.T) {
	inputs := map[string][]byte{"many": manyObjects(2 * streamChunkItems)}
	// Custom resources keep their nodes (to place schema errors found after decoding): the
	// chunks they are in must not be reused for the next chunk's nodes.
	cr, err := os.ReadFile("testdata/valid/custom-resource.yaml")
	require.NoError(t, err)
	head, tail, ok := strings.Cut(string(cr), "timeline:")
	require.True(t, ok)
	var b strings.Builder
	for i := range 3 * streamChunkItems {
		schedule := "'@daily'"
		if i%97 == 0 {
			schedule = "sometimes"
		}
		fmt.Fprintf(&b, "- manifest: {apiVersion: v1, kind: Namespace, metadata: {name: ns-%d}}\n", i)
		fmt.Fprintf(&b, "- manifest:\n    apiVersion: example.com/v1\n    kind: Backup\n    metadata: {name: b-%d}\n    spec: {schedule: %s}\n", i, schedule)
	}
	inputs["custom resources"] = []byte(head + b.String() + "timeline:" + tail)
	for name, text := range streamSeeds {
		inputs[name] = []byte(text)
	}
	for name, data := range inputs {
		s1, w1, err1 := Parse("s.yaml", data, "")
		fastItemsEnabled = false
		s2, w2, err2 := Parse("s.yaml", data, "")
		fastItemsEnabled = true
		assert.Equal(t, s2, s1, name)
		assert.Equal(t, w2, w1, name)
		assert.Equal(t, fmt.Sprint(err2), fmt.Sprint(err1), name)
	}
	_, _, err = Parse("s.yaml", inputs["custom resources"], "")
	assert.ErrorContains(t, err, "sometimes", "the bad schedules are reported")
}

// FuzzFastItemsMatchYAMLv3 checks that on every input the fast parser accepts, it builds what
// yaml.v3 builds.
func FuzzFastItemsMatchYAMLv3(f *testing.F) {
	for _, s := range fastSeeds {
		f.Add([]byte(s))
	}
	for _, text := range streamSeeds {
		if list := splitObjects([]byte(text)); list != nil {
			f.Add(list.data[list.items[0].start:list.end])
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<16 {
			return
		}
		checkFastAgainstYAMLv3(t, data)
	})
}

// TestPlainTagMatchesYAMLv3 checks the tag of plain scalars without yaml.v3's resolve against
// yaml.v3's own: the words that start like a boolean, a null or a number, and those that
// do not.
func TestPlainTagMatchesYAMLv3(t *testing.T) {
	for _, v := range []string{
		"", "~", "null", "Null", "NULL", "nulls", "true", "True", "TRUE", "truest", "false", "FALSE",
		"falsey", "yes", "no", "on", "off", "y", "n", "Namespace", "nginx", "tcp", "o", "O",
		"0", "12", "-1", "+1", "0x1f", "1.5", ".5", ".inf", "-.inf", ".nan", "1e3", "2001-12-14",
		"-", "--x", "+", ".", "web", "app", "v1", "<<", "é", "ns-12345", "t", "f", "F", "Fals",
	} {
		n := &yaml.Node{Kind: yaml.ScalarNode, Value: v}
		assert.Equal(t, n.ShortTag(), plainTag(n), "plain scalar %q", v)
	}
}
