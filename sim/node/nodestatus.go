package node

import (
	"fmt"
	"maps"
	"slices"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim"
	"github.com/reconsim/reconsim/sim/client"
)

// nodeStatusJitterFactor jitters the node status loop (wait.JitterUntil(kl.syncNodeStatus,
// kl.nodeStatusUpdateFrequency, 0.04, true, ...) in pkg/kubelet/kubelet.go Run).
const nodeStatusJitterFactor = 0.04

// Registration retry back-off (pkg/kubelet/kubelet_node_status.go registerWithAPIServer):
// sleep 100ms before the first attempt, doubling up to 7s.
const (
	registerBackoffInitial = 100 * time.Millisecond
	registerBackoffMax     = 7 * time.Second
)

// Node condition reasons and messages (pkg/kubelet/nodestatus/setters.go).
var nodeConditionTemplates = []model.NodeCondition{
	{Type: model.NodeMemoryPressure, Status: model.ConditionFalse, Reason: "KubeletHasSufficientMemory", Message: "kubelet has sufficient memory available"},
	{Type: model.NodeDiskPressure, Status: model.ConditionFalse, Reason: "KubeletHasNoDiskPressure", Message: "kubelet has no disk pressure"},
	{Type: model.NodePIDPressure, Status: model.ConditionFalse, Reason: "KubeletHasSufficientPID", Message: "kubelet has sufficient PID available"},
	{Type: model.NodeReady, Status: model.ConditionTrue, Reason: "KubeletReady", Message: "kubelet is posting ready status"},
}

// nodeConditionEvents are the events the setters record when a condition is first set or
// changes status (recordEventFunc), keyed by type and new status.
var nodeConditionEvents = map[string]string{
	model.NodeMemoryPressure: "NodeHasSufficientMemory",
	model.NodeDiskPressure:   "NodeHasNoDiskPressure",
	model.NodePIDPressure:    "NodeHasSufficientPID",
	model.NodeReady:          "NodeReady",
}

// runNodeStatus is the node status loop: register first, then every
// NodeStatusUpdateFrequency (jittered) compute the node status and post it if it changed or
// NodeStatusReportFrequency passed since the last post.
func (kl *Kubelet) runNodeStatus(p *sim.Proc) {
	for !kl.deleted {
		kl.gate(p)
		kl.syncNodeStatus(p)
		if kl.deleted {
			return
		}
		p.Idle(kl.jitter(kl.cfg.NodeStatusUpdateFrequency, nodeStatusJitterFactor))
	}
}

func (kl *Kubelet) syncNodeStatus(p *sim.Proc) {
	if !kl.registered {
		kl.registerWithAPIServer(p)
	}
	kl.updateNodeStatus(p)
}

// registerWithAPIServer retries registration until it succeeds.
func (kl *Kubelet) registerWithAPIServer(p *sim.Proc) {
	step := registerBackoffInitial
	for {
		p.Idle(step)
		step = min(2*step, registerBackoffMax)
		kl.gate(p)
		if kl.tryRegisterWithAPIServer(p) {
			kl.registered = true
			return
		}
	}
}

// tryRegisterWithAPIServer creates the Node; if it exists already the kubelet takes it over
// as it is (upstream reconciles a few labels and resources, which the simulator does not
// model).
func (kl *Kubelet) tryRegisterWithAPIServer(p *sim.Proc) bool {
	// The Node is the kubelet's own (initialNode copies what it takes from the template) and
	// handed over. Its resource lists are the ones every status write shares (setNodeStatus):
	// the server's create assigns fields of the Node it is given but changes no list in place.
	node := kl.initialNode()
	created, err := kl.c.CreateShared(ctx(p), node)
	if err == nil {
		kl.emit("register", kl.nodeObject(), created.Meta().ResourceVersion, "created")
		return true
	}
	if !apierrors.IsAlreadyExists(err) {
		kl.emit("register-error", kl.nodeObject(), 0, err.Error())
		return false
	}
	// Only the existing Node's resourceVersion is read: no copy of it is needed.
	existing, err := kl.c.GetShared(ctx(p), model.KindNode, "", kl.nodeName)
	if err != nil {
		kl.emit("register-error", kl.nodeObject(), 0, err.Error())
		return false
	}
	kl.emit("register", kl.nodeObject(), existing.Meta().ResourceVersion, "node exists, taken over")
	return true
}

// initialNode is the Node the kubelet registers: the scenario's name, labels, taints and
// resources, with the status setters applied. It copies only what it takes from the
// kubelet's template (the maps and the taint list; a taint's TimeAdded stays shared, as
// nothing changes a taint in place): the template's status, which the setters replace, is not
// copied.
func (kl *Kubelet) initialNode() *model.Node {
	n := &model.Node{Spec: kl.node.Spec}
	n.Spec.Taints = slices.Clone(kl.node.Spec.Taints)
	n.Name = kl.nodeName
	n.Labels = maps.Clone(kl.node.Labels)
	n.Annotations = maps.Clone(kl.node.Annotations)
	kl.setNodeStatus(n)
	return n
}

// capacity returns the node's capacity and allocatable (see nodeResources). The lists are
// shared by every caller and must not be mutated; the client copies them into every write.
func (kl *Kubelet) capacity() (capacity, allocatable model.ResourceList) {
	return kl.capacityList, kl.allocatableList
}

// nodeResources computes the node's capacity and allocatable, with the pod count defaulting
// to MaxPods (the kubelet's MachineInfo and allocatable setters). Both depend only on the Node
// given to New and the Config, so New computes them once.
func (kl *Kubelet) nodeResources() (capacity, allocatable model.ResourceList) {
	capacity = kl.node.Status.Capacity.DeepCopy()
	if capacity == nil {
		capacity = model.ResourceList{}
	}
	if _, ok := capacity[model.ResourcePods]; !ok {
		capacity[model.ResourcePods] = *resource.NewQuantity(int64(kl.cfg.MaxPods), resource.DecimalSI)
	}
	allocatable = kl.node.Status.Allocatable.DeepCopy()
	if allocatable == nil {
		allocatable = capacity.DeepCopy()
	}
	if _, ok := allocatable[model.ResourcePods]; !ok {
		allocatable[model.ResourcePods] = capacity[model.ResourcePods]
	}
	return capacity, allocatable
}

// setNodeStatus applies the status setters to node: capacity and allocatable, and the
// pressure and Ready conditions with a heartbeat of now. A condition whose status changes
// (or that is new) gets a transition time of now and records its event.
func (kl *Kubelet) setNodeStatus(node *model.Node) {
	now := kl.k.Now()
	node.Status.Capacity, node.Status.Allocatable = kl.capacity()
	for _, tmpl := range nodeConditionTemplates {
		var cur *model.NodeCondition
		for i := range node.Status.Conditions {
			if node.Status.Conditions[i].Type == tmpl.Type {
				cur = &node.Status.Conditions[i]
			}
		}
		switch {
		case cur == nil:
			node.Status.Conditions = append(node.Status.Conditions, model.NodeCondition{Type: tmpl.Type, Status: tmpl.Status, LastTransitionTime: now})
			cur = &node.Status.Conditions[len(node.Status.Conditions)-1]
			// The pressure setters record their event when they create the condition; the
			// Ready setter only when an existing condition changes.
			if tmpl.Type != model.NodeReady {
				kl.nodeEvent(nodeConditionEvents[tmpl.Type])
			}
		case cur.Status != tmpl.Status:
			cur.LastTransitionTime = now
			kl.nodeEvent(nodeConditionEvents[tmpl.Type])
		}
		cur.Status = tmpl.Status
		cur.Reason = tmpl.Reason
		cur.Message = tmpl.Message
		cur.LastHeartbeatTime = now
	}
}

func (kl *Kubelet) nodeEvent(reason string) {
	kl.rec.Eventf(kl.node, model.EventTypeNormal, reason, "Node %s status is now: %s", kl.nodeName, reason)
}

// updateNodeStatus tries NodeStatusUpdateRetry times to post the node status.
func (kl *Kubelet) updateNodeStatus(p *sim.Proc) {
	for i := 0; i < kl.cfg.NodeStatusUpdateRetry; i++ {
		kl.gate(p)
		err := kl.tryUpdateNodeStatus(p)
		if err == nil || kl.deleted {
			return
		}
		kl.emit("node-status-error", kl.nodeObject(), 0, err.Error())
	}
}

// tryUpdateNodeStatus GETs the Node, applies the setters, and writes the status if it
// changed (heartbeat times aside) or NodeStatusReportFrequency passed since the last write.
// A Node that is gone stops the kubelet.
func (kl *Kubelet) tryUpdateNodeStatus(p *sim.Proc) error {
	obj, err := kl.c.GetShared(ctx(p), model.KindNode, "", kl.nodeName)
	if err != nil {
		if apierrors.IsNotFound(err) {
			kl.nodeDeleted()
		}
		return err
	}
	current, ok := client.ObjectAs[*model.Node](obj)
	if !ok {
		return fmt.Errorf("node %s: got %T", kl.nodeName, obj)
	}
	now := kl.k.Now()
	reportDue := !kl.hasReported || now >= kl.lastReportTime.Add(kl.cfg.NodeStatusReportFrequency)
	if !reportDue && current == kl.unchangedNode {
		// The setters found this very Node unchanged at an earlier check, and a stored Node
		// never changes: they would change its heartbeat times only (and record no event).
		// In an idle cluster this is every check but the one after each write.
		return nil
	}
	// current is the server's stored Node, shared and never modified here: the setters apply
	// to a shallow copy of it whose conditions are the kubelet's own (the setters change them
	// in place) and whose resource lists the setters replace rather than change. The rest of
	// the copy is the stored object's, read only; UpdateStatus sends a deep copy. So the
	// kubelet pays for a copy of the Node only when it writes, as upstream's GET pays for
	// decoding on every check.
	node := &kl.nodeScratch
	*node = *current
	node.Status.Conditions = append(kl.conditionsScratch[:0], current.Status.Conditions...)
	kl.setNodeStatus(node)
	kl.conditionsScratch = node.Status.Conditions[:0]
	changed := reportDue || kl.nodeStatusChanged(current, &node.Status)
	if !changed {
		*node = model.Node{} // hold no reference to the stored object between checks
		return nil
	}
	// The write hands the server a Node of its own (UpdateStatusShared): the conditions the
	// setters made, copied out of the scratch slice, and the rest shared with the stored Node
	// it was read from, which the server keeps as it is (docs/architecture.md, "Object
	// ownership"). The deep copies of the request and of the answer that UpdateStatus makes
	// were 34 MiB of scale-5k's 1,789 MiB allocated (BenchmarkScale5kHeap), and the versions
	// the watch history keeps now share what did not change (live heap 829 -> 815 MiB).
	write := new(model.Node)
	*write = *node
	write.Status.Conditions = slices.Clone(node.Status.Conditions)
	*node = model.Node{}
	updated, err := kl.c.UpdateStatusShared(ctx(p), write)
	if err != nil {
		return err
	}
	kl.hasReported = true
	kl.lastReportTime = now
	kl.emit("node-status", kl.nodeObject(), updated.Meta().ResourceVersion, "ready=true")
	return nil
}

// nodeStatusHasChanged compares two node statuses ignoring the conditions' heartbeat times
// (kubelet_node_status.go nodeStatusHasChanged).
func nodeStatusHasChanged(original, updated *model.NodeStatus) bool {
	return conditionsHaveChanged(original.Conditions, updated.Conditions) || !resourcesEqual(original, updated)
}

// nodeStatusChanged is nodeStatusHasChanged(&current.Status, updated) for the stored Node
// current and the status the setters made from it. What the setters make depends on current
// alone (the templates and the kubelet's capacity and allocatable never change) but for the
// heartbeat times, which the comparison ignores, and a stored Node never changes: once current
// compared unchanged, it is not compared again (kl.unchangedNode), nor, while the server keeps
// it, are the setters applied to it again (tryUpdateNodeStatus).
func (kl *Kubelet) nodeStatusChanged(current *model.Node, updated *model.NodeStatus) bool {
	if current == kl.unchangedNode {
		return false
	}
	if nodeStatusHasChanged(&current.Status, updated) {
		return true
	}
	kl.unchangedNode = current
	return false
}

func conditionsHaveChanged(original, updated []model.NodeCondition) bool {
	if len(original) != len(updated) {
		return true
	}
	for i := range original {
		a, b := original[i], updated[i]
		a.LastHeartbeatTime, b.LastHeartbeatTime = 0, 0
		if a != b {
			return true
		}
	}
	return false
}

func resourcesEqual(original, updated *model.NodeStatus) bool {
	return model.ResourceListsEqual(original.Capacity, updated.Capacity) && model.ResourceListsEqual(original.Allocatable, updated.Allocatable)
}

// canAdmitPod is the resource part of the kubelet's admission: the pod must fit the node's
// allocatable pod count, cpu and memory next to the pods already admitted and not finished
// (noderesources Fits). The reason and message have upstream's shape: reason
// "OutOf<resource>", message "Node didn't have enough resource: ...".
func (kl *Kubelet) canAdmitPod(w *podWorker) (bool, string, string) {
	_, alloc := kl.capacity()
	var usedCPU, usedMem, usedPods int64
	for _, o := range kl.workers { //detlint:ordered sums do not depend on the order
		if o == w || !o.admitted || o.terminated {
			continue
		}
		cpu, mem := o.requests()
		usedCPU += cpu
		usedMem += mem
		usedPods++
	}
	insufficient := func(res string, requested, used, capacity int64) (bool, string, string) {
		return false, "OutOf" + res, fmt.Sprintf("Node didn't have enough resource: %s, requested: %d, used: %d, capacity: %d", res, requested, used, capacity)
	}
	if q, ok := alloc[model.ResourcePods]; ok && usedPods+1 > q.Value() {
		return insufficient(model.ResourcePods, 1, usedPods, q.Value())
	}
	reqCPU, reqMem := w.requests()
	if q, ok := alloc[model.ResourceCPU]; ok && reqCPU > 0 && reqCPU > q.MilliValue()-usedCPU {
		return insufficient(model.ResourceCPU, reqCPU, usedCPU, q.MilliValue())
	}
	if q, ok := alloc[model.ResourceMemory]; ok && reqMem > 0 && reqMem > q.Value()-usedMem {
		return insufficient(model.ResourceMemory, reqMem, usedMem, q.Value())
	}
	return true, "", ""
}

// podRequests returns a pod's cpu (millicores) and memory (bytes) requests as the resource
// helpers' PodRequests sums them, sidecars included (model.PodCPUMemoryRequests).
func podRequests(pod *model.Pod) (cpu, mem int64) { return model.PodCPUMemoryRequests(pod) }
