package model

import (
	"bytes"
	"fmt"
	"io"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"gopkg.in/yaml.v3"

	"github.com/reconsim/reconsim/internal/suggest"
)

// Manifest limits.
const (
	// MaxManifestBytes is the largest manifest stream DecodeManifests reads.
	MaxManifestBytes = 64 << 20
	// MaxManifestDocuments is the most documents (objects) one stream may hold.
	MaxManifestDocuments = 100_000
)

// serverSetMetadata lists metadata fields the API server owns. Manifests saved with
// `kubectl get -o yaml` carry them (RFC 3339 timestamps, string resourceVersions); they mean
// nothing in a fresh simulated cluster, so they are dropped (see dumpSummary) instead of
// failing to decode.
var serverSetMetadata = []string{
	"creationTimestamp", "deletionGracePeriodSeconds", "deletionTimestamp", "generation",
	"managedFields", "resourceVersion", "selfLink", "uid",
}

// ManifestOptions are the options of DecodeManifestsWith and DecodeManifestNodeWith.
type ManifestOptions struct {
	// Strict makes every object skipped and every field ignored an error (the CLI's
	// --strict): a kind the simulator does not model, an object of a cluster dump that the
	// simulated cluster makes itself (a Node, an owned ReplicaSet, ...), a field that
	// Kubernetes has and the simulator does not model. What the API server set (uid,
	// resourceVersion, status, ...) is still dropped.
	Strict bool
	// KeepNodes keeps the Nodes of a cluster dump, with the capacity and allocatable of their
	// status (sim import turns them into node groups); by default they are skipped.
	KeepNodes bool
	// ExistingNamespaces holds the namespaces the simulated cluster creates itself; a cluster
	// dump's Namespace objects of those names are dropped rather than created twice.
	ExistingNamespaces map[string]bool
	// CustomResources decodes a manifest of a kind in a group that is not built in (a custom
	// resource) as a *Unstructured, for the caller to check against the
	// CustomResourceDefinitions it knows; without it such a manifest is skipped.
	CustomResources bool
	// ShareEqualMaps lets the objects decoded share one map for equal labels, annotations and
	// selectors (the same entries in the same order, within bounds): a scenario's objects are
	// templates that the simulation copies before it stores or changes them, and 100,000 of
	// them repeat a few label sets. The objects must then be treated as read-only: DeepCopy
	// one before changing it.
	ShareEqualMaps bool
}

// DecodeManifests decodes a multi-document YAML stream of Kubernetes manifests with the
// default options; see DecodeManifestsWith.
func DecodeManifests(file string, data []byte) ([]Object, []Warning, error) {
	return DecodeManifestsWith(file, data, ManifestOptions{})
}

// DecodeManifestsWith decodes a multi-document YAML stream of Kubernetes manifests (as given
// to `kubectl apply -f`, or as `kubectl get -o yaml` prints them). Each document needs
// apiVersion and kind naming a registered kind (see Kinds) with its apiVersion; a `kind:
// List` (apiVersion v1) contributes its items. Empty documents are skipped. Objects are
// returned in document order, neither defaulted nor validated (see SetDefaults and
// Validate).
//
// A kind that Kubernetes (or a custom resource definition) has and the simulator does not
// model is skipped, with one warning per kind. An object that carries what the API server
// sets (uid, resourceVersion, creationTimestamp, managedFields, generation) comes from a
// cluster dump: those fields, its status and its ownerReferences are dropped with one
// summary warning for the stream, and the objects the simulated cluster makes itself are
// skipped (one warning per kind): Nodes (unless KeepNodes), Events, Leases, and objects
// whose controller is a modelled kind (a Deployment's ReplicaSets, their Pods, ...).
//
// A field Kubernetes has that the simulator does not model is ignored with a warning (a
// warning each for those that change scheduling or a pod's lifecycle, saying what the
// simulation does instead; one for the rest); a field Kubernetes does not have is an error
// with a did-you-mean. With opts.Strict every skip and ignored field is an error.
//
// When anything is wrong the objects are nil and the error is DecodeErrors holding every
// problem found, each a *DecodeError with file:line:col; a YAML syntax error ends the stream
// (yaml.v3 reports only a line, so its column is 1).
func DecodeManifestsWith(file string, data []byte, opts ManifestOptions) ([]Object, []Warning, error) {
	objs, _, warns, err := DecodeManifestsAt(file, data, opts)
	return objs, warns, err
}

// DecodeManifestsAt is DecodeManifestsWith that also returns where each object is written
// (positions[i] is the start of objs[i]).
func DecodeManifestsAt(file string, data []byte, opts ManifestOptions) (objs []Object, positions []Position, warnings []Warning, err error) {
	d := newManifestDecoder(file, opts)
	docs := d.splitDocuments(data)
	for _, doc := range docs {
		if d.aborted {
			break
		}
		objs = append(objs, d.decodeManifest(doc, "", true)...)
	}
	d.finish()
	if len(d.errs) > 0 {
		return nil, nil, d.warnings, DecodeErrors(d.errs)
	}
	return objs, d.objPos, d.warnings, nil
}

func newManifestDecoder(file string, opts ManifestOptions) *Decoder {
	d := newDecoder(DecodeOptions{File: file, Strict: true, RefuseUnmodelled: opts.Strict})
	d.manifest = opts
	return d
}

// SplitManifests parses a multi-document YAML stream into its non-empty document nodes, with
// the limits and syntax-error positions of DecodeManifests. Callers that want to position
// validation errors (see ValidationErrors) decode each node with DecodeManifestNode. On error
// the nodes before the syntax error are returned with DecodeErrors.
func SplitManifests(file string, data []byte) ([]*yaml.Node, error) {
	d := newDecoder(DecodeOptions{File: file})
	docs := d.splitDocuments(data)
	if len(d.errs) > 0 {
		return docs, DecodeErrors(d.errs)
	}
	return docs, nil
}

func (d *Decoder) splitDocuments(data []byte) []*yaml.Node {
	if len(data) > MaxManifestBytes {
		d.fail(nil, "", fmt.Sprintf("manifest stream is %d bytes, more than the limit of %d", len(data), MaxManifestBytes), "split it into several files")
		return nil
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var docs []*yaml.Node
	for count := 0; ; count++ {
		doc := new(yaml.Node)
		err := DecodeYAMLDocument(dec, doc)
		if err == io.EOF {
			return docs
		}
		if err != nil {
			d.addError(syntaxError(d.opts.File, data, err))
			return docs
		}
		if count >= MaxManifestDocuments {
			d.fail(doc, "", fmt.Sprintf("more than %d documents in one stream", MaxManifestDocuments), "split it into several files")
			return docs
		}
		if !isEmptyDocument(doc) {
			docs = append(docs, doc)
		}
	}
}

// DecodeManifestNode decodes one manifest with the default options; see
// DecodeManifestNodeWith.
func DecodeManifestNode(file string, node *yaml.Node) (Object, []Warning, error) {
	return DecodeManifestNodeWith(file, node, ManifestOptions{})
}

// DecodeManifestNodeWith decodes one manifest that is already parsed, typically a manifest
// inlined in a scenario file, so positions refer to that file. The rules are those of
// DecodeManifestsWith, except that a List is an error. A manifest that is skipped (a kind the
// simulator does not model, ...) gives a nil object, a warning and no error. On error the
// object is nil and the error is DecodeErrors.
func DecodeManifestNodeWith(file string, node *yaml.Node, opts ManifestOptions) (Object, []Warning, error) {
	return NewManifestDecoder(file, opts).Decode(node)
}

// ManifestDecoder decodes parsed manifests one at a time, each as DecodeManifestNodeWith
// does, with one file and one set of options. It keeps its memory from one manifest to the
// next: a scenario of 100,000 inline manifests is decoded by one decoder instead of by
// 100,000 (scenarios' BenchmarkLoad100k).
type ManifestDecoder struct{ d *Decoder }

// NewManifestDecoder returns a decoder of the manifests of file.
func NewManifestDecoder(file string, opts ManifestOptions) *ManifestDecoder {
	return &ManifestDecoder{d: newManifestDecoder(file, opts)}
}

// Decode decodes one manifest; see DecodeManifestNodeWith. Nothing of one call carries over
// to the next: each manifest is decoded as if by a new decoder.
func (m *ManifestDecoder) Decode(node *yaml.Node) (Object, []Warning, error) {
	d := m.d
	d.reset()
	if node == nil || isEmptyDocument(node) {
		d.fail(node, "", "empty manifest", "a manifest needs apiVersion, kind and metadata")
		return nil, nil, DecodeErrors(d.errs)
	}
	objs := d.decodeManifest(node, "", false)
	d.finish()
	if len(d.errs) > 0 {
		return nil, d.warnings, DecodeErrors(d.errs)
	}
	if len(objs) == 0 {
		return nil, d.warnings, nil
	}
	return objs[0], d.warnings, nil
}

// DecodeYAMLDocument reads dec's next document into doc (io.EOF after the last); a panic inside
// the YAML parser becomes an error rather than taking the caller down. The manifest decoder,
// the scenario loader and the sweep parser read their YAML through it.
func DecodeYAMLDocument(dec *yaml.Decoder, doc *yaml.Node) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("yaml: parser failed: %v", r)
		}
	}()
	return dec.Decode(doc)
}

func isEmptyDocument(n *yaml.Node) bool {
	if n.Kind == 0 {
		return true
	}
	if n.Kind == yaml.DocumentNode {
		return len(n.Content) == 0 || isNull(n.Content[0])
	}
	return isNull(n)
}

// decodeManifest decodes one document (or a List's item at path) and returns the objects it
// holds; problems are recorded in d. allowList says whether a List may appear here.
func (d *Decoder) decodeManifest(node *yaml.Node, path string, allowList bool) []Object {
	errsBefore := len(d.errs)
	n := d.Resolve(node)
	if n == nil {
		return nil
	}
	if n.Kind != yaml.MappingNode {
		d.fail(n, path, fmt.Sprintf("a manifest must be a mapping with apiVersion and kind, got %s", describe(n)), "")
		return nil
	}
	var apiVersionNode, kindNode, metadataNode *yaml.Node
	rest := d.manifestRest(n)
	defer d.releaseRest()
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind == yaml.ScalarNode {
			switch k.Value {
			case "apiVersion", "kind":
				slot := &apiVersionNode
				if k.Value == "kind" {
					slot = &kindNode
				}
				if *slot != nil {
					d.fail(k, childPath(path, k.Value), fmt.Sprintf("duplicate key %q", k.Value), "")
				}
				*slot = v
				continue
			case "metadata":
				metadataNode = v
			}
		}
		rest.Content = append(rest.Content, k, v)
	}
	apiVersion := d.manifestString(apiVersionNode, childPath(path, "apiVersion"))
	kind := d.manifestString(kindNode, childPath(path, "kind"))
	if kindNode == nil {
		d.fail(n, path, "missing kind", `every manifest needs apiVersion and kind, e.g. "apiVersion: v1" and "kind: Pod"`)
		return nil
	}
	if kind == "List" && apiVersion == "v1" {
		if !allowList {
			d.fail(kindNode, childPath(path, "kind"), "a List is not allowed here", "write each object as its own manifest")
			return nil
		}
		return d.decodeList(rest, path)
	}
	ki, ok := LookupKind(Kind(kind))
	if !ok && d.manifest.CustomResources && isCustomResource(apiVersion, kind) {
		return d.decodeCustomResource(n, rest, metadataNode, apiVersion, kind, path)
	}
	if !ok {
		if kind != "" && !d.skipUnmodelledKind(n, apiVersionNode, kindNode, apiVersion, kind, path) {
			d.fail(kindNode, childPath(path, "kind"), fmt.Sprintf("unknown kind %q", kind), kindHint(kind))
		}
		return nil
	}
	switch {
	case apiVersionNode == nil:
		d.fail(n, path, "missing apiVersion", fmt.Sprintf("kind %s is served by apiVersion: %s", kind, ki.APIVersion))
		return nil
	case apiVersion != ki.APIVersion:
		if apiVersion != "" {
			d.fail(apiVersionNode, childPath(path, "apiVersion"), fmt.Sprintf("apiVersion %q does not serve kind %s", apiVersion, kind), fmt.Sprintf("use apiVersion: %s", ki.APIVersion))
		}
		return nil
	}
	if metadataNode == nil {
		d.fail(n, path, "missing metadata", "a manifest needs metadata with at least a name")
		return nil
	}
	if d.isDumpObject(metadataNode) {
		if d.skipDumpObject(n, ki.Kind, metadataNode, path) {
			return nil
		}
		rest = d.pruneDumpObject(ki.Kind, rest)
	} else {
		rest = d.withoutServerSetMetadata(rest)
	}
	obj := ki.New()
	d.decodeValue(rest, reflect.ValueOf(obj).Elem(), path)
	if len(d.errs) > errsBefore {
		return nil
	}
	d.objPos = append(d.objPos, d.pos(n))
	return []Object{obj}
}

// manifestRest returns a node to gather the top level of manifest n in without apiVersion
// and kind: a copy of n with no entries and room for them, made in memory the decoder keeps
// from one manifest to the next (one node per level of List nesting). releaseRest gives it
// back. Nothing decoded keeps it: an object keeps values, a custom resource keeps n.
func (d *Decoder) manifestRest(n *yaml.Node) *yaml.Node {
	if d.restUsed == len(d.rest) {
		d.rest = append(d.rest, &yaml.Node{})
	}
	r := d.rest[d.restUsed]
	d.restUsed++
	content := r.Content[:0]
	*r = *n
	r.Content = slices.Grow(content, len(n.Content))
	return r
}

// releaseRest gives back the node manifestRest returned last, dropping what it points to.
func (d *Decoder) releaseRest() {
	d.restUsed--
	r := d.rest[d.restUsed]
	clear(r.Content)
	*r = yaml.Node{Content: r.Content[:0]}
}

// manifestString reads apiVersion or kind, which must be a string; "" when absent or wrong.
func (d *Decoder) manifestString(n *yaml.Node, path string) string {
	if n == nil {
		return ""
	}
	r := d.Resolve(n)
	if r == nil {
		return ""
	}
	if r.Kind != yaml.ScalarNode || r.ShortTag() != "!!str" {
		d.typeError(r, path, "a string", "!!str")
		return ""
	}
	if r.Value == "" {
		d.fail(r, path, "must not be empty", "")
	}
	return r.Value
}

func (d *Decoder) decodeList(list *yaml.Node, path string) []Object {
	var items *yaml.Node
	for i := 0; i+1 < len(list.Content); i += 2 {
		k := list.Content[i]
		if k.Value == "items" {
			items = d.Resolve(list.Content[i+1])
			continue
		}
		if k.Value != "metadata" {
			d.unknownField(k, childPath(path, k.Value), k.Value, []string{"apiVersion", "items", "kind", "metadata"}, nil)
		}
	}
	if items == nil || isNull(items) {
		return nil
	}
	if items.Kind != yaml.SequenceNode {
		d.typeError(items, childPath(path, "items"), "a sequence", "")
		return nil
	}
	var objs []Object
	for i, item := range items.Content {
		if !d.spend(item, 1) {
			return nil
		}
		objs = append(objs, d.decodeManifest(item, childPath(path, "items")+"["+strconv.Itoa(i)+"]", false)...)
	}
	return objs
}

func kindHint(kind string) string {
	var names []string
	for _, ki := range Kinds() {
		names = append(names, string(ki.Kind))
	}
	slices.Sort(names)
	supported := "supported kinds: " + strings.Join(names, ", ")
	candidates := slices.Clone(names)
	//detlint:ordered suggest breaks ties by name
	for k := range upstreamKinds {
		candidates = append(candidates, k)
	}
	if s := suggest.Nearest(kind, candidates, maxSuggestInput); s != "" {
		return fmt.Sprintf("did you mean %q? %s", s, supported)
	}
	return supported
}

var yamlLineRE = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)
var yamlAnchorRE = regexp.MustCompile(`anchor '([^']*)'`)

// syntaxError turns a yaml.v3 parse error into a DecodeError with a position. yaml.v3 puts
// "line N" in its messages except when the problem is on the first line; for problems it
// reports without any position (an unknown anchor, a control character, bad UTF-8) the
// position is found by scanning the input.
func syntaxError(file string, data []byte, err error) *DecodeError {
	msg := err.Error()
	pos := Position{File: file, Line: 1, Column: 1}
	if m := yamlLineRE.FindStringSubmatch(msg); m != nil {
		if line, convErr := strconv.Atoi(m[1]); convErr == nil && line > 0 {
			pos.Line = line
		}
		msg = m[2]
	} else {
		msg = strings.TrimPrefix(msg, "yaml: ")
		if off := locateProblem(data, msg); off >= 0 {
			pos.Line, pos.Column = lineCol(data, off)
		}
	}
	return &DecodeError{Pos: pos, Msg: "invalid YAML: " + msg}
}

// LocateYAMLProblem returns the 1-based line and column of the problem a yaml.v3 error
// without a line describes (bad UTF-8, a control character, an unknown anchor), found by
// scanning data; ok is false when it cannot be found.
func LocateYAMLProblem(data []byte, err error) (line, col int, ok bool) {
	off := locateProblem(data, strings.TrimPrefix(err.Error(), "yaml: "))
	if off < 0 {
		return 0, 0, false
	}
	line, col = lineCol(data, off)
	return line, col, true
}

// locateProblem returns the byte offset of the problem a position-less yaml.v3 message
// describes, or -1.
func locateProblem(data []byte, msg string) int {
	switch {
	case strings.Contains(msg, "UTF-8") || strings.Contains(msg, "utf-8"):
		for off := 0; off < len(data); {
			r, size := utf8.DecodeRune(data[off:])
			if r == utf8.RuneError && size <= 1 {
				return off
			}
			off += size
		}
	case strings.Contains(msg, "control characters"):
		for off := 0; off < len(data); {
			r, size := utf8.DecodeRune(data[off:])
			if (r < 0x20 && r != '\t' && r != '\n' && r != '\r') || r == 0x7f || (r >= 0x80 && r <= 0x9f) {
				return off
			}
			off += size
		}
	case strings.Contains(msg, "anchor '"):
		if m := yamlAnchorRE.FindStringSubmatch(msg); m != nil {
			return bytes.Index(data, []byte("*"+m[1]))
		}
	}
	return -1
}

// lineCol converts a byte offset into a 1-based line and column (in runes).
func lineCol(data []byte, off int) (line, col int) {
	line = 1 + bytes.Count(data[:off], []byte("\n"))
	start := bytes.LastIndexByte(data[:off], '\n') + 1
	return line, 1 + utf8.RuneCount(data[start:off])
}
