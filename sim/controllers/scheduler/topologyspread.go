package scheduler

import (
	"maps"
	"math"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"

	"github.com/reconsim/reconsim/model"
)

// The PodTopologySpread plugin (pkg/scheduler/framework/plugins/podtopologyspread in
// kubernetes/kubernetes, k/k v1.37.2: plugin.go, common.go, filtering.go, scoring.go). Its
// Filter enforces the pod's DoNotSchedule constraints; its Score prefers the domains with the
// fewest matching pods under the ScheduleAnyway constraints, or under the system default
// constraints for a pod that has none. The NodeInclusionPolicy, MinDomains and
// MatchLabelKeys features are GA or on by default in every supported release.

const (
	// PluginPodTopologySpread is names.PodTopologySpread.
	PluginPodTopologySpread = "PodTopologySpread"
	// ErrReasonConstraintsNotMatch is podtopologyspread.ErrReasonConstraintsNotMatch.
	ErrReasonConstraintsNotMatch = "node(s) didn't match pod topology spread constraints"
	// ErrReasonNodeLabelNotMatch is podtopologyspread.ErrReasonNodeLabelNotMatch: the node lacks
	// a constraint's topology key.
	ErrReasonNodeLabelNotMatch = ErrReasonConstraintsNotMatch + " (missing required label)"

	// LabelHostname and LabelTopologyZone are v1.LabelHostname and v1.LabelTopologyZone
	// ([api@HEAD] core/v1/well_known_labels.go).
	LabelHostname     = "kubernetes.io/hostname"
	LabelTopologyZone = "topology.kubernetes.io/zone"

	// weightPodTopologySpread is the plugin's score weight in the default profile
	// ([k8s:pkg/scheduler/apis/config/v1/default_plugins.go@01db4ae9]).
	weightPodTopologySpread int64 = 2
)

// systemDefaultConstraints is podtopologyspread.systemDefaultConstraints (plugin.go), used with
// the default defaultingType System: hostname maxSkew 3 and zone maxSkew 5, both
// ScheduleAnyway, so they only ever score.
var systemDefaultConstraints = []model.TopologySpreadConstraint{
	{TopologyKey: LabelHostname, WhenUnsatisfiable: model.ScheduleAnyway, MaxSkew: 3},
	{TopologyKey: LabelTopologyZone, WhenUnsatisfiable: model.ScheduleAnyway, MaxSkew: 5},
}

// spreadConstraint is podtopologyspread.topologySpreadConstraint: a constraint with its
// selector parsed and its optional fields defaulted.
type spreadConstraint struct {
	maxSkew     int32
	topologyKey string
	selector    labels.Selector
	minDomains  int32
	// honorNodeAffinity and honorTaints are nodeAffinityPolicy=Honor (the default) and
	// nodeTaintsPolicy=Honor (default Ignore).
	honorNodeAffinity bool
	honorTaints       bool
	// match is the incoming pod's namespace with selector, set by matchKeys.withKeys.
	match *matchKey
}

// withKeys sets the constraints' match keys for pods of namespace ns.
func (m *matchKeys) withKeys(constraints []spreadConstraint, ns string) []spreadConstraint {
	for i := range constraints {
		constraints[i].match = m.get(ns, constraints[i].selector)
	}
	return constraints
}

// matchNodeInclusionPolicies is topologySpreadConstraint.matchNodeInclusionPolicies: whether
// the node counts as a domain for the incoming pod.
func (c *spreadConstraint) matchNodeInclusionPolicies(s *cycleState, ni *NodeInfo) bool {
	if c.honorNodeAffinity && !s.required.Match(ni.node) {
		return false
	}
	if c.honorTaints && untoleratedTaintIndex(ni.taints, s.pod.Spec.Tolerations, doNotScheduleTaint) >= 0 {
		return false
	}
	return true
}

// selectorOf is metav1.LabelSelectorAsSelector. A selector that does not parse (the API
// server's validation rejects it) selects nothing, where upstream fails the cycle with an error.
func selectorOf(ls *metav1.LabelSelector) labels.Selector {
	sel, err := metav1.LabelSelectorAsSelector(ls)
	if err != nil {
		return labels.Nothing()
	}
	return sel
}

// filterTopologySpreadConstraints is PodTopologySpread.filterTopologySpreadConstraints: the
// constraints with whenUnsatisfiable == action, with matchLabelKeys merged into the selector as
// "key in (the pod's value)" (mergeLabelSetWithSelector).
func filterTopologySpreadConstraints(constraints []model.TopologySpreadConstraint, podLabels map[string]string, action string) []spreadConstraint {
	var out []spreadConstraint
	for i := range constraints {
		c := &constraints[i]
		if c.WhenUnsatisfiable != action {
			continue
		}
		sel := selectorOf(c.LabelSelector)
		if len(c.MatchLabelKeys) > 0 {
			matchLabels := labels.Set{}
			for _, key := range c.MatchLabelKeys {
				if v, ok := podLabels[key]; ok {
					matchLabels[key] = v
				}
			}
			if len(matchLabels) > 0 {
				merged := labels.SelectorFromSet(matchLabels)
				if reqs, ok := sel.Requirements(); ok {
					merged = merged.Add(reqs...)
				}
				sel = merged
			}
		}
		sc := spreadConstraint{
			maxSkew: c.MaxSkew, topologyKey: c.TopologyKey, selector: sel, minDomains: 1,
			honorNodeAffinity: c.NodeAffinityPolicy == nil || *c.NodeAffinityPolicy == model.NodeInclusionPolicyHonor,
			honorTaints:       c.NodeTaintsPolicy != nil && *c.NodeTaintsPolicy == model.NodeInclusionPolicyHonor,
		}
		if c.MinDomains != nil {
			sc.minDomains = *c.MinDomains
		}
		out = append(out, sc)
	}
	return out
}

// buildDefaultConstraints is PodTopologySpread.buildDefaultConstraints: the system default
// constraints for action, with the selector from the pod's Services and controller
// (defaultSelector); none when that selector is empty.
func buildDefaultConstraints(s *cycleState, action string) []spreadConstraint {
	if s.listers == nil {
		return nil // no Service or controller can select the pod
	}
	sel := s.listers.defaultSelector(s.pod)
	if sel.Empty() {
		return nil
	}
	constraints := filterTopologySpreadConstraints(systemDefaultConstraints, s.pod.Labels, action)
	for i := range constraints {
		constraints[i].selector = sel
	}
	return constraints
}

// nodeLabelsMatchSpreadConstraints reports whether the node has every constraint's topology key.
func nodeLabelsMatchSpreadConstraints(nodeLabels map[string]string, constraints []spreadConstraint) bool {
	for i := range constraints {
		if _, ok := nodeLabels[constraints[i].topologyKey]; !ok {
			return false
		}
	}
	return true
}

// maxMatchCounts bounds the live counts per node; past it they start over.
const maxMatchCounts = 64

// matchKey is one (namespace, selector) pair whose matching pods PodTopologySpread counts on
// every node, interned by matchKeys, with the live counts of the nodes that have one: per
// node, countPodsMatchSelector kept up to date by NodeInfo.countLabels. A cycle asks every
// node for the same key; with the counts in the key, those lookups go to one map that stays
// in the CPU cache, where each node's own map keyed by selectorKey was a cache miss and a
// hash of the whole key (PodTopologySpread's Score and PreScore were 4.9% of
// thundering-herd's CPU, half of it those lookups).
type matchKey struct {
	key   string // selectorKey(ns, sel)
	ns    string
	sel   labels.Selector
	pairs []labelPair // requiredPairs(ns, sel)
	// onePair is set when sel is exactly one requirement, pairs[0]: a node's labelCounts of
	// that pair is then its count.
	onePair bool
	counts  map[*NodeInfo]int
}

func newMatchKey(ns string, sel labels.Selector) *matchKey {
	mk := &matchKey{key: selectorKey(ns, sel), ns: ns, sel: sel, pairs: requiredPairs(ns, sel)}
	reqs, _ := sel.Requirements()
	mk.onePair = len(reqs) == 1 && len(mk.pairs) == 1
	return mk
}

// matchKeys interns matchKeys by selectorKey for one scheduler cache, so that the cycles of
// the replicas of one workload share one key and the nodes' live counts for it. Selectors
// with the same selectorKey select the same pods. A nil *matchKeys (unit tests) interns
// nothing: each call makes a new key.
type matchKeys struct {
	byKey map[string]*matchKey
}

// maxMatchKeys bounds the keys a cache interns; past it they start over (nodes then make new
// live counts for the new keys, and drop the old ones with their maxMatchCounts).
const maxMatchKeys = 1024

func newMatchKeys() *matchKeys { return &matchKeys{byKey: map[string]*matchKey{}} }

// get returns the interned key of namespace ns and sel.
func (m *matchKeys) get(ns string, sel labels.Selector) *matchKey {
	if m == nil {
		return newMatchKey(ns, sel)
	}
	k := selectorKey(ns, sel)
	if mk, ok := m.byKey[k]; ok {
		return mk
	}
	if len(m.byKey) >= maxMatchKeys {
		clear(m.byKey)
	}
	mk := newMatchKey(ns, sel)
	m.byKey[k] = mk
	return mk
}

// selectorKey names a (namespace, selector) pair for the memo; Everything and Nothing, which
// both print as "", are told apart.
func selectorKey(ns string, sel labels.Selector) string {
	if sel.Empty() {
		return ns + "\x00*"
	}
	return ns + "\x00=" + sel.String()
}

// labelPair names a namespace and label in NodeInfo.labelCounts. A struct rather than one
// joined string: counting a pod's labels allocates nothing, and the strings are the pod's.
type labelPair struct{ ns, key, value string }

// requiredPairs returns the labelPairs of the requirements of selector that need one label
// value (key=value, key==value, key in (value)): a pod without one of them cannot match.
func requiredPairs(ns string, selector labels.Selector) []labelPair {
	reqs, ok := selector.Requirements()
	if !ok {
		return nil
	}
	var out []labelPair
	for _, r := range reqs {
		switch r.Operator() {
		case selection.Equals, selection.DoubleEquals, selection.In:
			if vals := r.ValuesUnsorted(); len(vals) == 1 {
				out = append(out, labelPair{ns, r.Key(), vals[0]})
			}
		}
	}
	return out
}

// countPodsMatching is countPodsMatchSelector for mk's namespace and selector: 0 at once when
// the node has no pod with one of the labels mk.pairs requires, else the node's live count
// for mk, counted by a scan the first time.
func countPodsMatching(ni *NodeInfo, mk *matchKey) int {
	// A live count, when there is one, is exact; the pairs only spare creating one for a node
	// none of whose pods can match.
	if n, ok := mk.counts[ni]; ok {
		return n
	}
	for _, pair := range mk.pairs {
		if ni.labelCounts[pair] == 0 {
			return 0
		}
	}
	// The first count of a node: a selector of one label pair is that pair's label count (the
	// node's pods of mk.ns, not being deleted, with the label), else a scan of the node's
	// pods. A scan reads every pod object, cold in the CPU cache: the scans were 0.9% of
	// thundering-herd's CPU, whose ReplicaSets select by one label.
	var n int
	if mk.onePair {
		n = ni.labelCounts[mk.pairs[0]]
	} else {
		n = countPodsMatchSelector(ni, mk.sel, mk.ns)
	}
	if len(ni.matchKeys) >= maxMatchCounts {
		ni.dropMatchCounts()
	}
	if mk.counts == nil {
		mk.counts = map[*NodeInfo]int{}
	}
	mk.counts[ni] = n
	ni.matchKeys = append(ni.matchKeys, mk)
	return n
}

// dropMatchCounts drops the node's live counts from their keys.
func (ni *NodeInfo) dropMatchCounts() {
	for _, mk := range ni.matchKeys {
		delete(mk.counts, ni)
	}
	ni.matchKeys = ni.matchKeys[:0]
}

// countPodsMatchSelector is common.go countPodsMatchSelector: the node's pods in namespace ns,
// not being deleted, that selector matches.
func countPodsMatchSelector(ni *NodeInfo, selector labels.Selector, ns string) int {
	n := 0
	for _, p := range ni.pods { //detlint:ordered a count; order does not matter
		if p.pod.DeletionTimestamp != nil || p.pod.Namespace != ns {
			continue
		}
		if selector.Matches(labels.Set(p.pod.Labels)) {
			n++
		}
	}
	return n
}

// spreadFilterState is the PreFilter state (filtering.go preFilterState): per hard constraint,
// the matching pods per topology value over the nodes that count, and the two critical paths
// (criticalPaths: the first holds the smallest count).
type spreadFilterState struct {
	constraints       []spreadConstraint
	tpValueToMatchNum []map[string]int
	criticalPaths     []criticalPaths
}

// criticalPaths is podtopologyspread.criticalPaths: two (topology value, count) pairs, the
// first always the smaller; after PreFilter the first is the minimum. As upstream, AddPod and
// RemovePod keep only these two up to date, so after additions the second may not be the
// second smallest (filtering.go's CAVEAT: each node of a preemption dry run gets its own copy).
type criticalPaths [2]criticalPath

// criticalPath is one entry of criticalPaths.
type criticalPath struct {
	value    string
	matchNum int
}

func newCriticalPaths() criticalPaths {
	return criticalPaths{{matchNum: math.MaxInt32}, {matchNum: math.MaxInt32}}
}

// update is criticalPaths.update: value's count is now num.
func (p *criticalPaths) update(value string, num int) {
	i := -1
	if value == p[0].value {
		i = 0
	} else if value == p[1].value {
		i = 1
	}
	if i >= 0 {
		p[i].matchNum = num
		if p[0].matchNum > p[1].matchNum {
			p[0], p[1] = p[1], p[0]
		}
		return
	}
	if num < p[0].matchNum {
		p[1] = p[0]
		p[0] = criticalPath{value, num}
	} else if num < p[1].matchNum {
		p[1] = criticalPath{value, num}
	}
}

// buildCriticalPaths is the loop at the end of calPreFilterState, which feeds every value to
// update in map order. Fed in the order of (count, value) the result is the same pairs for
// any order with distinct counts; among equal counts the smaller value comes first, where
// upstream's map order picks any.
func buildCriticalPaths(m map[string]int) criticalPaths {
	p := newCriticalPaths()
	less := func(n int, v string, q criticalPath) bool { return n < q.matchNum || (n == q.matchNum && v < q.value) }
	for v, n := range m { //detlint:ordered the two smallest by (count, value): a total order
		switch {
		case less(n, v, p[0]):
			p[1] = p[0]
			p[0] = criticalPath{v, n}
		case less(n, v, p[1]):
			p[1] = criticalPath{v, n}
		}
	}
	return p
}

// spreadPreFilter is PodTopologySpread.PreFilter (calPreFilterState); it leaves s.spread nil
// (Skip) when the pod has no DoNotSchedule constraint.
func (s *cycleState) spreadPreFilter(nodes []*NodeInfo) {
	constraints := filterTopologySpreadConstraints(s.pod.Spec.TopologySpreadConstraints, s.pod.Labels, model.DoNotSchedule)
	if len(constraints) == 0 {
		return
	}
	s.matchKeys.withKeys(constraints, s.pod.Namespace)
	st := &spreadFilterState{
		constraints:       constraints,
		tpValueToMatchNum: make([]map[string]int, len(constraints)),
		criticalPaths:     make([]criticalPaths, len(constraints)),
	}
	for i := range constraints {
		st.tpValueToMatchNum[i] = map[string]int{}
	}
	for _, ni := range nodes {
		if !nodeLabelsMatchSpreadConstraints(ni.node.Labels, constraints) {
			continue
		}
		for i := range constraints {
			c := &constraints[i]
			if !c.matchNodeInclusionPolicies(s, ni) {
				continue
			}
			st.tpValueToMatchNum[i][ni.node.Labels[c.topologyKey]] += countPodsMatching(ni, c.match)
		}
	}
	for i, m := range st.tpValueToMatchNum {
		st.criticalPaths[i] = buildCriticalPaths(m)
	}
	s.spread = st
}

// clone is preFilterState.Clone: the constraints are shared, the counts copied.
func (st *spreadFilterState) clone() *spreadFilterState {
	if st == nil {
		return nil
	}
	c := &spreadFilterState{
		constraints:       st.constraints,
		tpValueToMatchNum: make([]map[string]int, len(st.tpValueToMatchNum)),
		criticalPaths:     slices.Clone(st.criticalPaths),
	}
	for i, m := range st.tpValueToMatchNum {
		c.tpValueToMatchNum[i] = maps.Clone(m)
	}
	return c
}

// updateWithPod is PodTopologySpread.updateWithPod, the body of its AddPod (delta 1) and
// RemovePod (delta -1): pod, of the incoming pod's namespace, on node ni, counts delta in
// the domain of each constraint whose selector matches it, where ni counts as a domain. As
// upstream, a pod being deleted counts too (PreFilter's countPodsMatchSelector skips it).
func (st *spreadFilterState) updateWithPod(s *cycleState, pod *model.Pod, ni *NodeInfo, delta int) {
	if st == nil || pod.Namespace != s.pod.Namespace || ni.node == nil {
		return
	}
	if !nodeLabelsMatchSpreadConstraints(ni.node.Labels, st.constraints) {
		return
	}
	podLabels := labels.Set(pod.Labels)
	for i := range st.constraints {
		c := &st.constraints[i]
		if !c.selector.Matches(podLabels) || !c.matchNodeInclusionPolicies(s, ni) {
			continue
		}
		v := ni.node.Labels[c.topologyKey]
		st.tpValueToMatchNum[i][v] += delta
		st.criticalPaths[i].update(v, st.tpValueToMatchNum[i][v])
	}
}

// minMatchNum is preFilterState.minMatchNum: the first critical path's count, taken as 0
// while fewer domains than minDomains exist.
func (st *spreadFilterState) minMatchNum(i int) int {
	if len(st.tpValueToMatchNum[i]) < int(st.constraints[i].minDomains) {
		return 0
	}
	return st.criticalPaths[i][0].matchNum
}

var (
	statusSpreadNotMatch   = newStatus(Unschedulable, PluginPodTopologySpread, ErrReasonConstraintsNotMatch)
	statusSpreadNoLabel    = newStatus(UnschedulableAndUnresolvable, PluginPodTopologySpread, ErrReasonNodeLabelNotMatch)
	statusAffinityNotMatch = newStatus(UnschedulableAndUnresolvable, PluginInterPodAffinity, ErrReasonAffinityRulesNotMatch)
	statusAntiNotMatch     = newStatus(Unschedulable, PluginInterPodAffinity, ErrReasonAntiAffinityRulesNotMatch)
	statusExistingAnti     = newStatus(Unschedulable, PluginInterPodAffinity, ErrReasonExistingAntiAffinityRulesNotMatch)
)

// filterPodTopologySpread is PodTopologySpread.Filter: for every hard constraint, the node
// must have the topology key, and matching pods in its domain + 1 if the pod itself matches -
// the global minimum must not exceed maxSkew.
func filterPodTopologySpread(s *cycleState, ni *NodeInfo) *Status {
	st := s.spread
	if st == nil {
		return nil
	}
	podLabels := labels.Set(s.pod.Labels)
	for i := range st.constraints {
		c := &st.constraints[i]
		tpVal, ok := ni.node.Labels[c.topologyKey]
		if !ok {
			return statusSpreadNoLabel
		}
		self := 0
		if c.selector.Matches(podLabels) {
			self = 1
		}
		if st.tpValueToMatchNum[i][tpVal]+self-st.minMatchNum(i) > int(c.maxSkew) {
			return statusSpreadNotMatch
		}
	}
	return nil
}

// spreadScoreState is the PreScore state (scoring.go preScoreState).
type spreadScoreState struct {
	constraints []spreadConstraint
	// ignored[i] is set for feasible[i] when it lacks a topology key (with the pod's own
	// constraints; the system defaults require none).
	ignored []bool
	// podCounts[c][value] counts the matching pods per topology value (not for hostname).
	podCounts []map[string]int64
	weights   []float64
}

// topologyNormalizingWeight is scoring.go topologyNormalizingWeight: log(size + 2).
func topologyNormalizingWeight(size int) float64 { return math.Log(float64(size + 2)) }

// scoreForCount is scoring.go scoreForCount: cnt × weight + (maxSkew − 1).
func scoreForCount(cnt int64, maxSkew int32, tpWeight float64) float64 {
	return float64(cnt)*tpWeight + float64(maxSkew-1)
}

// spreadPreScore is PodTopologySpread.PreScore (with initPreScoreState); nil means Skip.
func (s *cycleState) spreadPreScore(feasible []*NodeInfo) *spreadScoreState {
	if len(s.allNodes) == 0 {
		return nil
	}
	pod := s.pod
	var constraints []spreadConstraint
	if len(pod.Spec.TopologySpreadConstraints) > 0 {
		constraints = filterTopologySpreadConstraints(pod.Spec.TopologySpreadConstraints, pod.Labels, model.ScheduleAnyway)
	} else {
		constraints = buildDefaultConstraints(s, model.ScheduleAnyway)
	}
	if len(constraints) == 0 {
		return nil
	}
	s.matchKeys.withKeys(constraints, pod.Namespace)
	// Only the pod's own constraints require every topology key (systemDefaulted).
	requireAll := len(pod.Spec.TopologySpreadConstraints) > 0
	st := &spreadScoreState{
		constraints: constraints,
		ignored:     make([]bool, len(feasible)),
		podCounts:   make([]map[string]int64, len(constraints)),
		weights:     make([]float64, len(constraints)),
	}
	for i := range constraints {
		st.podCounts[i] = map[string]int64{}
	}
	topoSize := make([]int, len(constraints))
	numIgnored := 0
	for j, ni := range feasible {
		if requireAll && !nodeLabelsMatchSpreadConstraints(ni.node.Labels, constraints) {
			st.ignored[j] = true
			numIgnored++
			continue
		}
		for i := range constraints {
			if constraints[i].topologyKey == LabelHostname {
				continue // counted per node in Score
			}
			value, _ := ni.label(constraints[i].topologyKey)
			if _, ok := st.podCounts[i][value]; !ok {
				st.podCounts[i][value] = 0
				topoSize[i]++
			}
		}
	}
	for i := range constraints {
		size := topoSize[i]
		if constraints[i].topologyKey == LabelHostname {
			size = len(feasible) - numIgnored
		}
		st.weights[i] = topologyNormalizingWeight(size)
	}
	memoized := make([]bool, len(constraints))
	for i := range constraints {
		c := &constraints[i]
		if c.topologyKey == LabelHostname || s.spreadMemos == nil || c.honorTaints || (c.honorNodeAffinity && !s.required.MatchesAll()) {
			continue
		}
		memoized[i] = true
		sums := s.spreadMemos.memoFor(c, requireAll, constraints).sums(s.allNodes,
			func(ni *NodeInfo) bool {
				return !requireAll || nodeLabelsMatchSpreadConstraints(ni.node.Labels, constraints)
			},
			func(ni *NodeInfo) string { v, _ := ni.label(c.topologyKey); return v },
			func(ni *NodeInfo) int64 {
				return int64(countPodsMatching(ni, c.match))
			})
		for value := range st.podCounts[i] { //detlint:ordered each domain is set on its own
			st.podCounts[i][value] = sums[value]
		}
	}
	for _, ni := range s.allNodes {
		if requireAll && !nodeLabelsMatchSpreadConstraints(ni.node.Labels, constraints) {
			continue
		}
		for i := range constraints {
			c := &constraints[i]
			if c.topologyKey == LabelHostname || memoized[i] {
				continue // counted per node in Score, or summed by the memo
			}
			if !c.matchNodeInclusionPolicies(s, ni) {
				continue
			}
			value := ni.node.Labels[c.topologyKey]
			if _, ok := st.podCounts[i][value]; !ok {
				continue
			}
			st.podCounts[i][value] += int64(countPodsMatching(ni, c.match))
		}
	}
	return st
}

// spreadScore is PodTopologySpread.Score for feasible[j]: the rounded sum over the
// constraints whose key the node has of scoreForCount.
func (st *spreadScoreState) score(s *cycleState, j int, ni *NodeInfo) int64 {
	if st.ignored[j] {
		return 0
	}
	var score float64
	for i := range st.constraints {
		c := &st.constraints[i]
		tpVal, ok := ni.label(c.topologyKey)
		if !ok {
			continue
		}
		var cnt int64
		if c.topologyKey == LabelHostname {
			cnt = int64(countPodsMatching(ni, c.match))
		} else {
			cnt = st.podCounts[i][tpVal]
		}
		score += scoreForCount(cnt, c.maxSkew, st.weights[i])
	}
	return int64(math.Round(score))
}

// normalize is PodTopologySpread.NormalizeScore: ignored nodes get 0; the others
// MaxNodeScore × (max + min − score) / max, or MaxNodeScore when max is 0.
func (st *spreadScoreState) normalize(scores []int64) {
	minScore, maxScore := int64(math.MaxInt64), int64(0)
	for j, sc := range scores {
		if st.ignored[j] {
			continue
		}
		minScore = min(minScore, sc)
		maxScore = max(maxScore, sc)
	}
	for j, sc := range scores {
		switch {
		case st.ignored[j]:
			scores[j] = 0
		case maxScore == 0:
			scores[j] = MaxNodeScore
		default:
			scores[j] = MaxNodeScore * (maxScore + minScore - sc) / maxScore
		}
	}
}

// requirementsOf returns the requirements of a selector built from a LabelSelector (nil for
// everything or nothing).
func requirementsOf(sel labels.Selector) []labels.Requirement {
	reqs, _ := sel.Requirements()
	return reqs
}

// labelRequirement is labels.NewRequirement for a key and one value that come from valid
// labels; nil if they do not parse.
func labelRequirement(key string, op selection.Operator, value string) *labels.Requirement {
	r, err := labels.NewRequirement(key, op, []string{value})
	if err != nil {
		return nil
	}
	return r
}
