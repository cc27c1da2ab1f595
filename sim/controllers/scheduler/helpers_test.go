package scheduler

import (
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/reconsim/reconsim/model"
)

// resources builds a ResourceList from name/quantity pairs ("cpu", "500m", "memory", "1Gi").
func resources(kv ...string) model.ResourceList {
	if len(kv) == 0 {
		return nil
	}
	l := model.ResourceList{}
	for i := 0; i+1 < len(kv); i += 2 {
		l[kv[i]] = resource.MustParse(kv[i+1])
	}
	return l
}

// testNode is a node with allocatable cpu, memory and pods.
func testNode(name, cpu, memory string, pods int) *model.Node {
	n := &model.Node{ObjectMeta: model.ObjectMeta{Name: name, UID: "uid-" + name}}
	n.Status.Allocatable = resources("cpu", cpu, "memory", memory)
	n.Status.Allocatable[model.ResourcePods] = *resource.NewQuantity(int64(pods), resource.DecimalSI)
	n.Status.Capacity = n.Status.Allocatable.DeepCopy()
	return n
}

// testPod is an unassigned pod in namespace "default" with one container requesting kv.
func testPod(name string, kv ...string) *model.Pod {
	return &model.Pod{
		ObjectMeta: model.ObjectMeta{Name: name, Namespace: "default", UID: "uid-" + name},
		Spec: model.PodSpec{
			SchedulerName: DefaultSchedulerName,
			Containers:    []model.Container{{Name: "c", Image: "app", Resources: model.ResourceRequirements{Requests: resources(kv...)}}},
		},
	}
}

// nodeInfoWith builds a NodeInfo for node holding pods (which are bound to it).
func nodeInfoWith(node *model.Node, pods ...*model.Pod) *NodeInfo {
	ni := newNodeInfo(node)
	for _, p := range pods {
		bound := p.DeepCopy()
		bound.Spec.NodeName = node.Name
		ni.addPod(model.Key(bound), bound)
	}
	return ni
}
