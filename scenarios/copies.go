package scenarios

import (
	"fmt"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/reconsim/reconsim/model"
)

// Copies of an object entry.
//
// An entry of objects: with copies: N stands for N manifests: the entry's inline manifest
// with every occurrence of the exact text IndexToken in a string scalar (a value or a key,
// anywhere in the manifest) replaced by the copy's index, 0 to N-1, in decimal without
// padding. It is a plain text substitution, not a template engine: the token must be written
// exactly so, any other "{{" in a copied manifest is an error (a misspelt token would
// otherwise become part of a name), and a substituted value stays a string (a number field
// cannot be templated). The copies are decoded one by one as if each were written out, so
// every check (names, labels, duplicates) applies to each, at the entry's positions. The
// count is checked against MaxObjects before anything is copied. Expansion works on the
// entry's YAML nodes, so the streamed objects list (stream.go) and the whole document expand
// the same way.

// IndexToken is the text a copied manifest's strings have replaced by the copy's index.
const IndexToken = "{{ .Index }}"

// decodeCopies decodes the manifest of objects[i] (at path) copies times, copies being written
// at at; it returns the decoded objects.
func (l *loader) decodeCopies(manifest, at *yaml.Node, path string, copies int) []model.Object {
	if copies < 1 {
		l.errAt(at, childPath(path, "copies"), fmt.Sprintf("copies is %d; it must be at least 1", copies), "leave the entry out for no object")
		return nil
	}
	if room := MaxObjects - len(l.declared); copies > room {
		l.errAt(at, childPath(path, "copies"), fmt.Sprintf("copies: %d would make more than %d objects (%d are declared before this entry)", copies, MaxObjects, len(l.declared)),
			"lower copies, or split the scenario")
		return nil
	}
	mpath := childPath(path, "manifest")
	if copies > 1 && !l.namesIndex(manifest, mpath) {
		return nil
	}
	budget := maxYAMLValues
	var objs []model.Object
	for c := 0; c < copies; c++ {
		errs := l.problems()
		clone, ok := l.copyNode(manifest, strconv.Itoa(c), mpath, &budget)
		if !ok {
			return objs
		}
		objs = append(objs, l.decodeManifest(clone, pathSite(mpath, ""), true)...)
		if l.problems() > errs {
			return objs // every copy would repeat the problem
		}
	}
	return objs
}

// namesIndex reports whether the manifest's metadata.name (or generateName) holds IndexToken
// (or another {{, which copyNode reports), as copies with the same name would be declared
// twice; it reports the problem when not.
func (l *loader) namesIndex(manifest *yaml.Node, path string) bool {
	meta := entryValue(resolve(manifest), "metadata")
	for _, key := range []string{"name", "generateName"} {
		if n := entryValue(meta, key); n != nil {
			if n.Kind == yaml.ScalarNode && strings.Contains(n.Value, "{{") {
				return true
			}
			if key == "name" {
				l.errAt(n, childPath(childPath(path, "metadata"), "name"),
					fmt.Sprintf("the copies of this entry would all be named %q", n.Value),
					fmt.Sprintf("put %s in the name, e.g. name: web-%s", IndexToken, IndexToken))
				return false
			}
		}
	}
	return true // no name: decoding says so
}

// mappingValue returns the value of key in the mapping n, or nil.
func entryValue(n *yaml.Node, key string) *yaml.Node {
	n = resolve(n)
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if k := n.Content[i]; k.Kind == yaml.ScalarNode && k.Value == key {
			return resolve(n.Content[i+1])
		}
	}
	return nil
}

// copyNode returns a deep copy of n (aliases replaced by copies of what they stand for) with
// IndexToken replaced by index in its string scalars. budget bounds the nodes copied in all;
// ok is false after a problem was reported.
func (l *loader) copyNode(n *yaml.Node, index, path string, budget *int) (*yaml.Node, bool) {
	top := n
	var walk func(n *yaml.Node, depth int) (*yaml.Node, bool)
	walk = func(n *yaml.Node, depth int) (*yaml.Node, bool) {
		n = resolve(n)
		if n == nil || depth > maxYAMLDepth {
			l.errAt(top, path, "the manifest nests too deep, or its aliases go round", "")
			return nil, false
		}
		if *budget--; *budget < 0 {
			l.errAt(n, path, fmt.Sprintf("the copies of this manifest are more than %d YAML values", maxYAMLValues), "lower copies")
			return nil, false
		}
		c := *n
		c.Anchor = ""
		if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!str" && strings.Contains(n.Value, "{{") {
			c.Value = strings.ReplaceAll(n.Value, IndexToken, index)
			if strings.Contains(c.Value, "{{") {
				l.errAt(n, path, fmt.Sprintf("%q: only the exact text %s is replaced in a copied manifest", n.Value, IndexToken),
					"write {{ .Index }} with one space inside each brace pair")
				return nil, false
			}
		}
		if len(n.Content) > 0 {
			c.Content = make([]*yaml.Node, len(n.Content))
			for i, child := range n.Content {
				cc, ok := walk(child, depth+1)
				if !ok {
					return nil, false
				}
				c.Content[i] = cc
			}
		}
		return &c, true
	}
	return walk(n, 0)
}

// inCopies reports whether path is inside an entry of objects: with copies above 1.
func (l *loader) inCopies(path string) bool {
	rest, ok := strings.CutPrefix(path, "objects[")
	if !ok {
		return false
	}
	end := strings.IndexByte(rest, ']')
	if end < 0 {
		return false
	}
	i, err := strconv.Atoi(rest[:end])
	return err == nil && i >= 0 && i < len(l.s.Objects) && l.s.Objects[i].Copies > 1
}
