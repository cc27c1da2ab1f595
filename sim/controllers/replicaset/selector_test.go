package replicaset

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/reconsim/reconsim/model"
)

// TestPodSelectorAgreesWithLabelSelector checks the direct matchLabels comparison against the
// converted selector on random selectors and label maps, including nil and empty selectors and
// ones with expressions (which take the generic path).
func TestPodSelectorAgreesWithLabelSelector(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	keys := []string{"app", "tier", "env", "k8s.io/name"}
	values := []string{"a", "b", ""}
	randomMap := func() map[string]string {
		if rng.IntN(5) == 0 {
			return nil
		}
		m := map[string]string{}
		for _, k := range keys {
			if rng.IntN(2) == 0 {
				m[k] = values[rng.IntN(len(values))]
			}
		}
		return m
	}
	for i := 0; i < 5000; i++ {
		var ls *metav1.LabelSelector
		if rng.IntN(10) > 0 {
			ls = &metav1.LabelSelector{MatchLabels: randomMap()}
			if rng.IntN(4) == 0 {
				ls.MatchExpressions = []metav1.LabelSelectorRequirement{{Key: keys[rng.IntN(len(keys))], Operator: metav1.LabelSelectorOpExists}}
			}
		}
		sel, err := metav1.LabelSelectorAsSelector(ls)
		require.NoError(t, err)
		ps := newPodSelector(ls, sel)
		for j := 0; j < 10; j++ {
			podLabels := randomMap()
			require.Equal(t, sel.Matches(labels.Set(podLabels)), ps.matches(podLabels), "selector %v, labels %v", ls, podLabels)
		}
	}
}

// TestTemplatePairsAgreeWithAsSelector checks the fully-labeled count's direct comparison
// (hasAllPairs, and the templateLabelSelector its matcher uses) against upstream's
// labels.Set(template).AsSelectorPreValidated().
func TestTemplatePairsAgreeWithAsSelector(t *testing.T) {
	cases := []struct {
		template, pod map[string]string
	}{
		{nil, nil},
		{nil, map[string]string{"a": "1"}},
		{map[string]string{"a": "1"}, nil},
		{map[string]string{"a": "1"}, map[string]string{"a": "1", "b": "2"}},
		{map[string]string{"a": "1", "b": "2"}, map[string]string{"a": "1"}},
		{map[string]string{"a": ""}, map[string]string{}},
		{map[string]string{"a": ""}, map[string]string{"a": ""}},
		{map[string]string{"a": "1"}, map[string]string{"a": "2"}},
	}
	for _, c := range cases {
		want := labels.Set(c.template).AsSelectorPreValidated().Matches(labels.Set(c.pod))
		require.Equal(t, want, hasAllPairs(c.pod, labelPairs(c.template)), "template %v pod %v", c.template, c.pod)
		require.Equal(t, want, templateLabelSelector(labelPairs(c.template)).matches(c.pod), "template %v pod %v", c.template, c.pod)
		if len(c.template) == 0 {
			require.Equal(t, want, templateLabelSelector(nil).matches(c.pod), "nil pairs, pod %v", c.pod)
		}
	}
}

// TestSelectorOfIsPerVersion checks that a ReplicaSet version's selector is converted once and
// that a new version (another object) is converted again, as is an invalid selector's error.
func TestSelectorOfIsPerVersion(t *testing.T) {
	rsc := &Controller{}
	v1 := &model.ReplicaSet{Spec: model.ReplicaSetSpec{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "a"}}}}
	ps, err := rsc.selectorOf("ns/rs", v1)
	require.NoError(t, err)
	require.True(t, ps.matches(map[string]string{"app": "a"}))
	again, _ := rsc.selectorOf("ns/rs", v1)
	require.Same(t, &ps.pairs[0], &again.pairs[0], "the same version is not converted again")

	v2 := &model.ReplicaSet{Spec: model.ReplicaSetSpec{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "b"}}}}
	ps, err = rsc.selectorOf("ns/rs", v2)
	require.NoError(t, err)
	require.False(t, ps.matches(map[string]string{"app": "a"}))
	require.True(t, ps.matches(map[string]string{"app": "b"}))

	bad := &model.ReplicaSet{Spec: model.ReplicaSetSpec{Selector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "app", Operator: "Bogus"}}}}}
	_, err = rsc.selectorOf("ns/rs", bad)
	require.Error(t, err)
	_, err = rsc.selectorOf("ns/rs", bad)
	require.Error(t, err)
}

// TestLabelMatcherAnswersEverySetAsTheSelector asks a matcher about label sets in runs and in
// alternation (the set asked last, the memo, a set never seen) and checks each answer against
// the selector.
func TestLabelMatcherAnswersEverySetAsTheSelector(t *testing.T) {
	ls := &metav1.LabelSelector{MatchLabels: map[string]string{"app": "a"}}
	sel, err := metav1.LabelSelectorAsSelector(ls)
	require.NoError(t, err)
	sets := []*labelSet{
		{labels: map[string]string{"app": "a"}},
		{labels: map[string]string{"app": "b"}},
		{labels: map[string]string{"app": "a", "tier": "web"}},
		{labels: nil},
	}
	m := newLabelMatcher(newPodSelector(ls, sel))
	for _, i := range []int{0, 0, 1, 1, 0, 2, 1, 3, 3, 0, 2} {
		want := sel.Matches(labels.Set(sets[i].labels))
		require.Equal(t, want, m.matches(&podFacts{labels: sets[i]}), "set %d", i)
	}
}
