package model

import (
	"encoding/binary"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/reconsim/reconsim/internal/suggest"
	"github.com/reconsim/reconsim/vtime"
	"gopkg.in/yaml.v3"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// Decoding limits. A YAML alias can make a few bytes of input expand to millions of values
// (the "billion laughs" attack), so the decoder counts every node it visits, including nodes
// reached again through an alias, and gives up past the limit.
const (
	// DefaultMaxDecodeNodes is the node budget of one DecodeNode call (DecodeOptions.MaxNodes
	// overrides it) and of one DecodeManifests stream.
	DefaultMaxDecodeNodes = 1_000_000
	// maxDecodeErrors caps the errors one call collects; past it a final "too many errors"
	// error is added and decoding stops. Nobody reads a thousand errors, and a hostile input
	// could otherwise produce one per node.
	maxDecodeErrors = 1000
	// maxDecodeWarnings caps the warnings one call collects (further ones are dropped).
	maxDecodeWarnings = 1000
	// maxMergeDepth caps nested YAML merge keys (<<: *a where a itself merges ...).
	maxMergeDepth = 100
	// maxSuggestInput is the longest unknown name the did-you-mean search considers: the
	// edit distance is quadratic, and a name this long is not a typo.
	maxSuggestInput = 128
)

// Position is a place in a YAML file. Line and Column are 1-based, as yaml.v3 counts them.
type Position struct {
	File   string
	Line   int
	Column int
}

// String formats p as "file:line:col", or "line:col" when File is empty.
func (p Position) String() string {
	if p.File == "" {
		return fmt.Sprintf("%d:%d", p.Line, p.Column)
	}
	return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Column)
}

// DecodeError is one problem found while decoding YAML into a typed value.
type DecodeError struct {
	Pos Position
	// Path is the field path of the offending value, for example
	// spec.template.spec.containers[0].resources.requests.cpu; empty for the document itself.
	Path string
	Msg  string
	// Hint, when not empty, says how to fix the problem.
	Hint string
	// Unlisted, when above 0, makes this entry stand for that many problems that are not
	// listed: a loader lists the first problems it finds, up to a bound, and counts the rest
	// in one last entry (scenarios.MaxListedProblems). Its Pos names the file alone.
	Unlisted int
}

// Error formats e as "file:line:col: path: msg (hint)", leaving out the parts that are empty.
func (e *DecodeError) Error() string {
	var b strings.Builder
	if e.Pos.Line == 0 && e.Pos.File != "" {
		b.WriteString(e.Pos.File) // a problem of the whole file, such as the count of those not listed
	} else {
		b.WriteString(e.Pos.String())
	}
	b.WriteString(": ")
	if e.Path != "" {
		b.WriteString(e.Path)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	if e.Hint != "" {
		b.WriteString(" (")
		b.WriteString(e.Hint)
		b.WriteString(")")
	}
	return b.String()
}

// DecodeErrors is a list of errors (each normally a *DecodeError) returned as one error, so a
// caller can print them all. It is never empty when returned as an error.
type DecodeErrors []error

// Error joins the errors, one per line.
func (es DecodeErrors) Error() string { return joinErrors(es) }

// Unwrap returns the errors, for errors.Is and errors.As.
func (es DecodeErrors) Unwrap() []error { return es }

// ErrorList is every problem found in a document (a scenario, a sweep file), each with its
// file:line:col, field path, message and, when there is one, a hint. scenarios.Errors and
// sweep.Errors are this type.
type ErrorList []*DecodeError

// Error prints one problem per line: "file:line:col: path: message (hint)".
func (es ErrorList) Error() string { return joinErrors(es) }

// Unwrap returns the problems as errors, for errors.As.
func (es ErrorList) Unwrap() []error {
	out := make([]error, len(es))
	for i, e := range es {
		out[i] = e
	}
	return out
}

// Count returns the number of problems es stands for: one an entry, except that an entry
// with Unlisted stands for that many problems not listed.
func (es ErrorList) Count() int {
	n := 0
	for _, e := range es {
		if e.Unlisted > 0 {
			n += e.Unlisted
		} else {
			n++
		}
	}
	return n
}

// Sorted returns es ordered by file (the files named in first, then the others in the order
// they are first mentioned), line and column, without exact duplicates; problems at the same
// place keep their order.
func (es ErrorList) Sorted(first ...string) ErrorList {
	fileOrder := map[string]int{}
	for _, f := range first {
		if _, ok := fileOrder[f]; !ok {
			fileOrder[f] = len(fileOrder)
		}
	}
	for _, e := range es {
		if _, ok := fileOrder[e.Pos.File]; !ok {
			fileOrder[e.Pos.File] = len(fileOrder)
		}
	}
	out := slices.Clone(es)
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i].Pos, out[j].Pos
		if fa, fb := fileOrder[a.File], fileOrder[b.File]; fa != fb {
			return fa < fb
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Column < b.Column
	})
	// Exact duplicates share a place, so after the stable sort each is in the run of problems
	// at its place, after the first of them: comparing within a run finds them without a set
	// of every problem (a file can have 100,000). A long run (the copies of one manifest all
	// point at it) gets a set of its own.
	const longRun = 32
	kept := out[:0]
	run := 0 // where the run of problems at the current place starts in kept
	var inRun map[DecodeError]bool
	for _, e := range out {
		if len(kept) > 0 && kept[len(kept)-1].Pos != e.Pos {
			run, inRun = len(kept), nil
		}
		if inRun == nil && len(kept)-run >= longRun {
			inRun = make(map[DecodeError]bool, 2*longRun)
			for _, k := range kept[run:] {
				inRun[*k] = true
			}
		}
		switch {
		case inRun != nil && inRun[*e]:
		case inRun == nil && slices.ContainsFunc(kept[run:], func(k *DecodeError) bool { return *k == *e }):
		default:
			if inRun != nil {
				inRun[*e] = true
			}
			kept = append(kept, e)
		}
	}
	clear(out[len(kept):])
	return kept
}

// joinErrors prints errors one per line.
func joinErrors[E error](es []E) string {
	lines := make([]string, len(es))
	for i, e := range es {
		lines[i] = e.Error()
	}
	return strings.Join(lines, "\n")
}

// Warning is a problem that does not stop decoding, such as a field the simulator does not
// model.
type Warning struct {
	Pos  Position
	Path string
	Msg  string
}

// String formats w like DecodeError.Error: "file:line:col: path: msg".
func (w Warning) String() string {
	if w.Path == "" {
		return w.Pos.String() + ": " + w.Msg
	}
	return w.Pos.String() + ": " + w.Path + ": " + w.Msg
}

// DecodeOptions controls DecodeNode.
type DecodeOptions struct {
	// File names the input in positions.
	File string
	// Strict makes an unknown field an error (with a did-you-mean hint) instead of a warning.
	// A field that Kubernetes has but the simulator does not model is not unknown: it is
	// ignored with a warning saying so (see RefuseUnmodelled).
	Strict bool
	// RefuseUnmodelled makes a field that Kubernetes has but the simulator does not model an
	// error (the CLI's --strict) instead of a warning.
	RefuseUnmodelled bool
	// Path is prefixed to every reported path, for a node that sits inside a larger document.
	Path string
	// MaxNodes is the node budget; 0 means DefaultMaxDecodeNodes.
	MaxNodes int
}

// Unmarshaler is implemented by types that decode themselves from a YAML node. The node has
// already been resolved (no alias at the top, not null). A returned *DecodeError or
// DecodeErrors is kept as it is (empty positions and paths are filled in from the node);
// any other error is reported at the node's position.
type Unmarshaler interface {
	DecodeYAML(node *yaml.Node) error
}

// DecoderUnmarshaler is implemented by types that decode themselves and want to decode parts
// of the node with the same options, path, node budget and error collection, for example a
// union type that looks at a `type:` key and then decodes the mapping into the matching
// struct. It reports problems through d and returns nothing.
type DecoderUnmarshaler interface {
	DecodeYAMLWith(d *Decoder, node *yaml.Node)
}

// DecodeNode decodes node into out, which must be a non-nil pointer. Field names are the
// `json` tag names; an untagged embedded struct is inlined. Decoding does not stop at the
// first problem: every error is collected, each a *DecodeError with the position of the
// offending node and its field path. Unknown fields are warnings (one per path), or errors in
// strict mode. Aliases and merge keys (<<) are resolved; recursive aliases and inputs that
// expand past the node budget are errors. A nil node decodes nothing. If out is not a
// non-nil pointer, the only error is a plain error saying so.
//
// Supported Go types: string, bool, every int and uint kind (range-checked), float32/64,
// pointers, slices, map[string]T, structs, vtime.Time (a duration string such as "90s", or a
// number of seconds, meaning virtual time since the start of the run), time.Duration (a Go
// duration string; a plain integer other than 0 is an error, because the unit is missing),
// resource.Quantity, intstr.IntOrString, and types implementing Unmarshaler,
// DecoderUnmarshaler or yaml.Unmarshaler. A YAML null leaves the zero value.
func DecodeNode(node *yaml.Node, out any, opts DecodeOptions) (warnings []Warning, errs []error) {
	rv := reflect.ValueOf(out)
	if !rv.IsValid() || rv.Kind() != reflect.Pointer || rv.IsNil() {
		return nil, []error{fmt.Errorf("model.DecodeNode: out must be a non-nil pointer, got %T", out)}
	}
	d := newDecoder(opts)
	if node != nil {
		d.decodeValue(node, rv.Elem(), opts.Path)
	}
	d.finish()
	return d.warnings, d.errs
}

// Decoder is the state of one decoding run. Custom decoders (DecoderUnmarshaler) receive it
// to decode parts of their node and to report problems; nothing else creates one, and it must
// not be kept after DecodeYAMLWith returns.
type Decoder struct {
	opts     DecodeOptions
	maxNodes int
	nodes    int
	aborted  bool
	// expanding holds the alias nodes being decoded right now, to catch an alias that refers
	// to its own anchor.
	expanding map[*yaml.Node]bool
	warnings  []Warning
	warned    map[string]bool
	errs      []error
	errSeen   map[string]bool
	// path is the field path of the node a custom decoder is working on.
	path string
	// unmodelled collects the fields Kubernetes has that were ignored, for finish.
	unmodelled []unmodelledField
	// dump collects what was dropped or skipped from `kubectl get -o yaml` output.
	dump dumpSummary
	// manifest holds the options of a manifest decode (DecodeManifestsWith).
	manifest ManifestOptions
	// objPos is where each decoded manifest starts, in order.
	objPos []Position
	// rest and restUsed are the nodes of manifestRest and how many are in use.
	rest     []*yaml.Node
	restUsed int
	// entries is the stack of mapping entries (pushEntries).
	entries []mapEntry
	// paths caches field paths (cachedPath).
	paths map[pathKey]string
	// sharedMaps holds the string maps decoded so far under ManifestOptions.ShareEqualMaps,
	// by their entries (sharedMapKey); mapScratch and mapKey are decodeStringMap's buffers.
	sharedMaps map[string]map[string]string
	mapScratch []string
	mapKey     []byte
}

func newDecoder(opts DecodeOptions) *Decoder {
	d := &Decoder{opts: opts}
	d.reset()
	return d
}

// reset puts d in the state of a new decoder with its options (and manifest options),
// keeping the memory of its maps. What an earlier run returned (warnings, errors) is not
// touched.
func (d *Decoder) reset() {
	maxNodes := d.opts.MaxNodes
	if maxNodes <= 0 {
		maxNodes = DefaultMaxDecodeNodes
	}
	expanding, warned, errSeen := d.expanding, d.warned, d.errSeen
	if expanding == nil {
		expanding, warned, errSeen = map[*yaml.Node]bool{}, map[string]bool{}, map[string]bool{}
	}
	clear(expanding)
	clear(warned)
	clear(errSeen)
	*d = Decoder{
		opts:      d.opts,
		manifest:  d.manifest,
		maxNodes:  maxNodes,
		expanding: expanding,
		warned:    warned,
		errSeen:   errSeen,
		objPos:    d.objPos[:0],
		rest:      d.rest,
		entries:   d.entries[:0],
		paths:     d.paths,
		// The shared maps outlive a reset: ShareEqualMaps shares them across every manifest
		// the decoder decodes.
		sharedMaps: d.sharedMaps,
		mapScratch: d.mapScratch[:0],
		mapKey:     d.mapKey[:0],
	}
}

// Path returns the field path of the node being decoded.
func (d *Decoder) Path() string { return d.path }

// Options returns the options of this run.
func (d *Decoder) Options() DecodeOptions { return d.opts }

// Decode decodes node into out (a non-nil pointer) at the current path.
func (d *Decoder) Decode(node *yaml.Node, out any) {
	d.decodeAt(node, d.path, out)
}

// DecodeField decodes node into out (a non-nil pointer) at the current path extended by the
// field name.
func (d *Decoder) DecodeField(node *yaml.Node, name string, out any) {
	d.decodeAt(node, childPath(d.path, name), out)
}

func (d *Decoder) decodeAt(node *yaml.Node, path string, out any) {
	rv := reflect.ValueOf(out)
	if !rv.IsValid() || rv.Kind() != reflect.Pointer || rv.IsNil() {
		d.fail(node, path, fmt.Sprintf("internal error: decode target must be a non-nil pointer, got %T", out), "")
		return
	}
	if node == nil {
		return
	}
	saved := d.path
	d.decodeValue(node, rv.Elem(), path)
	d.path = saved
}

// Fail records an error at node's position and the current path.
func (d *Decoder) Fail(node *yaml.Node, msg, hint string) { d.fail(node, d.path, msg, hint) }

// Warn records a warning at node's position and the current path (one warning per path: a
// second one at the same path is dropped).
func (d *Decoder) Warn(node *yaml.Node, msg string) { d.warn(node, d.path, msg) }

// Resolve follows an alias (and unwraps a document node) and returns the node it stands for.
// It returns nil for an empty document, and nil with an error recorded for an alias without a
// target or an alias chain longer than 100.
func (d *Decoder) Resolve(node *yaml.Node) *yaml.Node {
	for i := 0; node != nil && i < maxMergeDepth; i++ {
		switch {
		case node.Kind == yaml.AliasNode:
			if node.Alias == nil {
				d.fail(node, d.path, fmt.Sprintf("alias *%s has no anchor", node.Value), "")
				return nil
			}
			node = node.Alias
		case node.Kind == yaml.DocumentNode:
			if len(node.Content) == 0 {
				return nil
			}
			node = node.Content[0]
		default:
			return node
		}
	}
	if node != nil {
		d.fail(node, d.path, "alias chain too long", "")
	}
	return nil
}

func (d *Decoder) pos(n *yaml.Node) Position {
	if n == nil || n.Line < 1 {
		// No node, or one the parser did not make (the zero Node of an empty input): the
		// start of the file is the best position there is.
		return Position{File: d.opts.File, Line: 1, Column: 1}
	}
	return Position{File: d.opts.File, Line: n.Line, Column: n.Column}
}

func (d *Decoder) fail(n *yaml.Node, path, msg, hint string) {
	d.addError(&DecodeError{Pos: d.pos(n), Path: path, Msg: msg, Hint: hint})
}

// addError records e unless the same error (same text) was recorded before: an anchor used
// twice would otherwise report its problems twice.
func (d *Decoder) addError(e *DecodeError) {
	if d.aborted {
		return
	}
	key := e.Error()
	if d.errSeen[key] {
		return
	}
	d.errSeen[key] = true
	if len(d.errs) >= maxDecodeErrors {
		d.errs = append(d.errs, &DecodeError{Pos: e.Pos, Msg: fmt.Sprintf("too many errors; stopped after %d", maxDecodeErrors)})
		d.aborted = true
		return
	}
	d.errs = append(d.errs, e)
}

func (d *Decoder) warn(n *yaml.Node, path, msg string) {
	if d.warned[path] || len(d.warnings) >= maxDecodeWarnings {
		return
	}
	d.warned[path] = true
	d.warnings = append(d.warnings, Warning{Pos: d.pos(n), Path: path, Msg: msg})
}

// spend counts n nodes against the budget and reports false (after recording the error once)
// when the budget is exhausted.
func (d *Decoder) spend(at *yaml.Node, n int) bool {
	if d.aborted {
		return false
	}
	d.nodes += n
	if d.nodes > d.maxNodes {
		d.addError(&DecodeError{
			Pos:  d.pos(at),
			Msg:  fmt.Sprintf("document expands to more than %d values", d.maxNodes),
			Hint: "an alias bomb, or a document too large to decode; reduce the use of aliases (*name)",
		})
		d.aborted = true
		return false
	}
	return true
}

// adoptError turns an error returned by a custom decoder into DecodeErrors.
func (d *Decoder) adoptError(n *yaml.Node, path string, err error) {
	var list DecodeErrors
	if errors.As(err, &list) {
		for _, e := range list {
			d.adoptError(n, path, e)
		}
		return
	}
	var de *DecodeError
	if errors.As(err, &de) {
		c := *de
		if c.Pos.Line == 0 {
			c.Pos = d.pos(n)
		}
		if c.Pos.File == "" {
			c.Pos.File = d.opts.File
		}
		if c.Path == "" {
			c.Path = path
		}
		d.addError(&c)
		return
	}
	d.fail(n, path, err.Error(), "")
}

var (
	simTimeType        = reflect.TypeFor[vtime.Time]()
	durationType       = reflect.TypeFor[time.Duration]()
	quantityType       = reflect.TypeFor[resource.Quantity]()
	intOrStringType    = reflect.TypeFor[intstr.IntOrString]()
	decoderUnmarshaler = reflect.TypeFor[DecoderUnmarshaler]()
	unmarshaler        = reflect.TypeFor[Unmarshaler]()
	yamlUnmarshaler    = reflect.TypeFor[yaml.Unmarshaler]()
)

// decodeValue decodes n into v (settable) at path.
func (d *Decoder) decodeValue(n *yaml.Node, v reflect.Value, path string) {
	if !d.spend(n, 1) {
		return
	}
	switch n.Kind {
	case yaml.AliasNode:
		if n.Alias == nil {
			d.fail(n, path, fmt.Sprintf("alias *%s has no anchor", n.Value), "")
			return
		}
		if d.expanding[n] {
			d.fail(n, path, fmt.Sprintf("alias *%s refers to a value that contains it", n.Value), "an anchor cannot contain an alias to itself")
			return
		}
		d.expanding[n] = true
		d.decodeValue(n.Alias, v, path)
		delete(d.expanding, n)
		return
	case yaml.DocumentNode:
		if len(n.Content) > 0 {
			d.decodeValue(n.Content[0], v, path)
		}
		return
	case yaml.ScalarNode, yaml.MappingNode, yaml.SequenceNode:
	case 0:
		// The zero Node, which yaml.Unmarshal leaves for an empty input: nothing to decode.
		return
	default:
		d.fail(n, path, "malformed YAML node", "")
		return
	}
	if isNull(n) {
		v.Set(reflect.Zero(v.Type()))
		return
	}
	if d.decodeCustom(n, v, path) {
		return
	}
	switch v.Type() {
	case simTimeType:
		d.decodeSimTime(n, v, path)
		return
	case durationType:
		d.decodeDuration(n, v, path)
		return
	case quantityType:
		d.decodeQuantity(n, v, path)
		return
	case intOrStringType:
		d.decodeIntOrString(n, v, path)
		return
	}
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			v.Set(reflect.New(v.Type().Elem()))
		}
		d.decodeValue(n, v.Elem(), path)
	case reflect.String:
		d.decodeString(n, v, path)
	case reflect.Bool:
		d.decodeBool(n, v, path)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		d.decodeInt(n, v, path)
	case reflect.Float32, reflect.Float64:
		d.decodeFloat(n, v, path)
	case reflect.Struct:
		d.decodeStruct(n, v, path)
	case reflect.Slice:
		d.decodeSlice(n, v, path)
	case reflect.Map:
		d.decodeMap(n, v, path)
	default:
		d.fail(n, path, fmt.Sprintf("internal error: the decoder does not support Go type %s", v.Type()), "")
	}
}

// decodeCustom runs a custom decoder if v's type has one, and reports whether it did.
func (d *Decoder) decodeCustom(n *yaml.Node, v reflect.Value, path string) bool {
	if !v.CanAddr() {
		return false
	}
	pt := v.Addr().Type()
	switch {
	case pt.Implements(decoderUnmarshaler):
		saved := d.path
		d.path = path
		v.Addr().Interface().(DecoderUnmarshaler).DecodeYAMLWith(d, n)
		d.path = saved
		return true
	case pt.Implements(unmarshaler):
		if err := v.Addr().Interface().(Unmarshaler).DecodeYAML(n); err != nil {
			d.adoptError(n, path, err)
		}
		return true
	case pt.Implements(yamlUnmarshaler):
		if err := v.Addr().Interface().(yaml.Unmarshaler).UnmarshalYAML(n); err != nil {
			d.adoptError(n, path, err)
		}
		return true
	}
	return false
}

func (d *Decoder) decodeSlice(n *yaml.Node, v reflect.Value, path string) {
	if n.Kind != yaml.SequenceNode {
		d.typeError(n, path, "a sequence", "")
		return
	}
	// Check the budget before allocating, so a huge sequence cannot allocate first.
	if d.nodes+len(n.Content) > d.maxNodes {
		d.spend(n, len(n.Content))
		return
	}
	s := reflect.MakeSlice(v.Type(), len(n.Content), len(n.Content))
	for i, c := range n.Content {
		d.decodeValue(c, s.Index(i), d.cachedPath(pathKey{path, "", i}))
		if d.aborted {
			return
		}
	}
	v.Set(s)
}

func (d *Decoder) decodeMap(n *yaml.Node, v reflect.Value, path string) {
	t := v.Type()
	if t.Key().Kind() != reflect.String {
		d.fail(n, path, fmt.Sprintf("internal error: the decoder supports only string-keyed maps, not %s", t), "")
		return
	}
	if n.Kind != yaml.MappingNode {
		d.typeError(n, path, "a mapping", "")
		return
	}
	entries, mark := d.pushEntries(n, path)
	defer d.popEntries(mark)
	if d.manifest.ShareEqualMaps && t == stringMapType && v.IsNil() {
		d.decodeStringMap(entries, v, path)
		return
	}
	if v.IsNil() {
		v.Set(reflect.MakeMapWithSize(t, len(entries)))
	}
	// One key and one value serve every entry: SetMapIndex copies them into the map, and the
	// value is zeroed before the next is decoded into it. Boxing each key and allocating each
	// value were three allocations per entry of every label and selector.
	key, elem := reflect.New(t.Key()).Elem(), reflect.New(t.Elem()).Elem()
	for _, e := range entries {
		d.decodeValue(e.value, elem, d.cachedPath(pathKey{path, e.key.Value, keyElem}))
		if d.aborted {
			return
		}
		key.SetString(e.key.Value)
		v.SetMapIndex(key, elem)
		elem.SetZero()
	}
}

// stringMapType is the type of labels, annotations and selectors.
var stringMapType = reflect.TypeFor[map[string]string]()

// Bounds of the maps ManifestOptions.ShareEqualMaps shares: a map of more entries or longer
// text is rarely written twice, and the table stays small whatever the input.
const (
	maxSharedMaps        = 4096
	maxSharedMapEntries  = 16
	maxSharedMapKeyBytes = 1024
)

// decodeStringMap decodes entries into the nil map[string]string v, and with
// ManifestOptions.ShareEqualMaps makes v the map decoded before with the same entries in the
// same order, if there is one: 100,000 objects of a scenario or a cluster dump repeat a few
// label sets and selectors, and each map of one entry costs about 300 bytes.
func (d *Decoder) decodeStringMap(entries []mapEntry, v reflect.Value, path string) {
	kv := d.mapScratch[:0]
	errs := len(d.errs)
	var value string
	elem := reflect.ValueOf(&value).Elem()
	for _, e := range entries {
		value = ""
		d.decodeValue(e.value, elem, d.cachedPath(pathKey{path, e.key.Value, keyElem}))
		if d.aborted {
			d.mapScratch = kv[:0]
			return
		}
		kv = append(kv, e.key.Value, value)
	}
	d.mapScratch = kv[:0]
	key, share := d.sharedMapKey(kv)
	share = share && len(d.errs) == errs
	if share {
		if m, ok := d.sharedMaps[string(key)]; ok {
			v.Set(reflect.ValueOf(m))
			return
		}
	}
	m := make(map[string]string, len(kv)/2)
	for i := 0; i < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	v.Set(reflect.ValueOf(m))
	if share && len(d.sharedMaps) < maxSharedMaps {
		if d.sharedMaps == nil {
			d.sharedMaps = map[string]map[string]string{}
		}
		d.sharedMaps[string(key)] = m
	}
}

// sharedMapKey writes the entries kv (key, value, key, value, ...) as one string, each
// length-prefixed so that no two lists of entries write the same bytes, and reports whether
// the map is small enough to share.
func (d *Decoder) sharedMapKey(kv []string) ([]byte, bool) {
	if len(kv)/2 > maxSharedMapEntries {
		return nil, false
	}
	key := d.mapKey[:0]
	for _, s := range kv {
		if len(key)+len(s) > maxSharedMapKeyBytes {
			d.mapKey = key[:0]
			return nil, false
		}
		key = binary.AppendUvarint(key, uint64(len(s)))
		key = append(key, s...)
	}
	d.mapKey = key[:0]
	return key, true
}

func (d *Decoder) decodeStruct(n *yaml.Node, v reflect.Value, path string) {
	if n.Kind != yaml.MappingNode {
		d.typeError(n, path, "a mapping", "")
		return
	}
	info := structInfoOf(v.Type())
	entries, mark := d.pushEntries(n, path)
	defer d.popEntries(mark)
	for _, e := range entries {
		name := e.key.Value
		idx, ok := info.fields[name]
		if !ok {
			if d.isUnmodelled(v.Type(), name) {
				d.noteUnmodelled(e.key, e.value, childPath(path, name), v.Type(), name)
				continue
			}
			d.unknownField(e.key, childPath(path, name), name, info.names, upstreamNames(v.Type()))
			continue
		}
		p := d.cachedPath(pathKey{path, name, fieldElem})
		d.decodeValue(e.value, v.FieldByIndex(idx), p)
		if d.aborted {
			return
		}
		d.notePartlyModelled(e.key, e.value, p, v.Type(), name)
	}
}

// unknownField reports a field that neither the Go type (known) nor the upstream type it
// mirrors (upstream) has; the did-you-mean looks at both.
func (d *Decoder) unknownField(key *yaml.Node, path, name string, known, upstream []string) {
	suggestion := suggest.Nearest(name, append(slices.Clone(known), upstream...), maxSuggestInput)
	if d.opts.Strict {
		hint := "known fields: " + strings.Join(known, ", ")
		if suggestion != "" {
			hint = fmt.Sprintf("did you mean %q?", suggestion)
		}
		d.fail(key, path, fmt.Sprintf("unknown field %q", name), hint)
		return
	}
	msg := fmt.Sprintf("unknown field %q, ignored", name)
	if suggestion != "" {
		msg += fmt.Sprintf("; did you mean %q?", suggestion)
	}
	d.warn(key, path, msg)
}

type mapEntry struct{ key, value *yaml.Node }

// mappingEntries returns the key/value pairs of mapping n with merge keys (<<) applied:
// explicit keys win over merged ones, and among merged mappings the earlier one wins (the
// YAML merge-key rules). Non-scalar keys and duplicate explicit keys are errors.
func (d *Decoder) mappingEntries(n *yaml.Node, path string, depth int) []mapEntry {
	return d.appendMappingEntries(nil, n, path, depth)
}

// appendMappingEntries appends the entries of mapping n (see mappingEntries) to dst.
func (d *Decoder) appendMappingEntries(dst []mapEntry, n *yaml.Node, path string, depth int) []mapEntry {
	var merged []mapEntry
	start := len(dst)
	dst = slices.Grow(dst, len(n.Content)/2)
	first := map[string]*yaml.Node{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, val := n.Content[i], n.Content[i+1]
		if k.Kind == yaml.ScalarNode && k.ShortTag() == "!!merge" {
			merged = append(merged, d.mergeEntries(val, path, depth+1, false)...)
			continue
		}
		if k.Kind == yaml.AliasNode && k.Alias != nil {
			k = k.Alias
		}
		if k.Kind != yaml.ScalarNode {
			d.fail(k, path, fmt.Sprintf("mapping keys must be strings, got %s", describe(k)), "")
			continue
		}
		if prev, dup := first[k.Value]; dup {
			d.fail(k, keyPath(path, k.Value), fmt.Sprintf("duplicate key %q (first at line %d, column %d)", k.Value, prev.Line, prev.Column), "")
			continue
		}
		first[k.Value] = k
		dst = append(dst, mapEntry{k, val})
	}
	if len(merged) == 0 {
		return dst
	}
	explicit := slices.Clone(dst[start:])
	out := dst[:start]
	taken := map[string]bool{}
	for _, e := range merged {
		if first[e.key.Value] != nil || taken[e.key.Value] {
			continue
		}
		taken[e.key.Value] = true
		out = append(out, e)
	}
	return append(out, explicit...)
}

// pushEntries puts the entries of mapping n (see mappingEntries) on the decoder's stack of
// entries and returns them; popEntries(mark), with mark the stack's length before, takes
// them off. The entries of the mappings being decoded, one inside the other, then share
// memory that is kept from one manifest to the next instead of a slice for each mapping.
func (d *Decoder) pushEntries(n *yaml.Node, path string) (entries []mapEntry, mark int) {
	mark = len(d.entries)
	d.entries = d.appendMappingEntries(d.entries, n, path, 0)
	return d.entries[mark:], mark
}

func (d *Decoder) popEntries(mark int) {
	clear(d.entries[mark:])
	d.entries = d.entries[:mark]
}

// pathKey names a path made from a parent path and an element: a field name (index
// fieldElem), a map key (keyElem) or an index (index >= 0).
type pathKey struct {
	parent, elem string
	index        int
}

const (
	fieldElem = -1
	keyElem   = -2
	// maxCachedPaths bounds the paths a decoder keeps (cachedPath).
	maxCachedPaths = 4096
)

// cachedPath returns the path k names, from the paths the decoder made before: the paths of
// one manifest (metadata.name, spec.ports[0].port) are those of the next, and a loader
// decodes 100,000 manifests with one decoder.
func (d *Decoder) cachedPath(k pathKey) string {
	if p, ok := d.paths[k]; ok {
		return p
	}
	var p string
	switch k.index {
	case fieldElem:
		p = childPath(k.parent, k.elem)
	case keyElem:
		p = keyPath(k.parent, k.elem)
	default:
		p = IndexPath(k.parent, k.index)
	}
	if len(d.paths) < maxCachedPaths {
		if d.paths == nil {
			d.paths = map[pathKey]string{}
		}
		d.paths[k] = p
	}
	return p
}

// mergeEntries returns the entries a merge key's value contributes: one mapping, or a
// sequence of mappings, each possibly an alias. inSequence is set for the elements of such a
// sequence, which must be mappings themselves.
func (d *Decoder) mergeEntries(val *yaml.Node, path string, depth int, inSequence bool) []mapEntry {
	if depth > maxMergeDepth {
		d.fail(val, path, fmt.Sprintf("merge keys (<<) nested more than %d deep", maxMergeDepth), "")
		return nil
	}
	if !d.spend(val, 1) {
		return nil
	}
	switch val.Kind {
	case yaml.AliasNode:
		if val.Alias == nil {
			d.fail(val, path, fmt.Sprintf("alias *%s has no anchor", val.Value), "")
			return nil
		}
		if d.expanding[val] {
			d.fail(val, path, fmt.Sprintf("alias *%s refers to a value that contains it", val.Value), "an anchor cannot contain an alias to itself")
			return nil
		}
		d.expanding[val] = true
		defer delete(d.expanding, val)
		return d.mergeEntries(val.Alias, path, depth+1, inSequence)
	case yaml.MappingNode:
		return d.mappingEntries(val, path, depth)
	case yaml.SequenceNode:
		if inSequence {
			break
		}
		var out []mapEntry
		for _, c := range val.Content {
			out = append(out, d.mergeEntries(c, path, depth+1, true)...)
			if d.aborted {
				return nil
			}
		}
		return out
	}
	d.fail(val, path, fmt.Sprintf("a merge key (<<) takes a mapping or a sequence of mappings, got %s", describe(val)), "")
	return nil
}

// structInfo lists a struct type's decodable fields by their YAML (json tag) name.
type structInfo struct {
	fields map[string][]int
	names  []string // sorted
}

var structInfoCache sync.Map // reflect.Type -> *structInfo

func structInfoOf(t reflect.Type) *structInfo {
	if si, ok := structInfoCache.Load(t); ok {
		return si.(*structInfo)
	}
	si := &structInfo{fields: map[string][]int{}}
	collectFields(t, nil, si)
	//detlint:ordered the names are sorted below
	for name := range si.fields {
		si.names = append(si.names, name)
	}
	slices.Sort(si.names)
	structInfoCache.Store(t, si)
	return si
}

func collectFields(t reflect.Type, index []int, si *structInfo) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		idx := append(slices.Clone(index), i)
		tag, hasTag := f.Tag.Lookup("json")
		name, _, _ := strings.Cut(tag, ",")
		if name == "-" && tag == "-" {
			continue
		}
		if f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct {
			collectFields(f.Type, idx, si)
			continue
		}
		if !f.IsExported() {
			continue
		}
		if !hasTag || name == "" {
			name = f.Name
		}
		// A field of the outer struct wins over one promoted from an inlined struct, as in
		// encoding/json.
		if _, taken := si.fields[name]; !taken || len(idx) < len(si.fields[name]) {
			si.fields[name] = idx
		}
	}
}

// childPath appends a field name to a path.
func childPath(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

// keyPath appends a map key: as a field (requests.cpu) when it is a plain word, else in
// brackets (labels[app.kubernetes.io/name]).
func keyPath(path, key string) string {
	if PlainKey(key) {
		return childPath(path, key)
	}
	return path + "[" + key + "]"
}

// PlainKey reports whether a map key is written in a path as a field (requests.cpu), rather
// than in brackets (labels[app.kubernetes.io/name]): a non-empty word of letters, digits, -
// and _.
func PlainKey(key string) bool {
	for _, r := range key {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return false
		}
	}
	return key != ""
}

// ChildPath appends a field name to a field path (spec.template), as the decoder writes its
// error paths; scenarios, sweep and the metrics shapes write theirs with it.
func ChildPath(path, name string) string { return childPath(path, name) }

// KeyPath appends a map key as the decoder does: a plain word as a field, anything else in
// brackets (labels[app.kubernetes.io/name]).
func KeyPath(path, key string) string { return keyPath(path, key) }

// IndexPath appends a sequence index (containers[0]).
func IndexPath(path string, i int) string {
	var digits [20]byte // formatted here: strconv.Itoa allocates for every index above 99
	return path + "[" + string(strconv.AppendInt(digits[:0], int64(i), 10)) + "]"
}

// DescribeNode names what a YAML node holds, for "expected X, got Y" messages (a mapping, a
// string "x", an integer (3), a text of N characters, ...).
func DescribeNode(n *yaml.Node) string { return describe(n) }
