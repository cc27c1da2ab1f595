package scheduler

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/reconsim/reconsim/model"
)

// benchCache builds the scheduler cache of the thundering-herd shape: 500 nodes (4 cpu, 16Gi,
// 110 pods) with 30 bound pods each, of which the first 200 carry the not-ready/unreachable
// taints the node lifecycle controller adds to failed nodes.
func benchCache() *schedulerCache {
	c := newSchedulerCache()
	now := model.Ptr(time.Duration(0))
	_ = now
	for i := range 500 {
		n := testNode(fmt.Sprintf("node-%03d", i), "4", "16Gi", 110)
		n.Labels = map[string]string{"topology.kubernetes.io/zone": fmt.Sprintf("z%d", i%3)}
		if i < 200 {
			n.Spec.Taints = []model.Taint{
				{Key: model.TaintNodeUnreachable, Effect: model.TaintEffectNoSchedule},
				{Key: model.TaintNodeUnreachable, Effect: model.TaintEffectNoExecute},
			}
		}
		c.addNode(n)
		for j := range 30 {
			p := testPod(fmt.Sprintf("%s-pod-%02d", n.Name, j), "cpu", "100m", "memory", "128Mi")
			p.Spec.NodeName = n.Name
			if err := c.addPod(model.Key(p), p); err != nil {
				panic(err)
			}
		}
	}
	return c
}

// defaultTolerations are what the DefaultTolerationSeconds admission plugin gives every pod.
var defaultTolerations = []model.Toleration{
	{Key: model.TaintNodeNotReady, Operator: TolerationOpExists, Effect: model.TaintEffectNoExecute, TolerationSeconds: model.Ptr(int64(300))},
	{Key: model.TaintNodeUnreachable, Operator: TolerationOpExists, Effect: model.TaintEffectNoExecute, TolerationSeconds: model.Ptr(int64(300))},
}

// benchSchedulePod measures scheduling pod over the cache's nodes, one scheduling cycle an
// iteration; every cycle must find a host. The cycles share match keys, as a scheduler's do.
func benchSchedulePod(b *testing.B, c *schedulerCache, pod *model.Pod) {
	r := rand.New(rand.NewPCG(1, 2))
	next := 0
	b.ReportAllocs()
	for b.Loop() {
		s := newCycleState(pod)
		s.matchKeys = c.matchKeys
		res, fitErr, _, err := schedulePod(s, c.nodeList(), 0, &next, r)
		if err != nil || fitErr != nil || res.host == "" {
			b.Fatalf("result %+v, %v, %v", res, fitErr, err)
		}
	}
}

// BenchmarkSchedulePod500 measures the filter and score steps of one scheduling cycle over
// 500 nodes, 200 of them tainted unreachable (the replacement pods of thundering-herd).
func BenchmarkSchedulePod500(b *testing.B) {
	c := benchCache()
	pod := testPod("new", "cpu", "100m", "memory", "128Mi")
	pod.Spec.Tolerations = defaultTolerations
	benchSchedulePod(b, c, pod)
}

// BenchmarkCacheUpdatePod measures the scheduler's handling of a status update of a bound pod
// (most pod updates in a running cluster): the cache swaps the pod's version on its node.
func BenchmarkCacheUpdatePod(b *testing.B) {
	c := benchCache()
	old := c.podStates["default/node-123-pod-07"].pod
	versions := [2]*model.Pod{old.DeepCopy(), old.DeepCopy()}
	versions[1].Status.Phase = model.PodRunning
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		cur := versions[i%2]
		if err := c.updatePod(model.Key(cur), old, cur); err != nil {
			b.Fatal(err)
		}
		old = cur
		i++
	}
}

// BenchmarkNodeUpdateThenList measures a node status update (every node posts one every few
// seconds) followed by the node list a scheduling cycle takes.
func BenchmarkNodeUpdateThenList(b *testing.B) {
	c := benchCache()
	n := c.nodes["node-321"].node
	versions := [2]*model.Node{n.DeepCopy(), n.DeepCopy()}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		c.updateNode(versions[i%2])
		if len(c.nodeList()) != 500 {
			b.Fatal("lost a node")
		}
		i++
	}
}

// BenchmarkSchedulePod500Spread is BenchmarkSchedulePod500 for a pod scored as a ReplicaSet's
// pods are, with the system default spreading constraints (hostname maxSkew 3, zone maxSkew 5,
// ScheduleAnyway) over a selector that matches all 15,000 bound pods: PodTopologySpread's
// PreScore counts them over every node.
func BenchmarkSchedulePod500Spread(b *testing.B) {
	c := benchCache()
	for _, ni := range c.nodeList() {
		for _, p := range ni.pods {
			p.pod.Labels = map[string]string{"app": "web"}
		}
	}
	pod := testPod("new", "cpu", "100m", "memory", "128Mi")
	pod.Labels = map[string]string{"app": "web"}
	pod.Spec.Tolerations = defaultTolerations
	for _, dc := range systemDefaultConstraints {
		dc.LabelSelector = &metav1.LabelSelector{MatchLabels: pod.Labels}
		pod.Spec.TopologySpreadConstraints = append(pod.Spec.TopologySpreadConstraints, dc)
	}
	benchSchedulePod(b, c, pod)
}
