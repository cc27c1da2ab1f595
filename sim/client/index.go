package client

import (
	"maps"
	"slices"
	"strings"

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
		{name: IndexLabel, fn: LabelIndexFunc, same: sameLabels},
		{name: IndexNamespace, fn: NamespaceIndexFunc, same: sameNamespace},
		{name: IndexNodeName, fn: NodeNameIndexFunc, same: sameNodeName},
		{name: IndexOwnerUID, fn: OwnerUIDIndexFunc, same: sameControllerUID},
	}
}

func sameLabels(old, cur model.Object) bool {
	return maps.Equal(old.Meta().Labels, cur.Meta().Labels)
}

func sameNamespace(old, cur model.Object) bool {
	return old.Meta().Namespace == cur.Meta().Namespace
}

func sameNodeName(old, cur model.Object) bool {
	op, ok1 := old.(*model.Pod)
	cp, ok2 := cur.(*model.Pod)
	if !ok1 || !ok2 {
		return !ok1 && !ok2
	}
	return op.Spec.NodeName == cp.Spec.NodeName
}

func sameControllerUID(old, cur model.Object) bool {
	o, c := model.ControllerOf(old), model.ControllerOf(cur)
	if o == nil || c == nil {
		return o == c
	}
	return o.UID == c.UID
}

type namedIndex struct {
	name string
	fn   IndexFunc
	// same, when set, reports cheaply that two versions of an object have the same index
	// values, so an update that does not touch the indexed field skips fn altogether.
	same func(old, cur model.Object) bool
	// buckets is the index's map from value to entries (the map store.indices holds under
	// name), kept here to spare a lookup by name per index on every put.
	buckets map[string]*bucket
	// built says the index is kept. The built-in indexes are built on their first query
	// (store.byIndex), as most informers never query most of them: until then puts and
	// removes skip them and entries hold no values for them. Indexes added with addIndex are
	// built at once.
	built bool
}

// entry is one cached object with the index values it was filed under (one slice per index,
// in the order of store.indexes; nil for an index not built). vals itself is nil while the
// store has no index built (store.nbuilt == 0), as most informers never query an index: a
// cache of 150,000 pods saves 96 bytes an entry. Updates replace obj in place, so the sorted
// views that hold the entry stay valid as long as the set of keys does not change.
type entry struct {
	key  string
	obj  model.Object
	vals [][]string
}

// bucket is the set of entries with one index value, with a key-sorted view rebuilt on demand.
// The set is keyed by the entry itself: a store has one entry per key, replaced only when the
// key is removed (and so unindexed) and stored again.
type bucket struct {
	entries map[*entry]struct{}
	sorted  []*entry
	dirty   bool
}

// store is the informer's indexed cache (upstream threadSafeMap with its indices).
type store struct {
	// items, keyBuf and nbuilt are what a watch event's lookup and putAt read, together.
	items map[string]*entry
	// keyBuf is lookup's scratch space for a namespaced key.
	keyBuf []byte
	// nbuilt counts the built indexes; while it is 0 the entries hold no vals. It and
	// keysDirty share a word: a store of 128 bytes starts on a cache line.
	nbuilt    int32
	keysDirty bool
	// removals counts the keys removed (one for each remove, one for a clear): while it stays
	// the same, every entry looked up before is still its key's (an EntryRef's test).
	removals uint64
	// spare holds entries allocated together for the puts reserve expects, taken by put in
	// turn.
	spare   []entry
	sorted  []*entry
	indexes []namedIndex                  // sorted by name
	indices map[string]map[string]*bucket // index name -> value -> entries
}

func newStore() *store {
	s := &store{items: map[string]*entry{}, indices: map[string]map[string]*bucket{}}
	for _, ix := range builtinIndexers() {
		ix.buckets = map[string]*bucket{}
		s.indexes = append(s.indexes, ix)
		s.indices[ix.name] = ix.buckets
	}
	return s
}

// lookup finds the entry of obj's key (model.Key(obj)), returning the key and the entry (nil
// when the store has none) without building a new string when the store holds the key: a
// watch event about a cached object allocates nothing for its key and looks it up once (see
// putAt and removeAt).
func (s *store) lookup(obj model.Object) (string, *entry) {
	m := obj.Meta()
	if m.Namespace == "" {
		return m.Name, s.items[m.Name]
	}
	s.keyBuf = append(append(append(s.keyBuf[:0], m.Namespace...), '/'), m.Name...)
	if e, ok := s.items[string(s.keyBuf)]; ok {
		return e.key, e
	}
	return string(s.keyBuf), nil
}

func (s *store) get(key string) (model.Object, bool) {
	if e, ok := s.items[key]; ok {
		return e.obj, true
	}
	return nil, false
}

// put stores obj under key, updating every index, and returns the previous object.
func (s *store) put(key string, obj model.Object) (model.Object, bool) {
	return s.putAt(key, s.items[key], obj)
}

// putAt is put with key's entry already looked up (nil when the store has none).
func (s *store) putAt(key string, e *entry, obj model.Object) (model.Object, bool) {
	if e == nil {
		e = s.newEntry(key, obj)
		s.items[key] = e
		s.keysDirty = true
		if s.nbuilt == 0 {
			return nil, false
		}
		for i, ix := range s.indexes {
			if ix.built {
				e.vals[i] = ix.fn(obj)
				index(ix.buckets, e, e.vals[i])
			}
		}
		return nil, false
	}
	old := e.obj
	e.obj = obj
	if s.nbuilt == 0 {
		return old, true
	}
	for i, ix := range s.indexes {
		if !ix.built || ix.same != nil && ix.same(old, obj) {
			continue
		}
		newVals := ix.fn(obj)
		if slices.Equal(e.vals[i], newVals) {
			continue
		}
		unindex(ix.buckets, e, e.vals[i])
		e.vals[i] = newVals
		index(ix.buckets, e, newVals)
	}
	return old, true
}

// reserve prepares an empty store for n puts of new keys (an informer's first list): the
// map is made for n items, and the entries are allocated together, and so are the slots of
// their index values when an index is built.
func (s *store) reserve(n int) {
	if len(s.items) != 0 || n <= 0 {
		return
	}
	s.items = make(map[string]*entry, n)
	s.spare = make([]entry, n)
	if s.nbuilt > 0 {
		k := len(s.indexes)
		slots := make([][]string, n*k)
		for j := range s.spare {
			s.spare[j].vals = slots[j*k : (j+1)*k : (j+1)*k]
		}
	}
}

// newEntry returns a new entry for obj under key, from the reserved ones while they last,
// with empty slots for its index values when the store has an index built. An entry made
// then has its slots in the same allocation when they fit (entryWithVals).
func (s *store) newEntry(key string, obj model.Object) *entry {
	var e *entry
	switch n := len(s.indexes); {
	case len(s.spare) > 0:
		e = &s.spare[0]
		s.spare = s.spare[1:]
		*e = entry{key: key, obj: obj, vals: e.vals}
		if s.nbuilt == 0 || len(e.vals) == n {
			return e
		}
	case s.nbuilt == 0:
		return &entry{key: key, obj: obj}
	case n <= maxInlineIndexes:
		ev := &entryWithVals{entry: entry{key: key, obj: obj}}
		ev.vals = ev.slots[:n:n]
		return &ev.entry
	default:
		e = &entry{key: key, obj: obj}
	}
	// An index is built here (the cases above return otherwise), and e has no slots that fit.
	e.vals = make([][]string, len(s.indexes))
	return e
}

// maxInlineIndexes is how many indexes' values an entryWithVals holds: the four built-in
// indexes and the custom ones of a controller-manager's pod informer (a claim-candidates
// index each for the DaemonSet and StatefulSet controllers), no more, as every indexed
// entry carries them.
const maxInlineIndexes = 6

// entryWithVals is an entry and the slots of its index values in one allocation, for the
// entries made while an index is built (a watch event's new object in an indexed cache).
// The entry's vals is a slice of slots; a store that adds indexes past maxInlineIndexes
// gives its entries new slots (addIndex).
type entryWithVals struct {
	entry
	slots [maxInlineIndexes][]string
}

// remove deletes key and returns the object it held.
func (s *store) remove(key string) (model.Object, bool) {
	e, ok := s.items[key]
	if !ok {
		return nil, false
	}
	return s.removeAt(key, e), true
}

// removeAt is remove with key's entry e already looked up (store.lookup; not nil), and
// returns the object e held.
func (s *store) removeAt(key string, e *entry) model.Object {
	delete(s.items, key)
	s.removals++
	s.keysDirty = true
	if e.vals != nil {
		for i, ix := range s.indexes {
			unindex(ix.buckets, e, e.vals[i])
		}
	}
	return e.obj
}

// index files e under each of values in an index's buckets m.
func index(m map[string]*bucket, e *entry, values []string) {
	for _, v := range values {
		b := m[v]
		if b == nil {
			b = &bucket{entries: map[*entry]struct{}{}}
			m[v] = b
		}
		if _, ok := b.entries[e]; !ok {
			b.entries[e] = struct{}{}
			b.dirty = true
		}
	}
}

// unindex removes e from the buckets of values in an index's buckets m.
func unindex(m map[string]*bucket, e *entry, values []string) {
	for _, v := range values {
		b := m[v]
		if b == nil {
			continue
		}
		delete(b.entries, e)
		b.dirty = true
		if len(b.entries) == 0 {
			delete(m, v)
		}
	}
}

func compareEntries(a, b *entry) int { return strings.Compare(a.key, b.key) }

// all returns every entry sorted by key. The slice is the store's own: callers must not
// modify it, and it is only valid until the next put or remove.
func (s *store) all() []*entry {
	if s.keysDirty {
		s.sorted = s.sorted[:0]
		for _, e := range s.items { //detlint:ordered the entries are sorted below
			s.sorted = append(s.sorted, e)
		}
		slices.SortFunc(s.sorted, compareEntries)
		s.keysDirty = false
	}
	return s.sorted
}

func (s *store) hasIndex(name string) bool {
	_, ok := s.indices[name]
	return ok
}

// byIndex returns the entries with value under index name, sorted by key, building the index
// first if it is not built yet. The slice is the store's own: callers must not modify it, and
// it is only valid until the next put or remove.
func (s *store) byIndex(name, value string) []*entry {
	s.build(name)
	b := s.indices[name][value]
	if b == nil {
		return nil
	}
	if b.dirty {
		b.sorted = b.sorted[:0]
		for e := range b.entries { //detlint:ordered the entries are sorted below
			b.sorted = append(b.sorted, e)
		}
		slices.SortFunc(b.sorted, compareEntries)
		b.dirty = false
	}
	return b.sorted
}

// build builds index name, if there is one and it is not built yet, from every stored object.
func (s *store) build(name string) {
	for i := range s.indexes {
		ix := &s.indexes[i]
		if ix.name != name || ix.built {
			continue
		}
		if s.nbuilt == 0 {
			s.allocVals()
		}
		for _, e := range s.all() {
			e.vals[i] = ix.fn(e.obj)
			index(ix.buckets, e, e.vals[i])
		}
		ix.built = true
		s.nbuilt++
	}
}

// allocVals gives every entry its (empty) index value slots, allocated together: the first
// index built needs them.
func (s *store) allocVals() {
	k := len(s.indexes)
	all := s.all()
	slots := make([][]string, len(all)*k)
	for j, e := range all {
		e.vals = slots[j*k : (j+1)*k : (j+1)*k]
	}
}

// addIndex adds an index and indexes every stored object; same is namedIndex.same (nil: none).
func (s *store) addIndex(name string, fn IndexFunc, same func(old, cur model.Object) bool) {
	buckets := map[string]*bucket{}
	s.indexes = append(s.indexes, namedIndex{name: name, fn: fn, same: same, buckets: buckets, built: true})
	s.nbuilt++
	slices.SortFunc(s.indexes, func(a, b namedIndex) int {
		switch {
		case a.name < b.name:
			return -1
		case a.name > b.name:
			return 1
		}
		return 0
	})
	s.indices[name] = buckets
	for _, e := range s.all() {
		e.vals = make([][]string, len(s.indexes))
		for i, ix := range s.indexes {
			if !ix.built {
				continue
			}
			e.vals[i] = ix.fn(e.obj)
			if ix.name == name {
				index(buckets, e, e.vals[i])
			}
		}
	}
}

// clear drops every object and index entry, keeping the index functions.
func (s *store) clear() {
	clear(s.items)
	s.removals++
	s.sorted = s.sorted[:0]
	s.keysDirty = false
	for _, ix := range s.indexes {
		clear(ix.buckets)
	}
}
