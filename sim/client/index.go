package client

import (
	"slices"

	"github.com/reconsim/reconsim/model"
)

// IndexFunc returns the index values of obj (upstream cache.IndexFunc). An object may have any
// number of values, including none.
type IndexFunc func(obj model.Object) []string

// Indexers names index functions (upstream cache.Indexers).
type Indexers map[string]IndexFunc

// The built-in indexes every informer keeps.
const (
	// IndexNamespace indexes by metadata.namespace (upstream cache.NamespaceIndex).
	IndexNamespace = "namespace"
	// IndexOwnerUID indexes by the UID of the controller owner reference, if any.
	IndexOwnerUID = "ownerUID"
	// IndexNodeName indexes pods by spec.nodeName (unscheduled pods are not indexed).
	IndexNodeName = "nodeName"
	// IndexLabel indexes by "key=value", one value per label.
	IndexLabel = "label"
)

// NamespaceIndexFunc is upstream MetaNamespaceIndexFunc.
func NamespaceIndexFunc(obj model.Object) []string { return []string{obj.Meta().Namespace} }

// OwnerUIDIndexFunc returns the controller owner's UID.
func OwnerUIDIndexFunc(obj model.Object) []string {
	if ref := model.ControllerOf(obj); ref != nil {
		return []string{ref.UID}
	}
	return nil
}

// NodeNameIndexFunc returns a pod's spec.nodeName; other kinds have none.
func NodeNameIndexFunc(obj model.Object) []string {
	if pod, ok := obj.(*model.Pod); ok && pod.Spec.NodeName != "" {
		return []string{pod.Spec.NodeName}
	}
	return nil
}

// LabelIndexFunc returns "key=value" for every label.
func LabelIndexFunc(obj model.Object) []string {
	labels := obj.Meta().Labels
	if len(labels) == 0 {
		return nil
	}
	out := make([]string, 0, len(labels))
	for k, v := range labels { //detlint:ordered the values are sorted below
		out = append(out, k+"="+v)
	}
	slices.Sort(out)
	return out
}

// LabelIndexValue builds the IndexLabel value for one label.
func LabelIndexValue(key, value string) string { return key + "=" + value }

func builtinIndexers() []namedIndex {
	return []namedIndex{
		{IndexLabel, LabelIndexFunc},
		{IndexNamespace, NamespaceIndexFunc},
		{IndexNodeName, NodeNameIndexFunc},
		{IndexOwnerUID, OwnerUIDIndexFunc},
	}
}

type namedIndex struct {
	name string
	fn   IndexFunc
}

// bucket is the set of keys with one index value, with a sorted view rebuilt on demand.
type bucket struct {
	keys   map[string]struct{}
	sorted []string
	dirty  bool
}

// store is the informer's indexed cache (upstream threadSafeMap with its indices).
type store struct {
	items      map[string]model.Object
	sortedKeys []string
	keysDirty  bool
	indexes    []namedIndex                  // sorted by name
	indices    map[string]map[string]*bucket // index name -> value -> keys
}

func newStore() *store {
	s := &store{items: map[string]model.Object{}, indices: map[string]map[string]*bucket{}}
	for _, ix := range builtinIndexers() {
		s.indexes = append(s.indexes, ix)
		s.indices[ix.name] = map[string]*bucket{}
	}
	return s
}

func (s *store) get(key string) (model.Object, bool) {
	obj, ok := s.items[key]
	return obj, ok
}

// put stores obj under key, updating every index, and returns the previous object.
func (s *store) put(key string, obj model.Object) (model.Object, bool) {
	old, existed := s.items[key]
	s.items[key] = obj
	if !existed {
		s.keysDirty = true
	}
	for _, ix := range s.indexes {
		var oldVals []string
		if existed {
			oldVals = ix.fn(old)
		}
		newVals := ix.fn(obj)
		if existed && slices.Equal(oldVals, newVals) {
			continue
		}
		s.unindex(ix.name, key, oldVals)
		s.index(ix.name, key, newVals)
	}
	return old, existed
}

// remove deletes key and returns the object it held.
func (s *store) remove(key string) (model.Object, bool) {
	old, ok := s.items[key]
	if !ok {
		return nil, false
	}
	delete(s.items, key)
	s.keysDirty = true
	for _, ix := range s.indexes {
		s.unindex(ix.name, key, ix.fn(old))
	}
	return old, true
}

func (s *store) index(name, key string, values []string) {
	m := s.indices[name]
	for _, v := range values {
		b := m[v]
		if b == nil {
			b = &bucket{keys: map[string]struct{}{}}
			m[v] = b
		}
		if _, ok := b.keys[key]; !ok {
			b.keys[key] = struct{}{}
			b.dirty = true
		}
	}
}

func (s *store) unindex(name, key string, values []string) {
	m := s.indices[name]
	for _, v := range values {
		b := m[v]
		if b == nil {
			continue
		}
		delete(b.keys, key)
		b.dirty = true
		if len(b.keys) == 0 {
			delete(m, v)
		}
	}
}

func (s *store) keys() []string {
	if s.keysDirty {
		s.sortedKeys = s.sortedKeys[:0]
		for k := range s.items { //detlint:ordered the keys are sorted below
			s.sortedKeys = append(s.sortedKeys, k)
		}
		slices.Sort(s.sortedKeys)
		s.keysDirty = false
	}
	return s.sortedKeys
}

func (s *store) hasIndex(name string) bool {
	_, ok := s.indices[name]
	return ok
}

// byIndex returns the keys with value under index name, sorted.
func (s *store) byIndex(name, value string) []string {
	b := s.indices[name][value]
	if b == nil {
		return nil
	}
	if b.dirty {
		b.sorted = b.sorted[:0]
		for k := range b.keys { //detlint:ordered the keys are sorted below
			b.sorted = append(b.sorted, k)
		}
		slices.Sort(b.sorted)
		b.dirty = false
	}
	return b.sorted
}

// addIndex adds an index and indexes every stored object.
func (s *store) addIndex(name string, fn IndexFunc) {
	s.indexes = append(s.indexes, namedIndex{name, fn})
	slices.SortFunc(s.indexes, func(a, b namedIndex) int {
		switch {
		case a.name < b.name:
			return -1
		case a.name > b.name:
			return 1
		}
		return 0
	})
	s.indices[name] = map[string]*bucket{}
	for _, key := range s.keys() {
		s.index(name, key, fn(s.items[key]))
	}
}

// clear drops every object and index entry, keeping the index functions.
func (s *store) clear() {
	clear(s.items)
	s.sortedKeys = s.sortedKeys[:0]
	s.keysDirty = false
	for name := range s.indices { //detlint:ordered each index is reset independently
		s.indices[name] = map[string]*bucket{}
	}
}
