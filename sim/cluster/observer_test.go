package cluster

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reconsim/reconsim/sim"
)

// TestSampleObjectIsSampleByName holds sampleObject, which finds an object's series by its
// parts, to sample by the series' full name: the same series, the same points, the same order
// of first appearance.
func TestSampleObjectIsSampleByName(t *testing.T) {
	cases := []struct {
		prefix, namespace, name, field string
		want                           string
	}{
		{"replicaset", "default", "web", "ready", "replicaset.default/web.ready"},
		{"hpa", "prod", "api", "desired", "hpa.prod/api.desired"},
		{"daemonset", "", "agent", "ready", "daemonset.agent.ready"},
	}
	for _, c := range cases {
		t.Run(c.want, func(t *testing.T) {
			o := newObserver(&world{k: sim.New(1)})
			o.sample("nodes.ready", "nodes", 3)
			o.sampleObject(c.prefix, c.namespace, c.name, c.field, "pods", 1)
			o.sample(c.want, "pods", 2)
			o.sampleObject(c.prefix, c.namespace, c.name, c.field, "pods", 2)
			o.sampleObject(c.prefix, c.namespace, c.name, c.field, "pods", 5)
			require.Equal(t, []string{"nodes.ready", c.want}, o.seriesOrder)
			s := o.series[c.want]
			require.NotNil(t, s)
			assert.Equal(t, "pods", s.Unit)
			// Samples at one instant keep the latest value in one point.
			require.Len(t, s.Points, 1)
			assert.Equal(t, 5.0, s.Points[0].V)
		})
	}
}
