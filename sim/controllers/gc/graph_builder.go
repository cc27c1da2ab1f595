package gc

import (
	"maps"
	"slices"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim"
	"github.com/reconsim/reconsim/sim/client"
)

type eventType int

const (
	addEvent eventType = iota
	updateEvent
	deleteEvent
)

// event is one change for the graph builder (upstream graph_builder.go event). A virtual event
// is a delete the garbage collector itself concluded (the object was not found, or has another
// UID); it carries only an identity.
type event struct {
	virtual   bool
	eventType eventType
	obj       model.Object // nil for virtual events
	oldObj    model.Object // the previous state, for updates
	identity  objectReference
}

// identityOf builds the graph identity of an observed object.
func identityOf(obj model.Object) objectReference {
	m := obj.Meta()
	return objectReference{APIVersion: apiVersionOf(obj.GetKind()), Kind: obj.GetKind(), Name: m.Name, UID: m.UID, Namespace: m.Namespace}
}

func apiVersionOf(kind model.Kind) string {
	if ki, ok := model.LookupKind(kind); ok {
		return ki.APIVersion
	}
	return ""
}

// monitoredKinds are the kinds the graph builder watches: every registered kind except
// events, which upstream ignores (garbagecollector config DefaultIgnoredResources:
// events in the core and events.k8s.io groups), and FlowSchemas and
// PriorityLevelConfigurations. Upstream monitors those two (they are deletable resources),
// but no controller owns them, and watching them would add two lists and watches to every
// run; so here an owner reference on one of them is not followed.
func monitoredKinds() []model.Kind {
	var out []model.Kind
	for _, ki := range model.Kinds() {
		if ki.Kind == model.KindFlowSchema || ki.Kind == model.KindPriorityLevelConfiguration {
			continue
		}
		if ki.Kind == model.KindEvent || ki.Kind == model.KindCustomResourceDefinition {
			// CustomResourceDefinitions, and the kinds they define, are monitored once
			// discovery shows them (syncMonitors), as upstream's resync of deletable resources
			// adds them.
			continue
		}
		out = append(out, ki.Kind)
	}
	return out
}

// addMonitors registers the graph builder's handlers on an informer for each monitored kind
// (upstream GraphBuilder.controllerFor): every add, update and delete becomes an event.
func (gc *Controller) addMonitors(f *client.SharedInformerFactory) {
	for _, kind := range monitoredKinds() {
		inf := f.For(kind)
		gc.monitors = append(gc.monitors, inf)
		gc.monitorByKind[kind] = inf
		inf.AddEventHandler(&monitorHandler{gc: gc, kind: kind, apiVersion: apiVersionOf(kind)})
	}
}

// monitorHandler turns one informer's notifications into graph events. It knows the
// apiVersion of its kind, so that building an event's identity looks nothing up.
type monitorHandler struct {
	gc         *Controller
	kind       model.Kind
	apiVersion string
}

// identity is identityOf(obj) for an object of the handler's kind.
func (h *monitorHandler) identity(obj model.Object) objectReference {
	kind := obj.GetKind()
	if kind != h.kind {
		return identityOf(obj)
	}
	m := obj.Meta()
	return objectReference{APIVersion: h.apiVersion, Kind: kind, Name: m.Name, UID: m.UID, Namespace: m.Namespace}
}

// OnListSize implements client.ListSizeHandler: the graph is made room for the n objects
// of a large list about to be added, beside the nodes it has (the kinds listed before), so
// that it does not grow step by step through them.
func (h *monitorHandler) OnListSize(n int) {
	if n < listSizeHintMin {
		return
	}
	m := make(map[string]*node, len(h.gc.uidToNode)+n)
	maps.Copy(m, h.gc.uidToNode)
	h.gc.uidToNode = m
}

// listSizeHintMin is the list size from which OnListSize makes the graph room.
const listSizeHintMin = 1024

// OnAdd queues an add event.
func (h *monitorHandler) OnAdd(obj model.Object, _ bool) {
	h.gc.graphChanges.Add(event{eventType: addEvent, obj: obj, identity: h.identity(obj)})
}

// OnUpdate queues an update event, unless the update changes nothing the graph keeps.
// Upstream queues every update (GraphBuilder.controllerFor's UpdateFunc, whose comment proposes to
// ignore updates that change no owner references, finalizers or deletionTimestamp); processing
// such an update finds no owner reference added, removed or changed and no deletion starting
// (processGraphChanges, processTransitions), so it changes nothing. Skipping it keeps every
// Lease renewal and status write from waking the graph builder.
func (h *monitorHandler) OnUpdate(oldObj, newObj model.Object) {
	if graphMetaUnchanged(oldObj.Meta(), newObj.Meta()) {
		h.gc.stats.UnchangedUpdates++
		return
	}
	h.gc.graphChanges.Add(event{eventType: updateEvent, obj: newObj, oldObj: oldObj, identity: h.identity(newObj)})
}

// graphMetaUnchanged reports whether an update from old to cur keeps everything
// processGraphChanges reads: the UID, the owner references, the finalizers and whether a
// deletion is under way. A new version that kept its predecessor's owner references (a
// shallow copy, as every kubelet Lease renewal is) holds the same array, whose elements
// are equal to themselves: model.SameSlice answers without reading them, which would be a
// cache miss on the old version's memory for nearly every Lease and status update.
func graphMetaUnchanged(old, cur *model.ObjectMeta) bool {
	return old.UID == cur.UID &&
		(old.DeletionTimestamp == nil) == (cur.DeletionTimestamp == nil) &&
		slices.Equal(old.Finalizers, cur.Finalizers) &&
		(model.SameSlice(old.OwnerReferences, cur.OwnerReferences) ||
			slices.EqualFunc(old.OwnerReferences, cur.OwnerReferences, model.EqualOwnerReference))
}

// OnDelete queues a delete event for the object or the last state a tombstone holds.
func (h *monitorHandler) OnDelete(obj any) {
	o, ok := client.ObjectOf(obj)
	if !ok {
		return
	}
	h.gc.graphChanges.Add(event{eventType: deleteEvent, obj: o, identity: h.identity(o)})
}

// runProcessGraphChanges is the graph builder's single process.
func (gc *Controller) runProcessGraphChanges(p *sim.Proc) {
	for {
		ev, quit := gc.graphChanges.Get(p)
		if quit {
			return
		}
		gc.stats.GraphChanges++
		gc.processGraphChanges(&ev)
	}
}

// enqueueVirtualDeleteEvent makes the graph builder forget a node whose object the API server
// says does not exist (upstream enqueueVirtualDeleteEvent).
func (gc *Controller) enqueueVirtualDeleteEvent(ref objectReference) {
	gc.graphChanges.Add(event{virtual: true, eventType: deleteEvent, identity: ref})
}

// nodeReplace puts n in place of the node with the same UID, in the UID index and in its
// owners' dependents.
func (gc *Controller) nodeReplace(n *node) {
	gc.uidToNode[n.identity.UID] = n
	for _, owner := range n.owners {
		if ownerNode, ok := gc.uidToNode[owner.UID]; ok {
			if _, has := ownerNode.dependents[n.identity.UID]; has {
				ownerNode.dependents[n.identity.UID] = n
			}
		}
	}
}

// processGraphChanges applies one event to the graph and queues the work it implies
// (upstream processGraphChanges).
func (gc *Controller) processGraphChanges(ev *event) {
	uid := ev.identity.UID
	existing, found := gc.uidToNode[uid]
	if found && !ev.virtual && !existing.isObserved() {
		// The first informer event for a node that was virtual: it may turn out that
		// dependents referenced it by the wrong coordinates.
		observed := ev.identity
		if observed != existing.identity {
			_, potentiallyInvalid := partitionDependents(existing.getDependents(), observed)
			for _, dep := range potentiallyInvalid {
				if observed.Namespace != "" && dep.identity.Namespace != observed.Namespace {
					gc.reportInvalidNamespaceOwnerRef(dep, observed.UID)
				}
				gc.attemptToDelete.Add(dep)
			}
			existing = existing.clone()
			existing.identity = observed
			gc.nodeReplace(existing)
		}
		existing.markObserved()
	}
	switch {
	case (ev.eventType == addEvent || ev.eventType == updateEvent) && !found:
		m := ev.obj.Meta()
		n := &node{
			identity:           ev.identity,
			owners:             m.OwnerReferences,
			deletingDependents: m.DeletionTimestamp != nil && hasFinalizer(m, model.FinalizerDeleteDependents),
			beingDeleted:       m.DeletionTimestamp != nil,
		}
		gc.insertNode(n)
		// An add may stand for a create and a delete start combined.
		gc.processTransitions(ev.oldObj, ev.obj, n)
	case ev.eventType == addEvent || ev.eventType == updateEvent:
		m := ev.obj.Meta()
		added, removed, changed := referencesDiffs(existing.owners, m.OwnerReferences)
		if len(added) != 0 || len(removed) != 0 || len(changed) != 0 {
			gc.addUnblockedOwnersToDeleteQueue(removed, changed)
			existing.owners = m.OwnerReferences
			gc.addDependentToOwners(existing, added)
			gc.removeDependentFromOwners(existing, removed)
		}
		if m.DeletionTimestamp != nil {
			existing.markBeingDeleted()
		}
		gc.processTransitions(ev.oldObj, ev.obj, existing)
	case ev.eventType == deleteEvent:
		if !found {
			return
		}
		gc.processDelete(ev, existing)
	}
}

// processDelete handles a delete event for a node in the graph. A virtual delete whose
// identity disagrees with how some dependents reference the node only settles the dependents
// that agree; the node stays (and, if it is virtual, is tried again under another identity).
func (gc *Controller) processDelete(ev *event, existing *node) {
	removeExisting := true
	if ev.virtual {
		deleted := ev.identity
		if existing.virtual {
			matching, nonmatching := partitionDependents(existing.getDependents(), deleted)
			if len(nonmatching) > 0 {
				removeExisting = false
				if len(matching) > 0 {
					gc.absentOwnerCache.Add(deleted)
					for _, dep := range matching {
						gc.attemptToDelete.Add(dep)
					}
				}
				if existing.identity == deleted {
					if alt := getAlternateOwnerIdentity(nonmatching, deleted); alt != nil {
						replacement := existing.clone()
						replacement.identity = *alt
						gc.nodeReplace(replacement)
						gc.attemptToDelete.AddRateLimited(replacement)
					}
				}
			}
		} else if existing.identity != deleted {
			// A real node is never removed on the word of a virtual delete for other
			// coordinates.
			removeExisting = false
			matching, _ := partitionDependents(existing.getDependents(), deleted)
			if len(matching) > 0 {
				gc.absentOwnerCache.Add(deleted)
				for _, dep := range matching {
					gc.attemptToDelete.Add(dep)
				}
			}
		}
	}
	if !removeExisting {
		return
	}
	gc.removeNode(existing)
	deps := existing.getDependents()
	if len(deps) > 0 {
		gc.absentOwnerCache.Add(ev.identity)
	}
	for _, dep := range deps {
		gc.attemptToDelete.Add(dep)
	}
	for _, owner := range existing.owners {
		ownerNode, ok := gc.uidToNode[owner.UID]
		if !ok || !ownerNode.isDeletingDependents() {
			continue
		}
		// Let the owner check whether this was its last blocking dependent.
		gc.attemptToDelete.Add(ownerNode)
	}
}

// insertNode adds n to the graph and to its owners' dependents.
func (gc *Controller) insertNode(n *node) {
	gc.uidToNode[n.identity.UID] = n
	gc.addDependentToOwners(n, n.owners)
}

// removeNode removes n from the graph and from its owners' dependents.
func (gc *Controller) removeNode(n *node) {
	delete(gc.uidToNode, n.identity.UID)
	gc.removeDependentFromOwners(n, n.owners)
}

// addDependentToOwners adds n to each owner's dependents (upstream addDependentToOwners). An
// owner not in the graph gets a virtual node, queued for attemptToDelete so that the API
// server is asked whether it exists. A reference that disagrees with an observed owner's
// namespace or coordinates queues n itself, to check whether all its owners are absent.
func (gc *Controller) addDependentToOwners(n *node, owners []model.OwnerReference) {
	potentiallyInvalid := false
	for _, owner := range owners {
		ownerNode, ok := gc.uidToNode[owner.UID]
		if !ok {
			ownerNode = &node{
				identity:   objectReference{APIVersion: owner.APIVersion, Kind: owner.Kind, Name: owner.Name, UID: owner.UID, Namespace: n.identity.Namespace},
				dependents: make(map[string]*node),
				virtual:    true,
			}
			gc.uidToNode[owner.UID] = ownerNode
		}
		ownerNode.addDependent(n)
		if !ok {
			gc.attemptToDelete.Add(ownerNode)
			continue
		}
		if potentiallyInvalid {
			continue
		}
		ownerIsNamespaced := ownerNode.identity.Namespace != ""
		switch {
		case ownerIsNamespaced && ownerNode.identity.Namespace != n.identity.Namespace:
			if ownerNode.isObserved() {
				gc.reportInvalidNamespaceOwnerRef(n, owner.UID)
			}
			potentiallyInvalid = true
		case !ownerReferenceMatchesCoordinates(owner, ownerNode.identity):
			potentiallyInvalid = true
		case !ownerIsNamespaced && ownerNode.identity.Namespace != n.identity.Namespace && !ownerNode.isObserved():
			potentiallyInvalid = true
		}
	}
	if potentiallyInvalid {
		gc.attemptToDelete.Add(n)
	}
}

func (gc *Controller) removeDependentFromOwners(n *node, owners []model.OwnerReference) {
	for _, owner := range owners {
		if ownerNode, ok := gc.uidToNode[owner.UID]; ok {
			ownerNode.deleteDependent(n)
		}
	}
}

// reportInvalidNamespaceOwnerRef records the upstream warning event on a dependent whose
// owner reference points into another namespace.
func (gc *Controller) reportInvalidNamespaceOwnerRef(n *node, invalidOwnerUID string) {
	var invalid *model.OwnerReference
	for i := range n.owners {
		if n.owners[i].UID == invalidOwnerUID {
			invalid = &n.owners[i]
			break
		}
	}
	if invalid == nil || gc.recorder == nil {
		return
	}
	ki, ok := gc.lookupKind(n.identity.Kind)
	if !ok {
		return
	}
	obj := ki.New()
	m := obj.Meta()
	m.Name, m.Namespace, m.UID = n.identity.Name, n.identity.Namespace, n.identity.UID
	id := objectReference{APIVersion: invalid.APIVersion, Kind: invalid.Kind, Name: invalid.Name, UID: invalid.UID, Namespace: n.identity.Namespace}
	gc.recorder.Eventf(obj, model.EventTypeWarning, "OwnerRefInvalidNamespace", "ownerRef %s does not exist in namespace %q", id, n.identity.Namespace)
}

type ownerRefPair struct{ oldRef, newRef model.OwnerReference }

// referencesDiffs compares two ownerReference lists by UID (upstream referencesDiffs):
// references only in new are added, only in old removed, in both but different changed. The
// results keep list order.
func referencesDiffs(old, cur []model.OwnerReference) (added, removed []model.OwnerReference, changed []ownerRefPair) {
	if sameDistinctReferences(old, cur) {
		// What nearly every update brings: the same references. Nothing is added or removed,
		// and each reference is compared with itself (UIDs are distinct), so nothing changed.
		return nil, nil, nil
	}
	return referencesDiffsByUID(old, cur)
}

// referencesDiffsByUID is referencesDiffs computed through maps by UID, for any lists.
func referencesDiffsByUID(old, cur []model.OwnerReference) (added, removed []model.OwnerReference, changed []ownerRefPair) {
	oldByUID := make(map[string]model.OwnerReference, len(old))
	for _, r := range old {
		oldByUID[r.UID] = r
	}
	seen := make(map[string]bool, len(cur))
	for _, r := range cur {
		seen[r.UID] = true
		o, ok := oldByUID[r.UID]
		switch {
		case !ok:
			added = append(added, r)
		case !model.EqualOwnerReference(o, r):
			changed = append(changed, ownerRefPair{oldRef: o, newRef: r})
		}
	}
	for _, r := range old {
		if !seen[r.UID] {
			removed = append(removed, r)
		}
	}
	return added, removed, changed
}

// sameDistinctReferences reports whether old and cur are equal element by element and no
// UID appears twice (a repeated UID could pair a reference with another one of that UID in
// referencesDiffs, so such lists take the general path). Long lists are left to it as well.
func sameDistinctReferences(old, cur []model.OwnerReference) bool {
	const maxCompared = 8
	if len(old) != len(cur) || len(cur) > maxCompared {
		return false
	}
	for i := range cur {
		if !model.EqualOwnerReference(old[i], cur[i]) {
			return false
		}
		for j := 0; j < i; j++ {
			if cur[j].UID == cur[i].UID {
				return false
			}
		}
	}
	return true
}

func blocks(ref model.OwnerReference) bool {
	return ref.BlockOwnerDeletion != nil && *ref.BlockOwnerDeletion
}

// addUnblockedOwnersToDeleteQueue queues the owners a dependent stopped blocking: its
// blocking reference was removed, or its blockOwnerDeletion turned false. An owner waiting for
// its dependents then re-checks them.
func (gc *Controller) addUnblockedOwnersToDeleteQueue(removed []model.OwnerReference, changed []ownerRefPair) {
	for _, ref := range removed {
		if blocks(ref) {
			if n, ok := gc.uidToNode[ref.UID]; ok {
				gc.attemptToDelete.Add(n)
			}
		}
	}
	for _, c := range changed {
		if blocks(c.oldRef) && !blocks(c.newRef) {
			if n, ok := gc.uidToNode[c.newRef.UID]; ok {
				gc.attemptToDelete.Add(n)
			}
		}
	}
}

func hasFinalizer(m *model.ObjectMeta, f string) bool { return slices.Contains(m.Finalizers, f) }

// deletionStartsWithFinalizer reports whether cur is being deleted with finalizer f and old
// (nil for an add) was not.
func deletionStartsWithFinalizer(oldObj, cur model.Object, f string) bool {
	m := cur.Meta()
	if m.DeletionTimestamp == nil || !hasFinalizer(m, f) {
		return false
	}
	if oldObj == nil {
		return true
	}
	om := oldObj.Meta()
	return om.DeletionTimestamp == nil || !hasFinalizer(om, f)
}

// processTransitions starts orphaning when an object starts being deleted with the orphan
// finalizer, and foreground deletion when it starts with foregroundDeletion: the node is
// marked as deleting its dependents, and it and every dependent are queued.
func (gc *Controller) processTransitions(oldObj, cur model.Object, n *node) {
	if deletionStartsWithFinalizer(oldObj, cur, model.FinalizerOrphanDependents) {
		gc.attemptToOrphan.Add(n)
		return
	}
	if deletionStartsWithFinalizer(oldObj, cur, model.FinalizerDeleteDependents) {
		n.markDeletingDependents()
		for _, dep := range n.getDependents() {
			gc.attemptToDelete.Add(dep)
		}
		gc.attemptToDelete.Add(n)
	}
}

// partitionDependents splits dependents into those whose reference to id's UID matches id's
// coordinates and namespace, and those with a reference to that UID that does not (a
// dependent can be in both).
func partitionDependents(dependents []*node, id objectReference) (matching, nonmatching []*node) {
	ownerIsNamespaced := id.Namespace != ""
	for _, dep := range dependents {
		foundMatch, foundMismatch := false, false
		if ownerIsNamespaced && id.Namespace != dep.identity.Namespace {
			foundMismatch = true
		} else {
			for _, ref := range dep.owners {
				if ref.UID != id.UID {
					continue
				}
				if ownerReferenceMatchesCoordinates(ref, id) {
					foundMatch = true
				} else {
					foundMismatch = true
				}
			}
		}
		if foundMatch {
			matching = append(matching, dep)
		}
		if foundMismatch {
			nonmatching = append(nonmatching, dep)
		}
	}
	return matching, nonmatching
}

// referenceLessThan orders identities by kind, apiVersion, namespace, name, uid.
func referenceLessThan(a, b objectReference) bool {
	if a.Kind != b.Kind {
		return a.Kind < b.Kind
	}
	if a.APIVersion != b.APIVersion {
		return a.APIVersion < b.APIVersion
	}
	if a.Namespace != b.Namespace {
		return a.Namespace < b.Namespace
	}
	if a.Name != b.Name {
		return a.Name < b.Name
	}
	return a.UID < b.UID
}

// getAlternateOwnerIdentity returns another identity under which deps reference the UID of
// absent: the first one after absent in referenceLessThan order, else the first one, else nil
// (upstream getAlternateOwnerIdentity).
func getAlternateOwnerIdentity(deps []*node, absent objectReference) *objectReference {
	absentIsClusterScoped := absent.Namespace == ""
	seen := map[objectReference]bool{absent: true}
	var first, firstFollowing *objectReference
	for _, dep := range deps {
		for _, ref := range dep.owners {
			if ref.UID != absent.UID {
				continue
			}
			if ownerReferenceMatchesCoordinates(ref, absent) && (absentIsClusterScoped || absent.Namespace == dep.identity.Namespace) {
				continue
			}
			alt := ownerReferenceCoordinates(ref)
			alt.Namespace = dep.identity.Namespace
			if absentIsClusterScoped && alt.APIVersion == absent.APIVersion && alt.Kind == absent.Kind {
				alt.Namespace = ""
			}
			if seen[alt] {
				continue
			}
			seen[alt] = true
			if first == nil || referenceLessThan(alt, *first) {
				a := alt
				first = &a
			}
			if referenceLessThan(absent, alt) && (firstFollowing == nil || referenceLessThan(alt, *firstFollowing)) {
				a := alt
				firstFollowing = &a
			}
		}
	}
	if firstFollowing != nil {
		return firstFollowing
	}
	return first
}
