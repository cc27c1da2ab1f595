package model

import (
	"reflect"
	"strings"

	"gopkg.in/yaml.v3"
)

// isCustomResource reports whether apiVersion and kind name a custom resource: a kind in a
// group that no built-in API serves (see builtinGroup), with a kind-shaped name.
func isCustomResource(apiVersion, kind string) bool {
	group, version, ok := strings.Cut(apiVersion, "/")
	return ok && version != "" && !builtinGroup(group) && kindName.MatchString(kind)
}

// decodeCustomResource decodes a custom resource manifest (rest: everything but apiVersion
// and kind) into a *Unstructured: the metadata into ObjectMeta (with what the API server sets
// dropped, as for every manifest), every other field as JSON values. Whether a CRD defines
// the kind, and whether the object fits its schema, is the caller's to check; the object
// remembers its node so that the caller can place those errors (FieldPosition).
func (d *Decoder) decodeCustomResource(n, rest, metadataNode *yaml.Node, apiVersion, kind, path string) []Object {
	errsBefore := len(d.errs)
	if metadataNode == nil {
		d.fail(n, path, "missing metadata", "a manifest needs metadata with at least a name")
		return nil
	}
	u := &Unstructured{APIVersion: apiVersion, Kind: Kind(kind), Content: map[string]any{}, src: n, srcFile: d.opts.File, dumped: d.isDumpObject(metadataNode)}
	body := d.withoutServerSetMetadata(rest)
	for _, e := range d.mappingEntries(body, path, 0) {
		name := e.key.Value
		if name == "metadata" {
			d.decodeValue(e.value, reflect.ValueOf(&u.ObjectMeta).Elem(), childPath(path, "metadata"))
			continue
		}
		u.Content[name] = d.jsonValue(e.value, childPath(path, name), 0)
	}
	if len(d.errs) > errsBefore {
		return nil
	}
	if u.dumped {
		delete(u.Content, "status") // the API server's, like the metadata it set
	}
	d.objPos = append(d.objPos, d.pos(n))
	return []Object{u}
}
