package replicaset

import (
	"maps"
	"slices"
	"strings"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim/client"
	"github.com/reconsim/reconsim/sim/controllers/internal/controllerutil"
	"github.com/reconsim/reconsim/vtime"
)

// podFacts is what a sync reads of one pod. A sync visits every pod its ReplicaSet owns, and
// reading each pod's labels, owner references, phase and conditions means a handful of
// cache misses per pod; with hundreds of pods per ReplicaSet and thousands of syncs that
// dominated large runs. The pod table keeps these facts, computed once per pod version by the
// informer's event handlers, in one sorted array per claim-candidate group, so that a sync
// reads them sequentially. The facts are exactly the fields the upstream functions read.
//
// The booleans come last, together: a sync copies its ReplicaSet's facts (candidates), and
// spread between the other fields they padded each fact from 80 bytes to 88.
type podFacts struct {
	namespace, name string
	pod             *model.Pod
	// hasController and controllerUID are model.ControllerOf(pod) != nil and its UID.
	controllerUID string
	labels        *labelSet
	// ready is the Ready condition being True; readySince its lastTransitionTime.
	readySince    vtime.Time
	hasController bool
	// deleting is deletionTimestamp != nil; finished is phase Succeeded or Failed.
	deleting, finished bool
	ready              bool
}

// active is IsPodActive.
func (f *podFacts) active() bool { return !f.finished && !f.deleting }

// terminating is the filterTerminatingPods test.
func (f *podFacts) terminating() bool { return f.deleting && !f.finished }

func factsOf(pod *model.Pod, labels *labelSet) podFacts {
	f := podFacts{
		namespace: pod.Namespace,
		name:      pod.Name,
		pod:       pod,
		labels:    labels,
		deleting:  pod.DeletionTimestamp != nil,
		finished:  model.IsPodTerminal(pod),
	}
	if ref := model.ControllerOf(pod); ref != nil {
		f.hasController = true
		f.controllerUID = ref.UID
	}
	if c := model.GetPodReadyCondition(pod); c != nil && c.Status == model.ConditionTrue {
		f.ready = true
		f.readySince = c.LastTransitionTime
	}
	return f
}

func compareFacts(a, b podFacts) int {
	if c := strings.Compare(a.namespace, b.namespace); c != 0 {
		return c
	}
	return strings.Compare(a.name, b.name)
}

// labelSet is one distinct label map, shared by every pod that carries the same labels, so
// that a sync matches a selector once per distinct set instead of once per pod.
type labelSet struct {
	canonical string
	labels    map[string]string
	pods      int
}

// podTable mirrors the pod informer's cache as podFacts grouped like the claim-candidate index
// (by controller UID, or "orphan/<namespace>"), each group sorted by namespace and name. It is
// kept current by its event handlers, which the informer calls for every change of its cache.
type podTable struct {
	groups    map[string][]podFacts
	groupOf   map[podName]groupRef // pod -> its group and place
	labelSets map[string]*labelSet
}

// podName names a pod in the table: a struct of the pod's own strings rather than its
// joined "namespace/name" key, so that an informer event costs no allocation to look up.
type podName struct{ namespace, name string }

// groupRef is where a pod is in the table: its group's key, and the index it was last found
// at in the group's array. The index is a hint, checked before it is used: a pod added or
// removed before it in the group moves it, and a find that misses it searches the group and
// remembers the new place. A status update finds its pod at the hint, reading one fact instead
// of the dozen a binary search over a group of hundreds reads (each in its own cold line).
type groupRef struct {
	key   string
	index int
}

func newPodTable() *podTable {
	return &podTable{groups: map[string][]podFacts{}, groupOf: map[podName]groupRef{}, labelSets: map[string]*labelSet{}}
}

// groupKey is the value controllerutil's claim-candidates index (AddClaimCandidatesIndex)
// would give the pod of f.
func groupKey(f *podFacts) string {
	if f.hasController {
		return f.controllerUID
	}
	return controllerutil.OrphanIndexValue(f.namespace)
}

// OnListSize implements client.ListSizeHandler: an empty table is sized for the n pods of
// the list about to be added.
func (t *podTable) OnListSize(n int) {
	if len(t.groupOf) == 0 {
		t.groupOf = make(map[podName]groupRef, n)
	}
}

// OnAdd implements client.EventHandler.
func (t *podTable) OnAdd(obj model.Object, _ bool) { t.upsert(obj) }

// OnUpdate implements client.EventHandler.
func (t *podTable) OnUpdate(_, cur model.Object) { t.upsert(cur) }

// OnDelete implements client.EventHandler: the informer has dropped the key.
func (t *podTable) OnDelete(obj any) {
	o, ok := client.ObjectOf(obj)
	if !ok {
		return
	}
	if _, isPod := client.ObjectAs[*model.Pod](o); isPod {
		m := o.Meta()
		t.remove(podName{m.Namespace, m.Name})
	}
}

// OnCacheReset implements client.CacheResetHandler.
func (t *podTable) OnCacheReset() {
	clear(t.groups)
	clear(t.groupOf)
	clear(t.labelSets)
}

func (t *podTable) upsert(obj model.Object) {
	pod, ok := client.ObjectAs[*model.Pod](obj)
	if !ok {
		return
	}
	key := podName{pod.Namespace, pod.Name}
	old, oldGroup, found := t.find(key)
	if found && old.pod == pod {
		return // a resync: the same object
	}
	// Most updates are status changes that keep the labels: the pod keeps its label set
	// without building its canonical string again.
	var ls *labelSet
	if found && maps.Equal(old.labels.labels, pod.Labels) {
		ls = old.labels
		ls.pods++
	} else {
		ls = t.internLabels(pod.Labels)
	}
	f := factsOf(pod, ls)
	g := groupKey(&f)
	if found && oldGroup == g {
		// Same group, same name, so the same place in the sorted group: replace the facts
		// in place rather than shift the group's array out and back in (most updates are
		// status changes of a pod that keeps its controller).
		t.releaseLabels(old.labels)
		*old = f
		return
	}
	t.remove(key)
	facts := t.groups[g]
	i, _ := slices.BinarySearchFunc(facts, f, compareFacts)
	t.groups[g] = slices.Insert(facts, i, f)
	t.groupOf[key] = groupRef{key: g, index: i}
}

// find returns the facts of the pod named key, in place in the table, and its group.
func (t *podTable) find(key podName) (*podFacts, string, bool) {
	g, i, ok := t.place(key)
	if !ok {
		return nil, "", false
	}
	return &t.groups[g][i], g, true
}

// place returns the group and index of the pod named key, trying the remembered index first.
func (t *podTable) place(key podName) (string, int, bool) {
	ref, ok := t.groupOf[key]
	if !ok {
		return "", 0, false
	}
	facts := t.groups[ref.key]
	if i := ref.index; i < len(facts) && facts[i].name == key.name && facts[i].namespace == key.namespace {
		return ref.key, i, true
	}
	i, found := slices.BinarySearchFunc(facts, podFacts{namespace: key.namespace, name: key.name}, compareFacts)
	if !found {
		return "", 0, false
	}
	t.groupOf[key] = groupRef{key: ref.key, index: i}
	return ref.key, i, true
}

func (t *podTable) remove(key podName) {
	g, i, ok := t.place(key)
	if !ok {
		return
	}
	delete(t.groupOf, key)
	facts := t.groups[g]
	t.releaseLabels(facts[i].labels)
	facts = slices.Delete(facts, i, i+1)
	if len(facts) == 0 {
		delete(t.groups, g)
		return
	}
	t.groups[g] = facts
}

func (t *podTable) internLabels(labels map[string]string) *labelSet {
	pairs := labelPairs(labels)
	var b strings.Builder
	for _, p := range pairs {
		b.WriteString(p.key)
		b.WriteByte('=')
		b.WriteString(p.value)
		b.WriteByte(0)
	}
	canonical := b.String()
	ls := t.labelSets[canonical]
	if ls == nil {
		ls = &labelSet{canonical: canonical, labels: labels}
		t.labelSets[canonical] = ls
	}
	ls.pods++
	return ls
}

func (t *podTable) releaseLabels(ls *labelSet) {
	ls.pods--
	if ls.pods == 0 {
		delete(t.labelSets, ls.canonical)
	}
}

// candidates appends to dst, sorted by name, the facts of the pods of namespace that rs with
// uid can claim: the pods it controls and the orphans (controllerutil.ClaimCandidatePods).
// dst must not alias the table: the sync keeps the copy while it blocks and the table changes.
func (t *podTable) candidates(dst []podFacts, uid, namespace string) []podFacts {
	owned := t.groups[uid]
	orphans := t.groups[controllerutil.OrphanIndexValue(namespace)]
	// Within a namespace both groups are sorted by name: merge them, copying each run of
	// owned pods that comes before the next orphan in one append. Most syncs meet no orphan,
	// and their whole group is one run: one bulk copy instead of a copy (and a write-barrier
	// check) per pod.
	i, j := 0, 0
	for {
		for i < len(owned) && owned[i].namespace != namespace {
			i++
		}
		if i == len(owned) {
			return append(dst, orphans[j:]...)
		}
		if j < len(orphans) && owned[i].name > orphans[j].name {
			dst = append(dst, orphans[j])
			j++
			continue
		}
		end := i + 1
		if j == len(orphans) && owned[len(owned)-1].namespace == namespace {
			// Sorted by namespace first: the rest of the group is of namespace.
			end = len(owned)
		} else {
			for end < len(owned) && owned[end].namespace == namespace &&
				(j == len(orphans) || owned[end].name <= orphans[j].name) {
				end++
			}
		}
		dst = append(dst, owned[i:end]...)
		i = end
	}
}

// labelMatcher answers selector.matches for facts, once per distinct label set. The pods a
// ReplicaSet syncs nearly all share one label set (its template's), so the set asked last and
// its answer are kept apart from the memo: most questions are answered without a map lookup,
// and a sync that meets one set makes no map.
type labelMatcher struct {
	sel   podSelector
	last  *labelSet
	lastV bool
	memo  map[*labelSet]bool // every set answered; made for the second one
}

func newLabelMatcher(sel podSelector) *labelMatcher {
	return &labelMatcher{sel: sel}
}

// matches is small enough to be inlined into the per-pod loops: the set asked last costs no
// call.
func (m *labelMatcher) matches(f *podFacts) bool {
	if m.last != nil && f.labels == m.last {
		return m.lastV
	}
	return m.matchesAnother(f)
}

// matchesAnother answers for a set other than the one asked last, and remembers it as last.
func (m *labelMatcher) matchesAnother(f *podFacts) bool {
	v, ok := m.memo[f.labels]
	if !ok {
		v = m.sel.matches(f.labels.labels)
		if m.last != nil {
			if m.memo == nil {
				m.memo = map[*labelSet]bool{m.last: m.lastV}
			}
			m.memo[f.labels] = v
		}
	}
	m.last, m.lastV = f.labels, v
	return v
}
