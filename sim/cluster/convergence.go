package cluster

import (
	"sort"
	"strings"

	"github.com/reconsim/reconsim/model"
)

// convergence tracks, incrementally and exactly, whether the cluster is converged:
//
//   - every pod owner (ReplicaSet, StatefulSet, DaemonSet) has observed its generation and its
//     status reports every desired replica ready and available; and
//   - it owns exactly as many active pods as it desires (spec.replicas; a DaemonSet's
//     status.desiredNumberScheduled), each Ready in the API, not terminating, and on a node
//     that is really up (ground truth from the kubelet model, which the API may not know yet:
//     right after a crash the API still reports everything Ready); and
//   - every Deployment's status says its rollout is complete; and
//   - every Job finished (Complete or Failed), is suspended or is being deleted; and
//   - no pod is Pending.
//
// It is fed every write the API server commits (observe) and every change of a node's real
// health (setNodeUp), and answers converged() in O(1).
type convergence struct {
	rs      map[string]*rsTrack  // by owner ref "Kind namespace/name" (ReplicaSet, StatefulSet, DaemonSet)
	deploys map[string]bool      // by "Kind namespace/name" of Deployments, StatefulSets, DaemonSets: whether their status says they are done
	pods    map[string]*podTrack // by pod key
	nodeUp  map[string]bool      // ground truth, by node name; absent = not up
	podsOn  map[string]map[string]struct{}
	// podsOf indexes pods by their owner's ref, so that an owner seen after its pods counts
	// them in O(its pods), not O(all pods).
	podsOf map[string]map[string]struct{}
	// lastOwnerKey is the owner key podOwnerKeys built last.
	lastOwnerKey string
	// keyBuf is scratch space for looking a pod's key up without building the string.
	keyBuf    []byte
	unsettled int // ReplicaSets that are not satisfied
	pending   int // pods in phase Pending (not terminating)

	// onServing, when set, is called whenever a ReplicaSet's count of serving pods changes.
	onServing func(t *rsTrack)
}

type rsTrack struct {
	kind model.Kind
	// seriesPrefix is kind in lower case, the first part of its series' names.
	seriesPrefix string
	uid          string
	desired      int32
	statusOK     bool
	good         int32 // owned pods that count as serving
	owned        int32 // owned active pods (not terminating, not finished)
	satisfied    bool
	namespace    string
	name         string
}

type podTrack struct {
	ownerKey    string
	jobKey      string // "Job namespace/name" of a Job's pod (its verdict covers the pod)
	node        string
	ready       bool
	terminating bool
	finished    bool
	pending     bool
}

func newConvergence() *convergence {
	return &convergence{
		rs:      map[string]*rsTrack{},
		deploys: map[string]bool{},
		pods:    map[string]*podTrack{},
		nodeUp:  map[string]bool{},
		podsOn:  map[string]map[string]struct{}{},
		podsOf:  map[string]map[string]struct{}{},
	}
}

// reserve sizes the pod tracks for n pods, when none is tracked yet (see world.reservePods).
func (c *convergence) reserve(n int) {
	if len(c.pods) == 0 {
		c.pods = make(map[string]*podTrack, n)
	}
}

// maxPodsOfHint bounds the size a new podsOf set is made for.
const maxPodsOfHint = 4096

func (c *convergence) converged() bool { return c.unsettled == 0 && c.pending == 0 }

// observe applies one committed write: the object as it now is, or its last state if deleted.
func (c *convergence) observe(obj model.Object, deleted bool) {
	switch o := obj.(type) {
	case *model.ReplicaSet:
		c.observeRS(o, deleted)
	case *model.Pod:
		c.observePod(o, deleted)
	case *model.Deployment:
		c.observeDeployment(o, deleted)
	case *model.StatefulSet:
		want := ptrOr(o.Spec.Replicas, 1)
		st := o.Status
		c.observeOwner(o, want, deleted, st.ObservedGeneration >= o.Generation &&
			st.Replicas == want && st.ReadyReplicas == want && st.AvailableReplicas == want && st.UpdatedReplicas == want)
	case *model.Job:
		// A Job is settled once it finished (Complete or Failed: a failure is reported as a
		// verdict, see jobVerdicts), is suspended, or is being deleted.
		c.setWorkloadDone(model.Ref(o), deleted, o.DeletionTimestamp != nil || model.IsJobFinished(o) ||
			(o.Spec.Suspend != nil && *o.Spec.Suspend))
	case *model.DaemonSet:
		st := o.Status
		c.observeOwner(o, st.DesiredNumberScheduled, deleted, st.ObservedGeneration >= o.Generation &&
			st.NumberAvailable == st.DesiredNumberScheduled && st.UpdatedNumberScheduled == st.DesiredNumberScheduled &&
			st.NumberMisscheduled == 0)
	}
}

// observeDeployment tracks whether a Deployment's status says its rollout is complete: the
// controller observed the latest generation and every replica is updated, ready and available
// (upstream DeploymentComplete, with the newer "available == replicas" form), with no old
// replicas left. Its pods are counted through its ReplicaSets.
func (c *convergence) observeDeployment(o *model.Deployment, deleted bool) {
	want := ptrOr(o.Spec.Replicas, 1)
	s := o.Status
	c.setWorkloadDone(model.Ref(o), deleted, o.DeletionTimestamp != nil || (s.ObservedGeneration >= o.Generation && s.UpdatedReplicas == want &&
		s.Replicas == want && s.ReadyReplicas == want && s.AvailableReplicas == want))
}

// setWorkloadDone records whether the workload ref ("Kind namespace/name") is done by its own
// status; a deleted workload is forgotten.
func (c *convergence) setWorkloadDone(key string, deleted, done bool) {
	was, known := c.deploys[key]
	if deleted {
		if known && !was {
			c.unsettled--
		}
		delete(c.deploys, key)
		return
	}
	if !known {
		was = true
	}
	if done != was {
		if done {
			c.unsettled--
		} else {
			c.unsettled++
		}
	}
	c.deploys[key] = done
}

func (c *convergence) observeRS(o *model.ReplicaSet, deleted bool) {
	want := ptrOr(o.Spec.Replicas, 1)
	st := o.Status
	c.observeOwner(o, want, deleted, st.ObservedGeneration >= o.Generation && st.Replicas == want &&
		st.ReadyReplicas == want && st.AvailableReplicas == want)
}

// observeOwner updates the track of a pod owner: how many pods it desires and whether its
// status agrees (statusOK). A deleting owner desires nothing.
func (c *convergence) observeOwner(o model.Object, desired int32, deleted, statusOK bool) {
	key := model.Ref(o)
	t := c.rs[key]
	if deleted {
		if t != nil {
			if !t.satisfied {
				c.unsettled--
			}
			delete(c.rs, key)
		}
		return
	}
	m := o.Meta()
	if t == nil {
		t = &rsTrack{kind: o.GetKind(), seriesPrefix: strings.ToLower(string(o.GetKind())), satisfied: true, namespace: m.Namespace, name: m.Name}
		c.rs[key] = t
		// Pods seen before their owner (settled objects are created owner-first, but a
		// recreated owner may find its pods) are counted now.
		//detlint:ordered counting is commutative
		for podKey := range c.podsOf[key] {
			c.count(t, c.pods[podKey], 1)
		}
	}
	t.uid = m.UID
	t.desired = desired
	if m.DeletionTimestamp != nil {
		t.desired = 0
		statusOK = true
	}
	t.statusOK = statusOK
	c.reevaluate(t)
}

func (c *convergence) observePod(o *model.Pod, deleted bool) {
	// The track is looked up by the key's bytes, so that a status write (most observations)
	// builds no key string.
	var old *podTrack
	if o.Namespace == "" {
		old = c.pods[o.Name]
	} else {
		c.keyBuf = append(append(append(c.keyBuf[:0], o.Namespace...), '/'), o.Name...)
		old = c.pods[string(c.keyBuf)]
	}
	if old != nil && !deleted && old.node == o.Spec.NodeName {
		ownerKey, jobKey := c.podOwnerKeys(o, old)
		if ownerKey == old.ownerKey && jobKey == old.jobKey {
			// A new version on the same node under the same owner (a status write): the
			// track changes in place, with the counts moved as removePod and the add below
			// would move them, and the indexes by node and by owner stay as they are.
			c.updatePod(old, o)
			return
		}
	}
	key := model.Key(o)
	if old != nil {
		c.removePod(key, old)
	}
	if deleted {
		return
	}
	p := &podTrack{node: o.Spec.NodeName}
	p.ownerKey, p.jobKey = c.podOwnerKeys(o, nil)
	p.setState(o)
	c.pods[key] = p
	if p.pending {
		c.pending++
	}
	if p.node != "" {
		set := c.podsOn[p.node]
		if set == nil {
			set = map[string]struct{}{}
			c.podsOn[p.node] = set
		}
		set[key] = struct{}{}
	}
	if p.ownerKey != "" {
		set := c.podsOf[p.ownerKey]
		if set == nil {
			// Sized for the owner's replicas when it is known (owners come first), up to
			// a bound: a hint, not a promise that the pods will exist.
			var want int32
			if t := c.rs[p.ownerKey]; t != nil {
				want = min(t.desired, maxPodsOfHint)
			}
			set = make(map[string]struct{}, want)
			c.podsOf[p.ownerKey] = set
		}
		set[key] = struct{}{}
	}
	if t := c.rs[p.ownerKey]; t != nil {
		c.count(t, p, 1)
		c.reevaluate(t)
	}
}

// updatePod moves p, the track of a pod, to o, a new version of the pod with p's node and
// owner: the pending count and the owner's counts change as removing p and adding o would
// change them, in the same steps.
func (c *convergence) updatePod(p *podTrack, o *model.Pod) {
	if p.pending {
		c.pending--
	}
	t := c.rs[p.ownerKey]
	if t != nil {
		c.count(t, p, -1)
		c.reevaluate(t)
	}
	p.setState(o)
	if p.pending {
		c.pending++
	}
	if t != nil {
		c.count(t, p, 1)
		c.reevaluate(t)
	}
}

// setState records o's state: terminating, finished, pending and ready.
func (p *podTrack) setState(o *model.Pod) {
	p.terminating = o.DeletionTimestamp != nil
	p.finished = o.Status.Phase == model.PodSucceeded || o.Status.Phase == model.PodFailed
	p.pending = !p.terminating && (o.Status.Phase == model.PodPending || o.Status.Phase == "")
	p.ready = false
	for _, cond := range o.Status.Conditions {
		if cond.Type == model.PodReady {
			p.ready = cond.Status == model.ConditionTrue
		}
	}
}

// podOwnerKeys returns the keys of o's controller, "Kind namespace/name": ownerKey for a
// ReplicaSet, StatefulSet or DaemonSet, jobKey for a Job. The strings of old, the track of
// an earlier version of o (or nil), are returned when they are the same, and otherwise the
// last key built when it is the same (a new pod's owner is usually the last new pod's), so
// that the pods of one owner share one string.
func (c *convergence) podOwnerKeys(o *model.Pod, old *podTrack) (ownerKey, jobKey string) {
	ref := model.ControllerOf(o)
	if ref == nil {
		return "", ""
	}
	var prev *string
	switch ref.Kind {
	case model.KindReplicaSet, model.KindStatefulSet, model.KindDaemonSet:
		if old != nil {
			prev = &old.ownerKey
		}
	case model.KindJob:
		if old != nil {
			prev = &old.jobKey
		}
	default:
		return "", ""
	}
	var k string
	switch {
	case prev != nil && isRefKey(*prev, ref.Kind, o.Namespace, ref.Name):
		k = *prev
	case isRefKey(c.lastOwnerKey, ref.Kind, o.Namespace, ref.Name):
		k = c.lastOwnerKey
	default:
		k = string(ref.Kind) + " " + model.KeyOf(o.Namespace, ref.Name)
		c.lastOwnerKey = k
	}
	if ref.Kind == model.KindJob {
		return "", k
	}
	return k, ""
}

// isRefKey reports whether k is kind + " " + model.KeyOf(namespace, name), without building
// that string.
func isRefKey(k string, kind model.Kind, namespace, name string) bool {
	rest, ok := strings.CutPrefix(k, string(kind)+" ")
	if !ok {
		return false
	}
	if namespace != "" {
		if rest, ok = strings.CutPrefix(rest, namespace); !ok {
			return false
		}
		if rest, ok = strings.CutPrefix(rest, "/"); !ok {
			return false
		}
	}
	return rest == name
}

func (c *convergence) removePod(key string, p *podTrack) {
	if p.pending {
		c.pending--
	}
	if p.node != "" {
		delete(c.podsOn[p.node], key)
	}
	if p.ownerKey != "" {
		if set := c.podsOf[p.ownerKey]; len(set) <= 1 {
			delete(c.podsOf, p.ownerKey)
		} else {
			delete(set, key)
		}
	}
	delete(c.pods, key)
	if t := c.rs[p.ownerKey]; t != nil {
		c.count(t, p, -1)
		c.reevaluate(t)
	}
}

func (c *convergence) serving(p *podTrack) bool {
	return p.ready && !p.terminating && !p.finished && p.node != "" && c.nodeUp[p.node]
}

func (c *convergence) count(t *rsTrack, p *podTrack, sign int32) {
	if c.serving(p) {
		t.good += sign
		if c.onServing != nil {
			c.onServing(t)
		}
	}
	if !p.terminating && !p.finished {
		t.owned += sign
	}
}

func (c *convergence) reevaluate(t *rsTrack) {
	ok := t.statusOK && t.good == t.desired && t.owned == t.desired
	if ok != t.satisfied {
		if ok {
			c.unsettled--
		} else {
			c.unsettled++
		}
		t.satisfied = ok
	}
}

// setNodeUp records the real health of a node (its kubelet is running and can reach the API
// server) and recounts the pods on it.
func (c *convergence) setNodeUp(node string, up bool) {
	if c.nodeUp[node] == up {
		return
	}
	keys := make([]string, 0, len(c.podsOn[node]))
	//detlint:ordered the keys are sorted below
	for k := range c.podsOn[node] {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		p := c.pods[k]
		if t := c.rs[p.ownerKey]; t != nil {
			c.count(t, p, -1)
		}
	}
	if up {
		c.nodeUp[node] = true
	} else {
		delete(c.nodeUp, node)
	}
	for _, k := range keys {
		p := c.pods[k]
		if t := c.rs[p.ownerKey]; t != nil {
			c.count(t, p, 1)
			c.reevaluate(t)
		}
	}
}

// unsatisfiedWorkloads returns the refs ("Kind namespace/name") of Deployments, StatefulSets
// and DaemonSets whose status says they are not done, sorted.
func (c *convergence) unsatisfiedWorkloads() []string {
	return sortedKeysWhere(c.deploys, func(done bool) bool { return !done })
}

// pendingPods returns the keys of the Pending pods no tracked pod owner owns (bare pods, pods
// of kinds the convergence does not follow), sorted. A tracked Job's pods are its verdict's.
func (c *convergence) pendingPods() []string {
	return sortedKeysWhere(c.pods, func(p *podTrack) bool {
		_, byJob := c.deploys[p.jobKey]
		return p.pending && c.rs[p.ownerKey] == nil && !byJob
	})
}

// unsatisfied returns the refs ("Kind namespace/name") of the pod owners that are not
// converged, sorted.
func (c *convergence) unsatisfied() []string {
	return sortedKeysWhere(c.rs, func(t *rsTrack) bool { return !t.satisfied })
}

// sortedKeysWhere returns the keys of m whose value keep accepts, sorted.
func sortedKeysWhere[V any](m map[string]V, keep func(V) bool) []string {
	var out []string
	for k, v := range m { //detlint:ordered the keys are sorted below
		if keep(v) {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}
