package nodeaffinity

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/reconsim/reconsim/model"
)

func node(name string, labels map[string]string) *model.Node {
	n := &model.Node{}
	n.Name, n.Labels = name, labels
	return n
}

func required(terms ...model.NodeSelectorTerm) *model.Affinity {
	return &model.Affinity{NodeAffinity: &model.NodeAffinity{
		RequiredDuringSchedulingIgnoredDuringExecution: &model.NodeSelector{NodeSelectorTerms: terms}}}
}

func expr(key, op string, values ...string) model.NodeSelectorTerm {
	return model.NodeSelectorTerm{MatchExpressions: []model.NodeSelectorRequirement{{Key: key, Operator: op, Values: values}}}
}

func field(op string, values ...string) model.NodeSelectorTerm {
	return model.NodeSelectorTerm{MatchFields: []model.NodeSelectorRequirement{{Key: model.ObjectNameField, Operator: op, Values: values}}}
}

func TestRequiredNodeAffinity(t *testing.T) {
	gpu := node("n1", map[string]string{"gpu": "true", "zone": "a", "cores": "8"})
	plain := node("n2", map[string]string{"zone": "b"})
	tests := []struct {
		name       string
		spec       model.PodSpec
		gpu, plain bool
		matchesAll bool
	}{
		{name: "no constraint", gpu: true, plain: true, matchesAll: true},
		{name: "nodeSelector", spec: model.PodSpec{NodeSelector: map[string]string{"gpu": "true"}}, gpu: true},
		{name: "terms are ORed", spec: model.PodSpec{Affinity: required(expr("gpu", model.NodeSelectorOpExists), expr("zone", model.NodeSelectorOpIn, "b"))}, gpu: true, plain: true},
		{name: "nodeSelector AND affinity", spec: model.PodSpec{NodeSelector: map[string]string{"zone": "b"}, Affinity: required(expr("gpu", model.NodeSelectorOpExists))}},
		{name: "DoesNotExist", spec: model.PodSpec{Affinity: required(expr("gpu", model.NodeSelectorOpDoesNotExist))}, plain: true},
		{name: "Gt", spec: model.PodSpec{Affinity: required(expr("cores", model.NodeSelectorOpGt, "4"))}, gpu: true},
		{name: "Lt", spec: model.PodSpec{Affinity: required(expr("cores", model.NodeSelectorOpLt, "4"))}},
		{name: "NotIn", spec: model.PodSpec{Affinity: required(expr("zone", model.NodeSelectorOpNotIn, "a"))}, plain: true},
		{name: "matchFields In", spec: model.PodSpec{Affinity: required(field(model.NodeSelectorOpIn, "n2"))}, plain: true},
		{name: "matchFields NotIn", spec: model.PodSpec{Affinity: required(field(model.NodeSelectorOpNotIn, "n2"))}, gpu: true},
		{name: "an empty term selects nothing", spec: model.PodSpec{Affinity: required(model.NodeSelectorTerm{})}},
		{name: "no terms select nothing", spec: model.PodSpec{Affinity: required()}},
		{name: "a bad operator's term matches nothing, the others still do",
			spec: model.PodSpec{Affinity: required(expr("gpu", "Near"), expr("zone", model.NodeSelectorOpIn, "b"))}, plain: true},
		{name: "matchFields wants one value", spec: model.PodSpec{Affinity: required(field(model.NodeSelectorOpIn, "n1", "n2"))}},
		{name: "matchFields only takes metadata.name",
			spec: model.PodSpec{Affinity: required(model.NodeSelectorTerm{MatchFields: []model.NodeSelectorRequirement{{Key: "spec.unschedulable", Operator: model.NodeSelectorOpIn, Values: []string{"n1"}}}})}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := GetRequiredNodeAffinity(&tc.spec)
			assert.Equal(t, tc.gpu, r.Match(gpu), "gpu node")
			assert.Equal(t, tc.plain, r.Match(plain), "plain node")
			assert.Equal(t, tc.matchesAll, r.MatchesAll())
		})
	}
}

func TestPreferredTerms(t *testing.T) {
	spec := model.PodSpec{Affinity: &model.Affinity{NodeAffinity: &model.NodeAffinity{
		PreferredDuringSchedulingIgnoredDuringExecution: []model.PreferredSchedulingTerm{
			{Weight: 5, Preference: expr("gpu", model.NodeSelectorOpExists)},
			{Weight: 3, Preference: expr("zone", model.NodeSelectorOpIn, "a", "b")},
			{Weight: 0, Preference: expr("zone", model.NodeSelectorOpIn, "a")}, // weight 0: dropped
			{Weight: 7, Preference: model.NodeSelectorTerm{}},                  // empty: dropped
			{Weight: 9, Preference: expr("zone", "Near")},                      // does not parse: dropped
		},
	}}}
	terms := GetPreferredTerms(&spec)
	assert.Len(t, terms, 2)
	assert.Equal(t, int64(8), ScorePreferred(terms, node("n1", map[string]string{"gpu": "", "zone": "a"})))
	assert.Equal(t, int64(3), ScorePreferred(terms, node("n2", map[string]string{"zone": "b"})))
	assert.Equal(t, int64(0), ScorePreferred(terms, node("n3", nil)))
	assert.Empty(t, GetPreferredTerms(&model.PodSpec{}))
}
