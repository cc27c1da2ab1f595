package controllerutil

// VersionCache keeps, per key, a value derived from one version of an informer's object (a
// parsed label selector, say) and derives it again only for another version. The informers'
// objects are never modified (a change is a new version, a new pointer), so a version's
// derived value never changes, and pointer identity tells versions apart. The caller forgets
// a key when its object is deleted.
type VersionCache[K comparable, O comparable, V any] struct {
	entries map[K]versionEntry[O, V]
}

type versionEntry[O comparable, V any] struct {
	version O
	value   V
	err     error
}

// Get returns derive(obj) for key, computed once for the version obj.
func (c *VersionCache[K, O, V]) Get(key K, obj O, derive func(O) (V, error)) (V, error) {
	if e, ok := c.entries[key]; ok && e.version == obj {
		return e.value, e.err
	}
	v, err := derive(obj)
	if c.entries == nil {
		c.entries = map[K]versionEntry[O, V]{}
	}
	c.entries[key] = versionEntry[O, V]{version: obj, value: v, err: err}
	return v, err
}

// GetSame is Get for a value derived from part of the object: a new version that same reports
// equal to the cached one in what derive reads keeps the cached value, and becomes the cached
// version. A ReplicaSet's status changes make most of its versions; its selector, immutable
// in apps/v1, does not change with them.
func (c *VersionCache[K, O, V]) GetSame(key K, obj O, same func(cached, obj O) bool, derive func(O) (V, error)) (V, error) {
	if e, ok := c.entries[key]; ok && e.version != obj && same(e.version, obj) {
		e.version = obj
		c.entries[key] = e
		return e.value, e.err
	}
	return c.Get(key, obj, derive)
}

// Forget drops what was derived for key.
func (c *VersionCache[K, O, V]) Forget(key K) { delete(c.entries, key) }

// Len returns the number of keys held.
func (c *VersionCache[K, O, V]) Len() int { return len(c.entries) }
