package scheduler

import (
	"maps"
	"math"
	"slices"

	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"

	"github.com/reconsim/reconsim/model"
)

// The InterPodAffinity plugin (pkg/scheduler/framework/plugins/interpodaffinity in
// kubernetes/kubernetes, k/k v1.37.2: plugin.go, filtering.go, scoring.go; the terms are
// framework.PodInfo's, pkg/scheduler/framework/types.go). Its Filter enforces the incoming
// pod's required affinity and anti-affinity and the existing pods' required anti-affinity; its
// Score adds the preferred terms of both sides and the existing pods' required affinity
// (hardPodAffinityWeight 1). The alpha InterPodAffinityHostnameFastPath (off by default) is not
// modelled; it changes speed, not outcomes.

const (
	// PluginInterPodAffinity is names.InterPodAffinity.
	PluginInterPodAffinity = "InterPodAffinity"
	// The Filter reasons (interpodaffinity/filtering.go).
	ErrReasonExistingAntiAffinityRulesNotMatch = "node(s) didn't satisfy existing pods anti-affinity rules"
	ErrReasonAffinityRulesNotMatch             = "node(s) didn't match pod affinity rules"
	ErrReasonAntiAffinityRulesNotMatch         = "node(s) didn't match pod anti-affinity rules"

	// weightInterPodAffinity is the plugin's score weight in the default profile
	// ([k8s:pkg/scheduler/apis/config/v1/default_plugins.go@01db4ae9]).
	weightInterPodAffinity int64 = 2
	// hardPodAffinityWeight is InterPodAffinityArgs.hardPodAffinityWeight's default, 1
	// ([k8s:pkg/scheduler/apis/config/v1/defaults.go@00fe7a37]).
	hardPodAffinityWeight int64 = 1
)

// affinityTerm is framework.AffinityTerm: a parsed PodAffinityTerm.
type affinityTerm struct {
	namespaces  []string
	nsSelector  labels.Selector
	selector    labels.Selector
	topologyKey string
	// noNSSelector is set when the term has no namespaceSelector (nsSelector is Nothing):
	// there is nothing to unroll.
	noNSSelector bool
}

// matches is AffinityTerm.Matches: pod is in one of the term's namespaces (or one its
// namespace selector picks, by nsLabels, the labels of pod's namespace) and the selector
// matches its labels.
func (t *affinityTerm) matches(pod *model.Pod, nsLabels labels.Set) bool {
	if slices.Contains(t.namespaces, pod.Namespace) || t.nsSelector.Matches(nsLabels) {
		return t.selector.Matches(labels.Set(pod.Labels))
	}
	return false
}

// weightedTerm is framework.WeightedAffinityTerm.
type weightedTerm struct {
	affinityTerm
	weight int64
}

// podAffinityInfo holds a pod's parsed inter-pod affinity terms (framework.PodInfo's
// RequiredAffinityTerms, RequiredAntiAffinityTerms, PreferredAffinityTerms and
// PreferredAntiAffinityTerms).
type podAffinityInfo struct {
	requiredAffinity, requiredAnti   []affinityTerm
	preferredAffinity, preferredAnti []weightedTerm
}

// newAffinityTerm is framework.newAffinityTerm with getNamespacesFromPodAffinityTerm: no
// namespaces and no namespace selector mean the pod's own namespace. matchLabelKeys and
// mismatchLabelKeys add "key in/notin (the pod's value)" to the selector, as the API server
// does at creation since v1.33 (KEP-3633); a term without labelSelector gets nothing added.
func newAffinityTerm(pod *model.Pod, t *model.PodAffinityTerm) affinityTerm {
	at := affinityTerm{selector: selectorOf(t.LabelSelector), nsSelector: selectorOf(t.NamespaceSelector), topologyKey: t.TopologyKey,
		noNSSelector: t.NamespaceSelector == nil}
	if len(t.Namespaces) == 0 && t.NamespaceSelector == nil {
		at.namespaces = []string{pod.Namespace}
	} else {
		at.namespaces = t.Namespaces
	}
	if t.LabelSelector != nil && len(t.MatchLabelKeys)+len(t.MismatchLabelKeys) > 0 {
		add := func(keys []string, op selection.Operator) {
			for _, k := range keys {
				if v, ok := pod.Labels[k]; ok {
					if r := labelRequirement(k, op, v); r != nil {
						at.selector = at.selector.Add(*r)
					}
				}
			}
		}
		add(t.MatchLabelKeys, selection.In)
		add(t.MismatchLabelKeys, selection.NotIn)
	}
	return at
}

// newPodAffinityInfo parses pod's inter-pod affinity; nil when it has none.
func newPodAffinityInfo(pod *model.Pod) *podAffinityInfo {
	a := pod.Spec.Affinity
	if a == nil || (a.PodAffinity == nil && a.PodAntiAffinity == nil) {
		return nil
	}
	info := &podAffinityInfo{}
	required := func(terms []model.PodAffinityTerm) []affinityTerm {
		var out []affinityTerm
		for i := range terms {
			out = append(out, newAffinityTerm(pod, &terms[i]))
		}
		return out
	}
	preferred := func(terms []model.WeightedPodAffinityTerm) []weightedTerm {
		var out []weightedTerm
		for i := range terms {
			out = append(out, weightedTerm{affinityTerm: newAffinityTerm(pod, &terms[i].PodAffinityTerm), weight: int64(terms[i].Weight)})
		}
		return out
	}
	if pa := a.PodAffinity; pa != nil {
		info.requiredAffinity = required(pa.RequiredDuringSchedulingIgnoredDuringExecution)
		info.preferredAffinity = preferred(pa.PreferredDuringSchedulingIgnoredDuringExecution)
	}
	if pa := a.PodAntiAffinity; pa != nil {
		info.requiredAnti = required(pa.RequiredDuringSchedulingIgnoredDuringExecution)
		info.preferredAnti = preferred(pa.PreferredDuringSchedulingIgnoredDuringExecution)
	}
	return info
}

// mergeNamespaces is mergeAffinityTermNamespacesIfNotEmpty for the incoming pod's terms: a
// namespace selector that is not empty is unrolled into the namespace list and replaced by
// Nothing, so matching existing pods needs no namespace labels.
func mergeNamespaces(l *listers, terms []affinityTerm) {
	for i := range terms {
		mergeTermNamespaces(l, &terms[i])
	}
}

func mergeTermNamespaces(l *listers, t *affinityTerm) {
	if t.noNSSelector || t.nsSelector.Empty() {
		return
	}
	t.namespaces = append(slices.Clone(t.namespaces), l.namespacesMatching(t.nsSelector)...)
	t.nsSelector, t.noNSSelector = labels.Nothing(), true
}

// topologyPair is a topology key and value.
type topologyPair struct{ key, value string }

// topologyCounts is topologyToMatchedTermCount.
type topologyCounts map[topologyPair]int64

// updateWithAffinityTerms adds value for each term's domain of node when target matches all
// terms; a count that reaches 0 is deleted (satisfyPodAffinity tells an empty map apart).
func (m topologyCounts) updateWithAffinityTerms(target *model.Pod, node *model.Node, terms []affinityTerm, value int64) {
	if !podMatchesAllAffinityTerms(target, terms) {
		return
	}
	for i := range terms {
		if v, ok := node.Labels[terms[i].topologyKey]; ok {
			m.add(topologyPair{terms[i].topologyKey, v}, value)
		}
	}
}

// updateWithAntiAffinityTerms adds value for the domain of node of each term target matches.
func (m topologyCounts) updateWithAntiAffinityTerms(target *model.Pod, nsLabels labels.Set, node *model.Node, terms []affinityTerm, value int64) {
	for i := range terms {
		if !terms[i].matches(target, nsLabels) {
			continue
		}
		if v, ok := node.Labels[terms[i].topologyKey]; ok {
			m.add(topologyPair{terms[i].topologyKey, v}, value)
		}
	}
}

// add adds value to pair's count, deleting it at 0 (topologyToMatchedTermCount.update).
func (m topologyCounts) add(pair topologyPair, value int64) {
	if n := m[pair] + value; n != 0 {
		m[pair] = n
	} else {
		delete(m, pair)
	}
}

// podMatchesAllAffinityTerms is podMatchesAllAffinityTerms: false for no terms.
func podMatchesAllAffinityTerms(pod *model.Pod, terms []affinityTerm) bool {
	if len(terms) == 0 {
		return false
	}
	for i := range terms {
		if !terms[i].matches(pod, nil) {
			return false
		}
	}
	return true
}

// affinityFilterState is InterPodAffinity's preFilterState.
type affinityFilterState struct {
	info *podAffinityInfo
	// existingAnti counts, per domain, the existing pods' required anti-affinity terms that
	// match the incoming pod; affinity and anti the existing pods matching the incoming pod's
	// required affinity (all terms) and anti-affinity terms.
	existingAnti, affinity, anti topologyCounts
	// nsLabels are the labels of the incoming pod's namespace, which existing pods'
	// namespace selectors match (nil until needed).
	nsLabels labels.Set
}

// affinityPreFilter is InterPodAffinity.PreFilter (getExistingAntiAffinityCounts,
// getIncomingAffinityAntiAffinityCounts); it leaves s.affinity nil (Skip) when the pod has no
// required terms and no existing pod's anti-affinity matches it.
func (s *cycleState) affinityPreFilter(nodes []*NodeInfo) {
	info := s.affinityInfo
	var reqAff, reqAnti []affinityTerm
	if info != nil {
		reqAff, reqAnti = info.requiredAffinity, info.requiredAnti
	}
	if len(s.nodesWithAffinity) == 0 && len(reqAff) == 0 && len(reqAnti) == 0 {
		return
	}
	existing := topologyCounts{}
	var nsLabels labels.Set
	for _, ni := range s.nodesWithAffinity {
		if ni.numRequiredAnti == 0 {
			continue
		}
		if nsLabels == nil {
			nsLabels = s.listers.namespaceLabels(s.pod.Namespace)
		}
		for _, p := range ni.pods { //detlint:ordered counts; order does not matter
			if p.aff != nil && len(p.aff.requiredAnti) > 0 {
				existing.updateWithAntiAffinityTerms(s.pod, nsLabels, ni.node, p.aff.requiredAnti, 1)
			}
		}
	}
	if len(existing) == 0 && len(reqAff) == 0 && len(reqAnti) == 0 {
		return
	}
	st := &affinityFilterState{info: info, existingAnti: existing, affinity: topologyCounts{}, anti: topologyCounts{}, nsLabels: nsLabels}
	if len(reqAff)+len(reqAnti) > 0 {
		for _, ni := range nodes {
			for _, p := range ni.pods { //detlint:ordered counts; order does not matter
				st.affinity.updateWithAffinityTerms(p.pod, ni.node, reqAff, 1)
				st.anti.updateWithAntiAffinityTerms(p.pod, nil, ni.node, reqAnti, 1)
			}
		}
	}
	s.affinity = st
}

// clone is preFilterState.Clone: the counts are copied, the pod's terms shared.
func (st *affinityFilterState) clone() *affinityFilterState {
	if st == nil {
		return nil
	}
	c := *st
	c.existingAnti, c.affinity, c.anti = maps.Clone(st.existingAnti), maps.Clone(st.affinity), maps.Clone(st.anti)
	return &c
}

// updateWithPod is preFilterState.updateWithPod, the body of InterPodAffinity's AddPod
// (value 1) and RemovePod (value -1): pod, whose parsed terms are aff (nil: none), on node,
// changes the counts of the existing pods' anti-affinity matching the incoming pod, and of
// the pods matching the incoming pod's required affinity and anti-affinity.
func (st *affinityFilterState) updateWithPod(s *cycleState, pod *model.Pod, aff *podAffinityInfo, node *model.Node, value int64) {
	if st == nil || node == nil {
		return
	}
	if aff != nil && len(aff.requiredAnti) > 0 {
		if st.nsLabels == nil {
			st.nsLabels = s.listers.namespaceLabels(s.pod.Namespace)
		}
		st.existingAnti.updateWithAntiAffinityTerms(s.pod, st.nsLabels, node, aff.requiredAnti, value)
	}
	if st.info != nil {
		// The incoming pod's namespace selectors are merged into its namespaces: no labels.
		st.affinity.updateWithAffinityTerms(pod, node, st.info.requiredAffinity, value)
		st.anti.updateWithAntiAffinityTerms(pod, nil, node, st.info.requiredAnti, value)
	}
}

// filterInterPodAffinity is InterPodAffinity.Filter: satisfyPodAffinity, then
// satisfyPodAntiAffinity, then satisfyExistingPodsAntiAffinity.
func filterInterPodAffinity(s *cycleState, ni *NodeInfo) *Status {
	st := s.affinity
	if st == nil {
		return nil
	}
	nodeLabels := ni.node.Labels
	if st.info != nil {
		// satisfyPodAffinity: every term's key on the node, and a matching pod in each domain;
		// or, for the first of a group of pods with affinity to each other, no matching pod
		// anywhere and the pod matching its own terms.
		podsExist := true
		for i := range st.info.requiredAffinity {
			t := &st.info.requiredAffinity[i]
			v, ok := nodeLabels[t.topologyKey]
			if !ok {
				return statusAffinityNotMatch
			}
			if st.affinity[topologyPair{t.topologyKey, v}] <= 0 {
				podsExist = false
			}
		}
		if !podsExist && (len(st.affinity) > 0 || !podMatchesAllAffinityTerms(s.pod, st.info.requiredAffinity)) {
			return statusAffinityNotMatch
		}
		// satisfyPodAntiAffinity.
		for i := range st.info.requiredAnti {
			t := &st.info.requiredAnti[i]
			if v, ok := nodeLabels[t.topologyKey]; ok && st.anti[topologyPair{t.topologyKey, v}] > 0 {
				return statusAntiNotMatch
			}
		}
	}
	// satisfyExistingPodsAntiAffinity.
	for pair, n := range st.existingAnti { //detlint:ordered an any-match check; order does not matter
		if v, ok := nodeLabels[pair.key]; ok && v == pair.value && n > 0 {
			return statusExistingAnti
		}
	}
	return nil
}

// scoreMap is interpodaffinity scoreMap: topology key → value → summed weight.
type scoreMap map[string]map[string]int64

func (m scoreMap) processTerm(t *affinityTerm, weight int64, pod *model.Pod, nsLabels labels.Set, node *model.Node, multiplier int64) {
	if !t.matches(pod, nsLabels) {
		return
	}
	v, ok := node.Labels[t.topologyKey]
	if !ok {
		return
	}
	if m[t.topologyKey] == nil {
		m[t.topologyKey] = map[string]int64{}
	}
	m[t.topologyKey][v] += weight * multiplier
}

func (m scoreMap) processTerms(terms []weightedTerm, pod *model.Pod, nsLabels labels.Set, node *model.Node, multiplier int64) {
	for i := range terms {
		m.processTerm(&terms[i].affinityTerm, terms[i].weight, pod, nsLabels, node, multiplier)
	}
}

// affinityPreScore is InterPodAffinity.PreScore (processExistingPod over the nodes); nil
// means Skip (nothing scored).
func (s *cycleState) affinityPreScore() scoreMap {
	info := s.affinityInfo
	hasConstraints := info != nil && len(info.preferredAffinity)+len(info.preferredAnti) > 0
	var prefAff, prefAnti []weightedTerm
	if hasConstraints {
		prefAff, prefAnti = info.preferredAffinity, info.preferredAnti
	}
	// Unless the pod has preferred terms, only the nodes with pods with affinity matter.
	nodes := s.nodesWithAffinity
	if hasConstraints {
		nodes = s.allNodes
	}
	if len(nodes) == 0 {
		return nil
	}
	m := scoreMap{}
	var nsLabels labels.Set
	for _, ni := range nodes {
		node := ni.node
		if len(node.Labels) == 0 {
			continue
		}
		if nsLabels == nil {
			nsLabels = s.listers.namespaceLabels(s.pod.Namespace)
		}
		for _, p := range ni.pods { //detlint:ordered sums; order does not matter
			if !hasConstraints && p.aff == nil {
				continue
			}
			// The incoming pod's preferred terms (namespace selectors merged: no labels).
			m.processTerms(prefAff, p.pod, nil, node, 1)
			m.processTerms(prefAnti, p.pod, nil, node, -1)
			if p.aff == nil {
				continue
			}
			for i := range p.aff.requiredAffinity {
				m.processTerm(&p.aff.requiredAffinity[i], hardPodAffinityWeight, s.pod, nsLabels, node, 1)
			}
			m.processTerms(p.aff.preferredAffinity, s.pod, nsLabels, node, 1)
			m.processTerms(p.aff.preferredAnti, s.pod, nsLabels, node, -1)
		}
	}
	if len(m) == 0 {
		return nil
	}
	return m
}

// score is InterPodAffinity.Score: the sum of the node's domains' weights.
func (m scoreMap) score(node *model.Node) int64 {
	var score int64
	for key, values := range m { //detlint:ordered a sum; order does not matter
		if v, ok := node.Labels[key]; ok {
			score += values[v]
		}
	}
	return score
}

// normalizeAffinityScores is InterPodAffinity.NormalizeScore: min-max scaling to
// [0, MaxNodeScore], all 0 when every score is equal.
func normalizeAffinityScores(scores []int64) {
	minCount, maxCount := int64(math.MaxInt64), int64(math.MinInt64)
	for _, sc := range scores {
		minCount = min(minCount, sc)
		maxCount = max(maxCount, sc)
	}
	diff := maxCount - minCount
	for i, sc := range scores {
		f := 0.0
		if diff > 0 {
			f = float64(MaxNodeScore) * (float64(sc-minCount) / float64(diff))
		}
		scores[i] = int64(f)
	}
}
