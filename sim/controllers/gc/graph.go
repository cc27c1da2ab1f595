package gc

import (
	"container/list"
	"fmt"
	"maps"
	"slices"

	"github.com/reconsim/reconsim/model"
)

// objectReference identifies an object in the graph: its owner-reference coordinates plus its
// namespace (upstream objectReference). It is comparable and used as a map key.
type objectReference struct {
	APIVersion string
	Kind       model.Kind
	Name       string
	UID        string
	Namespace  string
}

func (r objectReference) String() string {
	return fmt.Sprintf("[%s/%s, namespace: %s, name: %s, uid: %s]", r.APIVersion, r.Kind, r.Namespace, r.Name, r.UID)
}

// ownerReferenceCoordinates keeps what identifies an owner: apiVersion, kind, name, uid.
func ownerReferenceCoordinates(ref model.OwnerReference) objectReference {
	return objectReference{APIVersion: ref.APIVersion, Kind: ref.Kind, Name: ref.Name, UID: ref.UID}
}

// ownerReferenceMatchesCoordinates reports whether a reference names the same object as the
// identity's coordinates (namespace aside).
func ownerReferenceMatchesCoordinates(ref model.OwnerReference, id objectReference) bool {
	return ref.UID == id.UID && ref.Name == id.Name && ref.Kind == id.Kind && ref.APIVersion == id.APIVersion
}

// node is one object in the dependency graph (upstream graph.go node). A virtual node stands
// for an owner that some dependent references but no informer has reported yet.
type node struct {
	identity objectReference
	// dependents are the nodes that list this one as an owner, keyed by UID; iterate with
	// getDependents, which sorts. It is nil until the first dependent (most objects, pods,
	// have none).
	dependents map[string]*node
	// deletingDependents is set when the object is being deleted with the foregroundDeletion
	// finalizer; beingDeleted when it has a deletionTimestamp.
	deletingDependents bool
	beingDeleted       bool
	// virtual is true until an informer reports the object (upstream: !observed).
	virtual bool
	// owners are the object's ownerReferences as last observed: the informer object's own
	// slice, shared and read-only (stored objects are never changed), where upstream copies.
	owners []model.OwnerReference
}

func (n *node) isObserved() bool           { return !n.virtual }
func (n *node) markObserved()              { n.virtual = false }
func (n *node) isBeingDeleted() bool       { return n.beingDeleted }
func (n *node) markBeingDeleted()          { n.beingDeleted = true }
func (n *node) isDeletingDependents() bool { return n.deletingDependents }
func (n *node) markDeletingDependents()    { n.deletingDependents = true }

func (n *node) addDependent(d *node) {
	if n.dependents == nil {
		n.dependents = map[string]*node{}
	}
	n.dependents[d.identity.UID] = d
}
func (n *node) deleteDependent(d *node) { delete(n.dependents, d.identity.UID) }
func (n *node) dependentsLength() int   { return len(n.dependents) }

// getDependents returns the dependents sorted by UID.
func (n *node) getDependents() []*node {
	uids := make([]string, 0, len(n.dependents))
	for uid := range n.dependents { //detlint:ordered sorted below
		uids = append(uids, uid)
	}
	slices.Sort(uids)
	out := make([]*node, len(uids))
	for i, uid := range uids {
		out[i] = n.dependents[uid]
	}
	return out
}

// blockingDependents returns the dependents whose reference to n has blockOwnerDeletion=true:
// the ones a foreground deletion of n waits for.
func (n *node) blockingDependents() []*node {
	var out []*node
	for _, dep := range n.getDependents() {
		for _, owner := range dep.owners {
			if owner.UID == n.identity.UID && owner.BlockOwnerDeletion != nil && *owner.BlockOwnerDeletion {
				out = append(out, dep)
				break
			}
		}
	}
	return out
}

// clone copies the node (dependents map included), for replacing a node's identity.
func (n *node) clone() *node {
	c := *n
	c.dependents = maps.Clone(n.dependents) // nil until the first dependent, as in n
	return &c                               // owners are shared and read-only (node.owners)
}

// referenceCache is an LRU set of object references (upstream ReferenceCache, the
// absentOwnerCache): owners verified absent, so that each is looked up once.
type referenceCache struct {
	size  int
	order *list.List // front = most recently used
	items map[objectReference]*list.Element
}

func newReferenceCache(size int) *referenceCache {
	return &referenceCache{size: size, order: list.New(), items: make(map[objectReference]*list.Element)}
}

// Add records ref, evicting the least recently used entry when full.
func (c *referenceCache) Add(ref objectReference) {
	if e, ok := c.items[ref]; ok {
		c.order.MoveToFront(e)
		return
	}
	c.items[ref] = c.order.PushFront(ref)
	if c.order.Len() > c.size {
		last := c.order.Back()
		c.order.Remove(last)
		delete(c.items, last.Value.(objectReference))
	}
}

// Has reports whether ref is cached, marking it as recently used.
func (c *referenceCache) Has(ref objectReference) bool {
	e, ok := c.items[ref]
	if ok {
		c.order.MoveToFront(e)
	}
	return ok
}

func (c *referenceCache) Len() int { return c.order.Len() }
