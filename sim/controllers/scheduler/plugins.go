package scheduler

import (
	"math"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim/controllers/internal/nodeaffinity"
)

// Failure reasons, verbatim from the upstream plugins: they are what users read in
// FailedScheduling events.
const (
	// ErrReasonUnschedulable is nodeunschedulable.ErrReasonUnschedulable.
	ErrReasonUnschedulable = "node(s) were unschedulable"
	// ErrReasonNodeName is nodename.ErrReason.
	ErrReasonNodeName = "node(s) didn't match the requested node name"
	// ErrReasonAffinity is nodeaffinity.ErrReasonPod.
	ErrReasonAffinity = "node(s) didn't match Pod's node affinity/selector"
	// ErrReasonUntoleratedTaints is the TaintToleration Filter message since v1.35 (#134740).
	ErrReasonUntoleratedTaints = "node(s) had untolerated taint(s)"
	// errReasonTaintFormat is the message of releases up to v1.34, naming the first untolerated
	// taint (Config.TaintMessageWithoutKey off).
	errReasonTaintFormat = "node(s) had untolerated taint {%s: %s}"
	// ErrReasonTooManyPods is the NodeResourcesFit reason when the pod count is at allocatable.
	ErrReasonTooManyPods = "Too many pods"
)

// MaxNodeScore is framework.MaxNodeScore: every score plugin's normalized range is [0, 100].
const MaxNodeScore int64 = 100

// Score plugin weights of the default profile ([k8s:pkg/scheduler/apis/config/v1/default_plugins.go@01db4ae9]);
// PodTopologySpread and InterPodAffinity (2 each) are weightPodTopologySpread and
// weightInterPodAffinity.
const (
	weightTaintToleration    int64 = 3
	weightNodeAffinity       int64 = 2
	weightNodeResourcesFit   int64 = 1
	weightBalancedAllocation int64 = 1
)

// cycleState is what the PreFilter and PreScore steps compute once per pod and the per-node
// Filter and Score steps reuse (upstream framework.CycleState).
type cycleState struct {
	pod      *model.Pod
	priority int32
	// podReq is the effective request (NodeResourcesFit PreFilter, also BalancedAllocation).
	podReq Resource
	// podNonZero is the request with scoring defaults (NodeResourcesFit LeastAllocated).
	podNonZero Resource
	required   nodeaffinity.RequiredNodeAffinity
	preferred  []nodeaffinity.PreferredTerm
	// tolerationsPreferNoSchedule is TaintToleration's PreScore state.
	tolerationsPreferNoSchedule []model.Toleration
	// taintWithKey selects the TaintToleration message of releases up to v1.34, which names
	// the taint (Config.TaintMessageWithoutKey off).
	taintWithKey bool
	// skipBalanced is BalancedAllocation's PreScore Skip for best-effort pods
	// (kubernetes#129138: they would otherwise all pile onto one node).
	skipBalanced bool
	// nominated are the nominated pods the filters count, per node (preemption.go).
	nominated map[string][]*model.Pod

	// listers give PodTopologySpread the pod's Services and controller and InterPodAffinity
	// the namespaces (nil in unit tests: no default spreading, no namespace labels).
	listers *listers
	// spreadMemos are the scheduler's PodTopologySpread PreScore memos (nil: count every node,
	// as unit tests do).
	spreadMemos *spreadMemos
	// matchKeys are the cache's interned PodTopologySpread match keys (nil: each cycle
	// makes its own, as unit tests do).
	matchKeys *matchKeys
	// buffers are the scheduler's slices for a cycle's feasible nodes and scores, reused from
	// one cycle to the next (nil: the cycle allocates its own, as the tests' cycles do).
	buffers *cycleBuffers
	// allNodes is the cycle's node list (the snapshot's NodeInfos().List()), set by preFilter;
	// nodesWithAffinity are those with a pod that has inter-pod affinity terms
	// (HavePodsWithAffinityList), nil when there are none.
	allNodes, nodesWithAffinity []*NodeInfo
	// affinityInfo is the pod's parsed inter-pod affinity (nil: none), its namespace
	// selectors merged into namespaces by preFilter.
	affinityInfo *podAffinityInfo
	// spread and affinity are the PreFilter states of PodTopologySpread and InterPodAffinity;
	// nil is their Skip.
	spread   *spreadFilterState
	affinity *affinityFilterState
	// filters are the Filter plugins to run, without those whose PreFilter returned Skip (nil:
	// all of filterPlugins).
	filters []func(*cycleState, *NodeInfo) *Status
}

// preFilter runs the PreFilter steps that look at the whole cluster (PodTopologySpread and
// InterPodAffinity, in profile order) over the cycle's node list.
func (s *cycleState) preFilter(nodes []*NodeInfo) {
	s.allNodes = nodes
	if s.affinityInfo != nil {
		mergeNamespaces(s.listers, s.affinityInfo.requiredAffinity)
		mergeNamespaces(s.listers, s.affinityInfo.requiredAnti)
		for _, terms := range [][]weightedTerm{s.affinityInfo.preferredAffinity, s.affinityInfo.preferredAnti} {
			for i := range terms {
				mergeTermNamespaces(s.listers, &terms[i].affinityTerm)
			}
		}
	}
	s.nodesWithAffinity = nil
	for _, ni := range nodes {
		if ni.numWithAffinity > 0 {
			s.nodesWithAffinity = append(s.nodesWithAffinity, ni)
		}
	}
	s.spreadPreFilter(nodes)
	s.affinityPreFilter(nodes)
	s.filters = filterPlugins
	if s.spread == nil && s.affinity == nil {
		s.filters = filterPlugins[:len(filterPlugins)-numPreFilterSkippable]
	}
}

// clone is CycleState.Clone: a copy whose PreFilter states can be changed by addPod and
// removePod without changing s (the rest is read-only during filtering and shared).
func (s *cycleState) clone() *cycleState {
	c := *s
	c.spread = s.spread.clone()
	c.affinity = s.affinity.clone()
	return &c
}

// hasPreFilterExtensions reports whether addPod and removePod change anything: some plugin
// with PreFilterExtensions (PodTopologySpread, InterPodAffinity) did not return Skip.
func (s *cycleState) hasPreFilterExtensions() bool { return s.spread != nil || s.affinity != nil }

// addPod is framework RunPreFilterExtensionAddPod: pod, whose parsed affinity is aff, was
// added to ni; the PreFilter states that did not Skip count it (PodTopologySpread.AddPod,
// InterPodAffinity.AddPod).
func (s *cycleState) addPod(pod *model.Pod, aff *podAffinityInfo, ni *NodeInfo) {
	s.spread.updateWithPod(s, pod, ni, 1)
	s.affinity.updateWithPod(s, pod, aff, ni.node, 1)
}

// removePod is framework RunPreFilterExtensionRemovePod, the reverse of addPod.
func (s *cycleState) removePod(pod *model.Pod, aff *podAffinityInfo, ni *NodeInfo) {
	s.spread.updateWithPod(s, pod, ni, -1)
	s.affinity.updateWithPod(s, pod, aff, ni.node, -1)
}

func newCycleState(pod *model.Pod) *cycleState {
	s := &cycleState{
		pod:                         pod,
		priority:                    podPriority(pod),
		podReq:                      PodRequests(pod, false),
		podNonZero:                  PodRequests(pod, true),
		required:                    nodeaffinity.GetRequiredNodeAffinity(&pod.Spec),
		preferred:                   nodeaffinity.GetPreferredTerms(&pod.Spec),
		tolerationsPreferNoSchedule: preferNoScheduleTolerations(pod.Spec.Tolerations),
		affinityInfo:                newPodAffinityInfo(pod),
	}
	s.skipBalanced = s.podReq.MilliCPU == 0 && s.podReq.Memory == 0
	return s
}

// The rejections whose reason does not depend on the node or pod. Statuses are never modified
// once made, so every rejection of a kind can share one.
var (
	statusUnschedulable = newStatus(UnschedulableAndUnresolvable, PluginNodeUnschedulable, ErrReasonUnschedulable)
	statusNodeName      = newStatus(UnschedulableAndUnresolvable, PluginNodeName, ErrReasonNodeName)
	statusAffinity      = newStatus(UnschedulableAndUnresolvable, PluginNodeAffinity, ErrReasonAffinity)
)

// filterNodeUnschedulable is the NodeUnschedulable Filter: a cordoned node accepts only pods
// that tolerate the node.kubernetes.io/unschedulable:NoSchedule taint.
func filterNodeUnschedulable(s *cycleState, ni *NodeInfo) *Status {
	if !ni.unschedulable {
		return nil
	}
	taint := model.Taint{Key: model.TaintNodeUnschedulable, Effect: model.TaintEffectNoSchedule}
	if model.TolerationsTolerateTaint(s.pod.Spec.Tolerations, &taint) {
		return nil
	}
	return statusUnschedulable
}

// filterNodeName is the NodeName Filter: a pod that names a node fits only that node.
func filterNodeName(s *cycleState, ni *NodeInfo) *Status {
	if s.pod.Spec.NodeName == "" || s.pod.Spec.NodeName == ni.node.Name {
		return nil
	}
	return statusNodeName
}

// filterTaintToleration is the TaintToleration Filter: every NoSchedule and NoExecute taint
// must be tolerated (tainttoleration.Filter); up to v1.34 the first one that is not is named in
// the reason.
func filterTaintToleration(s *cycleState, ni *NodeInfo) *Status {
	i := untoleratedTaintIndex(ni.taints, s.pod.Spec.Tolerations, doNotScheduleTaint)
	if i < 0 {
		return nil
	}
	if !s.taintWithKey {
		return statusUntoleratedTaints
	}
	return ni.untoleratedTaintStatus(i)
}

// statusUntoleratedTaints is the TaintToleration rejection since v1.35; it names no taint, so
// one status serves every node.
var statusUntoleratedTaints = newStatus(UnschedulableAndUnresolvable, PluginTaintToleration, ErrReasonUntoleratedTaints)

// filterNodeAffinity is the NodeAffinity Filter: spec.nodeSelector and the required node
// affinity must match.
func filterNodeAffinity(s *cycleState, ni *NodeInfo) *Status {
	if s.required.Match(ni.node) {
		return nil
	}
	return statusAffinity
}

// fitsRequest is noderesources.fitsRequest: the reasons the pod's request does not fit in
// allocatable minus what the node's pods already request, in upstream's order (pods, cpu,
// memory, ephemeral-storage, then scalar resources by name).
func fitsRequest(req Resource, numPods int, allocatable, requested Resource) []string {
	var reasons []string
	if int64(numPods)+1 > allocatable.AllowedPodNumber {
		reasons = append(reasons, ErrReasonTooManyPods)
	}
	if req.isZero() {
		return reasons
	}
	if req.MilliCPU > 0 && req.MilliCPU > allocatable.MilliCPU-requested.MilliCPU {
		reasons = append(reasons, "Insufficient cpu")
	}
	if req.Memory > 0 && req.Memory > allocatable.Memory-requested.Memory {
		reasons = append(reasons, "Insufficient memory")
	}
	if req.EphemeralStorage > 0 && req.EphemeralStorage > allocatable.EphemeralStorage-requested.EphemeralStorage {
		reasons = append(reasons, "Insufficient ephemeral-storage")
	}
	if len(req.Scalar) == 0 {
		return reasons
	}
	for _, name := range req.scalarNames() {
		q := req.Scalar[name]
		if q == 0 {
			continue
		}
		if q > allocatable.Scalar[name]-requested.Scalar[name] {
			reasons = append(reasons, "Insufficient "+name)
		}
	}
	return reasons
}

// filterNodeResourcesFit is the NodeResourcesFit Filter. Its status is Unschedulable (not
// unresolvable): removing pods could make room, so preemption may help.
func filterNodeResourcesFit(s *cycleState, ni *NodeInfo) *Status {
	reasons := fitsRequest(s.podReq, len(ni.pods), ni.allocatable, ni.requested)
	if len(reasons) == 0 {
		return nil
	}
	return newStatus(Unschedulable, PluginNodeResourcesFit, reasons...)
}

// filterPlugins is the Filter order of the default profile (default_plugins.go MultiPoint
// order); a node's verdict is the first plugin that rejects it.
var filterPlugins = []func(*cycleState, *NodeInfo) *Status{
	filterNodeUnschedulable,
	filterNodeName,
	filterTaintToleration,
	filterNodeAffinity,
	filterNodeResourcesFit,
	filterPodTopologySpread,
	filterInterPodAffinity,
}

// numPreFilterSkippable is how many plugins at the end of filterPlugins have a PreFilter that
// may return Skip (PodTopologySpread, InterPodAffinity): a skipped plugin's Filter is not run.
const numPreFilterSkippable = 2

// runFilterPlugins runs the filters in order and returns the first rejection (nil: fits).
func runFilterPlugins(s *cycleState, ni *NodeInfo) *Status {
	filters := s.filters
	if filters == nil {
		filters = filterPlugins
	}
	for _, f := range filters {
		if st := f(s, ni); !st.IsSuccess() {
			return st
		}
	}
	return nil
}

// leastRequestedScore is (capacity - requested) * MaxNodeScore / capacity, 0 when the request
// exceeds capacity (noderesources least_allocated.go).
func leastRequestedScore(requested, capacity int64) int64 {
	if capacity == 0 || requested > capacity {
		return 0
	}
	return (capacity - requested) * MaxNodeScore / capacity
}

// leastAllocatedScore is NodeResourcesFit's Score with the LeastAllocated strategy and
// resources cpu:1, memory:1 ([k8s:pkg/scheduler/apis/config/v1/defaults.go@00fe7a37]): the
// weighted mean of leastRequestedScore over the resources the node has, where requested is the
// node's non-zero requests plus the pod's. Integer arithmetic, as upstream.
func leastAllocatedScore(s *cycleState, ni *NodeInfo) int64 {
	type dim struct{ requested, allocatable, weight int64 }
	dims := [2]dim{
		{ni.nonZeroRequested.MilliCPU + s.podNonZero.MilliCPU, ni.allocatable.MilliCPU, 1},
		{ni.nonZeroRequested.Memory + s.podNonZero.Memory, ni.allocatable.Memory, 1},
	}
	var score, weightSum int64
	for _, d := range dims {
		if d.allocatable == 0 {
			continue
		}
		score += leastRequestedScore(d.requested, d.allocatable) * d.weight
		weightSum += d.weight
	}
	if weightSum == 0 {
		return 0
	}
	return score / weightSum
}

// balancedResourceScore is balancedResourceScorer: (1 - std) * MaxNodeScore over the
// requested/allocatable fractions (each capped at 1) of the resources the node has; with two
// resources std is |f1 - f2| / 2.
func balancedResourceScore(requested, allocatable []int64) int64 {
	var buf [2]float64 // the default profile scores two resources: no allocation
	fractions := buf[:0]
	var total float64
	for i := range requested {
		if allocatable[i] == 0 {
			continue
		}
		f := float64(requested[i]) / float64(allocatable[i])
		if f > 1 {
			f = 1
		}
		total += f
		fractions = append(fractions, f)
	}
	std := 0.0
	switch {
	case len(fractions) == 2:
		std = math.Abs((fractions[0] - fractions[1]) / 2)
	case len(fractions) > 2:
		mean := total / float64(len(fractions))
		var sum float64
		for _, f := range fractions {
			sum += (f - mean) * (f - mean)
		}
		std = math.Sqrt(sum / float64(len(fractions)))
	}
	return int64((1 - std) * float64(MaxNodeScore))
}

// balancedAllocationScore is NodeResourcesBalancedAllocation's Score (resources cpu:1,
// memory:1; it uses the real requests, useRequested=true).
func balancedAllocationScore(s *cycleState, ni *NodeInfo) int64 {
	requested := [2]int64{ni.requested.MilliCPU + s.podReq.MilliCPU, ni.requested.Memory + s.podReq.Memory}
	allocatable := [2]int64{ni.allocatable.MilliCPU, ni.allocatable.Memory}
	return balancedResourceScore(requested[:], allocatable[:])
}

// defaultNormalizeScore is helper.DefaultNormalizeScore: scale to [0, maxPriority] by the
// largest score; with reverse, higher raw scores become lower. All-zero scores stay 0, or all
// become maxPriority with reverse.
func defaultNormalizeScore(maxPriority int64, reverse bool, scores []int64) {
	var maxCount int64
	for _, s := range scores {
		maxCount = max(maxCount, s)
	}
	if maxCount == 0 {
		if reverse {
			for i := range scores {
				scores[i] = maxPriority
			}
		}
		return
	}
	for i, s := range scores {
		s = maxPriority * s / maxCount
		if reverse {
			s = maxPriority - s
		}
		scores[i] = s
	}
}

// cycleBuffers are the slices a scheduling cycle fills, kept by the scheduler for the next
// cycle: none of them outlives its cycle (the result names the chosen node only), so a cycle
// over 500 nodes allocates none of its feasible list and five score vectors.
type cycleBuffers struct {
	feasible []*NodeInfo
	nodes    []nodeScore
	ints     []int64
}

// feasibleList returns an empty list with room for n nodes.
func (b *cycleBuffers) feasibleList(n int) []*NodeInfo {
	if b == nil {
		return make([]*NodeInfo, 0, n)
	}
	if cap(b.feasible) < n {
		b.feasible = make([]*NodeInfo, 0, n)
	}
	clear(b.feasible[:cap(b.feasible)]) // drop the last cycle's nodes
	return b.feasible[:0]
}

// scores returns n zeroed node scores and 4n zeroed integers (the four per-plugin score
// vectors prioritizeNodes normalizes).
func (b *cycleBuffers) scores(n int) ([]nodeScore, []int64) {
	if b == nil {
		return make([]nodeScore, n), make([]int64, 4*n)
	}
	if cap(b.nodes) < n {
		b.nodes = make([]nodeScore, n)
	}
	if cap(b.ints) < 4*n {
		b.ints = make([]int64, 4*n)
	}
	nodes, ints := b.nodes[:n], b.ints[:4*n]
	clear(nodes)
	clear(ints)
	return nodes, ints
}

// nodeScore is one feasible node's total and per-plugin weighted scores.
type nodeScore struct {
	ni    *NodeInfo
	total int64
}

// prioritizeNodes runs the score plugins of the default profile over the feasible nodes and
// returns the weighted totals, in the order of feasible (upstream prioritizeNodes with
// RunScorePlugins: score, normalize, multiply by the weight, sum).
func prioritizeNodes(s *cycleState, feasible []*NodeInfo) []nodeScore {
	n := len(feasible)
	out, ints := s.buffers.scores(n)
	taint, affinity, spread, scores := ints[:n], ints[n:2*n], ints[2*n:3*n], ints[3*n:]
	for i, ni := range feasible {
		out[i].ni = ni
		out[i].total = weightNodeResourcesFit * leastAllocatedScore(s, ni)
		if !s.skipBalanced {
			out[i].total += weightBalancedAllocation * balancedAllocationScore(s, ni)
		}
		taint[i] = countIntolerableTaintsPreferNoSchedule(ni.taints, s.tolerationsPreferNoSchedule)
		if len(s.preferred) > 0 {
			affinity[i] = nodeaffinity.ScorePreferred(s.preferred, ni.node)
		}
	}
	defaultNormalizeScore(MaxNodeScore, true, taint)
	if len(s.preferred) > 0 {
		// NodeAffinity PreScore returns Skip when there are no preferred terms.
		defaultNormalizeScore(MaxNodeScore, false, affinity)
	}
	for i := range out {
		out[i].total += weightTaintToleration*taint[i] + weightNodeAffinity*affinity[i]
	}
	if st := s.spreadPreScore(feasible); st != nil {
		for i, ni := range feasible {
			spread[i] = st.score(s, i, ni)
		}
		st.normalize(spread)
		for i := range out {
			out[i].total += weightPodTopologySpread * spread[i]
		}
	}
	if m := s.affinityPreScore(); m != nil {
		for i, ni := range feasible {
			scores[i] = m.score(ni.node)
		}
		normalizeAffinityScores(scores)
		for i := range out {
			out[i].total += weightInterPodAffinity * scores[i]
		}
	}
	return out
}
