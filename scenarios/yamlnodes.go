package scenarios

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/reconsim/reconsim/model"
)

// The decoder's path and node helpers (package model), under the short names this package's
// validation has always used.
var (
	childPath = model.ChildPath
	keyPath   = model.KeyPath
	indexPath = model.IndexPath
	describe  = model.DescribeNode
)

// nodeIndex maps field paths to the YAML nodes written there, so checks that run after
// decoding can point at the exact key or value. Aliases are followed (a path inside an alias
// points into the anchor) and merge keys applied (explicit keys win).
type nodeIndex struct {
	values map[string]*yaml.Node
	keys   map[string]*yaml.Node
	// aliased counts the values reached through aliases.
	aliased int
	// problem is set when the document cannot be indexed (too many values through aliases,
	// too deep, an alias inside its own anchor); the loader reports it and stops.
	problem *model.DecodeError
	file    string
	// list is the objects list when it was streamed (see stream.go): the paths inside its
	// items are not in values and keys, and are indexed on demand.
	list *objectList
	// checkOnly makes walk look for problems only, recording no paths.
	checkOnly bool
	// target, when set, makes walk index only the nodes on the way to that path (and the
	// path's own subtree): the index of a streamed item is built for one lookup at a time.
	target string
}

func newNodeIndex(file string) *nodeIndex {
	return &nodeIndex{values: map[string]*yaml.Node{}, keys: map[string]*yaml.Node{}, file: file}
}

func (ix *nodeIndex) fail(n *yaml.Node, path, msg, hint string) {
	if ix.problem == nil {
		ix.problem = &model.DecodeError{Pos: posOf(ix.file, n), Path: path, Msg: msg, Hint: hint}
	}
}

// walk indexes n at path. stack holds the aliases being expanded, to catch recursion.
func (ix *nodeIndex) walk(n *yaml.Node, path string, depth int, stack map[*yaml.Node]bool) {
	if ix.problem != nil || n == nil {
		return
	}
	// Values reached through an alias count against the alias budget: a few bytes of aliases
	// can stand for millions of values. Values written out are bounded by the file size.
	if len(stack) > 0 {
		ix.aliased++
		if ix.aliased > maxYAMLValues {
			ix.fail(n, path, fmt.Sprintf("aliases (*name) expand to more than %d values", maxYAMLValues),
				"an alias bomb; reduce the use of aliases, or write the values out")
			return
		}
	}
	if depth > maxYAMLDepth {
		ix.fail(n, path, fmt.Sprintf("values nested more than %d levels deep", maxYAMLDepth), "")
		return
	}
	if n.Kind == yaml.AliasNode {
		if n.Alias == nil {
			ix.fail(n, path, fmt.Sprintf("alias *%s has no anchor", n.Value), "")
			return
		}
		if stack[n.Alias] {
			ix.fail(n, path, fmt.Sprintf("alias *%s refers to a value that contains it", n.Value), "an anchor cannot contain an alias to itself")
			return
		}
		stack[n.Alias] = true
		ix.walk(n.Alias, path, depth+1, stack)
		delete(stack, n.Alias)
		return
	}
	if !ix.checkOnly {
		ix.values[path] = n
	}
	switch n.Kind {
	case yaml.SequenceNode:
		for i, c := range n.Content {
			p := ""
			if !ix.checkOnly {
				var digits [20]byte
				var on bool
				if p, on = ix.childOnTheWay(path, "[", string(strconv.AppendInt(digits[:0], int64(i), 10)), "]"); !on {
					continue
				}
			}
			ix.walk(c, p, depth+1, stack)
		}
	case yaml.MappingNode:
		// Merged entries first, so explicit keys overwrite them.
		for i := 0; i+1 < len(n.Content); i += 2 {
			if k := n.Content[i]; k.Kind == yaml.ScalarNode && k.ShortTag() == "!!merge" {
				ix.walkMerge(n.Content[i+1], path, depth+1, stack)
			}
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if k.Kind != yaml.ScalarNode || k.ShortTag() == "!!merge" {
				continue
			}
			p := ""
			if !ix.checkOnly {
				sep, closer := ".", ""
				if !model.PlainKey(k.Value) {
					sep, closer = "[", "]"
				}
				var on bool
				if p, on = ix.childOnTheWay(path, sep, k.Value, closer); !on {
					continue
				}
				ix.keys[p] = k
			}
			ix.walk(v, p, depth+1, stack)
		}
	}
}

// onTheWay reports whether the node at path is indexed: always without a target; with one,
// when path is the target, one of its ancestors or below it.
func (ix *nodeIndex) onTheWay(path string) bool {
	return ix.target == "" || isPathPrefix(path, ix.target) || isPathPrefix(ix.target, path)
}

// isPathPrefix reports whether the path a is b or an ancestor of b (a.b of a.b.c and of
// a.b[0], not of a.bc).
func isPathPrefix(a, b string) bool {
	return strings.HasPrefix(b, a) && (len(a) == len(b) || a == "" || b[len(a)] == '.' || b[len(a)] == '[')
}

// childOnTheWay returns the path of a child of path (which is on the way), written as sep,
// name and closer ("." and a field, "[" a key or index "]"), and whether that child is on the
// way. On the way to the target the child's path is a prefix of the target and is cut from
// it: a lookup indexes the way to one field, and making the path of every node and sibling
// on that way would be most of what it allocates.
func (ix *nodeIndex) childOnTheWay(path, sep, name, closer string) (string, bool) {
	if path == "" && sep == "." {
		sep = ""
	}
	if ix.target == "" || len(path) >= len(ix.target) {
		return path + sep + name + closer, true // no target, or below it
	}
	rest := ix.target[len(path):]
	n := len(sep) + len(name) + len(closer)
	if len(rest) < n || rest[:len(sep)] != sep || rest[len(sep):len(sep)+len(name)] != name || rest[len(sep)+len(name):n] != closer {
		return "", false
	}
	if len(rest) > n && rest[n] != '.' && rest[n] != '[' {
		return "", false // a.bc is not on the way to a.b
	}
	return ix.target[:len(path)+n], true
}

// walkMerge indexes the mappings a merge key contributes at path.
func (ix *nodeIndex) walkMerge(v *yaml.Node, path string, depth int, stack map[*yaml.Node]bool) {
	if ix.problem != nil || v == nil {
		return
	}
	if depth > maxYAMLDepth {
		ix.fail(v, path, fmt.Sprintf("values nested more than %d levels deep", maxYAMLDepth), "")
		return
	}
	switch v.Kind {
	case yaml.AliasNode:
		if v.Alias == nil || stack[v.Alias] {
			return // walk reports these where the alias is used as a value
		}
		stack[v.Alias] = true
		ix.walkMerge(v.Alias, path, depth+1, stack)
		delete(stack, v.Alias)
	case yaml.SequenceNode:
		for _, c := range v.Content {
			ix.walkMerge(c, path, depth+1, stack)
		}
	case yaml.MappingNode:
		saved := ix.values[path]
		ix.walk(v, path, depth, stack)
		if saved != nil && !ix.checkOnly {
			ix.values[path] = saved
		}
	}
}

// of returns the index that holds path: the index of a streamed item for a path inside it,
// else ix.
func (ix *nodeIndex) of(path string) *nodeIndex {
	if ix.list != nil {
		if sub := ix.list.itemIndex(ix.file, path); sub != nil {
			return sub
		}
	}
	return ix
}

// has reports whether a key or value was written at path.
func (ix *nodeIndex) has(path string) bool {
	_, ok := ix.of(path).values[path]
	return ok
}

// nearest returns the node written at path, or at its closest ancestor that was written:
// the place to point at for a problem with a value that may be missing.
func (ix *nodeIndex) nearest(path string) *yaml.Node {
	for {
		if n, ok := ix.of(path).values[path]; ok {
			return n
		}
		if path == "" {
			return nil
		}
		path = parentPath(path)
	}
}

// keyOrNearest returns the key node of path (for "unknown" or "duplicate" problems), or the
// nearest written node.
func (ix *nodeIndex) keyOrNearest(path string) *yaml.Node {
	if k, ok := ix.of(path).keys[path]; ok {
		return k
	}
	return ix.nearest(path)
}

// parentPath drops the last element of a path ("a.b[2]" -> "a.b", "a.b" -> "a", "a" -> "").
func parentPath(path string) string {
	if strings.HasSuffix(path, "]") {
		if i := strings.LastIndexByte(path, '['); i >= 0 {
			return path[:i]
		}
	}
	if i := strings.LastIndexAny(path, ".["); i >= 0 {
		return path[:i]
	}
	return ""
}

// posOf returns the position of n in file (line 1, column 1 when n is nil or unplaced).
func posOf(file string, n *yaml.Node) model.Position {
	if n == nil || n.Line == 0 {
		return model.Position{File: file, Line: 1, Column: 1}
	}
	return model.Position{File: file, Line: n.Line, Column: n.Column}
}

// resolve follows aliases (bounded) and returns the node they stand for, or nil.
func resolve(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.AliasNode && i < 100; i++ {
		n = n.Alias
	}
	if n != nil && n.Kind == yaml.AliasNode {
		return nil
	}
	return n
}

func isNull(n *yaml.Node) bool {
	return n == nil || (n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null")
}

// pair is one key/value entry of a mapping.
type pair struct{ key, value *yaml.Node }

// syntheticMapping returns a mapping node holding pairs, placed at at's position, for
// decoding part of a mapping with model.DecodeNode.
func syntheticMapping(at *yaml.Node, pairs []pair) *yaml.Node {
	m := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	if at != nil {
		m.Line, m.Column = at.Line, at.Column
	}
	for _, p := range pairs {
		m.Content = append(m.Content, p.key, p.value)
	}
	return m
}

var yamlLineRE = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// yamlParserProblems are the messages of yaml.v3's parser (as opposed to its scanner). For
// these yaml.v3 reports the 0-based line of the construct being parsed (and no line at all
// when that is 0), while scanner errors carry a 1-based line (yaml.v3 decode.go, parser.fail).
var yamlParserProblems = []string{
	"did not find expected ',' or ']'", "did not find expected ',' or '}'",
	"did not find expected '-' indicator", "did not find expected <document start>",
	"did not find expected <stream-start>", "did not find expected key",
	"did not find expected node content", "found duplicate %TAG directive",
	"found duplicate %YAML directive", "found incompatible YAML document",
	"found undefined tag handle",
}

// syntaxError turns a yaml.v3 parse error into a positioned error. yaml.v3 reports a line but
// no column, so the column is 1; a message without a line (bad UTF-8, an unknown anchor) is
// placed where scanning data finds the problem, or at the start of the file.
func syntaxError(file string, data []byte, err error) *model.DecodeError {
	msg := err.Error()
	pos := model.Position{File: file, Line: 1, Column: 1}
	if m := yamlLineRE.FindStringSubmatch(msg); m != nil {
		if line, convErr := strconv.Atoi(m[1]); convErr == nil && line > 0 {
			pos.Line = line
			if slices.Contains(yamlParserProblems, m[2]) {
				pos.Line++
			}
		}
		msg = m[2]
	} else {
		msg = strings.TrimPrefix(msg, "yaml: ")
		if line, col, ok := model.LocateYAMLProblem(data, err); ok {
			pos.Line, pos.Column = line, col
		}
	}
	return &model.DecodeError{Pos: pos, Msg: "invalid YAML: " + msg}
}
