package cli

import (
	"bytes"
	"context"
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

	"github.com/reconsim/reconsim/report"
	"github.com/reconsim/reconsim/scenarios"
	"github.com/reconsim/reconsim/sim/cluster"
	"github.com/reconsim/reconsim/sweep"
)

// docsWorld is the world the documented examples run in: the names they use exist here (a
// Deployment web of 10 replicas behind a Service web, a ReplicaSet web, workers in zone-a and
// spot nodes in zone-b, a load on web), and the entry "crash" takes worker-0 down at 60s, as
// the examples' windows assume. It expects nothing of its own.
//
//go:embed testdata/docs-world.yaml
var docsWorld string

// needs lists what an example's world must hold besides docsWorld, by a word of the example:
// the verdict example is about a pod that asks for a GPU no node has; the leader faults
// (entries named leader-*) need replicated control-plane components.
var needs = map[string]string{
	"leader": `components:
  kube-controller-manager: {replicas: 3}
  kube-scheduler: {replicas: 2}
`,
	"trainer": `- manifest:
    apiVersion: v1
    kind: Pod
    metadata: {name: trainer}
    spec:
      containers:
      - name: train
        image: train:1.0
        resources: {requests: {nvidia.com/gpu: "1"}, limits: {nvidia.com/gpu: "1"}}
`,
}

// docFiles are the files the examples refer to, written beside the scenario.
var docFiles = map[string]string{
	"manifests/app.yaml": "apiVersion: v1\nkind: Namespace\nmetadata: {name: app}\n",
	"load.csv":           "0,100\n60,200\n",
	"rps.csv":            "0,100\n60,200\n",
}

// example is one YAML example and where it was found.
type example struct {
	where string // "docs/scenario.md:227" or "sim explain timeline.drain"
	text  string
	// nested is true for the example of a key below the top level (`sim explain
	// expect.event.kind`): a value of that key, not a scenario section.
	nested bool
}

var scenarioSections = []string{"apiVersion", "kind", "name", "description", "seed", "duration", "stop", "cluster", "components", "loads", "objects", "timeline", "expect", "explore"}

// docExamples returns every ```yaml block of docs/*.md.
func docExamples(t *testing.T) []example {
	files, err := filepath.Glob("../../docs/*.md")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	var out []example
	block := regexp.MustCompile("(?s)```yaml\n(.*?)```")
	for _, f := range files {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		s := string(data)
		for _, m := range block.FindAllStringSubmatchIndex(s, -1) {
			line := strings.Count(s[:m[0]], "\n") + 1
			out = append(out, example{where: fmt.Sprintf("docs/%s:%d", filepath.Base(f), line), text: s[m[2]:m[3]]})
		}
	}
	return out
}

// explainExamples returns every example `sim explain` prints, for every topic: the
// "example" blocks of the scenario keys and the "components: {...}" line of every flag.
func explainExamples(t *testing.T) []example {
	var out []example
	for _, topic := range scenarios.ExplainTopics() {
		text, err := scenarios.Explain(topic)
		require.NoError(t, err, topic)
		lines := strings.Split(text, "\n")
		for i := 0; i < len(lines); i++ {
			switch {
			case lines[i] == "  example":
				var b strings.Builder
				for i+1 < len(lines) && strings.HasPrefix(lines[i+1], "    ") {
					i++
					b.WriteString(strings.TrimPrefix(lines[i], "    ") + "\n")
				}
				out = append(out, example{where: "sim explain " + topic, text: b.String(), nested: strings.Contains(topic, ".")})
			case strings.HasPrefix(strings.TrimSpace(lines[i]), "components: {"):
				out = append(out, example{where: "sim explain " + topic, text: strings.TrimSpace(lines[i]) + "\n"})
			}
		}
	}
	return out
}

// docRunner parses and runs examples in docsWorld, each distinct text once.
type docRunner struct {
	t    *testing.T
	dir  string
	seen map[string]bool
	// entries maps a timeline entry name to the example entry that defines it, so that an
	// entry that runs after it can bring it along.
	entries map[string]string
	runs    int
}

func newDocRunner(t *testing.T, all []example) *docRunner {
	dir := t.TempDir()
	for name, content := range docFiles {
		p := filepath.Join(dir, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
	}
	r := &docRunner{t: t, dir: dir, seen: map[string]bool{}, entries: map[string]string{}}
	named := regexp.MustCompile(`(?m)^  name: (\S+)$`)
	for _, e := range all {
		if strings.HasPrefix(e.text, "- at:") {
			if m := named.FindStringSubmatch(e.text); m != nil {
				r.entries[m[1]] = e.text
			}
		}
	}
	return r
}

// splice returns docsWorld with the sections of fragment (a mapping of top-level keys)
// replacing its own, and extra objects appended.
func (r *docRunner) splice(fragment string) (string, error) {
	var world, frag yaml.Node
	if err := yaml.Unmarshal([]byte(worldFor(fragment)), &world); err != nil {
		return "", err
	}
	if err := yaml.Unmarshal([]byte(fragment), &frag); err != nil {
		return "", err
	}
	wm, fm := world.Content[0], frag.Content[0]
	for i := 0; i+1 < len(fm.Content); i += 2 {
		key := fm.Content[i].Value
		if key == "objects" {
			// The world's load is on its own Deployment, which the example's objects replace.
			for j := 0; j+1 < len(wm.Content); j += 2 {
				if wm.Content[j].Value == "loads" {
					wm.Content = append(wm.Content[:j], wm.Content[j+2:]...)
					break
				}
			}
		}
		replaced := false
		for j := 0; j+1 < len(wm.Content); j += 2 {
			if wm.Content[j].Value == key {
				wm.Content[j+1] = fm.Content[i+1]
				replaced = true
			}
		}
		if !replaced {
			wm.Content = append(wm.Content, fm.Content[i], fm.Content[i+1])
		}
	}
	var b strings.Builder
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(&world); err != nil {
		return "", err
	}
	return b.String(), enc.Close()
}

// worldFor returns docsWorld with what the example needs (see needs).
func worldFor(example string) string {
	world := docsWorld
	for word, objects := range needs {
		if strings.Contains(example, "name: "+word) {
			world = strings.Replace(world, "\ntimeline:\n", "\n"+objects+"timeline:\n", 1)
		}
	}
	return world
}

func (r *docRunner) parse(where, text string) *scenarios.Scenario {
	r.t.Helper()
	s, _, err := scenarios.Parse(filepath.Join(r.dir, "example.yaml"), []byte(text), r.dir)
	if !assert.NoError(r.t, err, "%s: the example does not load:\n%s", where, text) {
		return nil
	}
	return s
}

func (r *docRunner) run(where string, s *scenarios.Scenario) *report.Result {
	r.t.Helper()
	r.runs++
	res, err := cluster.Run(context.Background(), s, cluster.Options{})
	if !assert.NoError(r.t, err, "%s: the example's run failed", where) {
		return nil
	}
	for _, e := range res.Events {
		if e.Reason == "TimelineActionFailed" {
			r.t.Errorf("%s: a timeline action failed: %s", where, e.Message)
		}
	}
	return res
}

// check handles one example: what it is decides how it is checked.
func (r *docRunner) check(e example) {
	t := r.t
	text := e.text
	if r.seen[text] {
		return
	}
	r.seen[text] = true
	switch {
	case regexp.MustCompile(`(?m)^kind: Scenario$`).MatchString(text) && regexp.MustCompile(`(?m)^duration: `).MatchString(text):
		// A whole scenario: it loads, runs and passes.
		if s := r.parse(e.where, text); s != nil {
			if res := r.run(e.where, s); res != nil {
				assert.True(t, res.Passed, "%s: the scenario does not pass: %+v %+v", e.where, res.Expectations, res.Verdicts)
			}
		}
	case strings.Contains(text, "kind: Sweep"):
		_, _, err := sweep.Parse(filepath.Join(r.dir, "sweep.yaml"), []byte(text), r.dir)
		assert.NoError(t, err, "%s: the sweep does not load", e.where)
	case strings.HasPrefix(text, "- at:"):
		r.checkEntries(e.where, text)
	case strings.HasPrefix(text, "- name:"):
		r.checkExpectations(e.where, text)
	case e.nested && !strings.HasPrefix(text, "components:"):
		// The value of a nested key (count: 2, kind: Pod): its parent's example shows it in
		// place; here it must be YAML.
		var v any
		assert.NoError(t, yaml.Unmarshal([]byte(text), &v), "%s: not YAML", e.where)
	default:
		r.checkFragment(e)
	}
}

// checkEntries runs timeline entries (with the entries they run after) in the world: each
// action runs without failing.
func (r *docRunner) checkEntries(where, entries string) {
	after := regexp.MustCompile(`after: (\w[\w.-]*)`)
	world := worldFor(entries)
	for _, m := range after.FindAllStringSubmatch(entries, -1) {
		if dep, ok := r.entries[m[1]]; ok && m[1] != "crash" && !strings.Contains(entries, "name: "+m[1]+"\n") {
			world += dep
		}
	}
	text := world + strings.ReplaceAll(entries, "\n  name: crash\n", "\n  name: crash-again\n")
	if s := r.parse(where, text); s != nil {
		r.run(where, s)
	}
}

// checkExpectations runs expectation entries in the world: each one holds there.
func (r *docRunner) checkExpectations(where, entries string) {
	text := worldFor(entries) + "expect:\n" + entries
	s := r.parse(where, text)
	if s == nil {
		return
	}
	if res := r.run(where, s); res != nil {
		for _, x := range res.Expectations {
			assert.True(r.t, x.Passed, "%s: expectation %s does not hold in the example world: %s", where, x.Name, x.Message)
		}
	}
}

// checkFragment handles a mapping: scenario sections are spliced into the world (and run when
// they are a timeline or expectations), a sweep's expect into the documented sweep, an
// argument into the entry it belongs to; lines of alternatives are checked one by one.
func (r *docRunner) checkFragment(e example) {
	t := r.t
	var node yaml.Node
	if err := yaml.Unmarshal([]byte(e.text), &node); err != nil {
		t.Errorf("%s: not YAML: %v\n%s", e.where, err, e.text)
		return
	}
	if len(node.Content) == 0 || node.Content[0].Kind != yaml.MappingNode {
		return // a scalar value of a key: its key documents where it goes
	}
	m := node.Content[0]
	var keys []string
	for i := 0; i+1 < len(m.Content); i += 2 {
		if slices.Contains(keys, m.Content[i].Value) {
			// Alternatives written one per line under the same key.
			for i, line := range strings.Split(strings.TrimSpace(e.text), "\n") {
				r.check(example{where: fmt.Sprintf("%s (line %d)", e.where, i+1), text: line + "\n"})
			}
			return
		}
		keys = append(keys, m.Content[i].Value)
	}
	if strings.HasPrefix(e.where, "docs/sweep.md") {
		assert.Equal(t, []string{"expect"}, keys, "%s: a sweep fragment", e.where)
		base := r.sweepExample()
		text := base[:strings.Index(base, "\nexpect:")+1] + e.text
		_, _, err := sweep.Parse(filepath.Join(r.dir, "sweep.yaml"), []byte(text), r.dir)
		assert.NoError(t, err, "%s: the sweep does not load", e.where)
		return
	}
	switch keys[0] {
	case "nodes":
		r.check(example{where: e.where, text: "- at: 2m\n  action: cordon\n  " + strings.TrimSpace(e.text) + "\n"})
		return
	case "target":
		r.check(example{where: e.where, text: "- at: 2m\n  action: scale\n  " + strings.TrimSpace(e.text) + "\n  replicas: 10\n"})
		return
	case "shape":
		r.check(example{where: e.where, text: "- at: 10m\n  action: load\n  target: {kind: Deployment, name: web}\n  " + strings.TrimSpace(e.text) + "\n"})
		return
	case "within":
		if m.Content[1].Kind != yaml.MappingNode {
			return // a duration: the within of a converged expectation
		}
		r.check(example{where: e.where, text: "- name: windowed\n  eventually:\n    condition: no-pending-pods\n    " + strings.TrimSpace(e.text) + "\n"})
		return
	case "always", "eventually", "never":
		r.check(example{where: e.where, text: "- name: cond\n  " + strings.TrimSpace(e.text) + "\n"})
		return
	}
	for _, k := range keys {
		if !slices.Contains(scenarioSections, k) {
			return // an argument's value (name: web, count: 2): its key's example shows where it goes
		}
	}
	text, err := r.splice(e.text)
	require.NoError(t, err)
	s := r.parse(e.where, text)
	if s == nil || !(slices.Contains(keys, "timeline") || slices.Contains(keys, "expect")) {
		return
	}
	if res := r.run(e.where, s); res != nil && slices.Contains(keys, "expect") {
		for _, x := range res.Expectations {
			assert.True(t, x.Passed, "%s: expectation %s does not hold in the example world: %s", e.where, x.Name, x.Message)
		}
	}
}

func (r *docRunner) sweepExample() string {
	for _, e := range docExamples(r.t) {
		if strings.Contains(e.text, "kind: Sweep") {
			return e.text
		}
	}
	r.t.Fatal("docs/sweep.md has no sweep example")
	return ""
}

// TestEveryDocumentedExample takes every YAML example of docs/*.md and of `sim explain` (every
// topic) and checks it as what it is: a scenario loads, runs and passes; a sweep loads; a
// timeline entry runs in the example world without its action failing; an expectation holds
// there; a section of a scenario loads in it (and runs, for a timeline or expectations); an
// argument goes into the entry it belongs to. A documented example that is wrong fails here.
func TestEveryDocumentedExample(t *testing.T) {
	docs, explained := docExamples(t), explainExamples(t)
	require.Greater(t, len(docs), 40)
	require.Greater(t, len(explained), 100)
	all := append(docs, explained...)
	r := newDocRunner(t, all)
	for _, e := range all {
		r.check(e)
	}
	t.Logf("%d examples (%d distinct), %d runs", len(all), len(r.seen), r.runs)
}

// TestNeverNodeOvercommittedHolds is the example that failed on every healthy cluster: the
// documented `never: node-overcommitted` holds, and so does its deprecated spelling, which
// the docs used to show.
func TestNeverNodeOvercommittedHolds(t *testing.T) {
	for _, cond := range []string{"node-overcommitted", "no-node-overcommitted"} {
		s, warns, err := scenarios.Parse("fits.yaml", []byte(docsWorld+"expect:\n- name: fits\n  never: "+cond+"\n"), ".")
		require.NoError(t, err)
		if cond == "no-node-overcommitted" {
			require.Len(t, warns, 1)
		}
		res, err := cluster.Run(context.Background(), s, cluster.Options{})
		require.NoError(t, err)
		require.NotEmpty(t, res.Expectations)
		assert.True(t, res.Expectations[0].Passed, "%s: %s", cond, res.Expectations[0].Message)
	}
}

// TestUncoveredVerdictExitsOne: a bare pod asking for a GPU no node has used to give "never
// converged" beside "verdicts: none ... PASSED" and exit 0. Now the verdict is printed and the
// run exits 1, unless the scenario says the verdict is expected.
func TestUncoveredVerdictExitsOne(t *testing.T) {
	gpuPod, _, _ := strings.Cut(strings.Replace(worldFor("name: trainer"), "duration: 20m", "duration: 5m", 1), "timeline:\n")
	dir := t.TempDir()
	for _, tt := range []struct {
		expect string
		code   int
	}{
		{"", exitFailed},
		{"expect:\n- name: gpu-pod-waits\n  verdict: {reason: Unschedulable}\n", exitOK},
	} {
		file := filepath.Join(dir, "gpu.yaml")
		require.NoError(t, os.WriteFile(file, []byte(gpuPod+tt.expect), 0o644))
		var stdout, stderr bytes.Buffer
		code := run([]string{"run", file, "--out", filepath.Join(dir, "out")}, &stdout, &stderr)
		assert.Equal(t, tt.code, code, "stdout:\n%s\nstderr:\n%s", stdout.String(), stderr.String())
		assert.Contains(t, stdout.String(), "Pod default/trainer")
		assert.Contains(t, stdout.String(), "Unschedulable: 0/7 nodes are available")
		assert.NotContains(t, stdout.String(), "verdicts: none")
	}
}
