package model

import (
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// FindNode walks root (a manifest's document or mapping node) along a field path as
// field.Path prints it ("spec.template.spec.containers[0].resources.requests[cpu]", map keys
// in brackets or after a dot) and returns the deepest node it reaches; exact reports whether
// the whole path was found. It follows aliases and never fails: with nothing found it returns
// root itself. Use it to give validation errors a file position.
func FindNode(root *yaml.Node, path string) (node *yaml.Node, exact bool) {
	node = resolveQuiet(root)
	if node == nil {
		return root, false
	}
	for _, seg := range splitFieldPath(path) {
		next := childNode(node, seg)
		if next == nil {
			return node, false
		}
		node = next
	}
	return node, true
}

// ValidationErrors converts validation errors of the object decoded from root into
// DecodeErrors positioned at the offending field (or the nearest enclosing one that the YAML
// spells out, for a field filled in by defaulting). It returns nil for an empty list.
func ValidationErrors(file string, root *yaml.Node, errs field.ErrorList) DecodeErrors {
	if len(errs) == 0 {
		return nil
	}
	out := make(DecodeErrors, 0, len(errs))
	for _, e := range errs {
		n, _ := FindNode(root, e.Field)
		pos := Position{File: file, Line: 1, Column: 1}
		if n != nil && n.Line > 0 {
			pos.Line, pos.Column = n.Line, n.Column
		}
		out = append(out, &DecodeError{Pos: pos, Path: e.Field, Msg: e.ErrorBody()})
	}
	return out
}

func resolveQuiet(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && i < maxMergeDepth; i++ {
		switch n.Kind {
		case yaml.AliasNode:
			n = n.Alias
		case yaml.DocumentNode:
			if len(n.Content) == 0 {
				return nil
			}
			n = n.Content[0]
		default:
			return n
		}
	}
	return nil
}

// childNode returns the value under key seg of a mapping, or element seg of a sequence.
func childNode(n *yaml.Node, seg string) *yaml.Node {
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			if k := resolveQuiet(n.Content[i]); k != nil && k.Kind == yaml.ScalarNode && k.Value == seg {
				return resolveQuiet(n.Content[i+1])
			}
		}
	case yaml.SequenceNode:
		if i, err := strconv.Atoi(seg); err == nil && i >= 0 && i < len(n.Content) {
			return resolveQuiet(n.Content[i])
		}
	}
	return nil
}

// splitFieldPath splits "a.b[0].c[x.y/z]" into a, b, 0, c, x.y/z.
func splitFieldPath(path string) []string {
	var segs []string
	for path != "" {
		switch path[0] {
		case '.':
			path = path[1:]
		case '[':
			end := strings.IndexByte(path, ']')
			if end < 0 {
				return append(segs, path[1:])
			}
			segs = append(segs, path[1:end])
			path = path[end+1:]
		default:
			end := strings.IndexAny(path, ".[")
			if end < 0 {
				return append(segs, path)
			}
			segs = append(segs, path[:end])
			path = path[end:]
		}
	}
	return segs
}
