package model

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"
)

// Unstructured is a custom resource: an object of a kind a CustomResourceDefinition defines,
// held as JSON values the way apimachinery's unstructured.Unstructured holds it, with the
// metadata every object has typed. Content holds every top-level field other than
// apiVersion, kind and metadata (spec, status, and whatever else the schema allows), as JSON
// values (see JSON).
type Unstructured struct {
	APIVersion string
	Kind       Kind
	ObjectMeta
	Content map[string]any

	// src is the YAML node the object was decoded from and srcFile the file it is in, so
	// that a schema violation found later can be placed at file:line:col (FieldPosition).
	// Neither is part of the object: copies and JSON leave them out.
	src     *yaml.Node
	srcFile string
	// dumped is set when the manifest came from a cluster dump (it carried what the API
	// server sets): FromClusterDump.
	dumped bool
}

// FromClusterDump reports whether the object was decoded from `kubectl get -o yaml` output
// (its metadata carried a uid, resourceVersion, ...), which a scenario may skip when it has
// no CustomResourceDefinition for it, as it skips other kinds it cannot create.
func (u *Unstructured) FromClusterDump() bool { return u.dumped }

// GetKind returns the kind the object says it is.
func (u *Unstructured) GetKind() Kind { return u.Kind }

// DeepCopyObject returns a deep copy (without the source position).
func (u *Unstructured) DeepCopyObject() Object { return u.DeepCopy() }

// DeepCopy returns a deep copy (without the source position).
func (u *Unstructured) DeepCopy() *Unstructured {
	if u == nil {
		return nil
	}
	out := &Unstructured{APIVersion: u.APIVersion, Kind: u.Kind}
	u.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	if u.Content != nil {
		out.Content = DeepCopyJSON(u.Content).(map[string]any)
	}
	return out
}

// Group returns the API group of the object's apiVersion.
func (u *Unstructured) Group() string {
	g, _, ok := strings.Cut(u.APIVersion, "/")
	if !ok {
		return ""
	}
	return g
}

// Version returns the version part of the object's apiVersion.
func (u *Unstructured) Version() string {
	_, v, ok := strings.Cut(u.APIVersion, "/")
	if !ok {
		return u.APIVersion
	}
	return v
}

// UnstructuredContent returns the whole object as JSON values (apiVersion, kind, metadata
// and the content), the form schemas validate and JSONPath reads. The metadata is encoded
// through its JSON form; the content is shared with u, not copied.
func (u *Unstructured) UnstructuredContent() map[string]any {
	out := make(map[string]any, len(u.Content)+3)
	for k, v := range u.Content { //detlint:ordered building a map; order cannot matter
		out[k] = v
	}
	out["apiVersion"] = u.APIVersion
	out["kind"] = string(u.Kind)
	out["metadata"] = ObjectToJSON(&u.ObjectMeta)
	return out
}

// ObjectToJSON returns v's JSON form as JSON values (nil if it does not encode, which the
// model's types always do).
func ObjectToJSON(v any) any {
	data, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	out, err := DecodeJSONValue(data)
	if err != nil {
		return nil
	}
	return out
}

// MarshalJSON writes the object as the API serves it: apiVersion, kind, metadata and the
// content.
func (u *Unstructured) MarshalJSON() ([]byte, error) {
	meta, err := json.Marshal(&u.ObjectMeta)
	if err != nil {
		return nil, err
	}
	keys := make([]string, 0, len(u.Content))
	for k := range u.Content { //detlint:ordered the keys are sorted below
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var b strings.Builder
	b.WriteString(`{"apiVersion":`)
	av, _ := json.Marshal(u.APIVersion)
	b.Write(av)
	b.WriteString(`,"kind":`)
	k, _ := json.Marshal(string(u.Kind))
	b.Write(k)
	b.WriteString(`,"metadata":`)
	b.Write(meta)
	for _, key := range keys {
		if key == "apiVersion" || key == "kind" || key == "metadata" {
			continue
		}
		kb, _ := json.Marshal(key)
		vb, err := json.Marshal(u.Content[key])
		if err != nil {
			return nil, err
		}
		b.WriteByte(',')
		b.Write(kb)
		b.WriteByte(':')
		b.Write(vb)
	}
	b.WriteByte('}')
	return []byte(b.String()), nil
}

// UnmarshalJSON reads an object in the form MarshalJSON writes. apiVersion and kind, when
// present, replace the ones u has.
func (u *Unstructured) UnmarshalJSON(data []byte) error {
	v, err := DecodeJSONValue(data)
	if err != nil {
		return err
	}
	m, ok := v.(map[string]any)
	if !ok {
		return fmt.Errorf("a custom resource must be a JSON object")
	}
	if av, ok := m["apiVersion"]; ok {
		s, ok := av.(string)
		if !ok {
			return fmt.Errorf("apiVersion must be a string")
		}
		u.APIVersion = s
	}
	if k, ok := m["kind"]; ok {
		s, ok := k.(string)
		if !ok {
			return fmt.Errorf("kind must be a string")
		}
		u.Kind = Kind(s)
	}
	u.ObjectMeta = ObjectMeta{}
	if meta, ok := m["metadata"]; ok && meta != nil {
		raw, err := json.Marshal(meta)
		if err != nil {
			return err
		}
		if err := json.Unmarshal(raw, &u.ObjectMeta); err != nil {
			return fmt.Errorf("metadata: %v", err)
		}
	}
	delete(m, "apiVersion")
	delete(m, "kind")
	delete(m, "metadata")
	u.Content = m
	return nil
}

// FieldPosition returns where the field at path (as field.Path prints it: "spec.replicas",
// "spec.items[2].name") is written in the manifest the object was decoded from, or the
// nearest written ancestor (a missing required field); see FindNode. ok is false for an
// object not decoded from YAML.
func (u *Unstructured) FieldPosition(path string) (pos Position, ok bool) {
	if u.src == nil {
		return Position{}, false
	}
	n, _ := FindNode(u.src, path)
	pos = Position{File: u.srcFile, Line: 1, Column: 1}
	if n != nil && n.Line > 0 {
		pos.Line, pos.Column = n.Line, n.Column
	}
	return pos, true
}
