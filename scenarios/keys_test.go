package scenarios

import (
	_ "embed"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"
)

// TestEveryKeyIsDocumented walks the Go types: every key must have documentation, and every
// documentation entry must name a key, so adding a field without docs (or leaving docs of a
// removed one behind) fails here.
func TestEveryKeyIsDocumented(t *testing.T) {
	keys := Keys()
	require.Greater(t, len(keys), 150)
	used := map[string]bool{}
	for _, k := range keys {
		assert.NotEmpty(t, k.Doc, "key %s has no documentation in keyDocs", k.Path)
		assert.NotEmpty(t, k.Type, k.Path)
		if _, exact := keyDocs[k.Path]; exact {
			used[k.Path] = true
			continue
		}
		segs := strings.Split(k.Path, ".")
		for i := range segs {
			w := append([]string(nil), segs...)
			w[i] = "*"
			if _, ok := keyDocs[strings.Join(w, ".")]; ok {
				used[strings.Join(w, ".")] = true
				break
			}
		}
	}
	for path := range keyDocs {
		assert.True(t, used[path], "keyDocs documents %q, which is not a key", path)
	}
	for _, d := range keyDocs {
		if d.Example == "" {
			continue
		}
		var v any
		assert.NoError(t, yaml.Unmarshal([]byte(d.Example), &v), "example is not YAML:\n%s", d.Example)
	}
}

func TestKeyStructure(t *testing.T) {
	k, ok := LookupKey("timeline.drain")
	require.True(t, ok)
	assert.Equal(t, "action", k.Role)
	assert.Equal(t, []string{"timeline.drain.nodes", "timeline.drain.timeout", "timeline.drain.gracePeriodSeconds", "timeline.drain.ignoreDaemonSets"}, k.Children)
	k, _ = LookupKey("timeline.drain.nodes")
	assert.True(t, k.Required)
	assert.Equal(t, "node target", k.Type)
	k, _ = LookupKey("timeline.drain.ignoreDaemonSets")
	assert.False(t, k.Required)
	assert.Equal(t, "true", k.Default)
	k, _ = LookupKey("timeline.action")
	assert.Equal(t, ActionNames(), k.Enum)
	k, _ = LookupKey("shape.ramp.duration")
	assert.True(t, k.Required)
	k, _ = LookupKey("loads.usage.cpuPerUnit")
	assert.Equal(t, "quantity", k.Type)
	k, _ = LookupKey("timeline.load.shape")
	assert.Equal(t, "load shape", k.Type)
	assert.Empty(t, k.Children, "shapes are documented once, under shape")
	k, _ = LookupKey("expect.metric")
	assert.Equal(t, "expectation", k.Role)
	k, _ = LookupKey("condition.pods-at-most.target")
	assert.True(t, k.Required)
	k, _ = LookupKey("timeline.api-errors")
	assert.Contains(t, k.Children, "timeline.api-errors.verbs", "the embedded request filter is flattened")
	_, ok = LookupKey("timeline.rollout.image.container")
	assert.True(t, ok)
	_, ok = LookupKey("expect.pos")
	assert.False(t, ok, "fields not written in YAML are not keys")
}

// exampleFixture is the scenario the examples of actions, shapes, expectation kinds and
// conditions are checked in: the names they use exist here.
//
//go:embed testdata/example-fixture.yaml
var exampleFixture string

// exampleScenario builds a scenario from the examples of every action, load, load shape,
// expectation kind and condition.
func exampleScenario(t *testing.T) string {
	var tl, ex strings.Builder
	n := 0
	for _, k := range Keys() {
		switch {
		case k.Role == "action":
			tl.WriteString(k.Example + "\n")
		case parentKey(k.Path) == "shape":
			tl.WriteString("- at: 50m\n  action: load\n  target: {kind: Deployment, name: web}\n  shape:\n    " +
				strings.ReplaceAll(k.Example, "\n", "\n    ") + "\n")
		case k.Role == "expectation", k.Role == "condition":
			n++
			ex.WriteString(regexp.MustCompile(`^- name: (\S+)`).ReplaceAllString(k.Example, "- name: ${1}-"+strings.Repeat("x", n)) + "\n")
		}
	}
	loads, _ := LookupKey("loads")
	return exampleFixture + loads.Example + "\ntimeline:\n" + tl.String() + "expect:\n" + ex.String()
}

// TestExamplesAreValid loads one scenario holding the example of every action, load, load
// shape, expectation kind and condition: the documentation shows only what the loader
// accepts.
func TestExamplesAreValid(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "load.csv"), []byte("0,100\n60,200\n"), 0o644))
	text := exampleScenario(t)
	s, warns, err := Parse(filepath.Join(dir, "examples.yaml"), []byte(text), dir)
	require.NoError(t, err, "examples:\n%s", text)
	assert.Empty(t, warns)
	var got []string
	for _, e := range s.Timeline {
		if !slices.Contains(got, e.Action.Name()) {
			got = append(got, e.Action.Name())
		}
	}
	assert.Equal(t, ActionNames(), got, "every action has an example")
}

// TestEveryArgumentIsShown checks that every argument of an action, shape, expectation kind
// or condition appears in its member's example or has an example of its own.
func TestEveryArgumentIsShown(t *testing.T) {
	for _, k := range Keys() {
		if k.Role == "field" {
			continue
		}
		require.NotEmpty(t, k.Example, "%s has no example", k.Path)
		for _, c := range k.Children {
			ck, _ := LookupKey(c)
			name := c[len(k.Path)+1:]
			if strings.Contains(k.Example, name+":") || ck.Example != "" {
				continue
			}
			shared, _ := LookupKey(sharedOf(ck))
			assert.NotEmpty(t, shared.Example, "argument %s appears in no example", c)
		}
	}
}

func TestExplainEveryKey(t *testing.T) {
	for _, k := range Keys() {
		text, err := Explain(k.Path)
		require.NoError(t, err, k.Path)
		assert.True(t, strings.HasPrefix(text, k.Path+" ("), "%s: %q", k.Path, text)
		assert.Contains(t, text, strings.Fields(k.Doc)[0], k.Path)
	}
	for _, name := range append(ActionNames(), ConditionNames()...) {
		text, err := Explain(name)
		require.NoError(t, err, name)
		assert.Regexp(t, `^(timeline|condition)\.`+regexp.QuoteMeta(name)+` \(`, text)
	}
	for _, f := range Flags() {
		_, err := Explain(f.Key())
		assert.NoError(t, err, f.Key())
		_, err = Explain("components." + f.Key())
		assert.NoError(t, err, f.Key())
	}
}

func TestExplainKeys(t *testing.T) {
	cases := []struct {
		key  string
		want []string
	}{
		{"timeline.node-crash", []string{"timeline.node-crash (action)", "arguments", "nodes  node target, required", "action: node-crash"}},
		{"expect.converged", []string{"expect.converged (expectation)", "within  duration, required", "converged: {after: crash, within: 7m}"}},
		{"timeline.drain.timeout", []string{"timeline.drain.timeout (duration, optional)", "default    0s (no limit)", "timeout: 10m"}},
		{"expect.always.pods-at-most", []string{"condition.pods-at-most (condition)", "replicasPlusMaxSurge"}},
		{"expect.available-at-least", []string{"condition.available-at-least (condition)"}},
		{"timeline.node-crash.nodes", []string{"see        sim explain nodes"}},
		{"seed", []string{"seed (integer, optional)", "set it     --set seed=VALUE"}},
		{"api-errors.code", []string{"values     409, 429, 500, 503, 504"}},
	}
	for _, c := range cases {
		text, err := Explain(c.key)
		require.NoError(t, err, c.key)
		for _, w := range c.want {
			assert.Contains(t, text, w, c.key)
		}
	}
	_, err := Explain("for")
	require.Error(t, err)
	assert.Contains(t, err.Error(), `several keys are called "for": timeline.kubelet-stall.for, timeline.image-pull-failure.for, timeline.api-latency.for`)
	_, err = Explain("timeline.node-crsh")
	require.Error(t, err)
	assert.Contains(t, err.Error(), `did you mean "timeline.node-crash"?`)
}

func TestExplainTopics(t *testing.T) {
	topics := ExplainTopics()
	for _, want := range []string{"timeline.drain", "condition.pods-at-most", "kubelet", "kube-controller-manager.node-eviction-rate", "node-eviction-rate"} {
		assert.Contains(t, topics, want)
	}
	seen := map[string]bool{}
	for _, topic := range topics {
		assert.False(t, seen[topic], "%s is listed twice", topic)
		seen[topic] = true
	}
}

// TestDocsReference fails when docs/scenario.md's generated reference is stale, and checks
// that the prose mentions every action, condition and expectation kind.
func TestDocsReference(t *testing.T) {
	doc, err := os.ReadFile("../docs/scenario.md")
	require.NoError(t, err)
	want, err := ReplaceReferenceSection(string(doc))
	require.NoError(t, err)
	if line := firstDiff(want, string(doc)); line != "" {
		t.Errorf("docs/scenario.md's reference is stale (first difference: %s): run go run ./scenarios/internal/gendocs", line)
	}
	for _, names := range [][]string{ActionNames(), ConditionNames(), ExpectationKinds()} {
		for _, name := range names {
			assert.Contains(t, string(doc), "#### `"+name+"`")
		}
	}
	for _, k := range Keys() {
		assert.Contains(t, string(doc), "| `"+k.Path+"` |")
	}
}

// firstDiff describes the first line where got differs from want, or returns "".
func firstDiff(want, got string) string {
	if want == got {
		return ""
	}
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < max(len(w), len(g)); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			return fmt.Sprintf("line %d is %q, want %q", i+1, gl, wl)
		}
	}
	return "trailing content"
}

// TestExplainDeprecatedCondition: sim explain answers for the old name with the new one, and
// the example it shows reads the right way round.
func TestExplainDeprecatedCondition(t *testing.T) {
	for _, key := range []string{"no-node-overcommitted", "condition.no-node-overcommitted"} {
		text, err := Explain(key)
		require.NoError(t, err)
		assert.True(t, strings.HasPrefix(text, "no-node-overcommitted is a deprecated name of condition node-overcommitted"), text)
		assert.Contains(t, text, "never: node-overcommitted")
	}
	for _, key := range []string{"expect.never", "node-overcommitted"} {
		text, err := Explain(key)
		require.NoError(t, err)
		assert.Contains(t, text, "never: node-overcommitted")
		assert.NotContains(t, text, "never: no-node-overcommitted")
	}
}
