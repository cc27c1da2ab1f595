package scheduler

import (
	"fmt"
	"maps"
	"sort"

	"k8s.io/apimachinery/pkg/labels"

	"github.com/reconsim/reconsim/model"
)

// podOnNode is one pod the cache counts on a node, with its requests computed once.
type podOnNode struct {
	pod     *model.Pod
	req     Resource // effective requests, what NodeResourcesFit filters on
	nonZero Resource // requests with the scoring defaults (cpu and memory only)
	// aff is the pod's parsed inter-pod affinity, nil when it has none.
	aff *podAffinityInfo
}

// NodeInfo is the scheduler's aggregate view of one node (upstream framework.NodeInfo): the
// node object, the pods assigned or assumed to it, and the sums of their requests. The node
// may be nil while pods still reference a node the informer has not delivered or has deleted;
// such a NodeInfo is not offered to the scheduling cycle. A node object is never modified once
// given to a NodeInfo (informer objects are shared read-only); a new version replaces it.
type NodeInfo struct {
	node             *model.Node
	pods             map[string]*podOnNode
	requested        Resource
	nonZeroRequested Resource
	allocatable      Resource
	// numWithAffinity and numRequiredAnti count the pods with inter-pod affinity of any kind,
	// and with required anti-affinity (upstream NodeInfo.PodsWithAffinity and
	// PodsWithRequiredAntiAffinity), so that InterPodAffinity looks only at those nodes.
	numWithAffinity, numRequiredAnti int
	// matchKeys are the (namespace, selector) pairs that keep a live count for this node
	// (matchKey.counts): countPodsMatchSelector for the pairs asked for, up to date as pods
	// come and go, so that PodTopologySpread, which counts a workload's pods on every node in
	// every cycle, does not scan the node's pods each time (a simulator shortcut: the counts
	// are upstream's).
	matchKeys []*matchKey
	// labelCounts counts the node's pods that are not being deleted by namespace and label
	// (labelPair), so that a selector requiring a label no such pod has counts 0 at once.
	labelCounts map[labelPair]int
	// countsGeneration changes whenever the node object or what countPodsMatchSelector counts
	// on the node may change (setNode, countLabels), so that spreadMemo can tell which nodes it
	// must count again.
	countsGeneration uint64
	// labels remember the two node labels read last (label): PodTopologySpread reads one or
	// two topology keys of every node in every cycle. nextLabel is the slot to replace.
	labels    [2]cachedLabel
	nextLabel int

	// What the filters read of the node, kept here so that a cycle over hundreds of nodes
	// reads each NodeInfo without following it to its node object: spec.unschedulable and
	// spec.taints (shared with the node object, read-only).
	unschedulable bool
	taints        []model.Taint
	// taintStatuses[i] is the TaintToleration rejection naming taints[i], built the first
	// time a pod does not tolerate that taint (statuses are never modified once made).
	taintStatuses []*Status
}

func newNodeInfo(node *model.Node) *NodeInfo {
	ni := &NodeInfo{pods: map[string]*podOnNode{}}
	ni.setNode(node)
	return ni
}

// Node returns the node object (nil for a node the cache only knows from its pods).
func (ni *NodeInfo) Node() *model.Node { return ni.node }

// NumPods returns how many pods (bound or assumed) the node holds.
func (ni *NodeInfo) NumPods() int { return len(ni.pods) }

// Requested returns (a copy of) the sum of the effective requests of the node's pods.
func (ni *NodeInfo) Requested() Resource { return ni.requested.clone() }

// Allocatable returns (a copy of) the node's status.allocatable.
func (ni *NodeInfo) Allocatable() Resource { return ni.allocatable.clone() }

func (ni *NodeInfo) setNode(node *model.Node) {
	ni.node = node
	ni.countsGeneration++
	ni.labels = [2]cachedLabel{}
	ni.allocatable = nodeAllocatable(node)
	ni.unschedulable, ni.taints, ni.taintStatuses = false, nil, nil
	if node != nil {
		ni.unschedulable, ni.taints = node.Spec.Unschedulable, node.Spec.Taints
	}
}

// cachedLabel is one node label lookup: key's value, and whether the node has it.
type cachedLabel struct {
	key, value string
	ok         bool
}

// label returns the node's label key and whether it has one, as node.Labels[key].
func (ni *NodeInfo) label(key string) (string, bool) {
	for i := range ni.labels {
		if l := &ni.labels[i]; l.key == key && key != "" {
			return l.value, l.ok
		}
	}
	v, ok := ni.node.Labels[key]
	ni.labels[ni.nextLabel] = cachedLabel{key: key, value: v, ok: ok}
	ni.nextLabel = 1 - ni.nextLabel
	return v, ok
}

// untoleratedTaintStatus returns the TaintToleration rejection naming taints[i].
func (ni *NodeInfo) untoleratedTaintStatus(i int) *Status {
	if ni.taintStatuses == nil {
		ni.taintStatuses = make([]*Status, len(ni.taints))
	}
	if ni.taintStatuses[i] == nil {
		t := &ni.taints[i]
		ni.taintStatuses[i] = newStatus(UnschedulableAndUnresolvable, PluginTaintToleration, fmt.Sprintf(errReasonTaintFormat, t.Key, t.Value))
	}
	return ni.taintStatuses[i]
}

// countLabels adds delta to labelCounts for pod's labels and to the live selector counts it
// matches (pods being deleted are not counted).
func (ni *NodeInfo) countLabels(pod *model.Pod, delta int) {
	if pod.DeletionTimestamp != nil {
		return
	}
	ni.countsGeneration++
	podLabels := labels.Set(pod.Labels)
	for _, mk := range ni.matchKeys {
		if mk.ns == pod.Namespace && mk.sel.Matches(podLabels) {
			mk.counts[ni] += delta
		}
	}
	if len(pod.Labels) == 0 {
		return
	}
	if ni.labelCounts == nil {
		ni.labelCounts = map[labelPair]int{}
	}
	for k, v := range pod.Labels { //detlint:ordered counting; order does not matter
		key := labelPair{pod.Namespace, k, v}
		if n := ni.labelCounts[key] + delta; n != 0 {
			ni.labelCounts[key] = n
		} else {
			delete(ni.labelCounts, key)
		}
	}
}

func (ni *NodeInfo) addPod(key string, pod *model.Pod) {
	ni.countLabels(pod, 1)
	p := &podOnNode{pod: pod, req: PodRequests(pod, false), nonZero: PodRequests(pod, true), aff: newPodAffinityInfo(pod)}
	ni.pods[key] = p
	ni.requested.addResource(p.req)
	ni.nonZeroRequested.MilliCPU += p.nonZero.MilliCPU
	ni.nonZeroRequested.Memory += p.nonZero.Memory
	ni.countAffinity(p, 1)
}

// countAffinity adds delta to the affinity counters for p.
func (ni *NodeInfo) countAffinity(p *podOnNode, delta int) {
	if p.aff == nil {
		return
	}
	ni.numWithAffinity += delta
	if len(p.aff.requiredAnti) > 0 {
		ni.numRequiredAnti += delta
	}
}

// replacePod puts a new version of a pod in the place of the one p holds.
func (ni *NodeInfo) replacePod(p *podOnNode, pod *model.Pod) {
	// Only labels and the deletion mark change what countPodsMatchSelector counts.
	sameLabels := maps.Equal(pod.Labels, p.pod.Labels)
	if !sameLabels || (pod.DeletionTimestamp == nil) != (p.pod.DeletionTimestamp == nil) {
		ni.countLabels(p.pod, -1)
		ni.countLabels(pod, 1)
	}
	ni.requested.subResource(p.req)
	ni.nonZeroRequested.MilliCPU -= p.nonZero.MilliCPU
	ni.nonZeroRequested.Memory -= p.nonZero.Memory
	ni.countAffinity(p, -1)
	old := p.pod
	p.pod = pod
	// Most updates are status writes, whose new version shares the old one's container
	// arrays: stored objects are immutable, so the requests are the ones computed before.
	if !sameContainers(pod, old) {
		p.req, p.nonZero = PodRequests(pod, false), PodRequests(pod, true)
	}
	// The affinity terms depend on the spec (immutable) and, through matchLabelKeys, on the
	// labels: parse them again only when those may have changed.
	if pod.Spec.Affinity != old.Spec.Affinity || !sameLabels {
		p.aff = newPodAffinityInfo(pod)
	}
	ni.requested.addResource(p.req)
	ni.nonZeroRequested.MilliCPU += p.nonZero.MilliCPU
	ni.nonZeroRequested.Memory += p.nonZero.Memory
	ni.countAffinity(p, 1)
}

// sameContainers reports whether a and b share their containers and init containers (the same
// arrays, of the same lengths): all that PodRequests reads.
func sameContainers(a, b *model.Pod) bool {
	return sameArray(a.Spec.Containers, b.Spec.Containers) && sameArray(a.Spec.InitContainers, b.Spec.InitContainers)
}

// sameArray reports whether a and b are the same elements of one array.
func sameArray[T any](a, b []T) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

func (ni *NodeInfo) removePod(key string) bool {
	p, ok := ni.pods[key]
	if !ok {
		return false
	}
	delete(ni.pods, key)
	ni.countLabels(p.pod, -1)
	ni.countAffinity(p, -1)
	ni.requested.subResource(p.req)
	ni.nonZeroRequested.MilliCPU -= p.nonZero.MilliCPU
	ni.nonZeroRequested.Memory -= p.nonZero.Memory
	return true
}

// podsBelowPriority returns the node's pods whose priority is lower than priority, sorted by
// key (the victims a preemption dry run would consider).
func (ni *NodeInfo) podsBelowPriority(priority int32) []*podOnNode {
	var out []*podOnNode
	for _, p := range ni.pods { //detlint:ordered collected pods are sorted by key below
		if podPriority(p.pod) < priority {
			out = append(out, p)
		}
	}
	sort.Slice(out, func(i, j int) bool { return model.Key(out[i].pod) < model.Key(out[j].pod) })
	return out
}

// podPriority is corev1helpers.PodPriority: spec.priority, 0 when unset.
func podPriority(pod *model.Pod) int32 {
	if pod.Spec.Priority != nil {
		return *pod.Spec.Priority
	}
	return 0
}

// podState is what the cache knows about one pod.
type podState struct {
	pod      *model.Pod
	assumed  bool // placed by this scheduler; the informer has not shown the binding yet
	bindDone bool // the binding call returned (FinishBinding)
}

// schedulerCache is upstream's internal cache (pkg/scheduler/backend/cache): per-node
// aggregates built from the assigned pods the informer delivers plus the pods this scheduler
// has assumed (placed, binding in flight). Assumed pods do not expire: upstream's
// durationToExpireAssumedPod is 0 and a failed binding always calls ForgetPod.
type schedulerCache struct {
	nodes     map[string]*NodeInfo
	podStates map[string]*podState
	// sortedNodes are the NodeInfos with a node object, by name; nil when that set changed
	// and the list must be rebuilt (into a new slice: a cycle may still hold the old one).
	sortedNodes []*NodeInfo
	// podsPerNode is the pods a node can expect from the pod list being added (reservePods:
	// the list's size over the nodes known then), 0 when there is no such hint.
	podsPerNode int
	// matchKeys are PodTopologySpread's interned (namespace, selector) pairs, which hold the
	// live counts of this cache's nodes (topologyspread.go).
	matchKeys *matchKeys
}

// maxPodsPerNodeHint bounds podsPerNode: a hint, not a promise (a simulator limit, far above
// upstream's default of 110 pods per node).
const maxPodsPerNodeHint = 1024

// reservePods sizes the pod states for n pods while there are none (a pod list about to be
// added), and notes how many pods each known node may get, so that a node's maps are made for
// them when its first pod comes, instead of growing pod by pod (a node's pod and label-count
// maps growing were 39 MiB of scale-5k's first minute).
func (c *schedulerCache) reservePods(n int) {
	if len(c.podStates) == 0 {
		c.podStates = make(map[string]*podState, n)
		if len(c.nodes) > 0 {
			c.podsPerNode = min((n+len(c.nodes)-1)/len(c.nodes), maxPodsPerNodeHint)
		}
	}
}

// reserve makes the node's empty pod and label-count maps for the pods the cache expects on
// a node (podsPerNode), each with labels like pod's.
func (ni *NodeInfo) reserve(podsPerNode int, pod *model.Pod) {
	if podsPerNode <= 8 || len(ni.pods) > 0 {
		return
	}
	ni.pods = make(map[string]*podOnNode, podsPerNode)
	if ni.labelCounts == nil && len(pod.Labels) > 0 {
		ni.labelCounts = make(map[labelPair]int, podsPerNode*len(pod.Labels))
	}
}

func newSchedulerCache() *schedulerCache {
	return &schedulerCache{nodes: map[string]*NodeInfo{}, podStates: map[string]*podState{}, matchKeys: newMatchKeys()}
}

func (c *schedulerCache) nodeInfoFor(name string) *NodeInfo {
	ni, ok := c.nodes[name]
	if !ok {
		ni = newNodeInfo(nil)
		c.nodes[name] = ni
	}
	return ni
}

// removeFromNode takes a pod off its node and drops a node entry left without node and pods.
func (c *schedulerCache) removeFromNode(key string, pod *model.Pod) {
	ni, ok := c.nodes[pod.Spec.NodeName]
	if !ok {
		return
	}
	ni.removePod(key)
	if ni.node == nil && len(ni.pods) == 0 {
		ni.dropMatchCounts()
		delete(c.nodes, pod.Spec.NodeName)
	}
}

// assumePod records that the scheduler placed pod (whose spec.nodeName is set to the chosen
// node) before the binding is observed. It fails if the cache already knows the pod.
func (c *schedulerCache) assumePod(pod *model.Pod) error {
	key := model.Key(pod)
	if _, ok := c.podStates[key]; ok {
		return fmt.Errorf("pod %s is in the cache, so can't be assumed", key)
	}
	c.nodeInfoFor(pod.Spec.NodeName).addPod(key, pod)
	c.podStates[key] = &podState{pod: pod, assumed: true}
	return nil
}

// finishBinding records that the binding call for an assumed pod returned.
func (c *schedulerCache) finishBinding(pod *model.Pod) {
	if ps, ok := c.podStates[model.Key(pod)]; ok && ps.assumed {
		ps.bindDone = true
	}
}

// forgetPod undoes assumePod (the binding failed). It fails if the pod is not assumed on the
// same node.
func (c *schedulerCache) forgetPod(pod *model.Pod) error {
	key := model.Key(pod)
	ps, ok := c.podStates[key]
	if !ok || !ps.assumed {
		return fmt.Errorf("pod %s wasn't assumed so cannot be forgotten", key)
	}
	if ps.pod.Spec.NodeName != pod.Spec.NodeName {
		return fmt.Errorf("pod %s was assumed on %s but assigned to %s", key, ps.pod.Spec.NodeName, pod.Spec.NodeName)
	}
	c.removeFromNode(key, ps.pod)
	delete(c.podStates, key)
	return nil
}

// addPod records an assigned pod the informer delivered under key (model.Key(pod)). An assumed
// pod is confirmed (and moved if it was bound elsewhere); a pod the cache already has as bound
// is an error.
func (c *schedulerCache) addPod(key string, pod *model.Pod) error {
	ps, ok := c.podStates[key]
	switch {
	case ok && ps.assumed:
		c.removeFromNode(key, ps.pod)
		c.nodeInfoFor(pod.Spec.NodeName).addPod(key, pod)
		c.podStates[key] = &podState{pod: pod}
		return nil
	case ok:
		return fmt.Errorf("pod %s was already in added state", key)
	}
	ni := c.nodeInfoFor(pod.Spec.NodeName)
	ni.reserve(c.podsPerNode, pod)
	ni.addPod(key, pod)
	c.podStates[key] = &podState{pod: pod}
	return nil
}

// updatePod replaces a bound pod's cached version; key is model.Key(newPod). An unknown or
// still assumed pod is an error.
func (c *schedulerCache) updatePod(key string, oldPod, newPod *model.Pod) error {
	ps, ok := c.podStates[key]
	if !ok || ps.assumed {
		return fmt.Errorf("pod %s is not added to scheduler cache, so cannot be updated", key)
	}
	if ps.pod.Spec.NodeName == newPod.Spec.NodeName {
		// Most updates (status changes) leave the pod on its node: swap it in place, which
		// is removing and adding it without dropping and re-creating its entries.
		if ni, ok := c.nodes[newPod.Spec.NodeName]; ok {
			if p, ok := ni.pods[key]; ok {
				ni.replacePod(p, newPod)
				ps.pod = newPod
				return nil
			}
		}
	}
	c.removeFromNode(key, ps.pod)
	c.nodeInfoFor(newPod.Spec.NodeName).addPod(key, newPod)
	ps.pod = newPod
	return nil
}

// removePod drops the pod with key (deleted, or no longer counted because it reached a
// terminal phase).
func (c *schedulerCache) removePod(key string) error {
	ps, ok := c.podStates[key]
	if !ok {
		return fmt.Errorf("pod %s is not found in scheduler cache, so cannot be removed from it", key)
	}
	c.removeFromNode(key, ps.pod)
	delete(c.podStates, key)
	return nil
}

// isAssumed reports whether the pod with key is assumed and not yet confirmed.
func (c *schedulerCache) isAssumed(key string) bool {
	ps, ok := c.podStates[key]
	return ok && ps.assumed
}

// assumedPod returns the cache's (assumed) version of the pod with key.
func (c *schedulerCache) assumedPod(key string) (*model.Pod, bool) {
	ps, ok := c.podStates[key]
	if !ok || !ps.assumed {
		return nil, false
	}
	return ps.pod, true
}

func (c *schedulerCache) addNode(node *model.Node) *NodeInfo {
	ni, ok := c.nodes[node.Name]
	switch {
	case !ok:
		ni = newNodeInfo(node)
		c.nodes[node.Name] = ni
		c.sortedNodes = nil
	case ni.node == nil:
		ni.setNode(node)
		c.sortedNodes = nil
	default:
		// A new version of a listed node: the list holds its NodeInfo already.
		ni.setNode(node)
	}
	return ni
}

func (c *schedulerCache) updateNode(node *model.Node) *NodeInfo {
	return c.addNode(node)
}

// removeNode forgets the node object; its NodeInfo stays while pods still reference it.
func (c *schedulerCache) removeNode(name string) {
	ni, ok := c.nodes[name]
	if !ok {
		return
	}
	if len(ni.pods) == 0 {
		ni.dropMatchCounts()
		delete(c.nodes, name)
	} else {
		ni.setNode(nil)
	}
	c.sortedNodes = nil
}

// nodeList returns the nodes the scheduling cycle may use, sorted by name: the deterministic
// stand-in for upstream's snapshot node list (which interleaves zones through nodeTree).
func (c *schedulerCache) nodeList() []*NodeInfo {
	if c.sortedNodes != nil {
		return c.sortedNodes
	}
	names := make([]string, 0, len(c.nodes))
	for name, ni := range c.nodes { //detlint:ordered names are sorted below
		if ni.node != nil {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	list := make([]*NodeInfo, len(names))
	for i, name := range names {
		list[i] = c.nodes[name]
	}
	c.sortedNodes = list
	return list
}

// nodeInfo returns the NodeInfo for a node name.
func (c *schedulerCache) nodeInfo(name string) (*NodeInfo, bool) {
	ni, ok := c.nodes[name]
	return ni, ok
}
