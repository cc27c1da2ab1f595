package cluster

import (
	"container/heap"
	"fmt"
	"math"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"

	"k8s.io/apimachinery/pkg/labels"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/scenarios"
	"github.com/reconsim/reconsim/sim/client"
	"github.com/reconsim/reconsim/sim/controllers/daemonset"
	"github.com/reconsim/reconsim/sim/controllers/deployment"
	"github.com/reconsim/reconsim/sim/controllers/endpointslice"
	"github.com/reconsim/reconsim/sim/controllers/statefulset"
	"github.com/reconsim/reconsim/vtime"
)

// InputError is a problem with the scenario's content that loading could not catch (an object
// the API server refuses at time 0, for example). The CLI reports it like a load error.
type InputError struct{ Err error }

func (e *InputError) Error() string { return e.Err.Error() }
func (e *InputError) Unwrap() error { return e.Err }

// createObjects creates the scenario's objects at time 0, directly in the store (as if applied
// just before the simulation starts). Settled objects start out converged.
func (w *world) createObjects() error {
	pl := newPlacer(w)
	w.reservePods()
	type settledService struct {
		svc *model.Service
		pos model.Position
	}
	var services []settledService
	// CustomResourceDefinitions and PriorityClasses first, wherever they are written: the
	// custom resources a CRD defines can only be created once it exists (as `helm install`
	// installs CRDs before the rest), and the Priority admission plugin resolves the pods'
	// classes when they are created, while a scenario's objects all exist from the start
	// whatever their order.
	for _, src := range w.scn.Objects {
		for _, obj := range src.Objects {
			if !createdFirst(obj) {
				continue
			}
			if _, err := w.srv.Store().Create(obj.DeepCopyObject()); err != nil {
				return &InputError{Err: fmt.Errorf("%s: creating %s: %w", src.Pos, model.Ref(obj), err)}
			}
		}
	}
	for _, src := range w.scn.Objects {
		for _, obj := range src.Objects {
			if createdFirst(obj) {
				continue
			}
			var err error
			if src.Settled {
				var created model.Object
				created, err = w.createSettled(obj.DeepCopyObject(), pl)
				if svc, ok := client.ObjectAs[*model.Service](created); ok {
					services = append(services, settledService{svc, src.Pos})
				}
			} else {
				_, err = w.srv.Store().Create(obj.DeepCopyObject())
			}
			if err != nil {
				return &InputError{Err: fmt.Errorf("%s: creating %s: %w", src.Pos, model.Ref(obj), err)}
			}
		}
	}
	// A settled Service's endpoints are those of the pods that exist once every object is
	// created, whatever the order the objects are written in.
	for _, s := range services {
		if err := w.createSettledEndpoints(s.svc); err != nil {
			return &InputError{Err: fmt.Errorf("%s: creating the EndpointSlices of %s: %w", s.pos, model.Ref(s.svc), err)}
		}
	}
	// The scenario's FlowSchemas and PriorityLevelConfigurations are the configuration API
	// Priority and Fairness starts with.
	w.srv.SyncAPFConfig()
	return nil
}

// reservePods sizes the maps that hold one entry per pod (the API server's pod store, the
// convergence tracker's and the observer's) for the pods the scenario's objects start with:
// the settled workloads' replicas and the Pods. It is a hint: a count that is off only costs
// the maps' growth.
func (w *world) reservePods() {
	n := 0
	for _, src := range w.scn.Objects {
		for _, obj := range src.Objects {
			switch o := obj.(type) {
			case *model.Pod:
				n++
			case *model.ReplicaSet:
				if src.Settled {
					n += int(ptrOr(o.Spec.Replicas, 1))
				}
			case *model.Deployment:
				if src.Settled {
					n += int(ptrOr(o.Spec.Replicas, 1))
				}
			case *model.StatefulSet:
				if src.Settled {
					n += int(ptrOr(o.Spec.Replicas, 1))
				}
			}
		}
	}
	if n < reservePodsMin {
		return
	}
	w.srv.Store().Reserve(model.KindPod, n)
	w.conv.reserve(n)
}

// reservePodsMin is the pod count below which reservePods leaves the maps to grow.
const reservePodsMin = 1024

// createSettledEndpoints creates the EndpointSlices the EndpointSlice controller would have
// written for svc, from the pods its selector matches now.
func (w *world) createSettledEndpoints(svc *model.Service) error {
	if svc.Spec.Type == model.ServiceTypeExternalName || len(svc.Spec.Selector) == 0 {
		return nil // the controller gives these no slices
	}
	store := w.srv.Store()
	objs, _, err := store.List(model.KindPod, model.ListOptions{Namespace: svc.Namespace, LabelSelector: labels.SelectorFromSet(svc.Spec.Selector)})
	if err != nil {
		return err
	}
	pods := make([]*model.Pod, 0, len(objs))
	for _, o := range objs {
		pods = append(pods, o.(*model.Pod))
	}
	for _, s := range endpointslice.SettledSlices(svc, pods, int(endpointslice.DefaultConfig().MaxEndpointsPerSlice)) {
		if _, err := store.Create(s); err != nil {
			return err
		}
	}
	return nil
}

// createSettled creates obj as its controllers would have left it: a ReplicaSet, StatefulSet
// or DaemonSet with its pods bound and running, a pod bound and running, a Deployment with its
// ReplicaSet. It returns the object as stored (a Service's endpoints come later, see
// createObjects). The loader accepts settled: true only for scenarios.SettledKinds.
func (w *world) createSettled(obj model.Object, pl *placer) (model.Object, error) {
	store := w.srv.Store()
	switch o := obj.(type) {
	case *model.ReplicaSet:
		created, err := store.Create(o)
		if err != nil {
			return nil, err
		}
		rs := created.(*model.ReplicaSet)
		replicas := int32(1)
		if rs.Spec.Replicas != nil {
			replicas = *rs.Spec.Replicas
		}
		tmpl := podFromTemplate(rs)
		running := newRunningStatus(&tmpl.Spec, w.k.Now())
		for i := int32(0); i < replicas; i++ {
			pod := new(model.Pod)
			*pod = *tmpl
			var err error
			if w.checkOnly && i > 0 {
				// Check: the replicas after the first differ from it only in their generated
				// names and their nodes, so the API server accepts them as it accepted the first
				// (validation, admission and the status write are the same); what only they can
				// find is whether they fit, which placing them finds. 150,000 settled replicas
				// are checked in a second instead of being created.
				err = w.placeSettled(pod, pl)
			} else {
				err = w.createRunningPod(pod, pl, running)
			}
			if err != nil {
				cpu, mem := podRequests(pod)
				return nil, fmt.Errorf("pod %d of its %d replicas (all %d request cpu %s and memory %s): %w",
					i+1, replicas, replicas, milliCPU(satMul(cpu, int64(replicas))), bytesOf(satMul(mem, int64(replicas))), err)
			}
		}
		st := rs.DeepCopy()
		st.Status = model.ReplicaSetStatus{
			Replicas: replicas, FullyLabeledReplicas: replicas, ReadyReplicas: replicas,
			AvailableReplicas: replicas, ObservedGeneration: rs.Generation,
		}
		return store.UpdateStatus(st)
	case *model.StatefulSet:
		return w.createSettledStatefulSet(o, pl)
	case *model.DaemonSet:
		return w.createSettledDaemonSet(o, pl)
	case *model.Pod:
		return nil, w.createRunningPod(o, pl, nil)
	case *model.Deployment:
		return nil, w.createSettledDeployment(o, pl)
	default:
		return store.Create(obj)
	}
}

// createSettledDaemonSet creates ds with its ControllerRevision and a pod on every node that
// exists at time 0 and should run one (its nodeSelector, node affinity and taints), as the
// DaemonSet controller would have created them, running, and a status that says every one is
// scheduled, ready, available and updated.
func (w *world) createSettledDaemonSet(ds *model.DaemonSet, pl *placer) (model.Object, error) {
	nodes := make([]*model.Node, 0, len(pl.nodes))
	for _, pn := range pl.nodes {
		nodes = append(nodes, pn.node)
	}
	return createSettledWithRevision(w, ds, pl, func(ds *model.DaemonSet) (*model.ControllerRevision, []*model.Pod, error) {
		rev, pods, status, err := daemonset.Settled(ds, nodes)
		ds.Status = status
		return rev, pods, err
	})
}

// createSettledStatefulSet creates set with its ControllerRevision and its pods (ordinals
// 0..replicas-1) as the StatefulSet controller would have created them, running, and a status
// that says every replica is current, ready and available.
func (w *world) createSettledStatefulSet(set *model.StatefulSet, pl *placer) (model.Object, error) {
	return createSettledWithRevision(w, set, pl, func(set *model.StatefulSet) (*model.ControllerRevision, []*model.Pod, error) {
		rev, pods, status, err := statefulset.Settled(set)
		set.Status = status
		return rev, pods, err
	})
}

// createSettledWithRevision creates obj, then what settle says its controller would have made of the
// created object: the ControllerRevision and the pods (created running), and, set by settle
// on a copy of that object, the status it writes last.
func createSettledWithRevision[T model.Object](w *world, obj T, pl *placer, settle func(copy T) (*model.ControllerRevision, []*model.Pod, error)) (model.Object, error) {
	store := w.srv.Store()
	created, err := store.Create(obj)
	if err != nil {
		return nil, err
	}
	st := created.DeepCopyObject().(T)
	rev, pods, err := settle(st)
	if err != nil {
		return nil, err
	}
	if _, err := store.Create(rev); err != nil {
		return nil, err
	}
	for _, p := range pods {
		if err := w.createRunningPod(p, pl, nil); err != nil {
			return nil, err
		}
	}
	return store.UpdateStatus(st)
}

// createSettledDeployment creates d with its current ReplicaSet as the Deployment controller
// would have created it (name <deployment>-<pod-template-hash>, the hash label in selector and
// template, revision 1 and the replica annotations, a controller reference), that ReplicaSet's
// pods running, and a status that says the rollout is complete.
func (w *world) createSettledDeployment(d *model.Deployment, pl *placer) error {
	store := w.srv.Store()
	if d.Annotations == nil {
		d.Annotations = map[string]string{}
	}
	d.Annotations[deployment.RevisionAnnotation] = "1"
	created, err := store.Create(d)
	if err != nil {
		return err
	}
	d = created.(*model.Deployment)
	replicas := ptrOr(d.Spec.Replicas, 1)
	hash := deployment.ComputeHash(&d.Spec.Template, d.Status.CollisionCount)
	var template model.PodTemplateSpec
	d.Spec.Template.DeepCopyInto(&template)
	if template.Labels == nil {
		template.Labels = map[string]string{}
	}
	template.Labels[deployment.DefaultDeploymentUniqueLabelKey] = hash
	selector := d.Spec.Selector.DeepCopy()
	if selector.MatchLabels == nil {
		selector.MatchLabels = map[string]string{}
	}
	selector.MatchLabels[deployment.DefaultDeploymentUniqueLabelKey] = hash
	rs := &model.ReplicaSet{
		ObjectMeta: model.ObjectMeta{
			Name: d.Name + "-" + hash, Namespace: d.Namespace, Labels: template.Labels,
			Annotations: map[string]string{
				deployment.RevisionAnnotation:        "1",
				deployment.DesiredReplicasAnnotation: fmt.Sprint(replicas),
				deployment.MaxReplicasAnnotation:     fmt.Sprint(replicas + deployment.MaxSurge(d)),
			},
			OwnerReferences: []model.OwnerReference{{
				APIVersion: "apps/v1", Kind: model.KindDeployment, Name: d.Name, UID: d.UID,
				Controller: model.Ptr(true), BlockOwnerDeletion: model.Ptr(true),
			}},
		},
		Spec: model.ReplicaSetSpec{Replicas: &replicas, MinReadySeconds: d.Spec.MinReadySeconds, Selector: selector, Template: template},
	}
	if _, err := w.createSettled(rs, pl); err != nil {
		return err
	}
	st := d.DeepCopy()
	now := w.k.Now()
	st.Status = model.DeploymentStatus{
		ObservedGeneration: d.Generation, Replicas: replicas, UpdatedReplicas: replicas,
		ReadyReplicas: replicas, AvailableReplicas: replicas,
		Conditions: []model.DeploymentCondition{
			{Type: model.DeploymentAvailable, Status: model.ConditionTrue, LastUpdateTime: now, LastTransitionTime: now,
				Reason: "MinimumReplicasAvailable", Message: "Deployment has minimum availability."},
			{Type: model.DeploymentProgressing, Status: model.ConditionTrue, LastUpdateTime: now, LastTransitionTime: now,
				Reason: "NewReplicaSetAvailable", Message: fmt.Sprintf("ReplicaSet %q has successfully progressed.", rs.Name)},
		},
	}
	_, err = store.UpdateStatus(st)
	return err
}

// podFromTemplate builds a pod the way the ReplicaSet controller does (upstream
// controller.GetPodFromTemplate): generateName "<rs>-", the template's labels, annotations and
// spec, and a controller reference to the ReplicaSet, defaulted as the API server defaults a
// pod (model.SetDefaults).
//
// Every settled replica of rs is a shallow copy of this one pod: the replicas share its
// labels, annotations, owner reference and the memory of its spec (containers, resource
// lists, probes, tolerations), one copy per ReplicaSet instead of one per pod. Nothing
// changes that memory: the API server's defaulting of a pod already defaulted writes nothing
// (every default fills only what is unset), its admission gives a pod new tolerations and a
// new priority rather than changing them in place, the placer sets spec.nodeName in the
// pod's own struct, and stored objects are immutable (docs/architecture.md, Object
// ownership).
func podFromTemplate(rs *model.ReplicaSet) *model.Pod {
	var t model.PodTemplateSpec
	rs.Spec.Template.DeepCopyInto(&t)
	pod := &model.Pod{
		ObjectMeta: model.ObjectMeta{
			GenerateName: rs.Name + "-",
			Namespace:    rs.Namespace,
			Labels:       t.Labels,
			Annotations:  t.Annotations,
			OwnerReferences: []model.OwnerReference{{
				APIVersion: "apps/v1", Kind: model.KindReplicaSet, Name: rs.Name, UID: rs.UID,
				Controller: model.Ptr(true), BlockOwnerDeletion: model.Ptr(true),
			}},
		},
		Spec: t.Spec,
	}
	model.SetDefaults(pod)
	return pod
}

// createRunningPod creates pod bound to a node (its own nodeName, or one the placer picks) and
// sets its status to Running and Ready since time 0: running's (the status of pods of pod's
// spec), or, when running is nil, one made for pod.
func (w *world) createRunningPod(pod *model.Pod, pl *placer, running *runningStatus) error {
	if err := w.placeSettled(pod, pl); err != nil {
		return err
	}
	store := w.srv.Store()
	created, err := store.Create(pod)
	if err != nil {
		return err
	}
	if running == nil {
		running = newRunningStatus(&pod.Spec, w.k.Now())
	}
	// The stored pod is shared and never changed: the status write below sends a shallow
	// copy of it with a status of its own, as the kubelet's status manager does. The
	// status's conditions and container statuses are running's, shared by every settled pod
	// of one spec: stored objects are immutable, and whoever changes a status copies it.
	p := new(model.Pod)
	*p = *created.(*model.Pod)
	p.Status.Phase = model.PodRunning
	p.Status.StartTime = running.startTime
	// Pod IPs for settled pods come from 10.192.0.0/10, outside the kubelet model's synthetic
	// ranges (10.64.0.0/10), so the two never collide.
	pl.ips++
	p.Status.PodIP = settledPodIP(pl.ips)
	p.Status.Conditions = running.conditions
	p.Status.ContainerStatuses = running.containers
	p.Status.InitContainerStatuses = running.initContainers
	_, err = store.UpdateStatus(p)
	return err
}

// settledPodIP is the address of the n-th settled pod: 10.(192 + n>>16 mod 64).(n>>8 mod
// 256).(n mod 256), built without fmt, once per settled pod.
func settledPodIP(n int) string {
	var buf [15]byte
	b := append(buf[:0], "10."...)
	b = strconv.AppendInt(b, int64(192+(n>>16)%64), 10)
	b = append(b, '.')
	b = strconv.AppendInt(b, int64((n>>8)%256), 10)
	b = append(b, '.')
	b = strconv.AppendInt(b, int64(n%256), 10)
	return string(b)
}

// placeSettled binds pod to a node: its own nodeName, accounted for, or one the placer picks.
func (w *world) placeSettled(pod *model.Pod, pl *placer) error {
	if pod.Spec.NodeName != "" {
		pl.account(pod.Spec.NodeName, pod)
		return nil
	}
	nodeName, err := pl.place(pod)
	if err != nil {
		return err
	}
	pod.Spec.NodeName = nodeName
	return nil
}

// runningStatus is the status of a settled pod of one spec, running and ready since a time:
// its start time, conditions and container statuses (the pod IP is each pod's own).
type runningStatus struct {
	startTime      *vtime.Time
	conditions     []model.PodCondition
	containers     []model.ContainerStatus
	initContainers []model.ContainerStatus
}

// newRunningStatus is the status of a pod of spec running and ready since now: every
// condition true, every container running and ready, the init containers done (the plain
// ones completed, sidecars running).
func newRunningStatus(spec *model.PodSpec, now vtime.Time) *runningStatus {
	st := &runningStatus{startTime: &now, conditions: make([]model.PodCondition, len(settledPodConditions))}
	for i, t := range settledPodConditions {
		st.conditions[i] = model.PodCondition{Type: t, Status: model.ConditionTrue, LastTransitionTime: now}
	}
	if n := len(spec.Containers); n > 0 {
		st.containers = make([]model.ContainerStatus, n)
	}
	for i, c := range spec.Containers {
		st.containers[i] = model.ContainerStatus{
			Name: c.Name, Image: c.Image, Ready: true, Started: model.Ptr(true),
			State: model.ContainerState{Running: &model.ContainerStateRunning{StartedAt: now}},
		}
	}
	if n := len(spec.InitContainers); n > 0 {
		st.initContainers = make([]model.ContainerStatus, 0, n)
	}
	for i := range spec.InitContainers {
		c := &spec.InitContainers[i]
		cs := model.ContainerStatus{Name: c.Name, Image: c.Image, Ready: true, Started: model.Ptr(false),
			State: model.ContainerState{Terminated: &model.ContainerStateTerminated{Reason: "Completed", StartedAt: now, FinishedAt: now}}}
		if model.IsRestartableInitContainer(c) {
			cs.Started = model.Ptr(true)
			cs.State = model.ContainerState{Running: &model.ContainerStateRunning{StartedAt: now}}
		}
		st.initContainers = append(st.initContainers, cs)
	}
	return st
}

// settledPodConditions are the conditions a running, ready pod has, in the order its status
// lists them.
var settledPodConditions = [...]string{model.PodReadyToStartContainers, model.PodInitialized, model.PodContainersReady, model.PodReady, model.PodScheduled}

// placer places settled pods. It is not the scheduler (which is not running yet at time 0): it
// honours nodeSelector, cordons, untolerated NoSchedule and NoExecute taints, and requested
// cpu, memory and pod count (not node affinity), and picks the node with the lowest requested
// CPU fraction (ties by node order), which spreads pods as LeastAllocated would.
//
// Placing 150,000 pods on 5,000 nodes by scanning every node is 750 million checks, so nodes
// are grouped into classes that every check treats alike (the same labels apart from the
// hostname, taints, cordon and allocatable). Within a class the node with the least requested
// CPU is the best candidate, so each class keeps a min-heap on (requested cpu, node order);
// a pod looks at the top of each class it may use. The answer is the linear scan's, node for
// node: a pod whose nodeSelector names the hostname, or whose best candidate in a class is
// short of memory or pod slots, falls back to scanning.
type placer struct {
	ips     int // settled pod IPs handed out
	nodes   []*placerNode
	index   map[string]*placerNode
	classes []*placerClass
}

type placerNode struct {
	node               *model.Node
	order              int // position in nodes: ties go to the earlier node
	class              *placerClass
	heapIndex          int
	cpu, mem, pods     int64
	allocCPU, allocMem int64
	allocPods          int64
}

// placerClass is a set of nodes that agree on everything place checks except what is used.
type placerClass struct {
	labels      labels.Set // the first node's labels without the hostname label
	node        *model.Node
	unscheduled bool
	nodes       placerHeap
}

// placerHeap is a min-heap of a class's nodes on (requested cpu, node order).
type placerHeap []*placerNode

func (h placerHeap) Len() int { return len(h) }
func (h placerHeap) Less(i, j int) bool {
	if h[i].cpu != h[j].cpu {
		return h[i].cpu < h[j].cpu
	}
	return h[i].order < h[j].order
}
func (h placerHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].heapIndex, h[j].heapIndex = i, j
}
func (h *placerHeap) Push(x any) {
	pn := x.(*placerNode)
	pn.heapIndex = len(*h)
	*h = append(*h, pn)
}
func (h *placerHeap) Pop() any {
	old := *h
	pn := old[len(old)-1]
	*h = old[:len(old)-1]
	return pn
}

func newPlacer(w *world) *placer {
	objs, _, _ := w.srv.Store().List(model.KindNode, model.ListOptions{})
	nodes := make([]*model.Node, len(objs))
	for i, o := range objs {
		nodes[i] = o.(*model.Node)
	}
	return newPlacerOf(nodes)
}

// newPlacerOf is a placer over nodes, in that order.
func newPlacerOf(nodes []*model.Node) *placer {
	pl := &placer{index: map[string]*placerNode{}}
	classOf := map[string]*placerClass{}
	for _, n := range nodes {
		cpu := n.Status.Allocatable[model.ResourceCPU]
		mem := n.Status.Allocatable[model.ResourceMemory]
		pods := n.Status.Allocatable[model.ResourcePods]
		pn := &placerNode{node: n, order: len(pl.nodes), allocCPU: cpu.MilliValue(), allocMem: mem.Value(), allocPods: pods.Value()}
		pl.nodes = append(pl.nodes, pn)
		pl.index[n.Name] = pn
		key := placerClassKey(pn)
		c := classOf[key]
		if c == nil {
			c = &placerClass{labels: labelsWithoutHostname(n.Labels), node: n, unscheduled: n.Spec.Unschedulable}
			classOf[key] = c
			pl.classes = append(pl.classes, c)
		}
		pn.class = c
		heap.Push(&c.nodes, pn)
	}
	return pl
}

// placerClassKey is what a node shares with the others of its class: its labels apart from
// the hostname, its taints, its cordon and its allocatable.
func placerClassKey(pn *placerNode) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d/%d/%d/%t|", pn.allocCPU, pn.allocMem, pn.allocPods, pn.node.Spec.Unschedulable)
	b.WriteString(labelsWithoutHostname(pn.node.Labels).String())
	for _, t := range pn.node.Spec.Taints {
		fmt.Fprintf(&b, "|%q=%q:%s", t.Key, t.Value, t.Effect)
	}
	return b.String()
}

func labelsWithoutHostname(l map[string]string) labels.Set {
	out := make(labels.Set, len(l))
	for k, v := range l { //detlint:ordered copying a map into a map
		if k != scenarios.LabelHostname {
			out[k] = v
		}
	}
	return out
}

func (pl *placer) account(nodeName string, pod *model.Pod) {
	if pn := pl.index[nodeName]; pn != nil {
		cpu, mem := podRequests(pod)
		pn.cpu += cpu
		pn.mem += mem
		pn.pods++
		heap.Fix(&pn.class.nodes, pn.heapIndex)
	}
}

func (pl *placer) place(pod *model.Pod) (string, error) {
	cpu, mem := podRequests(pod)
	if _, byHost := pod.Spec.NodeSelector[scenarios.LabelHostname]; byHost {
		return pl.placeByScan(pod, pl.nodes)
	}
	var best *placerNode
	for _, c := range pl.classes {
		if c.unscheduled || !matchesNodeSelector(pod.Spec.NodeSelector, c.labels) {
			continue
		}
		if _, bad := model.FindMatchingUntoleratedTaint(c.node.Spec.Taints, pod.Spec.Tolerations, noScheduleOrExecute); bad {
			continue
		}
		top := c.nodes[0]
		if top.cpu+cpu > top.allocCPU {
			continue // the least-used node of the class is short of cpu, so every node is
		}
		cand := top
		if top.mem+mem > top.allocMem || top.pods+1 > top.allocPods {
			var ok bool
			if cand, ok = bestFit(c.nodes, cpu, mem); !ok {
				continue
			}
		}
		if best == nil || placesBefore(cand, best, cpu) {
			best = cand
		}
	}
	if best == nil {
		return pl.placeByScan(pod, pl.nodes) // for the reasons, in the scheduler's manner
	}
	pl.account(best.node.Name, pod)
	return best.node.Name, nil
}

// matchesNodeSelector reports whether a node with labels l matches a pod's spec.nodeSelector
// sel, as labels.SelectorFromSet(sel).Matches(labels.Set(l)) does (every key of sel is a label
// of l with sel's value; an empty sel matches every node), without building the selector for
// each pod placed.
func matchesNodeSelector(sel, l map[string]string) bool {
	for k, v := range sel { //detlint:ordered every entry must match; the order does not matter
		if lv, ok := l[k]; !ok || lv != v {
			return false
		}
	}
	return true
}

// placesBefore reports whether a is a better node than b for a pod requesting cpu: a lower
// requested CPU fraction once the pod is on it, ties to the earlier node.
func placesBefore(a, b *placerNode, cpu int64) bool {
	fa := float64(a.cpu+cpu) / float64(max(a.allocCPU, 1))
	fb := float64(b.cpu+cpu) / float64(max(b.allocCPU, 1))
	if fa != fb {
		return fa < fb
	}
	return a.order < b.order
}

// bestFit is the node of a class, scanned, with the least requested cpu (ties to the earlier
// node) that fits the pod's cpu, memory and pod slot.
func bestFit(nodes []*placerNode, cpu, mem int64) (*placerNode, bool) {
	var best *placerNode
	for _, pn := range nodes {
		if pn.cpu+cpu > pn.allocCPU || pn.mem+mem > pn.allocMem || pn.pods+1 > pn.allocPods {
			continue
		}
		if best == nil || pn.cpu < best.cpu || (pn.cpu == best.cpu && pn.order < best.order) {
			best = pn
		}
	}
	return best, best != nil
}

// placeByScan checks every node, counting why each is unfit; it places the pod on the best one
// or explains why none fits.
func (pl *placer) placeByScan(pod *model.Pod, nodes []*placerNode) (string, error) {
	cpu, mem := podRequests(pod)
	var best *placerNode
	bestFrac := 2.0
	var why placeFailures
	for _, pn := range nodes {
		switch {
		case !matchesNodeSelector(pod.Spec.NodeSelector, pn.node.Labels):
			why.selector++
			continue
		case pn.node.Spec.Unschedulable:
			why.cordoned++
			continue
		}
		if _, bad := model.FindMatchingUntoleratedTaint(pn.node.Spec.Taints, pod.Spec.Tolerations, noScheduleOrExecute); bad {
			why.taint++
			continue
		}
		fits := true
		if pn.cpu+cpu > pn.allocCPU {
			why.cpu++
			fits = false
		}
		if pn.mem+mem > pn.allocMem {
			why.mem++
			fits = false
		}
		if pn.pods+1 > pn.allocPods {
			why.pods++
			fits = false
		}
		if !fits {
			continue
		}
		frac := float64(pn.cpu+cpu) / float64(max(pn.allocCPU, 1))
		if frac < bestFrac {
			best, bestFrac = pn, frac
		}
	}
	if best == nil {
		return "", fmt.Errorf("it fits on no node that exists at time 0: it requests %s; %s; make the object unsettled to let the scheduler report why, or add nodes",
			describeRequests(pod), pl.describe(why))
	}
	pl.account(best.node.Name, pod)
	return best.node.Name, nil
}

// placeFailures counts the nodes a settled pod did not fit on, by the first reason for each
// (a node short of cpu and memory counts for both).
type placeFailures struct {
	selector, cordoned, taint, cpu, mem, pods int
}

// describe says, in the scheduler's manner ("0/3 nodes are available: 3 Insufficient cpu"),
// why no node took the pod, and what the nodes at time 0 have and settled pods already use.
func (pl *placer) describe(why placeFailures) string {
	if len(pl.nodes) == 0 {
		return "the cluster has no node at time 0 (cluster.nodeGroups is empty, or every group has a startupTime)"
	}
	var reasons []string
	for _, r := range []struct {
		n    int
		what string
	}{
		{why.selector, "do not match its nodeSelector"}, {why.cordoned, "are cordoned"},
		{why.taint, "have a taint it does not tolerate"}, {why.cpu, "have too little cpu left"},
		{why.mem, "have too little memory left"}, {why.pods, "have no pod slot left"},
	} {
		if r.n > 0 {
			reasons = append(reasons, fmt.Sprintf("%d %s", r.n, r.what))
		}
	}
	var allocCPU, allocMem, allocPods, usedCPU, usedMem, usedPods int64
	for _, pn := range pl.nodes {
		allocCPU, allocMem, allocPods = model.SaturatingAdd(allocCPU, pn.allocCPU), model.SaturatingAdd(allocMem, pn.allocMem), model.SaturatingAdd(allocPods, pn.allocPods)
		usedCPU, usedMem, usedPods = model.SaturatingAdd(usedCPU, pn.cpu), model.SaturatingAdd(usedMem, pn.mem), model.SaturatingAdd(usedPods, pn.pods)
	}
	return fmt.Sprintf("of the %d nodes, %s; together they have cpu %s, memory %s and %d pods allocatable, of which settled pods already use cpu %s, memory %s and %d pods",
		len(pl.nodes), strings.Join(reasons, ", "),
		milliCPU(allocCPU), bytesOf(allocMem), allocPods, milliCPU(usedCPU), bytesOf(usedMem), usedPods)
}

// describeRequests writes a pod's cpu and memory requests as written (500m, 256Mi).
func describeRequests(pod *model.Pod) string {
	cpu, mem := podRequests(pod)
	return fmt.Sprintf("cpu %s and memory %s", milliCPU(cpu), bytesOf(mem))
}

// milliCPU formats millicores as a quantity ("500m", "12").
func milliCPU(m int64) string { return resource.NewMilliQuantity(m, resource.DecimalSI).String() }

// bytesOf formats bytes as a binary quantity ("256Mi", "48Gi"), or "more than 8Ei" for a
// value that saturated.
func bytesOf(b int64) string {
	if b == math.MaxInt64 {
		return "more than 8Ei"
	}
	return resource.NewQuantity(b, resource.BinarySI).String()
}

// satMul multiplies two non-negative int64s, saturating at math.MaxInt64.
func satMul(a, b int64) int64 {
	if a != 0 && b > math.MaxInt64/a {
		return math.MaxInt64
	}
	return a * b
}

func noScheduleOrExecute(t *model.Taint) bool {
	return t.Effect == model.TaintEffectNoSchedule || t.Effect == model.TaintEffectNoExecute
}

// Check builds the world of scn at time 0 and creates its objects, as Run does before the
// first event, and returns what Run would return then: an *InputError for content the API
// server refuses or settled workloads that do not fit on the nodes. It runs nothing. `sim
// validate` calls it so that these problems are found without a run. A settled ReplicaSet's
// replicas after the first are placed, not created (createSettled): they can differ from the
// first only in whether they fit.
func Check(scn *scenarios.Scenario) error {
	w, err := build(scn, scn.Seed, Options{})
	if err != nil {
		return &InputError{Err: err}
	}
	w.checkOnly = true
	return w.createObjects()
}

// createdFirst reports whether createObjects creates obj before the other objects.
func createdFirst(obj model.Object) bool {
	k := obj.GetKind()
	return k == model.KindCustomResourceDefinition || k == model.KindPriorityClass
}
