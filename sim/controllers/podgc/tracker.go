package podgc

import (
	"slices"
	"strings"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim/client"
)

// podName identifies a pod without building its key.
type podName struct{ namespace, name string }

// trackedPod is a pod the tracker keeps: the cached version and its cache key.
type trackedPod struct {
	key string
	pod *model.Pod
}

// podTracker mirrors, from the pod informer's notifications, the two facts a gc pass needs
// from the whole pod cache, so that a pass need not list and sort every pod:
//
//   - the pods any step can act on: terminated pods (step 1) and pods being deleted (steps 2
//     and 4); each step filters a listing by a predicate only these pods pass;
//   - how many pods are bound to each node name, so that a pass knows whether some pod is
//     bound to a node missing from the node cache (step 3, which then needs every such pod).
//
// It makes no API call, emits nothing and wakes nobody: registering it changes nothing else the
// informer's handlers do.
type podTracker struct {
	candidates map[podName]*trackedPod
	// sorted is candidates by key; rebuilt when the set of candidates changed (dirty).
	sorted []*trackedPod
	dirty  bool
	// onNode counts the pods bound to each node name (entries are removed at zero).
	onNode map[string]int
	// total is the number of pods the tracker has seen added and not deleted; a pass checks it
	// against the cache and lists the cache instead if they ever disagree.
	total int
}

func newPodTracker() *podTracker {
	return &podTracker{candidates: map[podName]*trackedPod{}, onNode: map[string]int{}}
}

// isCandidate reports whether some gc step can act on pod whatever the nodes are: it is
// terminated, or being deleted.
func isCandidate(p *model.Pod) bool {
	return isPodTerminated(p) || p.DeletionTimestamp != nil
}

// OnAdd records a pod new to the cache.
func (t *podTracker) OnAdd(obj model.Object, _ bool) {
	if p, ok := client.ObjectAs[*model.Pod](obj); ok {
		t.total++
		t.update(nil, p)
	}
}

// OnUpdate records a new version of a cached pod.
func (t *podTracker) OnUpdate(oldObj, newObj model.Object) {
	o, ok1 := client.ObjectAs[*model.Pod](oldObj)
	n, ok2 := client.ObjectAs[*model.Pod](newObj)
	if ok1 && ok2 {
		t.update(o, n)
	}
}

// OnDelete forgets a pod; a tombstone's object is the version the cache last held, which is
// the one the tracker last saw.
func (t *podTracker) OnDelete(obj any) {
	o, ok := client.ObjectOf(obj)
	if !ok {
		return
	}
	if p, ok := client.ObjectAs[*model.Pod](o); ok {
		t.total--
		t.update(p, nil)
	}
}

// OnCacheReset forgets everything: the informer dropped its cache without a delete per pod.
func (t *podTracker) OnCacheReset() {
	clear(t.candidates)
	clear(t.onNode)
	t.sorted = t.sorted[:0]
	t.dirty = false
	t.total = 0
}

// update moves the tracker from old (nil: none) to cur (nil: deleted). A pod keeps its name,
// so old and cur name the same pod.
func (t *podTracker) update(old, cur *model.Pod) {
	oldNode, curNode := "", ""
	if old != nil {
		oldNode = old.Spec.NodeName
	}
	if cur != nil {
		curNode = cur.Spec.NodeName
	}
	if oldNode != curNode {
		if oldNode != "" {
			if t.onNode[oldNode] <= 1 {
				delete(t.onNode, oldNode)
			} else {
				t.onNode[oldNode]--
			}
		}
		if curNode != "" {
			t.onNode[curNode]++
		}
	}
	wasCandidate := old != nil && isCandidate(old)
	isCand := cur != nil && isCandidate(cur)
	if !wasCandidate && !isCand {
		return
	}
	var id podName
	if cur != nil {
		id = podName{cur.Namespace, cur.Name}
	} else {
		id = podName{old.Namespace, old.Name}
	}
	tp := t.candidates[id]
	switch {
	case isCand && tp != nil:
		tp.pod = cur
	case isCand:
		t.candidates[id] = &trackedPod{key: model.Key(cur), pod: cur}
		t.dirty = true
	case tp != nil:
		delete(t.candidates, id)
		t.dirty = true
	}
}

// candidatePods returns the candidates sorted by key, in a new slice.
func (t *podTracker) candidatePods() []*model.Pod {
	if t.dirty {
		t.sorted = t.sorted[:0]
		for _, tp := range t.candidates { //detlint:ordered sorted by key below
			t.sorted = append(t.sorted, tp)
		}
		slices.SortFunc(t.sorted, func(a, b *trackedPod) int { return strings.Compare(a.key, b.key) })
		t.dirty = false
	}
	out := make([]*model.Pod, len(t.sorted))
	for i, tp := range t.sorted {
		out[i] = tp.pod
	}
	return out
}

// boundToMissingNode reports whether some tracked pod is bound to a node name not in existing.
func (t *podTracker) boundToMissingNode(existing map[string]bool) bool {
	for name := range t.onNode { //detlint:ordered an any-match test; order does not matter
		if !existing[name] {
			return true
		}
	}
	return false
}
