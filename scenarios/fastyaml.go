package scenarios

import (
	"strings"
	"unicode/utf8"
	"unsafe"

	"gopkg.in/yaml.v3"
)

// A fast parser for the common shape of the objects list's items.
//
// Parsing the items of a large objects list with yaml.v3 is most of the time a load takes
// (BenchmarkLoad100k). Nearly every item is written in a small part of YAML: block mappings
// and sequences, scalars that are plain, single- or double-quoted on one line, flow mappings
// and sequences on one line, and comments. fastParseItems parses exactly that part and builds
// the yaml.Node tree yaml.v3 builds for it: the same kinds, tags, styles, values, lines and
// columns (FuzzFastItemsMatchYAMLv3 checks this against yaml.v3 on every input it accepts).
// Comments are skipped and not kept on the nodes, as nothing the loader reads uses them.
//
// On anything else it returns nil and the chunk is parsed by yaml.v3 as before, so that
// every message and position of an unusual or bad file stays yaml.v3's: anchors, aliases,
// tags, merge keys (<<), block scalars (| and >), scalars or flow collections over several
// lines, empty values, explicit keys (?), compact nested sequences (- - x), keys of more than
// 1,000 bytes, tabs, carriage returns, characters outside the Basic Multilingual Plane,
// control characters, and every syntax error.

// fastMaxDepth bounds the nesting the fast parser follows before handing the chunk to
// yaml.v3 (whose own limits and messages then apply).
const fastMaxDepth = 64

// fastMaxKeyBytes bounds a mapping key: yaml.v3 rejects implicit keys of more than 1024
// characters (scannerc.go, yaml_parser_save_simple_key), so longer keys are left to it.
const fastMaxKeyBytes = 1000

// fastItemsEnabled turns the fast parser on; tests turn it off to compare both paths.
var fastItemsEnabled = true

// fastParser is the state of one fastParseItems call. The cursor is a line of data: ls is
// its first byte, eol the index of its '\n' (or len(data)), no its 1-based number in data.
type fastParser struct {
	data    []byte
	line0   int // the file's line number of data's first line, minus 1
	ascii   bool
	ls, eol int
	no      int
	eof     bool
	depth   int
	failed  bool
	nodes   []yaml.Node
	ptrs    []*yaml.Node
	stack   []*yaml.Node
	scalars fastScalars
	arena   *fastArena
}

// fastArena holds the memory of the nodes of one chunk of items. When the loader is done
// with a chunk and nothing it decoded keeps a node of it (streamObjects), reset lets the
// next chunk reuse the memory: a 100,000-item list is then built in the memory of one chunk
// instead of hundreds of megabytes of nodes for the garbage collector. A nil arena
// allocates as usual.
type fastArena struct {
	nodes [][]yaml.Node
	ptrs  [][]*yaml.Node
	// borrowsText makes the plain scalars parsed into the arena borrow their text from the
	// parsed bytes (unsafe.String) instead of copying it. It is for the arena that a chunk is
	// parsed again in only to find a position (objectList.itemIndex): its nodes are read for
	// their positions and keys, which the index copies into paths, and are dropped when the
	// arena is reset, while the bytes (the scenario file) are neither changed nor dropped
	// during a load. Copying was 5.5 MB of garbage for 50,000 problems.
	borrowsText bool
	// usedNodes and usedPtrs count the slabs handed out since reset.
	usedNodes, usedPtrs int
}

const (
	fastNodeSlab = 256
	fastPtrSlab  = 1024
)

func (a *fastArena) nodeSlab() []yaml.Node {
	if a == nil {
		return make([]yaml.Node, 0, fastNodeSlab)
	}
	if a.usedNodes == len(a.nodes) {
		a.nodes = append(a.nodes, make([]yaml.Node, 0, fastNodeSlab))
	}
	a.usedNodes++
	return a.nodes[a.usedNodes-1][:0]
}

func (a *fastArena) ptrSlab(n int) []*yaml.Node {
	if a == nil || n > fastPtrSlab {
		return make([]*yaml.Node, 0, max(fastPtrSlab, n))
	}
	if a.usedPtrs == len(a.ptrs) {
		a.ptrs = append(a.ptrs, make([]*yaml.Node, 0, fastPtrSlab))
	}
	a.usedPtrs++
	return a.ptrs[a.usedPtrs-1][:0]
}

// reset makes the memory handed out so far available again: every node built from the
// arena since the last reset must be unreachable for the caller.
func (a *fastArena) reset() { a.usedNodes, a.usedPtrs = 0, 0 }

// fastScalars holds the plain scalars met so far with their resolved tags, so that the
// values that repeat in every item (keys, apiVersion, kind, ...) are neither allocated nor
// resolved again; it is shared by the chunks of one list. Only short scalars are kept, and
// at most fastMaxScalars of them.
type fastScalars map[string]fastScalar

type fastScalar struct{ value, tag string }

const (
	fastMaxScalars     = 4096
	fastMaxScalarBytes = 32
)

// fastParseItems parses data, the text of consecutive items of a block sequence whose first
// line is line firstLine of the file, and returns the sequence node as yaml.v3 would build it
// with the file's line numbers, or nil when data is not in the part of YAML it handles.
// scalars (nil for none) caches plain scalars across calls; the nodes are made in arena
// (nil: allocated).
func fastParseItems(data []byte, firstLine int, scalars fastScalars, arena *fastArena) *yaml.Node {
	if !fastItemsEnabled || len(data) == 0 {
		return nil
	}
	ascii, ok := fastCharsOK(data)
	if !ok {
		return nil
	}
	if scalars == nil {
		scalars = fastScalars{}
	}
	p := &fastParser{data: data, line0: firstLine - 1, ascii: ascii, scalars: scalars, arena: arena}
	p.setLine(0, 1)
	if !p.skipToContent() {
		return nil
	}
	in := p.indent()
	seq := p.block(p.ls+in, true, true)
	if p.failed || seq == nil || seq.Kind != yaml.SequenceNode || !p.eof {
		return nil
	}
	return seq
}

// fastCharsOK reports whether data has only characters the fast parser accepts: line feeds,
// printable ASCII, and printable characters of the Basic Multilingual Plane (yaml.v3's
// is_printable, without tabs, carriage returns, the line breaks NEL, LS and PS, and the
// byte-order mark). ascii is set
// when every byte is ASCII.
func fastCharsOK(data []byte) (ascii, ok bool) {
	ascii = true
	for i := 0; i < len(data); {
		c := data[i]
		if c < utf8.RuneSelf {
			if (c < 0x20 && c != '\n') || c == 0x7f {
				return false, false
			}
			i++
			continue
		}
		ascii = false
		r, size := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && size == 1 || !(r >= 0xa0 && r <= 0xd7ff && r != 0x2028 && r != 0x2029 || r >= 0xe000 && r <= 0xfffd && r != 0xfeff) {
			return false, false
		}
		i += size
	}
	return ascii, true
}

// setLine moves the cursor to the line starting at ls, numbered no.
func (p *fastParser) setLine(ls, no int) {
	p.ls, p.no = ls, no
	p.eol = len(p.data)
	for i := ls; i < len(p.data); i++ {
		if p.data[i] == '\n' {
			p.eol = i
			break
		}
	}
}

// nextLine moves to the next line; false (and eof) after the last one.
func (p *fastParser) nextLine() bool {
	if p.eol >= len(p.data)-1 {
		p.eof = true
		return false
	}
	p.setLine(p.eol+1, p.no+1)
	return true
}

// skipToContent moves from the current line to the first line, it included, that holds
// more than spaces and a comment; false (and eof) when there is none.
func (p *fastParser) skipToContent() bool {
	for {
		i := p.ls + p.indent()
		if i < p.eol && p.data[i] != '#' {
			return true
		}
		if !p.nextLine() {
			return false
		}
	}
}

// nextContent moves to the next line that holds content; false at the end.
func (p *fastParser) nextContent() bool {
	return p.nextLine() && p.skipToContent()
}

// indent is the number of spaces the current line starts with.
func (p *fastParser) indent() int {
	i := p.ls
	for i < p.eol && p.data[i] == ' ' {
		i++
	}
	return i - p.ls
}

func (p *fastParser) skipSpaces(i int) int {
	for i < p.eol && p.data[i] == ' ' {
		i++
	}
	return i
}

// restEmpty reports whether the current line holds nothing but spaces and a comment from
// i on (a comment must follow a space, or start the line's content).
func (p *fastParser) restEmpty(i int) bool {
	j := p.skipSpaces(i)
	return j == p.eol || (p.data[j] == '#' && (j > i || j == p.ls || p.data[j-1] == ' '))
}

// isDash reports whether a block sequence entry starts at i.
func (p *fastParser) isDash(i int) bool {
	return i < p.eol && p.data[i] == '-' && (i+1 == p.eol || p.data[i+1] == ' ')
}

func (p *fastParser) fail() *yaml.Node {
	p.failed = true
	return nil
}

// node returns a new node at byte i of the current line.
func (p *fastParser) node(kind yaml.Kind, tag string, i int) *yaml.Node {
	if len(p.nodes) == cap(p.nodes) {
		p.nodes = p.arena.nodeSlab()
	}
	p.nodes = append(p.nodes, yaml.Node{Kind: kind, Tag: tag, Line: p.line0 + p.no, Column: p.column(i)})
	return &p.nodes[len(p.nodes)-1]
}

// column is yaml.v3's 1-based column of byte i of the current line: it counts characters.
func (p *fastParser) column(i int) int {
	if p.ascii {
		return i - p.ls + 1
	}
	return utf8.RuneCount(p.data[p.ls:i]) + 1
}

// collect returns the nodes pushed on the stack since mark as a node's Content.
func (p *fastParser) collect(mark int) []*yaml.Node {
	n := len(p.stack) - mark
	if n == 0 {
		return nil
	}
	if cap(p.ptrs)-len(p.ptrs) < n {
		p.ptrs = p.arena.ptrSlab(n)
	}
	start := len(p.ptrs)
	p.ptrs = append(p.ptrs, p.stack[mark:]...)
	clear(p.stack[mark:])
	p.stack = p.stack[:mark]
	return p.ptrs[start:len(p.ptrs):len(p.ptrs)]
}

// block parses the block node that starts at byte i of the current line. A sequence may
// start there when seqOK (i is the first character of the line), a mapping when mapOK (i
// starts the line or follows a sequence entry's dash). On return the cursor is on the next
// line with content, or eof.
func (p *fastParser) block(i int, seqOK, mapOK bool) *yaml.Node {
	if p.depth++; p.depth > fastMaxDepth {
		return p.fail()
	}
	defer func() { p.depth-- }()
	if p.isDash(i) {
		if !seqOK {
			return p.fail()
		}
		return p.blockSeq(i)
	}
	n, end := p.inline(i, false)
	if n == nil {
		return p.fail()
	}
	j := p.skipSpaces(end)
	if j < p.eol && p.data[j] == ':' && (j+1 == p.eol || p.data[j+1] == ' ') {
		if !mapOK || n.Kind != yaml.ScalarNode || end-i > fastMaxKeyBytes {
			return p.fail()
		}
		return p.blockMap(n, i, j+1)
	}
	if !p.restEmpty(end) {
		return p.fail()
	}
	p.nextContent()
	return n
}

// blockSeq parses a block sequence whose first dash is at byte i, the first character of
// the current line.
func (p *fastParser) blockSeq(i int) *yaml.Node {
	seq := p.node(yaml.SequenceNode, "!!seq", i)
	ind := i - p.ls
	mark := len(p.stack)
	for {
		var item *yaml.Node
		if after := i + 1; p.restEmpty(after) {
			if !p.nextContent() || p.indent() <= ind {
				return p.fail() // an empty entry
			}
			item = p.block(p.ls+p.indent(), true, true)
		} else {
			item = p.block(p.skipSpaces(after), false, true)
		}
		if item == nil {
			return p.fail()
		}
		p.stack = append(p.stack, item)
		if p.eof {
			break
		}
		in := p.indent()
		if in > ind {
			return p.fail()
		}
		if in < ind || !p.isDash(p.ls+in) {
			break // the parent's: a key of the mapping this sequence is a value of, or less indented
		}
		i = p.ls + in
	}
	seq.Content = p.collect(mark)
	return seq
}

// blockMap parses a block mapping whose first key, key, starts at byte i of the current line;
// its ':' ends before byte colon.
func (p *fastParser) blockMap(key *yaml.Node, i, colon int) *yaml.Node {
	m := p.node(yaml.MappingNode, "!!map", i)
	ind := i - p.ls
	mark := len(p.stack)
	for {
		var value *yaml.Node
		if p.restEmpty(colon) {
			if !p.nextContent() {
				return p.fail() // an empty value
			}
			in := p.indent()
			switch {
			case in > ind:
				value = p.block(p.ls+in, true, true)
			case in == ind && p.isDash(p.ls+in):
				value = p.block(p.ls+in, true, false)
			default:
				return p.fail() // an empty value
			}
		} else {
			value = p.block(p.skipSpaces(colon), false, false)
		}
		if value == nil {
			return p.fail()
		}
		p.stack = append(p.stack, key, value)
		if p.eof {
			break
		}
		in := p.indent()
		if in < ind {
			break
		}
		if in > ind || p.isDash(p.ls+in) {
			return p.fail()
		}
		i = p.ls + in
		var end int
		if key, end = p.inline(i, false); key == nil || key.Kind != yaml.ScalarNode || end-i > fastMaxKeyBytes {
			return p.fail()
		}
		j := p.skipSpaces(end)
		if j == p.eol || p.data[j] != ':' || (j+1 < p.eol && p.data[j+1] != ' ') {
			return p.fail()
		}
		colon = j + 1
	}
	m.Content = p.collect(mark)
	return m
}

// inline parses a scalar or a flow collection at byte i of the current line, in flow
// context when flow; end is the byte after it.
func (p *fastParser) inline(i int, flow bool) (n *yaml.Node, end int) {
	if i >= p.eol {
		return nil, 0
	}
	switch p.data[i] {
	case '{':
		return p.flowMap(i)
	case '[':
		return p.flowSeq(i)
	case '\'':
		return p.single(i)
	case '"':
		return p.double(i)
	}
	return p.plain(i, flow)
}

// plain parses a plain scalar on one line.
func (p *fastParser) plain(i int, flow bool) (*yaml.Node, int) {
	switch c := p.data[i]; c {
	case '-':
		if i+1 == p.eol || isFlowOrSpace(p.data[i+1]) {
			return nil, 0
		}
	case '?', ':', ',', '[', ']', '{', '}', '#', '&', '*', '!', '|', '>', '\'', '"', '%', '@', '`', ' ':
		return nil, 0
	}
	j := i
	for ; j < p.eol; j++ {
		c := p.data[j]
		if c == ':' {
			if j+1 == p.eol || p.data[j+1] == ' ' {
				break
			}
			if flow {
				return nil, 0
			}
		}
		if flow && (c == ',' || c == '[' || c == ']' || c == '{' || c == '}') {
			break
		}
		if flow && c == '?' {
			// yaml.v3's scanner ends a plain scalar at a '?' in a flow collection, as at a
			// flow indicator (scannerc.go, yaml_parser_scan_plain_scalar), and then rejects
			// what follows ("{0?: {}}"): leave such a chunk to it.
			return nil, 0
		}
		if c == '#' && p.data[j-1] == ' ' {
			break
		}
	}
	end := j
	for end > i && p.data[end-1] == ' ' {
		end--
	}
	text := p.data[i:end]
	if string(text) == "<<" || (i == p.ls && len(text) >= 3 && (string(text[:3]) == "---" || string(text[:3]) == "...")) {
		return nil, 0
	}
	if c, ok := p.scalars[string(text)]; ok {
		n := p.node(yaml.ScalarNode, c.tag, i)
		n.Value = c.value
		return n, end
	}
	if p.arena != nil && p.arena.borrowsText {
		n := p.node(yaml.ScalarNode, "", i)
		n.Value = unsafe.String(unsafe.SliceData(text), len(text))
		n.Tag = plainTag(n)
		return n, end
	}
	v := string(text)
	n := p.node(yaml.ScalarNode, "", i)
	n.Value = v
	n.Tag = plainTag(n)
	if len(v) <= fastMaxScalarBytes && len(p.scalars) < fastMaxScalars {
		p.scalars[v] = fastScalar{v, n.Tag}
	}
	return n, end
}

// plainTag is yaml.v3's resolution of plain scalar n (Node.ShortTag), without the memory
// yaml.v3's resolve allocates for the value it also returns. resolve.go looks at the first
// character: one that cannot start a number, a boolean or a null (its resolveTable has no
// hint for it) makes a string, and so does one of yYnNtTfFoO~ in a word longer than the
// booleans and nulls (at most five characters) its resolveMap holds. Anything else is left
// to ShortTag.
func plainTag(n *yaml.Node) string {
	if v := n.Value; v != "" {
		switch c := v[0]; {
		case c == '+' || c == '-' || c == '.' || c >= '0' && c <= '9':
		case strings.IndexByte("yYnNtTfFoO~", c) >= 0:
			if len(v) > 5 {
				return "!!str"
			}
		default:
			return "!!str"
		}
	}
	return n.ShortTag()
}

func isFlowOrSpace(c byte) bool {
	return c == ' ' || c == ',' || c == '[' || c == ']' || c == '{' || c == '}'
}

// single parses a single-quoted scalar on one line.
func (p *fastParser) single(i int) (*yaml.Node, int) {
	var buf []byte
	from := i + 1
	for j := from; j < p.eol; j++ {
		if p.data[j] != '\'' {
			continue
		}
		if j+1 < p.eol && p.data[j+1] == '\'' {
			buf = append(buf, p.data[from:j+1]...)
			from = j + 2
			j++
			continue
		}
		n := p.node(yaml.ScalarNode, "!!str", i)
		n.Style = yaml.SingleQuotedStyle
		if buf == nil {
			n.Value = string(p.data[from:j])
		} else {
			n.Value = string(append(buf, p.data[from:j]...))
		}
		return n, j + 1
	}
	return nil, 0
}

// double parses a double-quoted scalar on one line, with yaml.v3's escapes (scannerc.go,
// yaml_parser_scan_flow_scalar).
func (p *fastParser) double(i int) (*yaml.Node, int) {
	var buf []byte
	escaped := false
	from := i + 1
	for j := from; j < p.eol; j++ {
		switch p.data[j] {
		case '"':
			n := p.node(yaml.ScalarNode, "!!str", i)
			n.Style = yaml.DoubleQuotedStyle
			if !escaped {
				n.Value = string(p.data[from:j])
			} else {
				n.Value = string(append(buf, p.data[from:j]...))
			}
			return n, j + 1
		case '\\':
			if !escaped {
				escaped = true
				buf = make([]byte, 0, p.eol-i)
			}
			buf = append(buf, p.data[from:j]...)
			if j+1 >= p.eol {
				return nil, 0 // a line continuation
			}
			var width int
			e := p.data[j+1]
			switch r, ok := doubleQuotedEscapes[e]; {
			case ok:
				buf = utf8.AppendRune(buf, r)
			case e == 'x':
				width = 2
			case e == 'u':
				width = 4
			case e == 'U':
				width = 8
			default:
				return nil, 0
			}
			j++
			if width > 0 {
				if j+width >= p.eol {
					return nil, 0
				}
				// Eight hex digits do not fit a rune (an int32): \U80000000 would be negative.
				r := uint32(0)
				for _, h := range p.data[j+1 : j+1+width] {
					d, ok := hexDigit(h)
					if !ok {
						return nil, 0
					}
					r = r<<4 | uint32(d)
				}
				if r >= 0xd800 && r <= 0xdfff || r > 0x10ffff {
					return nil, 0
				}
				buf = utf8.AppendRune(buf, rune(r))
				j += width
			}
			from = j + 1
		}
	}
	return nil, 0
}

// doubleQuotedEscapes maps the character after a backslash in a double-quoted scalar to the
// character it stands for (YAML 1.2 section 5.7, as yaml.v3 reads them; yaml.v3 has no \/).
// \x, \u and \U, followed by hex digits, are read apart.
var doubleQuotedEscapes = map[byte]rune{
	'0': 0, 'a': '\a', 'b': '\b', 't': '\t', 'n': '\n', 'v': '\v', 'f': '\f', 'r': '\r', 'e': 0x1b,
	' ': ' ', '"': '"', '\'': '\'', '\\': '\\',
	'N': 0x85, '_': 0xa0, 'L': 0x2028, 'P': 0x2029,
}

func hexDigit(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// flowSeq parses a flow sequence on one line.
func (p *fastParser) flowSeq(i int) (*yaml.Node, int) {
	return p.flowCollection(i, yaml.SequenceNode, "!!seq", ']', func(j int) int {
		item, end := p.inline(j, true)
		if item == nil {
			return -1
		}
		p.stack = append(p.stack, item)
		return end
	})
}

// flowMap parses a flow mapping on one line.
func (p *fastParser) flowMap(i int) (*yaml.Node, int) {
	return p.flowCollection(i, yaml.MappingNode, "!!map", '}', func(j int) int {
		key, end := p.inline(j, true)
		if key == nil || key.Kind != yaml.ScalarNode || end-j > fastMaxKeyBytes {
			return -1
		}
		j = p.skipSpaces(end)
		if j+1 >= p.eol || p.data[j] != ':' || p.data[j+1] != ' ' {
			return -1
		}
		j = p.skipSpaces(j + 1)
		if j == p.eol || p.data[j] == ',' || p.data[j] == '}' {
			return -1 // an empty value
		}
		value, end := p.inline(j, true)
		if value == nil {
			return -1
		}
		p.stack = append(p.stack, key, value)
		return end
	})
}

// flowCollection parses the one-line flow collection (a node of kind and tag) that opens at i
// and that closer ends: entry parses one entry at j, pushing its nodes on the stack, and
// returns where it ends, or -1. It returns the node and the position after closer, or nil when
// the line is not such a collection.
func (p *fastParser) flowCollection(i int, kind yaml.Kind, tag string, closer byte, entry func(j int) int) (*yaml.Node, int) {
	if p.depth++; p.depth > fastMaxDepth {
		return nil, 0
	}
	defer func() { p.depth-- }()
	n := p.node(kind, tag, i)
	n.Style = yaml.FlowStyle
	mark := len(p.stack)
	end, empty := p.flowEntries(i, closer, entry)
	if end < 0 {
		return nil, 0
	}
	if !empty {
		n.Content = p.collect(mark)
	}
	return n, end
}

// flowEntries parses the entries of the one-line flow collection that opens at i and that
// closer ends: entry parses one entry at j (pushing its nodes on the stack) and returns where it
// ends, or -1. It returns the position after closer (-1 when the line is not such a
// collection) and whether the collection is empty.
func (p *fastParser) flowEntries(i int, closer byte, entry func(j int) int) (int, bool) {
	j := p.skipSpaces(i + 1)
	if j < p.eol && p.data[j] == closer {
		return j + 1, true
	}
	for {
		end := entry(j)
		if end < 0 {
			return -1, false
		}
		j = p.skipSpaces(end)
		if j == p.eol {
			return -1, false
		}
		switch p.data[j] {
		case ',':
			j = p.skipSpaces(j + 1)
			if j == p.eol || p.data[j] == closer {
				return -1, false
			}
		case closer:
			return j + 1, false
		default:
			return -1, false
		}
	}
}
