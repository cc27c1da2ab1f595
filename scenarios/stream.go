package scenarios

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

// Streaming the objects list.
//
// A scenario with many objects parsed as one YAML document is a tree of millions of
// yaml.Nodes, and indexing every path of that tree for error positions costs as much again:
// loading BenchmarkLoad100k's 100,000 objects that way peaked at 852 MB resident (see
// TestLoad100kPeakMemory, which bounds it now). Nearly all of such a file is the
// top-level `objects:` list, so the loader cuts that list out of the text (splitObjects),
// parses the rest of the file (the skeleton, with the list's lines left blank so that every
// line keeps its number) as the document, and parses and decodes the list's items a chunk
// at a time, dropping each chunk's nodes once its objects are decoded. Positions are those of
// the whole file: a chunk's lines are shifted by the line it starts on, and columns do not
// change because the text is cut at line boundaries. A check after decoding that needs the
// position of a field inside one object (validation messages) parses that object's chunk
// again (objectList.itemIndex). A chunk is parsed by the fast parser of fastyaml.go when it
// is written in the common part of YAML that parser handles (it builds the nodes yaml.v3
// builds), else by yaml.v3.
//
// The cut is made only where it cannot change what the document means: a block sequence
// under a plain `objects:` key at column 1, in a file without document markers, directives,
// tabs in indentation or line breaks other than \n and \r\n. Anything else, and any problem
// at all while streaming (a syntax error, an anchor used across the cut, an alias bomb,
// nesting too deep), makes the loader parse the file as one document as it always did, so
// that every message and position of a bad file is the whole-document parser's.

// streamChunkItems is how many items of the objects list are parsed as one YAML document.
const streamChunkItems = 256

// objectList is the block sequence under the top-level objects: key, as found in the text.
type objectList struct {
	data []byte
	// keyLine is the line of the objects: key.
	keyLine int
	// start and end are the bytes of the list: from the line after the key to the end of its
	// last item. The skeleton has these lines blank.
	start, end int
	// column is the 0-based column of the items' dashes.
	column int
	// items are the items, in order.
	items []itemSpan
	// seq is the empty sequence node that stands for the list in the skeleton.
	seq *yaml.Node
	// scalars caches the plain scalars of the items (fastyaml.go).
	scalars fastScalars

	// The chunk parsed last for positions (itemIndex), and the index of one item of it.
	// posArena holds that chunk's nodes and is reset when another chunk is parsed, so a
	// file with an error in every item parses each chunk once more without allocating
	// again; a node itemIndex returns is valid until a path in another chunk is looked up
	// (every caller turns it into a position at once). itemPaths indexes the way to the path
	// looked up last (nodeIndex.target), and is reused from lookup to lookup for the same
	// reason.
	chunk     int
	chunkSeq  *yaml.Node
	posArena  fastArena
	item      int
	itemPaths *nodeIndex
}

// itemSpan is one item of the list: the offset of its first line (the one with its dash)
// and that line's number. An item ends where the next begins, the last at the list's end.
// Both fit in 32 bits, as a file is at most MaxFileBytes; a file of 16 MiB of "-" lines
// has 8 million items.
type itemSpan struct{ start, line int32 }

// splitObjects finds the objects list in data, or returns nil when the file is not one the
// list can be cut out of safely (see above) or has no objects list.
func splitObjects(data []byte) *objectList {
	if len(data) > MaxFileBytes || !utf8.Valid(data) || bytes.HasPrefix(data, []byte("\xef\xbb\xbf")) ||
		bytes.Contains(data, []byte("\xc2\x85")) || bytes.Contains(data, []byte("\xe2\x80\xa8")) || bytes.Contains(data, []byte("\xe2\x80\xa9")) {
		return nil // a byte-order mark, or a line break (NEL, LS, PS) that yaml.v3 counts as one
	}
	const (
		searching = iota
		inList
		after
	)
	state := searching
	var list *objectList
	line := 0
	for off := 0; off < len(data); {
		line++
		eol, next := len(data), len(data)
		if i := bytes.IndexByte(data[off:], '\n'); i >= 0 {
			eol, next = off+i, off+i+1
		}
		text := bytes.TrimSuffix(data[off:eol], []byte("\r"))
		if bytes.IndexByte(text, '\r') >= 0 {
			return nil // a lone carriage return is a line break to yaml.v3
		}
		indent := 0
		for indent < len(text) && text[indent] == ' ' {
			indent++
		}
		rest := text[indent:]
		if len(rest) > 0 && rest[0] == '\t' {
			return nil
		}
		if indent == 0 && (isMarker(rest, "---") || isMarker(rest, "...") || bytes.HasPrefix(rest, []byte("%"))) {
			return nil
		}
		blank := len(rest) == 0 || rest[0] == '#'
		switch state {
		case searching:
			if indent == 0 && isObjectsKey(rest) {
				list = &objectList{data: data, keyLine: line, start: next, chunk: -1, item: -1, scalars: fastScalars{}, posArena: fastArena{borrowsText: true}}
				state = inList
			}
		case inList:
			switch {
			case blank:
			case len(list.items) == 0:
				if !isDash(rest) {
					return nil
				}
				list.column = indent
				list.items = append(list.items, itemSpan{start: int32(off), line: int32(line)})
			case indent > list.column:
			case indent == list.column && isDash(rest):
				list.items = append(list.items, itemSpan{start: int32(off), line: int32(line)})
			case indent == 0:
				list.end, state = off, after
				if isObjectsKey(rest) {
					return nil
				}
			default:
				return nil
			}
		case after:
			if indent == 0 && isObjectsKey(rest) {
				return nil
			}
		}
		off = next
	}
	if list == nil || len(list.items) == 0 {
		return nil
	}
	if state == inList {
		list.end = len(data)
	}
	return list
}

// isMarker reports whether a line is the document marker m (--- or ...).
func isMarker(rest []byte, m string) bool {
	return bytes.HasPrefix(rest, []byte(m)) && (len(rest) == len(m) || rest[len(m)] == ' ' || rest[len(m)] == '\t')
}

// isObjectsKey reports whether a line at column 1 is the key objects: with no value on it.
func isObjectsKey(rest []byte) bool {
	r, ok := bytes.CutPrefix(rest, []byte("objects:"))
	if !ok {
		return false
	}
	if len(r) == 0 {
		return true
	}
	if r[0] != ' ' {
		return false
	}
	r = bytes.TrimLeft(r, " ")
	return len(r) == 0 || r[0] == '#'
}

// isDash reports whether a line (from its first non-space) starts a block sequence entry.
func isDash(rest []byte) bool {
	return len(rest) > 0 && rest[0] == '-' && (len(rest) == 1 || rest[1] == ' ')
}

// skeleton returns the file with the list's lines left blank.
func (list *objectList) skeleton() []byte {
	out := make([]byte, 0, len(list.data)-(list.end-list.start)+bytes.Count(list.data[list.start:list.end], []byte("\n")))
	out = append(out, list.data[:list.start]...)
	for _, c := range list.data[list.start:list.end] {
		if c == '\n' {
			out = append(out, '\n')
		}
	}
	return append(out, list.data[list.end:]...)
}

// attach checks that the skeleton's root holds the objects key where the text has it, with
// no value, and no merge key that could bring another objects list in; it puts the list's
// sequence node (empty: the items are streamed) in place of the missing value.
func (list *objectList) attach(root *yaml.Node) bool {
	if root == nil || root.Kind != yaml.MappingNode {
		return false
	}
	at := -1
	for i := 0; i+1 < len(root.Content); i += 2 {
		k := root.Content[i]
		if k.Kind != yaml.ScalarNode || k.ShortTag() == "!!merge" {
			return false
		}
		if k.Value == "objects" {
			if at >= 0 {
				return false
			}
			at = i
		}
	}
	if at < 0 {
		return false
	}
	k, v := root.Content[at], root.Content[at+1]
	if k.Line != list.keyLine || k.Column != 1 || k.Style != 0 ||
		v.Kind != yaml.ScalarNode || v.ShortTag() != "!!null" || v.Value != "" || v.Anchor != "" {
		return false
	}
	// yaml.v3 places a block sequence at its first dash.
	list.seq = &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Line: int(list.items[0].line), Column: list.column + 1}
	root.Content[at+1] = list.seq
	return true
}

// chunks is the number of chunks the list is parsed in.
func (list *objectList) chunks() int {
	return (len(list.items) + streamChunkItems - 1) / streamChunkItems
}

// parseChunk parses chunk c of the list: the sequence node of its items, with the lines of
// the whole file; nil if the chunk is not a sequence of exactly its items. The fast parser
// (fastyaml.go) makes the nodes in arena (nil: allocated).
func (list *objectList) parseChunk(c int, arena *fastArena) *yaml.Node {
	a := c * streamChunkItems
	b := min(a+streamChunkItems, len(list.items))
	end := list.end
	if b < len(list.items) {
		end = int(list.items[b].start)
	}
	if seq := fastParseItems(list.data[list.items[a].start:end], int(list.items[a].line), list.scalars, arena); seq != nil {
		if len(seq.Content) != b-a {
			return nil
		}
		return seq
	}
	var doc yaml.Node
	if err := unmarshalNode(list.data[list.items[a].start:end], &doc); err != nil {
		return nil
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 {
		return nil
	}
	seq := doc.Content[0]
	if seq.Kind != yaml.SequenceNode || seq.Style&yaml.FlowStyle != 0 || seq.Anchor != "" || len(seq.Content) != b-a {
		return nil
	}
	shiftLines(seq, int(list.items[a].line)-1)
	return seq
}

// unmarshalNode parses one YAML document; a panic inside the parser becomes an error.
func unmarshalNode(data []byte, doc *yaml.Node) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("yaml: parser failed: %v", r)
		}
	}()
	return yaml.Unmarshal(data, doc)
}

// shiftLines moves every node of the tree n down by lines.
func shiftLines(n *yaml.Node, lines int) {
	n.Line += lines
	for _, c := range n.Content {
		shiftLines(c, lines)
	}
}

// itemIndex returns a node index that holds path, inside objects[i], with its ancestors and
// what lies below it, or nil when path is not inside a streamed item. The item's chunk is
// parsed again; the last chunk and index are kept, as checks report the problems of one
// object together.
func (list *objectList) itemIndex(file, path string) *nodeIndex {
	rest, ok := strings.CutPrefix(path, "objects[")
	if !ok {
		return nil
	}
	i, n := 0, 0
	for n < len(rest) && rest[n] >= '0' && rest[n] <= '9' && n < 9 {
		i = i*10 + int(rest[n]-'0')
		n++
	}
	if n == 0 || n >= len(rest) || rest[n] != ']' || (n > 1 && rest[0] == '0') || i >= len(list.items) {
		return nil
	}
	if list.item == i && list.itemPaths.onTheWay(path) {
		return list.itemPaths
	}
	c := i / streamChunkItems
	if list.chunk != c {
		list.posArena.reset()
		list.chunk, list.chunkSeq = c, list.parseChunk(c, &list.posArena)
	}
	if list.chunkSeq == nil {
		return nil // it parsed when the items were decoded; this is not reached
	}
	ix := list.itemPaths
	if ix == nil {
		ix = newNodeIndex(file)
	} else {
		clear(ix.values)
		clear(ix.keys)
		ix.aliased, ix.problem = 0, nil
	}
	ix.target = path
	ix.walk(list.chunkSeq.Content[i%streamChunkItems], indexPath("objects", i), 2, map[*yaml.Node]bool{})
	list.item, list.itemPaths = i, ix
	return ix
}
