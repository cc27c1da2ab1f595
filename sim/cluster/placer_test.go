package cluster

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/scenarios"
)

// TestPlacerHeapsAgreeWithTheScan is a property test: on random clusters (node classes that
// differ in zone, size, taints and cordons, some nodes named by hostname selectors, pods of
// random size, selectors and tolerations) the class heaps place every pod on the node the
// plain scan of every node picks, and fail where it fails.
func TestPlacerHeapsAgreeWithTheScan(t *testing.T) {
	for seed := uint64(1); seed <= 200; seed++ {
		r := rand.New(rand.NewPCG(seed, 7))
		nodes := randomPlacerNodes(r)
		heaps, scan := newPlacerOf(nodes), newPlacerOf(cloneNodes(nodes))
		for i := range 40 + r.IntN(200) {
			pod := randomPlacerPod(r, len(nodes), i)
			got, gotErr := heaps.place(pod)
			want, wantErr := scan.placeByScan(pod, scan.nodes)
			require.Equal(t, wantErr != nil, gotErr != nil, "seed %d pod %d: errors %v / %v", seed, i, wantErr, gotErr)
			if wantErr != nil {
				require.Equal(t, wantErr.Error(), gotErr.Error(), "seed %d pod %d", seed, i)
				continue
			}
			require.Equal(t, want, got, "seed %d pod %d (%+v)", seed, i, pod.Spec)
		}
	}
}

func randomPlacerNodes(r *rand.Rand) []*model.Node {
	var nodes []*model.Node
	for g := range 1 + r.IntN(5) {
		cpu := []string{"2", "4", "16"}[r.IntN(3)]
		mem := []string{"4Gi", "8Gi", "64Gi"}[r.IntN(3)]
		pods := []int64{3, 10, 110}[r.IntN(3)]
		var taints []model.Taint
		if r.IntN(4) == 0 {
			taints = []model.Taint{{Key: "dedicated", Value: "gpu", Effect: model.TaintEffectNoSchedule}}
		}
		cordoned := r.IntN(8) == 0
		zone := fmt.Sprintf("zone-%d", r.IntN(3))
		for i := range 1 + r.IntN(12) {
			name := fmt.Sprintf("g%d-%d", g, i)
			nodes = append(nodes, &model.Node{
				ObjectMeta: model.ObjectMeta{Name: name, Labels: map[string]string{
					scenarios.LabelHostname: name, "topology.kubernetes.io/zone": zone}},
				Spec: model.NodeSpec{Taints: taints, Unschedulable: cordoned},
				Status: model.NodeStatus{Allocatable: model.ResourceList{
					model.ResourceCPU: resource.MustParse(cpu), model.ResourceMemory: resource.MustParse(mem),
					model.ResourcePods: *resource.NewQuantity(pods, resource.DecimalSI)}},
			})
		}
	}
	// Interleave the groups, so that node order and class order differ.
	r.Shuffle(len(nodes), func(i, j int) { nodes[i], nodes[j] = nodes[j], nodes[i] })
	return nodes
}

func cloneNodes(nodes []*model.Node) []*model.Node {
	out := make([]*model.Node, len(nodes))
	for i, n := range nodes {
		out[i] = n.DeepCopy()
	}
	return out
}

func randomPlacerPod(r *rand.Rand, nodeCount, i int) *model.Pod {
	pod := &model.Pod{ObjectMeta: model.ObjectMeta{Name: fmt.Sprintf("p-%d", i), Namespace: "default"}}
	c := model.Container{Name: "app", Resources: model.ResourceRequirements{Requests: model.ResourceList{
		model.ResourceCPU:    resource.MustParse([]string{"0", "100m", "500m", "1", "3"}[r.IntN(5)]),
		model.ResourceMemory: resource.MustParse([]string{"0", "128Mi", "1Gi", "3Gi"}[r.IntN(4)]),
	}}}
	pod.Spec.Containers = []model.Container{c}
	switch r.IntN(6) {
	case 0:
		pod.Spec.NodeSelector = map[string]string{"topology.kubernetes.io/zone": fmt.Sprintf("zone-%d", r.IntN(3))}
	case 1:
		pod.Spec.NodeSelector = map[string]string{scenarios.LabelHostname: fmt.Sprintf("g0-%d", r.IntN(max(nodeCount, 1)))}
	}
	if r.IntN(3) == 0 {
		pod.Spec.Tolerations = []model.Toleration{{Key: "dedicated", Operator: "Exists"}}
	}
	return pod
}

// TestCheckFindsWhatTheRunFinds checks that Check, which places a settled ReplicaSet's
// replicas after the first instead of creating them, reports what building the world for a
// run reports, word for word, and nothing where the run builds.
func TestCheckFindsWhatTheRunFinds(t *testing.T) {
	for _, tc := range []struct {
		name  string
		edit  func(scn *scenarios.Scenario)
		fails bool
	}{
		{"fits", func(*scenarios.Scenario) {}, false},
		{"too many replicas", func(scn *scenarios.Scenario) { setReplicas(scn, 0, 400) }, true},
		{"the second workload does not fit", func(scn *scenarios.Scenario) {
			second := scn.Objects[0]
			rs := second.Objects[0].DeepCopyObject().(*model.ReplicaSet)
			rs.Name = "api"
			second.Objects = []model.Object{rs}
			scn.Objects = append(scn.Objects, second)
			setReplicas(scn, len(scn.Objects)-1, 30)
		}, true},
		// Three 4-CPU nodes hold 24 replicas of 500m: the last that fits, and the first that
		// does not.
		{"exactly full", func(scn *scenarios.Scenario) { setReplicas(scn, 0, 24) }, false},
		{"one replica too many", func(scn *scenarios.Scenario) { setReplicas(scn, 0, 25) }, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			scn := loadBuiltin(t, "node-failure")
			tc.edit(scn)
			checked := Check(scn)
			w, err := build(scn, scn.Seed, Options{})
			require.NoError(t, err)
			built := w.createObjects()
			require.Equal(t, tc.fails, built != nil, "the run's build: %v", built)
			require.Equal(t, fmt.Sprint(built), fmt.Sprint(checked))
		})
	}
}

// setReplicas sets the replicas of the ReplicaSet of scn.Objects[i].
func setReplicas(scn *scenarios.Scenario, i int, replicas int32) {
	scn.Objects[i].Objects[0].(*model.ReplicaSet).Spec.Replicas = &replicas
}

// TestMatchesNodeSelectorIsSelectorFromSet: the placer's node selector check agrees with
// labels.SelectorFromSet(sel).Matches on every pair of these selectors and label sets.
func TestMatchesNodeSelectorIsSelectorFromSet(t *testing.T) {
	sets := []map[string]string{
		nil,
		{},
		{"zone": "a"},
		{"zone": "b"},
		{"zone": ""},
		{"zone": "a", "disk": "ssd"},
		{"disk": "ssd"},
		{"zone": "a", "disk": "hdd", "gpu": "true"},
	}
	matches := 0
	for _, sel := range sets {
		for _, l := range sets {
			want := labels.SelectorFromSet(sel).Matches(labels.Set(l))
			assert.Equal(t, want, matchesNodeSelector(sel, l), "selector %v, labels %v", sel, l)
			if want {
				matches++
			}
		}
	}
	assert.Greater(t, matches, len(sets), "some pairs match and some do not")
	assert.Less(t, matches, len(sets)*len(sets), "some pairs match and some do not")
}

// TestSettledPodIPIsTheFormat: settledPodIP writes what fmt did before it.
func TestSettledPodIPIsTheFormat(t *testing.T) {
	for _, n := range []int{0, 1, 255, 256, 257, 65535, 65536, 150_000, 300_000, 64 << 16, 64<<16 + 1, 1<<30 + 12345} {
		want := fmt.Sprintf("10.%d.%d.%d", 192+(n>>16)%64, (n>>8)%256, n%256)
		assert.Equal(t, want, settledPodIP(n), "pod %d", n)
	}
}
