package replicaset

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/reconsim/reconsim/model"
)

// TestSelectorOfTemplatePairsFollowTheVersion holds the template labels selectorOf keeps to
// labelPairs of the version synced, over seeded versions of one ReplicaSet that change its
// status (the pairs are kept), its template labels or its selector (they are derived again).
func TestSelectorOfTemplatePairsFollowTheVersion(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 0))
	randomLabels := func() map[string]string {
		m := map[string]string{"app": "web"}
		for i := r.IntN(3); i > 0; i-- {
			m[fmt.Sprint("k", r.IntN(3))] = fmt.Sprint("v", r.IntN(2))
		}
		return m
	}
	rsc := &Controller{}
	rs := &model.ReplicaSet{}
	rs.Namespace, rs.Name = testNS, "web"
	rs.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}
	rs.Spec.Template.Labels = randomLabels()
	for v := range 300 {
		next := *rs
		switch r.IntN(4) {
		case 0:
			next.Spec.Template.Labels = randomLabels()
		case 1:
			next.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web", "k0": fmt.Sprint("v", r.IntN(2))}}
		default:
			next.Status.Replicas = int32(v)
		}
		rs = &next
		ps, err := rsc.selectorOf(model.Key(rs), rs)
		require.NoError(t, err)
		require.Equal(t, labelPairs(rs.Spec.Template.Labels), ps.templatePairs, "version %d", v)
	}
}
