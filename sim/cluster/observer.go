package cluster

import (
	"fmt"
	"sort"
	"strings"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/report"
	"github.com/reconsim/reconsim/scenarios"
	"github.com/reconsim/reconsim/sim/client"
	"github.com/reconsim/reconsim/sim/controllers/endpointslice"
	"github.com/reconsim/reconsim/vtime"
)

// observer is fed every write the API server commits, synchronously and in revision order,
// with the object before and after (old nil on create, new nil on final removal). It keeps
// the counts the run reports and checks: pods by phase, Ready nodes, requested resources per
// node, and the time series.
type observer struct {
	w *world

	podsByPhase map[string]int // Pending, Running, Succeeded, Failed, Terminating
	nodesReady  int
	nodesTotal  int

	requested   map[string]*nodeLoad // by node name
	overcommits int                  // nodes whose requests exceed allocatable

	// slices holds the latest committed EndpointSlices of each Service (by Service key, then
	// slice name), from which the ready-endpoints series is computed.
	slices map[string]map[string]*model.EndpointSlice

	series      map[string]*report.Series
	seriesOrder []string
	// objectSeries finds the series of one field of one object (sampleObject) without building
	// its name.
	objectSeries map[objectSeriesKey]*report.Series

	// Invariants checked on every commit (see checkInvariants); violations are kept, not
	// fatal, so a test can report all of them.
	lastRV     uint64
	violations []string

	// onChange is called after every commit that touched pods, ReplicaSets or nodes, and after
	// every change of a node's real health: the run checks convergence and the conditions then.
	onChange func()
}

type nodeLoad struct {
	name               string
	allocCPU, allocMem int64 // milli-CPU, bytes; 0 before the Node is seen
	cpu, mem           int64
	over               bool
}

// maxSeriesPoints bounds each series; past it, every other point is dropped (the first and the
// latest are kept), so long runs keep their shape in bounded memory.
const maxSeriesPoints = 4096

func newObserver(w *world) *observer {
	return &observer{w: w, podsByPhase: map[string]int{}, requested: map[string]*nodeLoad{}, series: map[string]*report.Series{}, objectSeries: map[objectSeriesKey]*report.Series{}, slices: map[string]map[string]*model.EndpointSlice{}}
}

// commit is the API server's commit hook.
func (o *observer) commit(kind model.Kind, old, new model.Object) {
	o.checkInvariants(kind, old, new)
	if o.w.inv != nil {
		o.w.inv.commit(kind, old, new)
	}
	switch kind {
	case model.KindEvent:
		// events.jsonl: every Event write as the API server stored it (simulator.
		// events-through-api); a TTL deletion is not a new Event.
		if ev, ok := new.(*model.Event); ok {
			o.w.events.add(report.EventRecordFrom(ev, o.w.k.Now()))
		}
	case model.KindPod:
		o.pod(old, -1)
		o.pod(new, +1)
		o.w.conv.observe(pick(old, new), new == nil)
		o.sample("pods.pending", "pods", float64(o.podsByPhase[model.PodPending]))
		o.sample("pods.running", "pods", float64(o.podsByPhase[model.PodRunning]))
		o.sample("pods.terminating", "pods", float64(o.podsByPhase["Terminating"]))
	case model.KindReplicaSet:
		o.w.conv.observe(pick(old, new), new == nil)
		if rs, ok := pick(old, new).(*model.ReplicaSet); ok {
			desired := float64(1)
			if rs.Spec.Replicas != nil {
				desired = float64(*rs.Spec.Replicas)
			}
			if new == nil {
				desired = 0
			}
			o.sampleObject("replicaset", rs.Namespace, rs.Name, "desired", "pods", desired)
			if rs.Status.ObservedGeneration > 0 {
				o.sampleObject("replicaset", rs.Namespace, rs.Name, "ready", "pods", float64(rs.Status.ReadyReplicas))
				o.sampleObject("replicaset", rs.Namespace, rs.Name, "available", "pods", float64(rs.Status.AvailableReplicas))
			}
		}
	case model.KindDeployment:
		o.w.conv.observe(pick(old, new), new == nil)
		if d, ok := pick(old, new).(*model.Deployment); ok {
			desired := float64(1)
			if d.Spec.Replicas != nil {
				desired = float64(*d.Spec.Replicas)
			}
			if new == nil {
				desired = 0
			}
			o.sampleObject("deployment", d.Namespace, d.Name, "desired", "pods", desired)
			if d.Status.ObservedGeneration > 0 {
				o.sampleObject("deployment", d.Namespace, d.Name, "updated", "pods", float64(d.Status.UpdatedReplicas))
				o.sampleObject("deployment", d.Namespace, d.Name, "ready", "pods", float64(d.Status.ReadyReplicas))
				o.sampleObject("deployment", d.Namespace, d.Name, "available", "pods", float64(d.Status.AvailableReplicas))
			}
		}
	case model.KindStatefulSet:
		o.w.conv.observe(pick(old, new), new == nil)
		if ss, ok := pick(old, new).(*model.StatefulSet); ok {
			o.sampleObject("statefulset", ss.Namespace, ss.Name, "desired", "pods", float64(ptrOr(ss.Spec.Replicas, 1)))
			if ss.Status.ObservedGeneration > 0 {
				o.sampleObject("statefulset", ss.Namespace, ss.Name, "ready", "pods", float64(ss.Status.ReadyReplicas))
				o.sampleObject("statefulset", ss.Namespace, ss.Name, "available", "pods", float64(ss.Status.AvailableReplicas))
			}
		}
	case model.KindDaemonSet:
		o.w.conv.observe(pick(old, new), new == nil)
		if ds, ok := pick(old, new).(*model.DaemonSet); ok {
			if ds.Status.ObservedGeneration > 0 {
				o.sampleObject("daemonset", ds.Namespace, ds.Name, "desired", "pods", float64(ds.Status.DesiredNumberScheduled))
				o.sampleObject("daemonset", ds.Namespace, ds.Name, "ready", "pods", float64(ds.Status.NumberReady))
				o.sampleObject("daemonset", ds.Namespace, ds.Name, "available", "pods", float64(ds.Status.NumberAvailable))
			}
		}
	case model.KindJob:
		o.w.conv.observe(pick(old, new), new == nil)
		if nj, ok := client.ObjectAs[*model.Job](new); ok {
			o.w.noteJob(nj)
		}
		if j, ok := pick(old, new).(*model.Job); ok {
			o.sampleObject("job", j.Namespace, j.Name, "active", "pods", float64(j.Status.Active))
			o.sampleObject("job", j.Namespace, j.Name, "succeeded", "pods", float64(j.Status.Succeeded))
			o.sampleObject("job", j.Namespace, j.Name, "failed", "pods", float64(j.Status.Failed))
		}
	case model.KindHorizontalPodAutoscaler:
		if h, ok := pick(old, new).(*model.HorizontalPodAutoscaler); ok {
			// Before its first sync an HPA's status is empty (0 replicas), which nobody
			// observed: the series start with the controller's first status write, which
			// always sets its conditions.
			if len(h.Status.Conditions) > 0 {
				o.sampleObject("hpa", h.Namespace, h.Name, "replicas", "pods", float64(h.Status.CurrentReplicas))
				o.sampleObject("hpa", h.Namespace, h.Name, "desired", "pods", float64(h.Status.DesiredReplicas))
			}
		}
		return
	case model.KindEndpointSlice:
		o.endpointSlice(pick(old, new).(*model.EndpointSlice), new == nil)
		return
	case model.KindService:
		// A new Service has no endpoints until its slices are written: the series starts
		// there, with the value the ready-endpoints-at-least condition reads too.
		if old == nil && new != nil {
			svc := model.Key(new)
			o.sample("service."+svc+".ready_endpoints", "endpoints", float64(o.readyEndpoints(svc)))
		}
		return
	case model.KindNode:
		o.node(old, -1)
		o.node(new, +1)
		o.sample("nodes.ready", "nodes", float64(o.nodesReady))
		o.sample("nodes.notready", "nodes", float64(o.nodesTotal-o.nodesReady))
	default:
		if _, ok := pick(old, new).(*model.Unstructured); ok {
			break // a custom resource: field-equals conditions read it, so it is a change
		}
		return
	}
	o.changed()
}

// endpointSlice keeps the Service's slices up to date and samples its ready endpoints, counted
// as a consumer (kube-proxy) merges the slices.
func (o *observer) endpointSlice(s *model.EndpointSlice, deleted bool) {
	svc, err := endpointslice.ServiceControllerKey(s)
	if err != nil {
		return
	}
	m := o.slices[svc]
	if m == nil {
		m = map[string]*model.EndpointSlice{}
		o.slices[svc] = m
	}
	if deleted {
		delete(m, s.Name)
	} else {
		m[s.Name] = s
	}
	o.sample("service."+svc+".ready_endpoints", "endpoints", float64(o.readyEndpoints(svc)))
}

// readyEndpoints is the number of ready endpoints of a Service now, counted as a consumer
// (kube-proxy) merges its slices.
func (o *observer) readyEndpoints(svc string) int {
	m := o.slices[svc]
	names := make([]string, 0, len(m))
	for name := range m { //detlint:ordered the names are sorted below
		names = append(names, name)
	}
	sort.Strings(names)
	list := make([]*model.EndpointSlice, 0, len(names))
	for _, name := range names {
		list = append(list, m[name])
	}
	return endpointslice.CountReady(list)
}

// checkInvariants checks what must hold after every write: resourceVersions only grow, a pod
// is bound to one node at most and never moves, and no node's pods request more than its
// allocatable (the scheduler's and the kubelet's admission promise).
func (o *observer) checkInvariants(kind model.Kind, old, new model.Object) {
	now := o.w.k.Now()
	if new != nil {
		rv := new.Meta().ResourceVersion
		if rv <= o.lastRV {
			o.violate(scenarios.InvariantResourceVersionsGrow, fmt.Sprintf("%s: %s written with resourceVersion %d after %d", now, model.Ref(new), rv, o.lastRV))
		}
		o.lastRV = rv
	}
	// The commit hook's old object is the stored version the write replaces, so a pod that
	// moves (or is unbound, which no write may do either) shows between two consecutive
	// versions of it: no record per pod of the node it was first bound to is needed.
	if p, ok := client.ObjectAs[*model.Pod](old); ok && p.Spec.NodeName != "" {
		if q, ok := client.ObjectAs[*model.Pod](new); ok && q.Spec.NodeName != p.Spec.NodeName {
			o.violate(scenarios.InvariantPodBoundOnce, fmt.Sprintf("%s: pod %s moved from node %s to %q", now, model.Key(q), p.Spec.NodeName, q.Spec.NodeName))
		}
	}
}

// violate records a violation of the built-in invariant name (scenarios.Invariants).
func (o *observer) violate(name, msg string) {
	if len(o.violations) < 100 {
		o.violations = append(o.violations, msg)
	}
	if o.w.inv != nil {
		_, m, _ := strings.Cut(msg, ": ")
		o.w.inv.fail(name, m)
	}
}

// changed tells the run that the world changed (a commit, or a node's real health).
func (o *observer) changed() {
	if o.onChange != nil {
		o.onChange()
	}
}

func pick(old, new model.Object) model.Object {
	if new != nil {
		return new
	}
	return old
}

func podPhaseKey(p *model.Pod) string {
	if p.DeletionTimestamp != nil {
		return "Terminating"
	}
	if p.Status.Phase == "" {
		return model.PodPending
	}
	return p.Status.Phase
}

func (o *observer) pod(obj model.Object, sign int) {
	p, ok := client.ObjectAs[*model.Pod](obj)
	if !ok || p == nil {
		return
	}
	o.podsByPhase[podPhaseKey(p)] += sign
	if p.Spec.NodeName == "" || p.Status.Phase == model.PodSucceeded || p.Status.Phase == model.PodFailed {
		return
	}
	cpu, mem := podRequests(p)
	l := o.load(p.Spec.NodeName)
	l.cpu += int64(sign) * cpu
	l.mem += int64(sign) * mem
	o.recheck(l)
}

func (o *observer) node(obj model.Object, sign int) {
	n, ok := client.ObjectAs[*model.Node](obj)
	if !ok || n == nil {
		return
	}
	o.nodesTotal += sign
	for _, c := range n.Status.Conditions {
		if c.Type == model.NodeReady && c.Status == model.ConditionTrue {
			o.nodesReady += sign
		}
	}
	l := o.load(n.Name)
	if sign > 0 {
		cpu := n.Status.Allocatable[model.ResourceCPU]
		mem := n.Status.Allocatable[model.ResourceMemory]
		l.allocCPU, l.allocMem = cpu.MilliValue(), mem.Value()
	} else {
		l.allocCPU, l.allocMem = 0, 0
	}
	o.recheck(l)
}

func (o *observer) load(nodeName string) *nodeLoad {
	l := o.requested[nodeName]
	if l == nil {
		l = &nodeLoad{name: nodeName}
		o.requested[nodeName] = l
	}
	return l
}

// recheck updates the count of overcommitted nodes. A node not (yet) seen has no allocatable
// to compare with and is not counted.
func (o *observer) recheck(l *nodeLoad) {
	over := l.allocCPU > 0 && (l.cpu > l.allocCPU || l.mem > l.allocMem)
	if over != l.over {
		if over {
			o.violate(scenarios.InvariantNodeWithinAllocatable, fmt.Sprintf("%s: node %s: its pods request cpu %dm of %dm, memory %d of %d", o.w.k.Now(), l.name, l.cpu, l.allocCPU, l.mem, l.allocMem))
			o.overcommits++
		} else {
			o.overcommits--
		}
		l.over = over
	}
}

// overcommittedNodes names the nodes whose requests exceed their allocatable, sorted.
func (o *observer) overcommittedNodes() []string {
	var out []string
	//detlint:ordered the names are sorted below
	for name, l := range o.requested {
		if l.over {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

// podRequests is the pod's CPU (millicores) and memory (bytes) requests, as the scheduler
// counts them (model.PodCPUMemoryRequests).
func podRequests(p *model.Pod) (cpu, mem int64) { return model.PodCPUMemoryRequests(p) }

// sample records value v of series name at the current virtual time, if it changed. A series
// starts at its first observed value: callers sample a status field only once its controller
// has written the status (observedGeneration > 0, an HPA's conditions), never the zero value
// of a status nobody wrote yet.
func (o *observer) sample(name, unit string, v float64) {
	o.sampleInto(o.seriesNamed(name, unit), v)
}

// objectSeriesKey is the series "PREFIX.NAMESPACE/NAME.FIELD" of one field of one object
// (prefix names the kind: replicaset, deployment, hpa, ...), as a map key built without
// concatenating the name.
type objectSeriesKey struct {
	prefix, namespace, name, field string
}

// sampleObject is sample for the series of field of the object namespace/name. The series'
// name is built once, at its first sample: a ReplicaSet's status write samples three of
// them and every pod that starts or stops serving one, and building their names was 3.7% of
// thundering-herd's allocations.
func (o *observer) sampleObject(prefix, namespace, name, field, unit string, v float64) {
	key := objectSeriesKey{prefix: prefix, namespace: namespace, name: name, field: field}
	s := o.objectSeries[key]
	if s == nil {
		s = o.seriesNamed(prefix+"."+model.KeyOf(namespace, name)+"."+field, unit)
		o.objectSeries[key] = s
	}
	o.sampleInto(s, v)
}

// seriesNamed returns the series called name, made with unit the first time it is asked for
// (the order of first requests is the order of the series in the results).
func (o *observer) seriesNamed(name, unit string) *report.Series {
	s := o.series[name]
	if s == nil {
		s = &report.Series{Name: name, Unit: unit}
		o.series[name] = s
		o.seriesOrder = append(o.seriesOrder, name)
	}
	return s
}

// sampleInto is sample for the series s.
func (o *observer) sampleInto(s *report.Series, v float64) {
	now := o.w.k.Now().Seconds()
	n := len(s.Points)
	if n > 0 {
		last := &s.Points[n-1]
		if last.V == v {
			return
		}
		if last.T == now {
			last.V = v
			return
		}
	}
	s.Points = append(s.Points, report.Point{T: now, V: v})
	if len(s.Points) > maxSeriesPoints {
		kept := s.Points[:1]
		for i := 2; i < len(s.Points)-1; i += 2 {
			kept = append(kept, s.Points[i])
		}
		kept = append(kept, s.Points[len(s.Points)-1])
		s.Points = kept
	}
}

// finish closes every series with its last value at the end time, so plots reach the end.
func (o *observer) finish(end vtime.Time) []report.Series {
	out := make([]report.Series, 0, len(o.seriesOrder))
	for _, name := range o.seriesOrder {
		s := *o.series[name]
		if n := len(s.Points); n > 0 && s.Points[n-1].T < end.Seconds() {
			s.Points = append(s.Points, report.Point{T: end.Seconds(), V: s.Points[n-1].V})
		}
		out = append(out, s)
	}
	return out
}
