package scheduler

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/vtime"
)

// zoneNode is a node with hostname and (unless zone is "") zone labels.
func zoneNode(name, zone string) *model.Node {
	n := testNode(name, "4", "8Gi", 110)
	n.Labels = map[string]string{LabelHostname: name}
	if zone != "" {
		n.Labels[LabelTopologyZone] = zone
	}
	return n
}

// labelled returns a pod in namespace ns with labels k=v,...
func labelled(name, ns string, kv ...string) *model.Pod {
	p := testPod(name, "cpu", "100m")
	p.Namespace = ns
	p.Labels = map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		p.Labels[kv[i]] = kv[i+1]
	}
	return p
}

func sel(kv ...string) *metav1.LabelSelector {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return &metav1.LabelSelector{MatchLabels: m}
}

// placed is a cluster for the filter tests: node infos and their pods.
type placed map[*model.Node][]*model.Pod

// filterAll runs the PreFilter over the nodes (in the order given) and returns each node's
// Filter status message from the plugin f ("" when it passes).
func filterAll(pod *model.Pod, nodes []*model.Node, pods placed, f func(*cycleState, *NodeInfo) *Status) []string {
	var infos []*NodeInfo
	for _, n := range nodes {
		infos = append(infos, nodeInfoWith(n, pods[n]...))
	}
	s := newCycleState(pod)
	s.preFilter(infos)
	out := make([]string, len(infos))
	for i, ni := range infos {
		out[i] = f(s, ni).Message()
	}
	return out
}

func withSpread(p *model.Pod, cs ...model.TopologySpreadConstraint) *model.Pod {
	p.Spec.TopologySpreadConstraints = cs
	return p
}

// TestFilterPodTopologySpread follows PodTopologySpread.Filter (filtering.go): matching pods
// in the node's domain + self − global minimum ≤ maxSkew, minDomains, the node inclusion
// policies and matchLabelKeys. Zones: a (a1, a2), b (b1), and n0 without a zone label.
func TestFilterPodTopologySpread(t *testing.T) {
	a1, a2, b1, n0 := zoneNode("a1", "a"), zoneNode("a2", "a"), zoneNode("b1", "b"), zoneNode("n0", "")
	nodes := []*model.Node{a1, a2, b1, n0}
	web := func(name string) *model.Pod { return labelled(name, "default", "app", "web") }
	zone1 := model.TopologySpreadConstraint{MaxSkew: 1, TopologyKey: LabelTopologyZone, WhenUnsatisfiable: model.DoNotSchedule, LabelSelector: sel("app", "web")}
	tests := []struct {
		name string
		pod  *model.Pod
		pods placed
		want []string // a1, a2, b1, n0
	}{
		{"empty cluster: every zone is at the minimum", withSpread(web("p"), zone1), nil,
			[]string{"", "", "", ErrReasonNodeLabelNotMatch}},
		// a has 1, b 0: a gives 1+1-0 = 2 > 1.
		{"one pod in a: a is full for maxSkew 1", withSpread(web("p"), zone1), placed{a2: {web("x")}},
			[]string{ErrReasonConstraintsNotMatch, ErrReasonConstraintsNotMatch, "", ErrReasonNodeLabelNotMatch}},
		{"pods of another namespace do not count", withSpread(web("p"), zone1), placed{a2: {labelled("x", "other", "app", "web")}},
			[]string{"", "", "", ErrReasonNodeLabelNotMatch}},
		{"pods the selector does not match do not count", withSpread(web("p"), zone1), placed{a2: {labelled("x", "default", "app", "db")}},
			[]string{"", "", "", ErrReasonNodeLabelNotMatch}},
		// An incoming pod the selector does not match adds no self count: a gives 1+0-0 = 1.
		{"a pod outside its own selector adds no self match", withSpread(labelled("p", "default", "app", "db"), zone1), placed{a2: {web("x")}},
			[]string{"", "", "", ErrReasonNodeLabelNotMatch}},
		// minDomains 3 with two domains: the global minimum counts as 0, so b (1+1-0 = 2) fails too.
		{"minDomains above the domains makes the minimum 0", withSpread(web("p"), func() model.TopologySpreadConstraint {
			c := zone1
			c.MinDomains = model.Ptr(int32(3))
			return c
		}()), placed{a1: {web("x")}, b1: {web("y")}},
			[]string{ErrReasonConstraintsNotMatch, ErrReasonConstraintsNotMatch, ErrReasonConstraintsNotMatch, ErrReasonNodeLabelNotMatch}},
		// nodeAffinityPolicy Honor (the default): with nodeSelector zone=a, zone b is not a
		// domain, so a's minimum is its own count and a pod more fits.
		{"nodeAffinityPolicy Honor drops domains the pod cannot use", func() *model.Pod {
			p := withSpread(web("p"), zone1)
			p.Spec.NodeSelector = map[string]string{LabelTopologyZone: "a"}
			return p
		}(), placed{a1: {web("x")}},
			[]string{"", "", "", ErrReasonNodeLabelNotMatch}},
		{"nodeAffinityPolicy Ignore counts every domain", func() *model.Pod {
			c := zone1
			c.NodeAffinityPolicy = model.Ptr(model.NodeInclusionPolicyIgnore)
			p := withSpread(web("p"), c)
			p.Spec.NodeSelector = map[string]string{LabelTopologyZone: "a"}
			return p
		}(), placed{a1: {web("x")}},
			[]string{ErrReasonConstraintsNotMatch, ErrReasonConstraintsNotMatch, "", ErrReasonNodeLabelNotMatch}},
		// matchLabelKeys: the pod's version label joins the selector, so the v1 pod in a does
		// not count for a v2 pod.
		{"matchLabelKeys narrows the selector to the pod's value", func() *model.Pod {
			c := zone1
			c.MatchLabelKeys = []string{"version"}
			return withSpread(labelled("p", "default", "app", "web", "version", "v2"), c)
		}(), placed{a1: {labelled("x", "default", "app", "web", "version", "v1")}},
			[]string{"", "", "", ErrReasonNodeLabelNotMatch}},
		{"ScheduleAnyway constraints do not filter", withSpread(web("p"), func() model.TopologySpreadConstraint {
			c := zone1
			c.WhenUnsatisfiable = model.ScheduleAnyway
			return c
		}()), placed{a2: {web("x"), web("y")}},
			[]string{"", "", "", ""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, filterAll(tt.pod, nodes, tt.pods, filterPodTopologySpread))
		})
	}
}

// TestPodTopologySpreadScore follows PodTopologySpread.Score and NormalizeScore (scoring.go)
// for a hostname constraint with maxSkew 3 (the system default's): raw score
// count × log(nodes + 2) + (maxSkew − 1), rounded, then 100 × (max + min − s) / max.
func TestPodTopologySpreadScore(t *testing.T) {
	n1, n2, n3 := zoneNode("n1", ""), zoneNode("n2", ""), zoneNode("n3", "")
	web := func(name string) *model.Pod { return labelled(name, "default", "app", "web") }
	pod := withSpread(web("p"), model.TopologySpreadConstraint{MaxSkew: 3, TopologyKey: LabelHostname, WhenUnsatisfiable: model.ScheduleAnyway, LabelSelector: sel("app", "web")})
	infos := []*NodeInfo{nodeInfoWith(n1, web("a"), web("b")), nodeInfoWith(n2, web("c")), nodeInfoWith(n3)}
	s := newCycleState(pod)
	s.preFilter(infos)
	st := s.spreadPreScore(infos)
	scores := make([]int64, len(infos))
	for i, ni := range infos {
		scores[i] = st.score(s, i, ni)
	}
	// log(5) = 1.609: n1 2×1.609+2 = 5.22 → 5; n2 3.61 → 4; n3 2.
	assert.Equal(t, []int64{5, 4, 2}, scores)
	st.normalize(scores)
	// max 5, min 2: 100×(7−5)/5 = 40, 100×3/5 = 60, 100×5/5 = 100.
	assert.Equal(t, []int64{40, 60, 100}, scores)

	// A pod with no constraints and no Service or controller gets no default constraints.
	s = newCycleState(web("q"))
	s.preFilter(infos)
	assert.Nil(t, s.spreadPreScore(infos))
}

func withAffinity(p *model.Pod, aff *model.PodAffinity, anti *model.PodAntiAffinity) *model.Pod {
	p.Spec.Affinity = &model.Affinity{PodAffinity: aff, PodAntiAffinity: anti}
	return p
}

func required(terms ...model.PodAffinityTerm) []model.PodAffinityTerm { return terms }

// TestFilterInterPodAffinity follows InterPodAffinity.Filter (filtering.go): the incoming
// pod's required affinity and anti-affinity and the existing pods' required anti-affinity,
// with namespaces and namespaceSelector. Zones: a (a1, a2) and b (b1).
func TestFilterInterPodAffinity(t *testing.T) {
	a1, a2, b1 := zoneNode("a1", "a"), zoneNode("a2", "a"), zoneNode("b1", "b")
	nodes := []*model.Node{a1, a2, b1}
	db := labelled("db", "default", "app", "db")
	antiHost := &model.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: required(model.PodAffinityTerm{LabelSelector: sel("app", "web"), TopologyKey: LabelHostname})}
	antiZone := &model.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: required(model.PodAffinityTerm{LabelSelector: sel("app", "web"), TopologyKey: LabelTopologyZone})}
	affDB := &model.PodAffinity{RequiredDuringSchedulingIgnoredDuringExecution: required(model.PodAffinityTerm{LabelSelector: sel("app", "db"), TopologyKey: LabelTopologyZone})}
	tests := []struct {
		name string
		pod  *model.Pod
		pods placed
		want []string // a1, a2, b1
	}{
		{"no affinity anywhere: Skip", labelled("p", "default", "app", "web"), placed{a1: {db}}, []string{"", "", ""}},
		{"anti-affinity on hostname keeps off the matching pod's node",
			withAffinity(labelled("p", "default", "app", "web"), nil, antiHost), placed{a1: {labelled("w", "default", "app", "web")}},
			[]string{ErrReasonAntiAffinityRulesNotMatch, "", ""}},
		{"anti-affinity on zone keeps off the whole zone",
			withAffinity(labelled("p", "default", "app", "web"), nil, antiZone), placed{a1: {labelled("w", "default", "app", "web")}},
			[]string{ErrReasonAntiAffinityRulesNotMatch, ErrReasonAntiAffinityRulesNotMatch, ""}},
		{"anti-affinity ignores pods of other namespaces",
			withAffinity(labelled("p", "default", "app", "web"), nil, antiZone), placed{a1: {labelled("w", "other", "app", "web")}},
			[]string{"", "", ""}},
		{"an empty namespaceSelector selects every namespace",
			withAffinity(labelled("p", "default", "app", "web"), nil, &model.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: required(
				model.PodAffinityTerm{LabelSelector: sel("app", "web"), TopologyKey: LabelTopologyZone, NamespaceSelector: &metav1.LabelSelector{}})}),
			placed{b1: {labelled("w", "other", "app", "web")}},
			[]string{"", "", ErrReasonAntiAffinityRulesNotMatch}},
		{"namespaces lists the namespaces looked at",
			withAffinity(labelled("p", "default", "app", "web"), nil, &model.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: required(
				model.PodAffinityTerm{LabelSelector: sel("app", "web"), TopologyKey: LabelTopologyZone, Namespaces: []string{"other"}})}),
			placed{b1: {labelled("w", "other", "app", "web")}, a1: {labelled("x", "default", "app", "web")}},
			[]string{"", "", ErrReasonAntiAffinityRulesNotMatch}},
		{"an existing pod's anti-affinity keeps the pod it selects out of its zone",
			labelled("p", "default", "app", "web"),
			placed{b1: {withAffinity(labelled("guard", "default", "app", "guard"), nil, antiZone)}},
			[]string{"", "", ErrReasonExistingAntiAffinityRulesNotMatch}},
		{"required affinity: only the zone with a db pod",
			withAffinity(labelled("p", "default", "app", "api"), affDB, nil), placed{a2: {db}},
			[]string{"", "", ErrReasonAffinityRulesNotMatch}},
		{"required affinity with no match anywhere, and the pod does not match itself",
			withAffinity(labelled("p", "default", "app", "api"), affDB, nil), nil,
			[]string{ErrReasonAffinityRulesNotMatch, ErrReasonAffinityRulesNotMatch, ErrReasonAffinityRulesNotMatch}},
		{"the first pod of a self-affine group may go anywhere",
			withAffinity(labelled("p", "default", "app", "db"), affDB, nil), nil,
			[]string{"", "", ""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, filterAll(tt.pod, nodes, tt.pods, filterInterPodAffinity))
		})
	}
}

// TestInterPodAffinityScore follows InterPodAffinity.PreScore, Score and NormalizeScore
// (scoring.go): the incoming pod's preferred affinity (+weight) and anti-affinity (−weight)
// per matching pod's domain, an existing pod's required affinity that selects the incoming
// pod (+hardPodAffinityWeight 1), then min-max scaling.
func TestInterPodAffinityScore(t *testing.T) {
	a1, b1, c1 := zoneNode("a1", "a"), zoneNode("b1", "b"), zoneNode("c1", "c")
	pod := withAffinity(labelled("p", "default", "app", "web"),
		&model.PodAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []model.WeightedPodAffinityTerm{{Weight: 10, PodAffinityTerm: model.PodAffinityTerm{LabelSelector: sel("app", "cache"), TopologyKey: LabelTopologyZone}}}},
		&model.PodAntiAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []model.WeightedPodAffinityTerm{{Weight: 5, PodAffinityTerm: model.PodAffinityTerm{LabelSelector: sel("app", "web"), TopologyKey: LabelTopologyZone}}}})
	friend := withAffinity(labelled("f", "default", "app", "friend"),
		&model.PodAffinity{RequiredDuringSchedulingIgnoredDuringExecution: required(model.PodAffinityTerm{LabelSelector: sel("app", "web"), TopologyKey: LabelTopologyZone})}, nil)
	infos := []*NodeInfo{
		nodeInfoWith(a1, labelled("cache", "default", "app", "cache")),
		nodeInfoWith(b1, labelled("w", "default", "app", "web")),
		nodeInfoWith(c1, friend),
	}
	s := newCycleState(pod)
	s.preFilter(infos)
	m := s.affinityPreScore()
	scores := make([]int64, len(infos))
	for i, ni := range infos {
		scores[i] = m.score(ni.node)
	}
	assert.Equal(t, []int64{10, -5, 1}, scores)
	normalizeAffinityScores(scores)
	// min −5, max 10: 100×15/15, 0, 100×6/15 = 40.
	assert.Equal(t, []int64{100, 0, 40}, scores)
}

// TestSpreadAndAffinityQueueingHints follows the plugins' isSchedulableAfterPodChange and
// isSchedulableAfterNodeChange: which cluster events may make a pod they rejected schedulable.
func TestSpreadAndAffinityQueueingHints(t *testing.T) {
	bound := func(p *model.Pod) *model.Pod { p.Spec.NodeName = "n1"; return p }
	spreadPod := withSpread(labelled("p", "default", "app", "web"),
		model.TopologySpreadConstraint{MaxSkew: 1, TopologyKey: LabelTopologyZone, WhenUnsatisfiable: model.DoNotSchedule, LabelSelector: sel("app", "web")})
	antiPod := withAffinity(labelled("p", "default", "app", "web"), nil,
		&model.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: required(model.PodAffinityTerm{LabelSelector: sel("app", "web"), TopologyKey: LabelHostname})})
	affPod := withAffinity(labelled("p", "default", "app", "api"),
		&model.PodAffinity{RequiredDuringSchedulingIgnoredDuringExecution: required(model.PodAffinityTerm{LabelSelector: sel("app", "db"), TopologyKey: LabelTopologyZone})}, nil)
	relabelled := zoneNode("a1", "b")
	tests := []struct {
		name   string
		plugin string
		pod    *model.Pod
		e      *clusterEvent
		want   queueingHint
	}{
		{"spread: a matching pod deleted", PluginPodTopologySpread, spreadPod, &clusterEvent{kind: eventAssignedPodDelete, oldPod: bound(labelled("x", "default", "app", "web"))}, queueHint},
		{"spread: another app's pod deleted", PluginPodTopologySpread, spreadPod, &clusterEvent{kind: eventAssignedPodDelete, oldPod: bound(labelled("x", "default", "app", "db"))}, queueSkipHint},
		{"spread: a matching pod of another namespace added", PluginPodTopologySpread, spreadPod, &clusterEvent{kind: eventAssignedPodAdd, newPod: bound(labelled("x", "other", "app", "web"))}, queueSkipHint},
		{"spread: a node with the zone label added", PluginPodTopologySpread, spreadPod, &clusterEvent{kind: eventNodeAdd, newNode: zoneNode("a3", "a")}, queueHint},
		{"spread: a node without it added", PluginPodTopologySpread, spreadPod, &clusterEvent{kind: eventNodeAdd, newNode: zoneNode("x", "")}, queueSkipHint},
		{"spread: a node moved zone", PluginPodTopologySpread, spreadPod, &clusterEvent{kind: eventNodeUpdate, nodeChanges: nodeChangeLabel, oldNode: zoneNode("a1", "a"), newNode: relabelled}, queueHint},
		{"anti-affinity: the pod it avoids deleted", PluginInterPodAffinity, antiPod, &clusterEvent{kind: eventAssignedPodDelete, oldPod: bound(labelled("x", "default", "app", "web"))}, queueHint},
		{"anti-affinity: another pod deleted", PluginInterPodAffinity, antiPod, &clusterEvent{kind: eventAssignedPodDelete, oldPod: bound(labelled("x", "default", "app", "db"))}, queueSkipHint},
		{"affinity: the pod it wants added", PluginInterPodAffinity, affPod, &clusterEvent{kind: eventAssignedPodAdd, newPod: bound(labelled("x", "default", "app", "db"))}, queueHint},
		{"affinity: another pod added", PluginInterPodAffinity, affPod, &clusterEvent{kind: eventAssignedPodAdd, newPod: bound(labelled("x", "default", "app", "web"))}, queueSkipHint},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.True(t, interestedIn(tt.plugin, tt.e))
			assert.Equal(t, tt.want, queueingHintFor(tt.plugin, tt.pod, tt.e))
		})
	}
}

// TestCountPodsMatchingAgreesWithScan: the label index and the live counts give
// countPodsMatchSelector's count through adds, label changes, deletion marks and removals.
func TestCountPodsMatchingAgreesWithScan(t *testing.T) {
	ni := newNodeInfo(zoneNode("n1", "a"))
	web := metav1.LabelSelector{MatchLabels: map[string]string{"app": "web", "tier": "front"}}
	sels := []labels.Selector{selectorOf(&web), selectorOf(sel("app", "db")), labels.Everything(), labels.Nothing(),
		selectorOf(&metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "app", Operator: metav1.LabelSelectorOpNotIn, Values: []string{"db"}}}})}
	// One interner for the whole test, and each pair asked through a selector parsed anew:
	// equal selectors share one key, so the counts after "empty" are the live ones.
	keys := newMatchKeys()
	check := func(step string) {
		for _, s := range sels {
			for _, ns := range []string{"default", "other"} {
				want := countPodsMatchSelector(ni, s, ns)
				reparsed, err := labels.Parse(s.String())
				require.NoError(t, err)
				if s.String() == "" {
					reparsed = s // Everything and Nothing both print as ""
				}
				mk := keys.get(ns, reparsed)
				require.Same(t, keys.get(ns, s), mk, "selector %q in %s", s.String(), ns)
				got := countPodsMatching(ni, mk)
				assert.Equal(t, want, got, "%s: selector %q in %s", step, s.String(), ns)
			}
		}
	}
	check("empty")
	a := labelled("a", "default", "app", "web", "tier", "front")
	ni.addPod("default/a", a)
	ni.addPod("default/b", labelled("b", "default", "app", "db"))
	ni.addPod("other/c", labelled("c", "other", "app", "web", "tier", "front"))
	check("added")
	relabelled := a.DeepCopy()
	relabelled.Labels["tier"] = "back"
	ni.replacePod(ni.pods["default/a"], relabelled)
	check("relabelled")
	deleting := relabelled.DeepCopy()
	deleting.Labels["tier"] = "front"
	deleting.DeletionTimestamp = model.Ptr(vtime.Time(5))
	ni.replacePod(ni.pods["default/a"], deleting)
	check("being deleted")
	ni.removePod("default/b")
	ni.removePod("default/a")
	check("removed")
	assert.LessOrEqual(t, len(ni.matchKeys), len(sels)*2, "one live count per interned key")
}

// TestLiveCountsLeaveWithTheirNode: a node's live counts are kept in the interned keys under
// the node; they go when the node has too many (maxMatchCounts, and the counts stay right)
// and when the cache drops the node, so that a key holds no node the cache has forgotten.
func TestLiveCountsLeaveWithTheirNode(t *testing.T) {
	c := newSchedulerCache()
	c.addNode(zoneNode("n1", "a"))
	ni := c.nodes["n1"]
	for i := range 3 {
		p := labelled(fmt.Sprintf("p%d", i), "default", "app", "web")
		p.Spec.NodeName = "n1"
		require.NoError(t, c.addPod(model.Key(p), p))
	}
	web := c.matchKeys.get("default", selectorOf(sel("app", "web")))
	require.Equal(t, 3, countPodsMatching(ni, web))
	require.Contains(t, web.counts, ni)
	// maxMatchCounts other keys push the node's counts out and start again.
	for i := range maxMatchCounts {
		other := c.matchKeys.get("default", selectorOf(sel("app", fmt.Sprintf("other-%d", i))))
		require.Equal(t, 0, countPodsMatching(ni, other))
		// A key no pod can match (its label is on no pod) keeps no count.
		require.NotContains(t, other.counts, ni)
	}
	everything := c.matchKeys.get("default", labels.Everything())
	for i := range maxMatchCounts {
		ns := fmt.Sprintf("ns-%d", i)
		require.Equal(t, 0, countPodsMatching(ni, c.matchKeys.get(ns, labels.Everything())))
	}
	require.LessOrEqual(t, len(ni.matchKeys), maxMatchCounts)
	require.NotContains(t, web.counts, ni, "pushed out by the later keys")
	require.Equal(t, 3, countPodsMatching(ni, web))
	require.Equal(t, 3, countPodsMatching(ni, everything))
	c.removeNode("n1")
	require.Contains(t, web.counts, ni, "the node stays while its pods do")
	for i := range 3 {
		p := labelled(fmt.Sprintf("p%d", i), "default", "app", "web")
		p.Spec.NodeName = "n1"
		require.NoError(t, c.removePod(model.Key(p)))
	}
	require.NotContains(t, c.nodes, "n1")
	require.NotContains(t, web.counts, ni)
	require.NotContains(t, everything.counts, ni)
}

// TestMatchKeyOnePair: only a selector that is exactly one label pair is counted from the
// node's label counts; any other requirement makes its first count a scan.
func TestMatchKeyOnePair(t *testing.T) {
	parse := func(s string) labels.Selector {
		sel, err := labels.Parse(s)
		require.NoError(t, err)
		return sel
	}
	tests := []struct {
		sel  labels.Selector
		want bool
	}{
		{parse("app=web"), true},
		{parse("app in (web)"), true},
		{parse("app==web"), true},
		{parse("app=web,tier=front"), false},
		{parse("app=web,tier"), false},
		{parse("app in (web,db)"), false},
		{parse("app notin (db)"), false},
		{parse("app"), false},
		{labels.Everything(), false},
		{labels.Nothing(), false},
	}
	for _, tc := range tests {
		assert.Equal(t, tc.want, newMatchKey("default", tc.sel).onePair, "%q", tc.sel.String())
	}
}
