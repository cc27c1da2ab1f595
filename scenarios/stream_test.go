package scenarios

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// parseBothWays parses data as one document and, when the objects list can be cut out, by
// streaming it; streamed is false when the loader would not stream it (no cut, or streaming
// gave up and the loader parses the whole document).
func parseBothWays(t testing.TB, data []byte) (whole, streamed string, ok bool) {
	t.Helper()
	describe := func(s *Scenario, warns any, err error) string {
		return fmt.Sprintf("scenario: %t\nwarnings: %v\nerrors:\n%v", s != nil, warns, err)
	}
	s, w, err, _ := parse("s.yaml", data, "", ParseOptions{}, nil)
	whole = describe(s, w, err)
	list := splitObjects(data)
	if list == nil {
		return whole, "", false
	}
	s2, w2, err2, ok := parse("s.yaml", data, "", ParseOptions{}, list)
	if !ok {
		return whole, "", false
	}
	if !reflect.DeepEqual(s, s2) {
		return whole, describe(s2, w2, err2) + "\n(the scenarios differ)", true
	}
	return whole, describe(s2, w2, err2), true
}

// streamSeeds are files whose objects list is cut in tricky places: each must either load
// exactly as the whole document does, or not be streamed.
var streamSeeds = map[string]string{
	"indented list": "apiVersion: reconsim.dev/v1alpha1\nkind: Scenario\nname: x\nduration: 1m\ncluster: {nodeGroups: [{name: w, count: 1, capacity: {cpu: '1', memory: 1Gi}}]}\n" +
		"objects:   # the objects\n  # first\n\n  - manifest: {apiVersion: v1, kind: Namespace, metadata: {name: a}}\n# between\n  - manifest:\n      apiVersion: v1\n      kind: Service\n      metadata: {name: s, namespace: a}\n      spec: {selector: {app: x}, ports: [{port: 80}]}\n\n" +
		"timeline:\n- {at: 10s, action: scale, kind: Deployment, name: nope, namespace: a, replicas: 2}\n",
	"bad object fields": "apiVersion: reconsim.dev/v1alpha1\nkind: Scenario\nname: x\nduration: 1m\ncluster: {nodeGroups: [{name: w, count: 1, capacity: {cpu: '1', memory: 1Gi}}]}\nobjects:\n" +
		"- manifest: {apiVersion: v1, kind: Service, metadata: {name: s, namespace: missing}, spec: {ports: [{port: 99999}]}}\n" +
		"- manifest: {apiVersion: v1, kind: Service, metadata: {name: s, namespace: missing}, spec: {ports: [{port: 80}]}}\n" +
		"- {manifest: {apiVersion: v1, kind: Namespace, metadata: {name: a}}, settled: true, color: red}\n- file: x.yaml\n- 3\n-\n",
	"anchor across chunks": "apiVersion: reconsim.dev/v1alpha1\nkind: Scenario\nname: x\nduration: 1m\nobjects:\n- manifest: &ns {apiVersion: v1, kind: Namespace, metadata: {name: a}}\n" +
		strings.Repeat("- manifest: {apiVersion: v1, kind: Namespace, metadata: {name: b}}\n", streamChunkItems) + "- manifest: *ns\n",
	"errors in many chunks": "apiVersion: reconsim.dev/v1alpha1\nkind: Scenario\nname: x\nduration: 1m\ncluster: {nodeGroups: [{name: w, count: 1, capacity: {cpu: '1', memory: 1Gi}}]}\nobjects:\n" +
		strings.Repeat("- manifest: {apiVersion: v1, kind: Namespace, metadata: {name: a}}\n- settled: true\n  manifest:\n    apiVersion: v1\n    kind: ConfigMap\n    metadata: {name: c, namespace: nope}\n- manifest: {apiVersion: v1, kind: Service, metadata: {name: s, namespace: nope}, spec: {ports: [{port: 80}]}}\n", 100),
	"anchor in one chunk":       "apiVersion: reconsim.dev/v1alpha1\nkind: Scenario\nname: x\nduration: 1m\nobjects:\n- manifest: &ns {apiVersion: v1, kind: Namespace, metadata: {name: a}}\n- manifest: *ns\n",
	"anchor from the head":      "apiVersion: reconsim.dev/v1alpha1\nkind: Scenario\nname: &n x\nduration: 1m\nobjects:\n- manifest: {apiVersion: v1, kind: Namespace, metadata: {name: *n}}\n",
	"quoted text over the dash": "apiVersion: reconsim.dev/v1alpha1\nkind: Scenario\nname: x\nduration: 1m\nobjects:\n- manifest: {apiVersion: v1, kind: Namespace, metadata: {name: \"a\n- b\"}}\n",
	"quoted key text":           "apiVersion: reconsim.dev/v1alpha1\nkind: Scenario\ndescription: \"a\nobjects:\n- b\nc\"\nname: x\nduration: 1m\n",
	"objects twice":             "apiVersion: reconsim.dev/v1alpha1\nkind: Scenario\nname: x\nduration: 1m\nobjects:\n- manifest: {apiVersion: v1, kind: Namespace, metadata: {name: a}}\nobjects:\n- 1\n",
	"merge key":                 "<<: {objects: [1]}\napiVersion: reconsim.dev/v1alpha1\nkind: Scenario\nname: x\nduration: 1m\nobjects:\n- manifest: {apiVersion: v1, kind: Namespace, metadata: {name: a}}\n",
	"crlf":                      "apiVersion: reconsim.dev/v1alpha1\r\nkind: Scenario\r\nname: x\r\nduration: 1m\r\nobjects:\r\n- manifest: {apiVersion: v1, kind: Namespace, metadata: {name: a}}\r\n- manifest: {apiVersion: v1, kind: Pod, metadata: {name: a}}\r\n",
	"syntax error in an item":   "apiVersion: reconsim.dev/v1alpha1\nkind: Scenario\nname: x\nduration: 1m\nobjects:\n- manifest: {apiVersion: v1, kind: Namespace, metadata: {name: a}\n- manifest: [\n",
	"dedent inside the list":    "apiVersion: reconsim.dev/v1alpha1\nkind: Scenario\nname: x\nduration: 1m\nobjects:\n  - manifest: {apiVersion: v1, kind: Namespace, metadata: {name: a}}\n manifest: 1\n",
	"not a list":                "apiVersion: reconsim.dev/v1alpha1\nkind: Scenario\nname: x\nduration: 1m\nobjects:\n  manifest: {apiVersion: v1, kind: Namespace, metadata: {name: a}}\n",
	"block scalar":              "apiVersion: reconsim.dev/v1alpha1\nkind: Scenario\nname: x\nduration: 1m\nobjects:\n- manifest:\n    apiVersion: v1\n    kind: Namespace\n    metadata:\n      name: a\n      annotations:\n        note: |+\n          - not an item\n          # not a comment\n\n- manifest: {apiVersion: v1, kind: Namespace, metadata: {name: b}}\nexpect:\n- {name: e, verdict: none}\n",
	"deep":                      "apiVersion: reconsim.dev/v1alpha1\nkind: Scenario\nname: x\nduration: 1m\nobjects:\n- manifest: " + strings.Repeat("[", 250) + strings.Repeat("]", 250) + "\n",
	"tab":                       "apiVersion: reconsim.dev/v1alpha1\nkind: Scenario\nname: x\nduration: 1m\nobjects:\n-\tmanifest: {apiVersion: v1, kind: Namespace, metadata: {name: a}}\n",
	"copies": copiesHead + copiesRS("3", "rs-{{ .Index }}") + strings.Repeat("- copies: 2\n  manifest: {apiVersion: v1, kind: Namespace, metadata: {name: \"ns-{{ .Index }}\"}}\n", 1) +
		strings.Repeat("- manifest: {apiVersion: v1, kind: Namespace, metadata: {name: a}}\n", streamChunkItems) + copiesRS("2", "rs2-{{ .Index }}"),
	"copies problems": copiesHead + copiesRS("0", "rs-{{ .Index }}") + copiesRS("2", "rs") + copiesRS("2", "rs-{{ .index }}") + copiesRS("3", "RS-{{ .Index }}") +
		copiesRS("2", "a-{{ .Index }}") + copiesRS("3", "a-{{ .Index }}") + "- copies: x\n  file: f.yaml\n" + copiesRS("100000", "b-{{ .Index }}"),
	// Problems at paths inside the second entry of a list, at a field that is not written
	// (ports[1].targetPort points at its entry), in a map with a key in brackets, and an
	// object declared twice, in the items of two chunks: the index of a streamed item is built
	// for one path at a time (nodeIndex.target), and each problem must still point where the
	// whole document's index does.
	"look-alike paths": "apiVersion: reconsim.dev/v1alpha1\nkind: Scenario\nname: x\nduration: 1m\nobjects:\n- manifest: {apiVersion: v1, kind: Namespace, metadata: {name: a}}\n" +
		strings.Repeat("- manifest:\n    apiVersion: v1\n    kind: Service\n    metadata: {name: s, namespace: a, labels: {a.b/c: \"bad value!\", a: \"-bad\"}}\n    spec: {selector: {app: x}, ports: [{port: 80, name: p}, {port: 99999, name: p}]}\n", streamChunkItems+3),
	"document marker": "apiVersion: reconsim.dev/v1alpha1\nkind: Scenario\nname: x\nduration: 1m\nobjects:\n- manifest: {apiVersion: v1, kind: Namespace, metadata: {name: a}}\n---\n- 1\n",
}

// TestStreamedObjectsLoadAsTheWholeDocument checks that every scenario under testdata, every
// built-in and the tricky cuts load the same (scenario, warnings, errors with their
// positions and hints) whether the objects list is streamed or not, and that streaming is
// used for the usual files.
func TestStreamedObjectsLoadAsTheWholeDocument(t *testing.T) {
	inputs := map[string][]byte{}
	files, err := filepath.Glob("testdata/*/*.yaml")
	require.NoError(t, err)
	for _, f := range files {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		inputs[f] = data
	}
	for _, name := range BuiltinNames() {
		data, ok := Builtin(name)
		require.True(t, ok)
		inputs["builtin "+name] = data
	}
	for name, text := range streamSeeds {
		inputs[name] = []byte(text)
	}
	streamed := 0
	for name, data := range inputs {
		whole, got, ok := parseBothWays(t, data)
		if ok {
			streamed++
			assert.Equal(t, whole, got, name)
		}
	}
	t.Logf("%d of %d files streamed", streamed, len(inputs))
	assert.Greater(t, streamed, len(inputs)/3, "most files with objects stream")

	for _, name := range []string{"indented list", "bad object fields", "block scalar", "crlf", "anchor in one chunk", "errors in many chunks", "copies", "copies problems", "look-alike paths"} {
		_, _, ok := parseBothWays(t, []byte(streamSeeds[name]))
		assert.True(t, ok, "%s streams", name)
	}
	for _, name := range []string{"anchor across chunks", "anchor from the head", "quoted text over the dash", "quoted key text",
		"objects twice", "merge key", "syntax error in an item", "dedent inside the list", "not a list", "deep", "tab", "document marker"} {
		_, _, ok := parseBothWays(t, []byte(streamSeeds[name]))
		assert.False(t, ok, "%s is parsed as one document", name)
	}
}

// FuzzStreamedParse checks that streaming the objects list never changes what Parse returns.
func FuzzStreamedParse(f *testing.F) {
	files, _ := filepath.Glob("testdata/*/*.yaml")
	for _, file := range files {
		if data, err := os.ReadFile(file); err == nil {
			f.Add(data)
		}
	}
	for _, text := range streamSeeds {
		f.Add([]byte(text))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<16 {
			return
		}
		whole, streamed, ok := parseBothWays(t, data)
		if ok && whole != streamed {
			t.Fatalf("streaming the objects list changed the result:\n--- whole document\n%s\n--- streamed\n%s", whole, streamed)
		}
	})
}

// TestIndexOnTheWayToATarget checks which paths an index built for one target holds: the
// target, its ancestors and what lies below it, and not a path that only shares its text.
func TestIndexOnTheWayToATarget(t *testing.T) {
	ix := newNodeIndex("s.yaml")
	ix.target = "objects[3].manifest.spec.ports[1].port"
	for _, tc := range []struct {
		path string
		want bool
	}{
		{"", true},
		{"objects[3]", true},
		{"objects[3].manifest.spec", true},
		{"objects[3].manifest.spec.ports[1].port", true},
		{"objects[3].manifest.spec.ports[1].port.x", true},
		{"objects[3].manifest.spec.portsx", false},
		{"objects[3].manifest.spec.ports[10]", false},
		{"objects[3].manifest.spec.ports[0]", false},
		{"objects[3].manifest.spec.selector", false},
	} {
		assert.Equal(t, tc.want, ix.onTheWay(tc.path), tc.path)
	}
	for _, tc := range []struct {
		path, sep, name, closer string
		want                    string
		on                      bool
	}{
		{"objects[3].manifest", ".", "spec", "", "objects[3].manifest.spec", true},
		{"objects[3].manifest.spec", ".", "port", "", "", false},
		{"objects[3].manifest.spec", ".", "ports", "", "objects[3].manifest.spec.ports", true},
		{"objects[3].manifest.spec.ports", "[", "1", "]", "objects[3].manifest.spec.ports[1]", true},
		{"objects[3].manifest.spec.ports", "[", "10", "]", "", false},
		{"objects[3].manifest.spec.ports[1].port", ".", "x", "", "objects[3].manifest.spec.ports[1].port.x", true},
		{"objects[3].manifest.metadata", "[", "a.b/c", "]", "", false},
	} {
		got, on := ix.childOnTheWay(tc.path, tc.sep, tc.name, tc.closer)
		assert.Equal(t, tc.on, on, "%s %s%s%s", tc.path, tc.sep, tc.name, tc.closer)
		assert.Equal(t, tc.want, got, "%s %s%s%s", tc.path, tc.sep, tc.name, tc.closer)
	}
	whole := newNodeIndex("s.yaml")
	got, on := whole.childOnTheWay("", ".", "metadata", "")
	assert.True(t, on)
	assert.Equal(t, "metadata", got, "without a target every child is indexed, a field at the root without a dot")
	got, _ = whole.childOnTheWay("metadata.labels", "[", "a.b/c", "]")
	assert.Equal(t, "metadata.labels[a.b/c]", got)
}
