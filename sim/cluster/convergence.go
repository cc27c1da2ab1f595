package cluster

import (
	"sort"

	"github.com/reconsim/reconsim/model"
)

// convergence tracks, incrementally and exactly, whether the cluster is converged:
//
//   - every ReplicaSet has observed its generation, and its status reports replicas, ready
//     and available equal to spec.replicas; and
//   - it owns exactly spec.replicas pods that are Ready in the API, not terminating, and on a
//     node that is really up (ground truth from the kubelet model, which the API may not know
//     yet: right after a crash the API still reports everything Ready); and
//   - no pod is Pending.
//
// It is fed every write the API server commits (observe) and every change of a node's real
// health (setNodeUp), and answers converged() in O(1).
type convergence struct {
	rs        map[string]*rsTrack  // by ReplicaSet key
	deploys   map[string]bool      // by Deployment key: whether its status says it is done
	pods      map[string]*podTrack // by pod key
	nodeUp    map[string]bool      // ground truth, by node name; absent = not up
	podsOn    map[string]map[string]struct{}
	unsettled int // ReplicaSets that are not satisfied
	pending   int // pods in phase Pending (not terminating)

	// onServing, when set, is called whenever a ReplicaSet's count of serving pods changes.
	onServing func(key string, serving int32)
}

type rsTrack struct {
	uid         string
	desired     int32
	statusOK    bool
	good        int32 // owned pods that count as serving
	owned       int32 // owned active pods (not terminating, not finished)
	satisfied   bool
	namespace   string
	name        string
	readyStatus int32
}

type podTrack struct {
	ownerKey    string
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
	}
}

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
	}
}

// observeDeployment tracks whether a Deployment's status says its rollout is complete: the
// controller observed the latest generation and every replica is updated, ready and available
// (upstream DeploymentComplete, with the newer "available == replicas" form), with no old
// replicas left. Its pods are counted through its ReplicaSets.
func (c *convergence) observeDeployment(o *model.Deployment, deleted bool) {
	key := model.Key(o)
	was, known := c.deploys[key]
	if deleted {
		if known && !was {
			c.unsettled--
		}
		delete(c.deploys, key)
		return
	}
	want := int32(1)
	if o.Spec.Replicas != nil {
		want = *o.Spec.Replicas
	}
	s := o.Status
	done := o.DeletionTimestamp != nil || (s.ObservedGeneration >= o.Generation && s.UpdatedReplicas == want &&
		s.Replicas == want && s.ReadyReplicas == want && s.AvailableReplicas == want)
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
	key := model.Key(o)
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
	if t == nil {
		t = &rsTrack{satisfied: true, namespace: o.Namespace, name: o.Name}
		c.rs[key] = t
		// Pods seen before their owner (settled objects are created owner-first, but a
		// recreated owner may find its pods) are counted now.
		//detlint:ordered counting is commutative
		for _, p := range c.pods {
			if p.ownerKey == key {
				c.count(t, p, 1)
			}
		}
	}
	t.uid = o.UID
	t.desired = 1
	if o.Spec.Replicas != nil {
		t.desired = *o.Spec.Replicas
	}
	if o.DeletionTimestamp != nil {
		t.desired = 0
	}
	s := o.Status
	t.readyStatus = s.ReadyReplicas
	t.statusOK = s.ObservedGeneration >= o.Generation && s.Replicas == t.desired && s.ReadyReplicas == t.desired && s.AvailableReplicas == t.desired
	c.reevaluate(t)
}

func (c *convergence) observePod(o *model.Pod, deleted bool) {
	key := model.Key(o)
	old := c.pods[key]
	if old != nil {
		c.removePod(key, old)
	}
	if deleted {
		return
	}
	p := &podTrack{node: o.Spec.NodeName}
	if ref := model.ControllerOf(o); ref != nil && ref.Kind == model.KindReplicaSet {
		p.ownerKey = model.KeyOf(o.Namespace, ref.Name)
	}
	p.terminating = o.DeletionTimestamp != nil
	p.finished = o.Status.Phase == model.PodSucceeded || o.Status.Phase == model.PodFailed
	p.pending = !p.terminating && (o.Status.Phase == model.PodPending || o.Status.Phase == "")
	for _, cond := range o.Status.Conditions {
		if cond.Type == model.PodReady {
			p.ready = cond.Status == model.ConditionTrue
		}
	}
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
	if t := c.rs[p.ownerKey]; t != nil {
		c.count(t, p, 1)
		c.reevaluate(t)
	}
}

func (c *convergence) removePod(key string, p *podTrack) {
	if p.pending {
		c.pending--
	}
	if p.node != "" {
		delete(c.podsOn[p.node], key)
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
			c.onServing(model.KeyOf(t.namespace, t.name), t.good)
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

// unsatisfiedDeployments returns the keys of Deployments whose rollout is not complete, sorted.
func (c *convergence) unsatisfiedDeployments() []string {
	var out []string
	//detlint:ordered the keys are sorted below
	for k, done := range c.deploys {
		if !done {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// unsatisfied returns the keys of ReplicaSets that are not converged, sorted.
func (c *convergence) unsatisfied() []string {
	var out []string
	//detlint:ordered the keys are sorted below
	for k, t := range c.rs {
		if !t.satisfied {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}
