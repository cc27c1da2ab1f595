package scenarios

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/reconsim/reconsim/internal/boundedfile"
	"github.com/reconsim/reconsim/internal/flagtab"
	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim"
	"github.com/reconsim/reconsim/sim/metrics"
)

// Load reads, parses and validates the scenario file at path; file references inside it are
// resolved relative to the file's directory. It returns the scenario and the warnings (fields
// that are ignored, for example). If the file cannot be read the error is the read error; if
// the scenario is invalid the error is Errors, listing every problem found, and the scenario
// is nil.
func Load(path string) (*Scenario, []model.Warning, error) {
	data, err := boundedfile.Read(path, MaxFileBytes)
	if err != nil {
		return nil, nil, err
	}
	return Parse(path, data, filepath.Dir(path))
}

// Parse parses and validates a scenario. file names it in error positions; baseDir is the
// directory `file:` references are relative to, or "" to forbid file references (built-in
// scenarios are self-contained). It returns the scenario with every default filled in and the
// warnings; when anything is wrong, the scenario is nil and the error is Errors, holding every
// problem found (each with file:line:col), sorted by position. Parse never panics on any input.
func Parse(file string, data []byte, baseDir string) (*Scenario, []model.Warning, error) {
	return ParseWith(file, data, baseDir, ParseOptions{})
}

// ParseOptions are the options of ParseWith: a caller's additions to what a scenario may
// refer to, and how strict the load is.
type ParseOptions struct {
	// Controllers names controllers the caller runs besides the simulator's own
	// (cluster.Options.Controllers): controller-restart, at: {by: ...} and explore accept them.
	Controllers []string
	// Strict makes every object skipped and every field ignored an error (the CLI's
	// --strict): a manifest of a kind the simulator does not model, an object of a cluster
	// dump that the simulated cluster makes itself, a field that Kubernetes has and the
	// simulator does not model (see model.ManifestOptions).
	Strict bool
	// AllowOutsidePaths lets file references (objects[].file, apply's file, a series file)
	// name files outside the scenario file's directory: absolute paths and paths through "..".
	// Without it such a reference is an error, so that a scenario from elsewhere cannot make
	// the simulator read, and quote in its errors, any file the user can read.
	AllowOutsidePaths bool
}

// ParseWith is Parse with options.
func ParseWith(file string, data []byte, baseDir string, opts ParseOptions) (*Scenario, []model.Warning, error) {
	if len(data) > MaxFileBytes {
		l := newLoader(file, baseDir, opts)
		l.errAt(nil, "", fmt.Sprintf("the file is %d bytes, more than the limit of %d", len(data), MaxFileBytes), "")
		return nil, nil, l.errs
	}
	if list := splitObjects(data); list != nil {
		if s, warns, err, ok := parse(file, data, baseDir, opts, list); ok {
			return s, warns, err
		}
	}
	s, warns, err, _ := parse(file, data, baseDir, opts, nil)
	return s, warns, err
}

func newLoader(file, baseDir string, opts ParseOptions) *loader {
	return &loader{file: file, baseDir: baseDir, ix: newNodeIndex(file), s: &Scenario{File: file}, opts: opts}
}

// parse parses data as one document, or, with list, streams the objects list (see
// stream.go). ok is false when streaming met anything unusual; the caller then parses the
// file as one document, which reports it.
func parse(file string, data []byte, baseDir string, opts ParseOptions, list *objectList) (s *Scenario, warns []model.Warning, err error, ok bool) {
	l := newLoader(file, baseDir, opts)
	doc := data
	if list != nil {
		doc = list.skeleton()
	}
	root := l.parseYAML(doc)
	if list != nil && (root == nil || !list.attach(root)) {
		return nil, nil, nil, false
	}
	if root == nil {
		return nil, nil, l.errs.Sorted(), true
	}
	l.ix.walk(root, "", 0, map[*yaml.Node]bool{})
	if l.ix.problem != nil {
		return nil, nil, Errors{l.ix.problem}, list == nil
	}
	l.ix.list, l.list = list, list
	l.root = resolve(root)
	l.decodeTop()
	if l.streamFailed {
		return nil, nil, nil, false
	}
	l.skipDumpedCustomResources()
	l.applyDefaults()
	l.validate()
	if l.problems() > 0 {
		return nil, l.warns, l.listedProblems(), true
	}
	return l.s, l.warns, nil, true
}

// loader holds the state of one Parse.
type loader struct {
	file    string
	baseDir string
	ix      *nodeIndex
	root    *yaml.Node
	s       *Scenario
	// errs are the problems listed, found counts every problem found, and the rest is the
	// bookkeeping of those not listed (problems.go).
	errs                Errors
	found               int
	unlisted            int
	unlistedDecodePaths []string
	folded              map[string]*model.DecodeError
	foldedMore          map[*model.DecodeError]int
	// validating is set once decoding is done and validation has started.
	validating bool
	warns      []model.Warning
	// decodeErrs is how many of errs decoding found (validation adds the rest).
	decodeErrs int
	// errIx indexes the paths of the first decodeErrs problems (decodeErrIndex).
	errIx *errIndex
	// declIx indexes declared (declIndex), built from its first declIxLen entries.
	declIx    *declIndex
	declIxLen int
	// suggestComparisons counts the comparisons did-you-mean hints for undeclared objects
	// made (maxSuggestComparisons).
	suggestComparisons int
	// declared lists every object the scenario creates, for reference checks.
	declared []declaredObject
	// sourcePairs is the slice decodeObject reads an object source's keys into, one after
	// another.
	sourcePairs []pair
	// objectBlock is what is left of the block objectSlice cuts slices from.
	objectBlock []model.Object
	// sites are where the declared objects that are not inline manifests under objects: are
	// written (declaredObject.site).
	sites []declSite
	// opts are the options of this parse (opts.Controllers: the caller's extra controllers).
	opts ParseOptions
	// clusterNS is the set of namespaces the cluster creates itself (clusterNamespaces).
	clusterNS map[string]bool
	// crds indexes the declared CustomResourceDefinitions by kind (declaredCRDs).
	crds map[model.Kind]*model.CustomResourceDefinition
	// nodesUnknown is set when a node group's count is missing or out of range: the node list
	// is then not generated, and checks that need it stay quiet.
	nodesUnknown bool
	// reported holds paths whose problem was reported (a missing required field, a series
	// file that cannot be read), so that checks of the zero value left there stay quiet.
	reported map[string]bool
	// list is the objects list when it is streamed (stream.go); streamFailed is set when an
	// item of it did not parse or index cleanly, and the file must be parsed as one document.
	list         *objectList
	streamFailed bool
	// manifests decodes the inline manifests (manifestDecoder).
	manifests *model.ManifestDecoder
	// asCreated holds what checkAsCreated finds in declared objects, for those it finds
	// anything in.
	asCreated map[model.Object]createdProblems
	// views are the buffers checkAsCreated checks objects in.
	views model.DefaultedViews
}

// createdProblems is what checkAsCreated finds in a declared object as the run creates it.
type createdProblems struct {
	// rejected is what the API server's validation rejects.
	rejected field.ErrorList
	// apfIgnored, for an object under objects:, says why kube-apiserver's API Priority and
	// Fairness configuration ensurer ignores it (model.APFEnsurerIgnores); "" if it does not.
	apfIgnored string
}

// declaredObject is an object from `objects:` or an apply action, with where it was written.
// It is 32 bytes, and holds no path of its own: a scenario declares up to 100,000 objects,
// and a path and a file name for each were 6 MB of the peak memory of loading that many
// (TestLoad100kPeakMemory).
type declaredObject struct {
	obj model.Object
	// line and column are where the object is written in the scenario file (its manifest,
	// or the file: value): see pos. (Not a model.Position, which repeats the file's name.)
	line, column int32
	// site is where the object is declared: objects[site].manifest when site >= 0, else
	// loader.sites[-site-1] (see declSite and loader.site).
	site int32
	// inObjects is true for objects from `objects:`, false for applies.
	inObjects bool
}

// declSite says where declared objects are written: the inline manifest of objects[inline]
// when inline >= 0, else path, in the manifest file fromFile when that is set (a file
// reference). Copies of one manifest and the documents of one file share a site.
type declSite struct {
	inline   int32
	path     string
	fromFile string
}

// inlineSite is the site of the inline manifest of objects[i].
func inlineSite(i int) declSite { return declSite{inline: int32(i)} }

// pathSite is the site of objects written at path, in the manifest file fromFile if it is
// not "".
func pathSite(path, fromFile string) declSite {
	return declSite{inline: -1, path: path, fromFile: fromFile}
}

// fieldPath is the scenario path of the site's manifest (made here, when a message needs
// it, for inline manifests).
func (s declSite) fieldPath() string { return s.fieldPathTo("") }

// fieldPathTo is the scenario path of field inside the site's manifest,
// joinPath(s.fieldPath(), field), made in one allocation for an inline manifest: a scenario
// with 50,000 problems in its objects makes one path per problem.
func (s declSite) fieldPathTo(field string) string {
	if s.inline < 0 {
		return joinPath(s.path, field)
	}
	var b strings.Builder
	b.Grow(len("objects[].manifest.") + 10 + len(field))
	b.WriteString("objects[")
	var digits [20]byte
	b.Write(strconv.AppendInt(digits[:0], int64(s.inline), 10))
	b.WriteString("].manifest")
	if field != "" && !strings.HasPrefix(field, "[") {
		b.WriteByte('.')
	}
	b.WriteString(field)
	return b.String()
}

// site returns where d is declared.
func (l *loader) site(d declaredObject) declSite {
	if d.site >= 0 {
		return inlineSite(int(d.site))
	}
	return l.sites[-d.site-1]
}

// declPath is the scenario path of d's manifest or file reference.
func (l *loader) declPath(d declaredObject) string { return l.site(d).fieldPath() }

// declFile is the manifest file d was read from; "" for a manifest in the scenario.
func (l *loader) declFile(d declaredObject) string { return l.site(d).fromFile }

// pos is where d is written in the scenario file.
func (l *loader) pos(d declaredObject) model.Position {
	return model.Position{File: l.file, Line: int(d.line), Column: int(d.column)}
}

func (l *loader) errAt(n *yaml.Node, path, msg, hint string) {
	if !l.counted(path) {
		l.listProblem(&model.DecodeError{Pos: posOf(l.file, n), Path: path, Msg: msg, Hint: hint})
	}
}

// errPath reports a problem with the value at path (or, if it is missing, at the nearest
// written ancestor), unless decoding already reported one there (see bad).
func (l *loader) errPath(path, msg, hint string) {
	if l.bad(path) || l.counted(path) {
		return
	}
	l.listProblem(&model.DecodeError{Pos: posOf(l.file, l.ix.nearest(path)), Path: path, Msg: msg, Hint: hint})
}

func (l *loader) warnAt(n *yaml.Node, path, msg string) {
	l.warns = append(l.warns, model.Warning{Pos: posOf(l.file, n), Path: path, Msg: msg})
}

// adopt records an error returned by the model decoder, keeping its position and path.
func (l *loader) adopt(err error, n *yaml.Node, prefix string) {
	var list model.DecodeErrors
	if errors.As(err, &list) {
		for _, e := range list {
			l.adopt(e, n, prefix)
		}
		return
	}
	var de *model.DecodeError
	if errors.As(err, &de) {
		c := *de
		if c.Pos.Line == 0 {
			c.Pos = posOf(l.file, n)
		}
		if c.Pos.File == "" {
			c.Pos.File = l.file
		}
		c.Path = joinPath(prefix, c.Path)
		l.add(&c)
		return
	}
	l.errAt(n, prefix, err.Error(), "")
}

// joinPath puts a path relative to prefix under it.
func joinPath(prefix, p string) string {
	switch {
	case p == "":
		return prefix
	case prefix == "":
		return p
	case strings.HasPrefix(p, "["):
		return prefix + p
	default:
		return prefix + "." + p
	}
}

// decodeInto decodes n into out with the model decoder (strict), at path. It reports whether
// decoding succeeded without errors.
func (l *loader) decodeInto(n *yaml.Node, path string, out any) bool {
	w, errs := model.DecodeNode(n, out, model.DecodeOptions{File: l.file, Strict: true, RefuseUnmodelled: l.opts.Strict, Path: path})
	l.warns = append(l.warns, w...)
	for _, e := range errs {
		l.adopt(e, n, "")
	}
	return len(errs) == 0
}

// parseYAML parses the one document of the file; nil (with the error recorded) if there is
// none or the YAML is invalid.
func (l *loader) parseYAML(data []byte) *yaml.Node {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	err := model.DecodeYAMLDocument(dec, &doc)
	const emptyHint = "a scenario starts with apiVersion: " + APIVersion + " and kind: " + Kind
	if err == io.EOF {
		l.errAt(nil, "", "the file is empty", emptyHint)
		return nil
	}
	if err != nil {
		l.add(syntaxError(l.file, data, err))
		return nil
	}
	if len(doc.Content) == 0 || isNull(doc.Content[0]) {
		l.errAt(&doc, "", "the file holds no scenario", emptyHint)
		return nil
	}
	var next yaml.Node
	switch err := model.DecodeYAMLDocument(dec, &next); {
	case err == io.EOF:
	case err != nil:
		l.add(syntaxError(l.file, data, err))
		return nil
	default:
		l.errAt(&next, "", "a scenario file holds one YAML document; this is a second one",
			"remove the --- separator; manifests go under objects:, inline or in a file of their own")
		return nil
	}
	return doc.Content[0]
}

// mapping returns the entries of the mapping n (null: none), with merge keys applied (an
// explicit key wins over a merged one). It reports a non-mapping (describing what was
// wanted), duplicate keys and non-scalar keys; ok is false when n is not a mapping.
func (l *loader) mapping(n *yaml.Node, path, what string) (pairs []pair, ok bool) {
	return l.appendMapping(nil, n, func() string { return path }, what)
}

// appendMapping is mapping, appending the pairs to dst (which must have no elements), so
// that a caller that decodes a mapping at a time can reuse one slice, and making the path
// only for a message (decodeObject runs for each of up to 100,000 objects).
func (l *loader) appendMapping(dst []pair, n *yaml.Node, pathOf func() string, what string) (pairs []pair, ok bool) {
	pairs = dst
	r := resolve(n)
	if isNull(r) {
		return nil, true
	}
	if r.Kind != yaml.MappingNode {
		l.errAt(r, pathOf(), fmt.Sprintf("expected %s (a mapping), got %s", what, describe(r)), "")
		return nil, false
	}
	var merged []pair
	first := map[string]*yaml.Node{}
	for i := 0; i+1 < len(r.Content); i += 2 {
		k, v := r.Content[i], r.Content[i+1]
		if k.Kind == yaml.ScalarNode && k.ShortTag() == "!!merge" {
			merged = append(merged, l.mergePairs(v, pathOf(), 0)...)
			continue
		}
		if rk := resolve(k); rk == nil || rk.Kind != yaml.ScalarNode {
			l.errAt(k, pathOf(), "mapping keys must be strings, got "+describe(k), "")
			continue
		} else {
			k = rk
		}
		if prev, dup := first[k.Value]; dup {
			l.errAt(k, keyPath(pathOf(), k.Value), fmt.Sprintf("duplicate key %q (first at line %d, column %d)", k.Value, prev.Line, prev.Column), "")
			continue
		}
		first[k.Value] = k
		if cap(pairs) == 0 {
			pairs = make([]pair, 0, len(r.Content)/2)
		}
		pairs = append(pairs, pair{k, v})
	}
	if len(merged) == 0 {
		return pairs, true
	}
	var out []pair
	for _, p := range merged {
		if first[p.key.Value] == nil {
			first[p.key.Value] = p.key
			out = append(out, p)
		}
	}
	return append(out, pairs...), true
}

// mergePairs returns the entries a merge key contributes.
func (l *loader) mergePairs(v *yaml.Node, path string, depth int) []pair {
	r := resolve(v)
	if r == nil || depth > 20 {
		l.errAt(v, path, "a merge key (<<) takes a mapping or a sequence of mappings", "")
		return nil
	}
	switch r.Kind {
	case yaml.MappingNode:
		p, _ := l.mapping(r, path, "a mapping")
		return p
	case yaml.SequenceNode:
		var out []pair
		for _, c := range r.Content {
			out = append(out, l.mergePairs(c, path, depth+1)...)
		}
		return out
	}
	l.errAt(r, path, "a merge key (<<) takes a mapping or a sequence of mappings, got "+describe(r), "")
	return nil
}

// sequence returns the items of the sequence n (null: none), or reports a non-sequence.
func (l *loader) sequence(n *yaml.Node, path, what string) []*yaml.Node {
	r := resolve(n)
	if isNull(r) {
		return nil
	}
	if r.Kind != yaml.SequenceNode {
		l.errAt(r, path, fmt.Sprintf("expected a list of %s, got %s", what, describe(r)), "write each entry on a line starting with \"- \"")
		return nil
	}
	return r.Content
}

// boundedSequence is sequence for a list of at most limit items; ok is false, and the list
// is reported, when it has more.
func (l *loader) boundedSequence(n *yaml.Node, path, what string, limit int) (items []*yaml.Node, ok bool) {
	items = l.sequence(n, path, what)
	if len(items) > limit {
		l.errAt(resolve(n), path, fmt.Sprintf("%d %s, more than the limit of %d", len(items), what, limit), "")
		return nil, false
	}
	return items, true
}

// unknownKey reports a key that is not one of known.
func (l *loader) unknownKey(k *yaml.Node, path, where string, known []string) {
	hint := didYouMean(k.Value, known)
	if hint == "" {
		hint = where + " has: " + strings.Join(known, ", ")
	}
	l.errAt(k, keyPath(path, k.Value), fmt.Sprintf("unknown key %q", k.Value), hint)
}

// scenarioHead is the part of the top level the model decoder decodes directly.
type scenarioHead struct {
	APIVersion  string             `json:"apiVersion"`
	Kind        string             `json:"kind"`
	Name        string             `json:"name"`
	Description string             `json:"description"`
	Seed        uint64             `json:"seed"`
	Duration    time.Duration      `json:"duration"`
	Stop        StopConditions     `json:"stop"`
	Cluster     Cluster            `json:"cluster"`
	Loads       []metrics.LoadSpec `json:"loads"`
	Explore     *Explore           `json:"explore"`
}

var topLevelKeys = []string{"apiVersion", "kind", "name", "description", "seed", "duration", "stop", "cluster", "components", "objects", "loads", "timeline", "expect", "explore"}

func (l *loader) decodeTop() {
	if l.root.Kind != yaml.MappingNode {
		l.errAt(l.root, "", "a scenario is a YAML mapping (apiVersion, kind, name, duration, cluster, ...), got "+describe(l.root),
			"see docs/scenario.md, or `sim show node-failure` for an example")
		return
	}
	pairs, _ := l.mapping(l.root, "", "a scenario")
	var head []pair
	var components, objects, timeline, expect *yaml.Node
	for _, p := range pairs {
		switch p.key.Value {
		case "components":
			components = p.value
		case "objects":
			objects = p.value
		case "timeline":
			timeline = p.value
		case "expect":
			expect = p.value
		default:
			if slices.Contains(topLevelKeys, p.key.Value) {
				head = append(head, p)
				continue
			}
			l.unknownKey(p.key, "", "a scenario", topLevelKeys)
		}
	}
	var h scenarioHead
	l.decodeInto(syntheticMapping(l.root, head), "", &h)
	s := l.s
	s.APIVersion, s.Kind, s.Name, s.Description = h.APIVersion, h.Kind, h.Name, h.Description
	s.Seed, s.Duration, s.Stop, s.Cluster, s.Loads, s.Explore = h.Seed, h.Duration, h.Stop, h.Cluster, h.Loads, h.Explore
	l.decodeComponents(components)
	l.decodeObjects(objects)
	l.decodeTimeline(timeline)
	l.decodeExpect(expect)
}

// ---- components ----

func (l *loader) decodeComponents(n *yaml.Node) {
	const path = "components"
	pairs, _ := l.mapping(n, path, "components (component name: {flag: value})")
	for _, cp := range pairs {
		component := cp.key.Value
		cpath := keyPath(path, component)
		if !isComponent(component) {
			hint := didYouMean(component, componentNames)
			if hint == "" {
				hint = "components: " + strings.Join(componentNames, ", ")
			}
			l.errAt(cp.key, cpath, fmt.Sprintf("unknown component %q", component), hint)
			continue
		}
		fpairs, _ := l.mapping(cp.value, cpath, "the flags of "+component+" (flag: value)")
		for _, fp := range fpairs {
			name := fp.key.Value
			fpath := keyPath(cpath, name)
			f, ok := LookupFlag(component, name)
			if !ok {
				msg, hint := unknownFlagMessage(component, name)
				l.errAt(fp.key, fpath, msg, hint)
				continue
			}
			if v, ok := l.flagValue(f, fp.value, fpath); ok {
				if l.s.Components.set == nil {
					l.s.Components.set = map[flagKey]flagValue{}
				}
				l.s.Components.set[flagKey{component, name}] = v
			}
		}
	}
}

// typeWords says what a value of each flag type looks like, for messages.
var typeWords = map[FlagType]string{
	flagtab.Duration: "a duration such as 30s or 5m",
	flagtab.Int:      "an integer",
	flagtab.Float:    "a number",
	flagtab.Bool:     "true or false",
	flagtab.String:   "a string",
	flagtab.Dist:     "a distribution such as 5ms, uniform(1ms..5ms) or {kind: lognormal, median: 2ms, p99: 20ms}",
}

// flagValue decodes a flag's value from YAML; ok is false after recording the problem.
func (l *loader) flagValue(f Flag, n *yaml.Node, path string) (flagValue, bool) {
	r := resolve(n)
	hint := fmt.Sprintf("%s is %s; the default is %s", f.Key(), typeWords[f.Type], f.Default)
	if isNull(r) {
		l.errAt(r, path, "missing value", hint)
		return flagValue{}, false
	}
	if f.Type == flagtab.Dist && r.Kind == yaml.MappingNode {
		var d sim.Dist
		if !l.decodeInto(r, path, &d) {
			return flagValue{}, false
		}
		d, err := checkDist(d)
		if err != nil {
			l.errAt(r, path, err.Error(), hint)
			return flagValue{}, false
		}
		return flagValue{text: FormatDist(d), dist: d}, true
	}
	if r.Kind != yaml.ScalarNode {
		l.errAt(r, path, fmt.Sprintf("expected %s, got %s", typeWords[f.Type], describe(r)), hint)
		return flagValue{}, false
	}
	if f.Type == flagtab.Bool && r.ShortTag() != "!!bool" {
		l.errAt(r, path, fmt.Sprintf("expected true or false, got %s", describe(r)), hint)
		return flagValue{}, false
	}
	v, err := parseFlagText(f, r.Value)
	if err != nil {
		l.errAt(r, path, err.Error(), hint)
		return flagValue{}, false
	}
	return v, true
}

// ---- objects ----

var objectSourceKeys = []string{"manifest", "file", "settled", "copies"}

func (l *loader) decodeObjects(n *yaml.Node) {
	if l.list != nil && n == l.list.seq {
		l.streamObjects()
		return
	}
	for i, item := range l.sequence(n, "objects", "object sources ({manifest: ...} or {file: ...})") {
		l.decodeObject(i, item)
	}
}

// streamObjects decodes the streamed objects list a chunk at a time (see stream.go). Each
// item is checked as the node index would check it (depth, aliases) before it is decoded;
// on any problem it stops and sets streamFailed.
func (l *loader) streamObjects() {
	l.s.Objects = make([]ObjectSource, 0, len(l.list.items))
	l.declared = slices.Grow(l.declared, len(l.list.items))
	stack := map[*yaml.Node]bool{}
	arena := &fastArena{}
	for c := 0; c < l.list.chunks(); c++ {
		seq := l.list.parseChunk(c, arena)
		if seq == nil {
			l.streamFailed = true
			return
		}
		first := len(l.s.Objects)
		for j, item := range seq.Content {
			l.ix.checkOnly = true
			l.ix.walk(item, "", 2, stack)
			l.ix.checkOnly = false
			if l.ix.problem != nil {
				l.streamFailed = true
				return
			}
			l.decodeObject(c*streamChunkItems+j, item)
		}
		if keepsNodes(l.s.Objects[first:]) {
			arena = &fastArena{} // the chunk's nodes stay with what was decoded from them
		} else {
			arena.reset()
		}
	}
}

// keepsNodes reports whether objects decoded from a chunk of the objects list may keep its
// YAML nodes: a custom resource keeps the node it was decoded from, to place errors found
// later (model.Unstructured), and copies are built from copied nodes. Other objects and
// every problem and warning keep values only.
func keepsNodes(srcs []ObjectSource) bool {
	for _, src := range srcs {
		if src.Copies != 0 {
			return true
		}
		for _, obj := range src.Objects {
			if _, ok := obj.(*model.Unstructured); ok {
				return true
			}
		}
	}
	return false
}

// decodeObject decodes objects[i].
func (l *loader) decodeObject(i int, item *yaml.Node) {
	path := "" // objects[i], made when a message or a file reference needs it
	pathOf := func() string {
		if path == "" {
			path = indexPath("objects", i)
		}
		return path
	}
	pairs, ok := l.appendMapping(l.sourcePairs[:0], item, pathOf, "an object source ({manifest: ...} or {file: ...})")
	if !ok {
		return
	}
	l.sourcePairs = pairs[:0]
	src := ObjectSource{Pos: posOf(l.file, resolve(item))}
	var manifest, file, copies *yaml.Node
	copiesBad := false
	for _, p := range pairs {
		switch p.key.Value {
		case "manifest":
			manifest = p.value
		// Each value is decoded into a variable of its own, so that src is not moved to the
		// heap for every entry.
		case "copies":
			copies = p.value
			var n int
			copiesBad = !l.decodeInto(p.value, childPath(pathOf(), "copies"), &n)
			src.Copies = n
		case "file":
			file = p.value
			var name string
			l.decodeInto(p.value, childPath(pathOf(), "file"), &name)
			src.File = name
		case "settled":
			var settled bool
			l.decodeInto(p.value, childPath(pathOf(), "settled"), &settled)
			src.Settled = settled
		default:
			l.unknownKey(p.key, pathOf(), "an object source", objectSourceKeys)
		}
	}
	switch {
	case manifest != nil && file != nil:
		l.errAt(resolve(item), pathOf(), "an object source has manifest or file, not both", "write two entries")
	case copiesBad: // reported
	case copies != nil && manifest != nil:
		src.Objects = l.decodeCopies(manifest, resolve(copies), pathOf(), src.Copies)
	case copies != nil && file != nil:
		l.errAt(resolve(copies), childPath(pathOf(), "copies"), "copies applies to an inline manifest, not to a file", "inline the manifest with manifest:")
	case manifest != nil:
		src.Objects = l.decodeManifest(manifest, inlineSite(i), true)
	case file != nil:
		src.Objects = l.decodeManifestFile(src.File, file, childPath(pathOf(), "file"), true)
	default:
		l.errAt(resolve(item), pathOf(), "an object source needs manifest: (inline) or file: (a path)", "")
	}
	l.s.Objects = append(l.s.Objects, src)
}

// decodeManifest decodes an inline manifest written at site and records it as declared.
func (l *loader) decodeManifest(n *yaml.Node, site declSite, inObjects bool) []model.Object {
	obj, warns, err := l.manifestDecoder().Decode(n)
	for _, w := range warns {
		w.Path = joinPath(site.fieldPath(), w.Path)
		l.warns = append(l.warns, w)
	}
	if err != nil {
		l.adopt(err, n, site.fieldPath())
		return nil
	}
	if obj == nil {
		return nil // skipped, with a warning
	}
	if !l.declare(obj, site, posOf(l.file, resolve(n)), inObjects) {
		return nil
	}
	return l.objectSlice(obj)
}

// objectSlice returns a slice that holds obj alone, cut from a block that the slices of the
// next objects share (with a capacity of one, so that an append copies it out). A slice
// allocated for each of 100,000 manifests was 1.6 MB in 16-byte pieces among the parser's
// garbage of the same size: with the blocks, 70 instead of 72 MB of the heap stay in use
// after a collection at the end of BenchmarkLoad100k's parse (runtime.MemStats.HeapInuse).
func (l *loader) objectSlice(obj model.Object) []model.Object {
	if len(l.objectBlock) == 0 {
		l.objectBlock = make([]model.Object, objectBlockLen)
	}
	s := l.objectBlock[:1:1]
	s[0] = obj
	l.objectBlock = l.objectBlock[1:]
	return s
}

// objectBlockLen is how many objectSlice results share a block.
const objectBlockLen = 1024

// decodeManifestFile reads and decodes a file of manifests referenced at path.
func (l *loader) decodeManifestFile(name string, n *yaml.Node, path string, inObjects bool) []model.Object {
	if name == "" {
		return nil // the decoder reported the bad value, or it is empty
	}
	if l.baseDir == "" {
		l.errAt(resolve(n), path, "file references are not available here",
			"this scenario has no directory on disk (a built-in scenario); inline the manifests with manifest:")
		return nil
	}
	full, ok := l.refPath(name, n, path)
	if !ok {
		return nil
	}
	data, err := boundedfile.Read(full, MaxFileBytes)
	if err != nil {
		l.errAt(resolve(n), path, "cannot read the manifest file: "+err.Error(), "paths are relative to the scenario file's directory")
		return nil
	}
	objs, warns, err := model.DecodeManifestsWith(full, data, l.manifestOptions())
	l.warns = append(l.warns, warns...)
	if err != nil {
		l.adopt(err, n, "")
		return nil
	}
	if len(objs) == 0 && len(warns) == 0 {
		l.warnAt(resolve(n), path, "the file holds no manifests")
	}
	kept := objs[:0]
	for _, o := range objs {
		if l.declare(o, pathSite(path, full), posOf(l.file, resolve(n)), inObjects) {
			kept = append(kept, o)
		}
	}
	return kept
}

// refPath returns the path of the file a reference at path (written at n) names: relative to
// the scenario's directory, and inside it unless ParseOptions.AllowOutsidePaths. ok is false
// after the problem was reported.
func (l *loader) refPath(name string, n *yaml.Node, path string) (full string, ok bool) {
	rel := filepath.Clean(name)
	outside := filepath.IsAbs(rel) || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator))
	if outside && !l.opts.AllowOutsidePaths {
		l.errAt(resolve(n), path, fmt.Sprintf("%q is outside the scenario's directory", name),
			"write a path relative to the scenario file that stays in its directory, or pass --allow-outside-paths")
		return "", false
	}
	if filepath.IsAbs(rel) {
		return rel, true
	}
	return filepath.Join(l.baseDir, rel), true
}

// manifestDecoder returns the decoder of the inline manifests, one for all of them.
func (l *loader) manifestDecoder() *model.ManifestDecoder {
	if l.manifests == nil {
		l.manifests = model.NewManifestDecoder(l.file, l.manifestOptions())
	}
	return l.manifests
}

// manifestOptions are the options manifests are decoded with.
func (l *loader) manifestOptions() model.ManifestOptions {
	return model.ManifestOptions{Strict: l.opts.Strict, ExistingNamespaces: l.clusterNamespaces(), CustomResources: true, ShareEqualMaps: true}
}

// clusterNamespaces returns the set of namespaces the cluster creates itself: the system
// ones and cluster.namespaces (computed once; the head is decoded before the objects).
func (l *loader) clusterNamespaces() map[string]bool {
	if l.clusterNS == nil {
		l.clusterNS = make(map[string]bool, len(systemNamespaces)+len(l.s.Cluster.Namespaces))
		for _, ns := range systemNamespaces {
			l.clusterNS[ns] = true
		}
		for _, ns := range l.s.Cluster.Namespaces {
			l.clusterNS[ns] = true
		}
	}
	return l.clusterNS
}

// declare records obj as declared at site, and reports whether the scenario keeps it: a
// Namespace object of a namespace the cluster creates itself (cluster.namespaces, or a
// system one) is left out with a warning, as creating it again would fail at the start of
// the run.
func (l *loader) declare(obj model.Object, site declSite, pos model.Position, inObjects bool) bool {
	if ns, ok := obj.(*model.Namespace); ok && inObjects && l.clusterNamespaces()[ns.Name] {
		msg := fmt.Sprintf("namespace %s is created by the cluster already (cluster.namespaces, or a system namespace); this Namespace object is left out", ns.Name)
		if site.fromFile != "" {
			msg = fmt.Sprintf("Namespace %s in %s: %s", ns.Name, site.fromFile, msg)
		}
		l.warns = append(l.warns, model.Warning{Pos: pos, Path: site.fieldPath(), Msg: msg})
		return false
	}
	if len(l.declared) >= MaxObjects {
		if len(l.declared) == MaxObjects {
			l.add(&model.DecodeError{Pos: pos, Path: site.fieldPath(), Msg: fmt.Sprintf("more than %d objects", MaxObjects), Hint: "split the scenario"})
			l.declared = append(l.declared, declaredObject{})
		}
		return true
	}
	index := site.inline
	if index < 0 {
		if n := len(l.sites); n == 0 || l.sites[n-1] != site {
			l.sites = append(l.sites, site)
		}
		index = -int32(len(l.sites))
	}
	l.declared = append(l.declared, declaredObject{obj: obj, line: int32(pos.Line), column: int32(pos.Column), site: index, inObjects: inObjects})
	l.checkAsCreated(obj, inObjects)
	return true
}

// checkAsCreated checks a declared object as the API server will see it when the run
// creates it: with the namespace applyDefaults gives it and the API server's defaults.
// checkObjects reports what it finds (asCreated). It runs as the object is declared rather
// than in checkObjects, and on a view (model.DefaultedViews) rather than a defaulted copy,
// because the copies were most of what validation allocated: 39 of the 135 MB that loading
// 100,000 objects allocated, and 18 MB of its peak memory (TestLoad100kPeakMemory). An object
// with problems is checked again on a copy of its own, so that what is kept shares nothing
// with a view the next object reuses. Custom resources are checked against their
// definitions instead (checkCustomResource).
func (l *loader) checkAsCreated(obj model.Object, inObjects bool) {
	if _, ok := obj.(*model.Unstructured); ok {
		return
	}
	setNamespace := func(m *model.ObjectMeta) {}
	if ki, ok := model.LookupKind(obj.GetKind()); ok && ki.Namespaced && obj.Meta().Namespace == "" {
		setNamespace = func(m *model.ObjectMeta) { m.Namespace = "default" } // as applyDefaults will
	}
	find := func(probe model.Object) createdProblems {
		found := createdProblems{rejected: model.Validate(probe)}
		if inObjects {
			found.apfIgnored = model.APFEnsurerIgnores(probe)
		}
		return found
	}
	if found := find(l.views.View(obj, setNamespace)); len(found.rejected) == 0 && found.apfIgnored == "" {
		return
	}
	probe := obj.DeepCopyObject()
	setNamespace(probe.Meta())
	model.SetDefaults(probe)
	if l.asCreated == nil {
		l.asCreated = map[model.Object]createdProblems{}
	}
	l.asCreated[obj] = find(probe)
}

// ---- timeline ----

func (l *loader) decodeTimeline(n *yaml.Node) {
	items, ok := l.boundedSequence(n, "timeline", "timeline entries", MaxTimelineEntries)
	if !ok {
		return
	}
	for i, item := range items {
		path := indexPath("timeline", i)
		e := TimelineEntry{Pos: posOf(l.file, resolve(item))}
		pairs, ok := l.mapping(item, path, "a timeline entry (at, action and the action's arguments)")
		if !ok {
			l.s.Timeline = append(l.s.Timeline, e)
			continue
		}
		var rest []pair
		hasAt := false
		for _, p := range pairs {
			switch p.key.Value {
			case "name":
				l.decodeInto(p.value, childPath(path, "name"), &e.Name)
			case "at":
				hasAt = true
				l.decodeAt(p.value, childPath(path, "at"), &e.At)
			case "as":
				l.decodeInto(p.value, childPath(path, "as"), &e.As)
			default:
				rest = append(rest, p)
			}
		}
		if !hasAt {
			l.errAt(resolve(item), path, "missing at", `when the action runs: a duration since the start such as "60s", {after: <entry name>, delay: 10s}, or converged`)
		}
		l.decodeUnion(resolve(item), rest, path, "action", "an action", reflect.ValueOf(&e.Action).Elem(), []string{"name", "at", "as"})
		l.s.Timeline = append(l.s.Timeline, e)
	}
}

const atHint = `a duration since the start such as "60s", "converged", {after: <entry name>, delay: 10s} or {write: 2, by: statefulset-controller}`

// mappingValue returns the value of key in mapping n, or n itself when the key is not there.
func mappingValue(n *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return n
}

// restartable returns the components controller-restart and at: {by: ...} accept.
func (l *loader) restartable() []string {
	return append(restartableComponents(), l.opts.Controllers...)
}

// MaxWriteIndex bounds the k of at: {write: k, by: ...}.
const MaxWriteIndex = 1_000_000

// decodeAt decodes a timeline entry's at.
func (l *loader) decodeAt(n *yaml.Node, path string, at *At) {
	r := resolve(n)
	switch {
	case isNull(r):
		l.errAt(r, path, "missing value", atHint)
	case r.Kind == yaml.ScalarNode && r.ShortTag() == "!!str":
		if r.Value == "converged" {
			at.Converged = true
			return
		}
		d, err := time.ParseDuration(r.Value)
		if err != nil {
			l.errAt(r, path, fmt.Sprintf("invalid time %q", r.Value), atHint)
			return
		}
		at.Offset = d
	case r.Kind == yaml.ScalarNode:
		l.decodeInto(r, path, &at.Offset)
	case r.Kind == yaml.MappingNode:
		var m struct {
			After     string        `json:"after"`
			Converged bool          `json:"converged"`
			Write     int           `json:"write"`
			By        string        `json:"by"`
			Delay     time.Duration `json:"delay"`
		}
		if !l.decodeInto(r, path, &m) {
			return
		}
		byWrite := m.Write != 0 || m.By != ""
		switch {
		case m.After != "" && m.Converged, m.After != "" && byWrite, m.Converged && byWrite:
			l.errAt(r, path, "after, converged and write exclude each other", "run after a named entry, when the world has converged, or after a component's k-th write")
		case m.After == "" && !m.Converged && !byWrite:
			l.errAt(r, path, "a mapping needs after: <entry name>, converged: true or write: <k> with by: <component>", atHint)
		case byWrite && m.Write < 1:
			l.errAt(mappingValue(r, "write"), childPath(path, "write"), fmt.Sprintf("write must be at least 1, got %d", m.Write), "write: 3, by: statefulset-controller runs the entry right after that controller's third write")
		case byWrite && m.Write > MaxWriteIndex:
			l.errAt(mappingValue(r, "write"), childPath(path, "write"), fmt.Sprintf("write %d is more than the limit of %d", m.Write, MaxWriteIndex), "")
		case byWrite && !slices.Contains(l.restartable(), m.By):
			hint := didYouMean(m.By, l.restartable())
			if hint == "" {
				hint = "by: one of " + strings.Join(l.restartable(), ", ")
			}
			l.errAt(mappingValue(r, "by"), childPath(path, "by"), fmt.Sprintf("unknown component %q", m.By), hint)
		}
		at.After, at.Converged, at.Write, at.By, at.Delay = m.After, m.Converged, m.Write, m.By, m.Delay
	default:
		l.errAt(r, path, "expected a time, got "+describe(r), atHint)
	}
}

// unionVariant describes one member of a tagged union (Action, Condition, LoadShape).
type unionVariant struct {
	name   string
	field  int
	typ    reflect.Type // the argument struct type
	keys   []string     // argument names, sorted
	fields []argField   // arguments in struct order
}

// argField is one argument of a union member: its YAML name, its index path in the argument
// struct (embedded structs are flattened, as the decoder inlines them) and its type.
type argField struct {
	name  string
	index []int
	typ   reflect.Type
	// optional is true for fields tagged omitempty; the others are required.
	optional bool
}

// required reports whether the argument must be written.
func (f argField) required() bool { return !f.optional }

// argFields lists the YAML-visible fields of struct type t in order, flattening untagged
// embedded structs.
func argFields(t reflect.Type) []argField {
	var out []argField
	for j := 0; j < t.NumField(); j++ {
		f := t.Field(j)
		if !f.IsExported() || f.Tag.Get("json") == "-" {
			continue
		}
		if f.Anonymous && f.Type.Kind() == reflect.Struct && f.Tag.Get("json") == "" {
			for _, inner := range argFields(f.Type) {
				inner.index = append([]int{j}, inner.index...)
				out = append(out, inner)
			}
			continue
		}
		out = append(out, argField{name: jsonName(f), index: []int{j}, typ: f.Type, optional: strings.Contains(f.Tag.Get("json"), ",omitempty")})
	}
	return out
}

func unionVariants(t reflect.Type) []unionVariant {
	var vs []unionVariant
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if f.Type.Kind() != reflect.Pointer || f.Type.Elem().Kind() != reflect.Struct {
			continue
		}
		v := unionVariant{name: jsonName(f), field: i, typ: f.Type.Elem(), fields: argFields(f.Type.Elem())}
		for _, af := range v.fields {
			v.keys = append(v.keys, af.name)
		}
		sort.Strings(v.keys)
		vs = append(vs, v)
	}
	return vs
}

// argument returns the argument called name.
func (v *unionVariant) argument(name string) argField {
	for _, f := range v.fields {
		if f.name == name {
			return f
		}
	}
	panic("scenarios: " + v.name + " has no argument " + name)
}

var yamlNodePtrType = reflect.TypeFor[*yaml.Node]()

// decodeUnion decodes a flat tagged union: the discriminator key disc names the member, and
// the other pairs (fixed keys already taken out) are that member's arguments. An argument of
// a different member is reported as such.
func (l *loader) decodeUnion(at *yaml.Node, pairs []pair, path, disc, what string, union reflect.Value, fixed []string) {
	vs := unionVariants(union.Type())
	names := make([]string, len(vs))
	for i, v := range vs {
		names[i] = v.name
	}
	owners := func(key string) []string {
		var out []string
		for _, v := range vs {
			if slices.Contains(v.keys, key) {
				out = append(out, v.name)
			}
		}
		return out
	}
	var discNode *yaml.Node
	var args []pair
	for _, p := range pairs {
		if p.key.Value == disc {
			discNode = p.value
		} else {
			args = append(args, p)
		}
	}
	if discNode == nil {
		l.errAt(at, path, "missing "+disc, "one of: "+strings.Join(names, ", "))
		for _, a := range args {
			if len(owners(a.key.Value)) == 0 {
				l.unknownKey(a.key, path, what, append(append([]string{disc}, fixed...), allKeys(vs)...))
			}
		}
		return
	}
	dpath := childPath(path, disc)
	var name string
	if !l.decodeInto(discNode, dpath, &name) {
		return
	}
	var v *unionVariant
	for i := range vs {
		if vs[i].name == name {
			v = &vs[i]
		}
	}
	if v == nil {
		hint := didYouMean(name, names)
		if hint == "" {
			hint = "one of: " + strings.Join(names, ", ")
		}
		l.errAt(resolve(discNode), dpath, fmt.Sprintf("unknown %s %q", disc, name), hint)
		return
	}
	takes := v.name + " takes no arguments"
	if len(v.keys) > 0 {
		takes = v.name + " takes " + strings.Join(v.keys, ", ")
	}
	var kept []pair
	for _, a := range args {
		k := a.key.Value
		if slices.Contains(v.keys, k) {
			kept = append(kept, a)
			continue
		}
		if o := owners(k); len(o) > 0 {
			l.errAt(a.key, keyPath(path, k), fmt.Sprintf("%q is not an argument of %s", k, v.name),
				fmt.Sprintf("it belongs to %s; %s", strings.Join(o, ", "), takes))
			continue
		}
		hint := didYouMean(k, append(append([]string{disc}, fixed...), v.keys...))
		if hint == "" {
			hint = takes
		}
		l.errAt(a.key, keyPath(path, k), fmt.Sprintf("unknown key %q", k), hint)
	}
	argsPtr := reflect.New(v.typ)
	if apply, ok := argsPtr.Interface().(*ApplyArgs); ok {
		l.decodeApply(at, kept, path, apply)
	} else {
		// Raw YAML (a template fragment) is taken out; the model decoder does the rest.
		var plain []pair
		for _, a := range kept {
			f := v.argument(a.key.Value)
			if f.typ != yamlNodePtrType {
				plain = append(plain, a)
				continue
			}
			if r := resolve(a.value); !isNull(r) {
				argsPtr.Elem().FieldByIndex(f.index).Set(reflect.ValueOf(r))
			}
		}
		l.decodeInto(syntheticMapping(at, plain), path, argsPtr.Interface())
	}
	union.Field(v.field).Set(argsPtr)
}

func allKeys(vs []unionVariant) []string {
	var out []string
	for _, v := range vs {
		for _, k := range v.keys {
			if !slices.Contains(out, k) {
				out = append(out, k)
			}
		}
	}
	return out
}

// decodeApply decodes apply's manifest or file.
func (l *loader) decodeApply(at *yaml.Node, pairs []pair, path string, a *ApplyArgs) {
	var manifest, file *yaml.Node
	for _, p := range pairs {
		switch p.key.Value {
		case "manifest":
			manifest = p.value
		case "file":
			file = p.value
			l.decodeInto(p.value, childPath(path, "file"), &a.File)
		case "commit":
			l.decodeInto(p.value, childPath(path, "commit"), &a.Commit)
		}
	}
	switch {
	case manifest != nil && file != nil:
		l.errAt(at, path, "apply takes manifest or file, not both", "use two apply entries")
	case manifest != nil:
		a.Manifest = resolve(manifest)
		a.Objects = l.decodeManifest(manifest, pathSite(childPath(path, "manifest"), ""), false)
	case file != nil:
		a.Objects = l.decodeManifestFile(a.File, file, childPath(path, "file"), false)
	default:
		l.errAt(at, path, "apply needs manifest: (inline) or file: (a path)", "")
	}
}

// ---- expectations ----

var expectationKeys = append([]string{"name"}, ExpectationKinds()...)

func (l *loader) decodeExpect(n *yaml.Node) {
	items, ok := l.boundedSequence(n, "expect", "expectations", MaxExpectations)
	if !ok {
		return
	}
	for i, item := range items {
		path := indexPath("expect", i)
		x := Expectation{Pos: posOf(l.file, resolve(item))}
		pairs, ok := l.mapping(item, path, "an expectation (name and one of "+strings.Join(ExpectationKinds(), ", ")+")")
		if !ok {
			l.s.Expect = append(l.s.Expect, x)
			continue
		}
		var kinds []*yaml.Node
		for _, p := range pairs {
			kpath := childPath(path, p.key.Value)
			switch p.key.Value {
			case "name":
				l.decodeInto(p.value, kpath, &x.Name)
				continue
			case "converged":
				x.Converged = &ConvergedExpectation{}
				l.decodeInto(p.value, kpath, x.Converged)
			case "event":
				x.Event = &EventExpectation{}
				l.decodeInto(p.value, kpath, x.Event)
			case "eventually":
				x.Eventually = l.decodeCondition(p.value, kpath)
			case "always":
				x.Always = l.decodeCondition(p.value, kpath)
			case "never":
				x.Never = l.decodeCondition(p.value, kpath)
			case "metric":
				x.Metric = &MetricExpectation{}
				l.decodeInto(p.value, kpath, x.Metric)
			case "verdict":
				x.Verdict = l.decodeVerdict(p.value, kpath)
			default:
				l.unknownKey(p.key, path, "an expectation", expectationKeys)
				continue
			}
			kinds = append(kinds, p.key)
		}
		switch {
		case len(kinds) == 0:
			l.errAt(resolve(item), path, "the expectation says nothing to check", "add one of "+strings.Join(ExpectationKinds(), ", "))
		case len(kinds) > 1:
			l.errAt(kinds[1], childPath(path, kinds[1].Value),
				fmt.Sprintf("an expectation checks one thing; this one has both %s and %s", kinds[0].Value, kinds[1].Value),
				"split it into two expectations, each with its own name")
		}
		l.s.Expect = append(l.s.Expect, x)
	}
}

// deprecatedConditionWarning says that old is a deprecated name of newName and what to write,
// by the expectation kind the condition is under (the last element of path).
func deprecatedConditionWarning(old, newName, path string) string {
	kind := path[strings.LastIndex(path, ".")+1:]
	msg := fmt.Sprintf("condition %s is deprecated: it is now called %s, and means that (write %s: %s)", old, newName, kind, newName)
	if kind != "never" {
		msg += fmt.Sprintf("; under %s that holds only while a node IS overcommitted: you probably mean never: %s", kind, newName)
	}
	return msg
}

// decodeVerdict decodes a verdict expectation: none, any, or {reason, kind, namespace, name}.
func (l *loader) decodeVerdict(n *yaml.Node, path string) *VerdictExpectation {
	const hint = "none: the run must end without a non-convergence verdict; any: verdicts do not fail it; " +
		"{reason: Unschedulable}: verdicts with that reason are expected"
	v := &VerdictExpectation{}
	if r := resolve(n); r != nil && r.Kind == yaml.ScalarNode {
		var word string
		if l.decodeInto(n, path, &word) {
			if word != string(VerdictNone) && word != string(VerdictAny) {
				l.errAt(r, path, fmt.Sprintf("unknown verdict policy %q", word), hint)
			}
			v.Policy = VerdictPolicy(word)
		}
		return v
	}
	if !l.decodeInto(n, path, v) {
		return v
	}
	r := resolve(n)
	switch {
	case v.Reason == "" && v.Kind == "" && v.Namespace == "" && v.Name == "":
		l.errAt(r, path, "the verdict expectation names no verdict", hint)
	case v.Reason != "" && !slices.Contains(VerdictReasons, v.Reason):
		h := didYouMean(v.Reason, VerdictReasons)
		if h == "" {
			h = "one of: " + strings.Join(VerdictReasons, ", ")
		}
		l.errAt(r, childPath(path, "reason"), fmt.Sprintf("unknown verdict reason %q", v.Reason), h)
	}
	return v
}

// decodeCondition decodes eventually/always/never: `condition: <name>`, its arguments and an
// optional within window; a bare condition name is short for {condition: <name>}.
func (l *loader) decodeCondition(n *yaml.Node, path string) *ConditionExpectation {
	c := &ConditionExpectation{}
	r := resolve(n)
	var pairs []pair
	if r != nil && r.Kind == yaml.ScalarNode && r.ShortTag() == "!!str" {
		pairs = []pair{{key: &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: "condition", Line: r.Line, Column: r.Column}, value: r}}
	} else {
		var ok bool
		if pairs, ok = l.mapping(n, path, "a condition ({condition: <name>, ...})"); !ok {
			return c
		}
		if r == nil || isNull(r) {
			r = l.ix.nearest(path)
		}
	}
	var rest []pair
	for i, p := range pairs {
		if p.key.Value == "condition" {
			if v := resolve(p.value); v != nil && v.Kind == yaml.ScalarNode {
				if newName, ok := DeprecatedConditionNames[v.Value]; ok {
					l.warnAt(v, childPath(path, "condition"), deprecatedConditionWarning(v.Value, newName, path))
					renamed := *v
					renamed.Value = newName
					pairs[i].value = &renamed
					p = pairs[i]
				}
			}
		}
		if p.key.Value == "within" {
			c.Within = &Window{}
			l.decodeInto(p.value, childPath(path, "within"), c.Within)
			continue
		}
		rest = append(rest, p)
	}
	l.decodeUnion(r, rest, path, "condition", "a condition", reflect.ValueOf(&c.Condition).Elem(), []string{"within"})
	return c
}
