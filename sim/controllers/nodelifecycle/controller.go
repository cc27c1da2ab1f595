package nodelifecycle

import (
	"maps"
	"math/rand/v2"
	"slices"
	"sort"
	"strconv"
	"time"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim"
	"github.com/reconsim/reconsim/sim/client"
	"github.com/reconsim/reconsim/sim/client/record"
	"github.com/reconsim/reconsim/sim/client/workqueue"
	"github.com/reconsim/reconsim/sim/controllers/internal/controllerutil"
	"github.com/reconsim/reconsim/vtime"
)

// Event reasons and messages ([k8s:pkg/controller/util/node/controller_utils.go@025f2834]
// RecordNodeEvent, RecordNodeStatusChange, MarkPodsNotReady; monitorNodeHealth in
// [k8s:node_lifecycle_controller.go@003e8629] records NodeNotReady through
// RecordNodeStatusChange on the Ready→not Ready transition it writes itself).
const (
	ReasonRegisteredNode = "RegisteredNode"
	ReasonRemovingNode   = "RemovingNode"
	// ReasonNodeNotReady is used twice, as upstream: a Normal event on the node
	// ("Node %s status is now: NodeNotReady") and a Warning on each of its pods marked not
	// ready ("Node is not ready").
	ReasonNodeNotReady = "NodeNotReady"
	// ComponentName is the source component of the controller's events (upstream
	// NewNodeLifecycleController's EventSource{Component: "node-controller"}).
	ComponentName = "node-controller"
	// traceComponent labels this package's trace lines.
	traceComponent = "nodelifecycle"
)

// Node condition reasons and messages the controller writes (tryUpdateNodeHealth,
// [k8s:node_lifecycle_controller.go@003e8629]).
const (
	reasonNodeStatusUnknown      = "NodeStatusUnknown"
	messageNodeStatusUnknown     = "Kubelet stopped posting node status."
	reasonNodeStatusNeverUpdated = "NodeStatusNeverUpdated"
	messageNodeStatusNeverUpd    = "Kubelet never posted node status."
)

// NamespaceNodeLease is where kubelets keep their heartbeat Leases (upstream
// v1.NamespaceNodeLease).
const NamespaceNodeLease = "kube-node-lease"

// nodeHealthData is what the controller last observed of a node, with its own local times
// (upstream nodeHealthData): local times avoid trusting the kubelet's clock. status and lease
// are never modified after they are stored.
type nodeHealthData struct {
	probeTimestamp           vtime.Time
	readyTransitionTimestamp vtime.Time
	status                   *model.NodeStatus
	lease                    *model.Lease
}

type podItem struct{ namespace, name string }

// nodeMemo holds what the controller derives from a node on every pass, so that a pass over
// hundreds of nodes builds no strings and looks nothing up in the node's labels: the zone key
// and the disruption exclusion of the node version last seen (versions are never modified once
// seen: cached objects are shared read-only, and the controller's own copies change only
// status) and the cache key of the node's Lease. It also remembers the last Ready status
// reported, so the trace gets a line when it changes rather than every pass.
type nodeMemo struct {
	// known is the node as the controller registered it (upstream's knownNodeSet entry), nil
	// while it is not registered: kept here, where a pass finds it with the rest.
	known *model.Node

	node     *model.Node
	zoneKey  string
	excluded bool // the node has LabelNodeExcludeDisruption
	// noExecuteTainted says node carries the unreachable or the not-ready NoExecute taint:
	// without either, markNodeAsReachable's two removeTaintOffNode calls return at once, and a
	// pass over a healthy node need not read its taints (a cold line of the node) to know it.
	noExecuteTainted bool
	// hasHealth says health holds a record; readySeen that observedReady holds a status. The
	// four flags share a word.
	hasHealth bool
	readySeen bool
	leaseKey  string
	// leaseRef finds the Lease's cache entry again without a lookup by leaseKey on every pass
	// (client.Informer.GetByKeyRef).
	leaseRef client.EntryRef

	// health is upstream's nodeHealthMap entry of the node, if hasHealth: kept here, where a
	// pass finds it with the rest, by value (storing a record allocates nothing).
	health nodeHealthData

	observedReady model.ConditionStatus

	// ready[i] is the Ready condition of the node status readyIn[i] (nil if it has none): the
	// last two status objects a pass looked at (readyOf), the newest first. A node's status
	// usually stays the same object for minutes (the kubelet posts an unchanged status every
	// NodeStatusReportFrequency), and finding the condition again would read every condition
	// before it, cold in the processor's caches. The pass after a new status asks about the
	// new one and then about the one its health record saved, the older of the two.
	readyIn [2]*model.NodeStatus
	ready   [2]*model.NodeCondition
}

// readyOf is getNodeCondition(status, model.NodeReady), looked for once per status object
// while it is one of the last two asked about: the statuses read here are never modified once
// seen (see nodeMemo).
func (m *nodeMemo) readyOf(status *model.NodeStatus) *model.NodeCondition {
	switch status {
	case m.readyIn[0]:
		return m.ready[0]
	case m.readyIn[1]:
		return m.ready[1]
	}
	ready := getNodeCondition(status, model.NodeReady)
	m.readyIn = [2]*model.NodeStatus{status, m.readyIn[0]}
	m.ready = [2]*model.NodeCondition{ready, m.ready[0]}
	return ready
}

// nodeHealth returns the health record of the node called name, if it has one.
func (nc *Controller) nodeHealth(name string) (nodeHealthData, bool) {
	if m := nc.memos[name]; m != nil && m.hasHealth {
		return m.health, true
	}
	return nodeHealthData{}, false
}

// memo returns the memo of the node called name, creating it.
func (nc *Controller) memo(name string) *nodeMemo {
	m := nc.memos[name]
	if m == nil {
		if nc.memos == nil {
			nc.memos = make(map[string]*nodeMemo)
		}
		m = &nodeMemo{leaseKey: model.KeyOf(NamespaceNodeLease, name)}
		nc.memos[name] = m
	}
	return m
}

// facts returns the memo of node with the zone key and exclusion of this version of it,
// computed once per node version.
func (nc *Controller) facts(node *model.Node) *nodeMemo { return nc.memo(node.Name).of(node) }

// of is m, the memo of node, with the zone key and exclusion of this version of node.
func (m *nodeMemo) of(node *model.Node) *nodeMemo {
	if m.node != node {
		_, excluded := node.Labels[LabelNodeExcludeDisruption]
		m.node, m.zoneKey, m.excluded = node, GetZoneKey(node), excluded
		m.noExecuteTainted = hasNoExecuteTaint(node.Spec.Taints)
	}
	return m
}

// zoneKey is GetZoneKey(node), computed once per node version.
func (nc *Controller) zoneKey(node *model.Node) string { return nc.facts(node).zoneKey }

// ZoneState is one zone's disruption state as handleDisruption last set it.
type ZoneState struct {
	// Zone is the display name (region/zone, see ZoneDisplayName); Key is upstream's zone key.
	Zone, Key string
	State     ZoneHealth
	// Nodes and NotReady are the counts of the last monitor pass (excluded nodes not counted).
	Nodes, NotReady int
	// EvictionQPS is the zone's current tainting rate (0: tainting stopped).
	EvictionQPS float32
	// Queued is the number of nodes waiting in the zone's tainting queue.
	Queued int
}

// LimiterStats are the tainting queue counters of one zone: how long nodes waited for the
// zone's token bucket between being first queued and being tainted (the "why was this node
// tainted late" breakdown).
type LimiterStats struct {
	Zone string
	// Tainted counts nodes taken off the queue and tainted.
	Tainted uint64
	// Waited counts those not picked by the first tainting pass after they were queued (more
	// than NodeEvictionPeriod later), that is, that waited for a token; WaitTotal and MaxWait
	// are the summed and longest times from first queued to picked, over all tainted nodes.
	Waited    uint64
	WaitTotal time.Duration
	MaxWait   time.Duration
	// Queued is the number of nodes waiting now; LimiterSwaps counts rate changes.
	Queued       int
	LimiterSwaps uint64
}

// zoneTaintStats accumulates LimiterStats for one zone.
type zoneTaintStats struct {
	tainted, waited    uint64
	waitTotal, maxWait time.Duration
}

// Controller is the node lifecycle controller: it watches node heartbeats, marks silent nodes
// Unknown, keeps the NoSchedule condition taints in line with node conditions, and adds the
// NoExecute not-ready/unreachable taints through per-zone rate limits that depend on how
// disrupted each zone is.
type Controller struct {
	k   *sim.Kernel
	c   *client.Client
	rec record.Recorder
	cfg Config
	rnd *rand.Rand

	nodes  controllerutil.Lister[*model.Node]
	leases controllerutil.Lister[*model.Lease]
	pods   controllerutil.Lister[*model.Pod]

	// knownNodes counts the nodes registered (upstream knownNodeSet, here nodeMemo.known).
	knownNodes   int
	zoneTainter  map[string]*RateLimitedTimedQueue
	zoneStates   map[string]ZoneHealth
	zoneCounts   map[string][2]int
	nodesToRetry map[string]struct{}
	// queuedSince is when each node now in a zone queue was first queued (upstream re-queues a
	// node on every pass until it is tainted, which resets its AddedAt).
	queuedSince map[string]vtime.Time
	taintStats  map[string]*zoneTaintStats
	// memos holds, per node name, what every monitor pass derives from the node and the last
	// Ready status traced for it. A memo outlives its node (a node re-created under the same
	// name continues its trace), as the controller's other per-node-name records do.
	memos map[string]*nodeMemo
	// passMemos is the monitor pass's memo of each node it visits, in its order (reused).
	passMemos []*nodeMemo
	// zoneConds is the monitor pass's Ready conditions by zone key (zoneConditions).
	zoneConds map[string][]*model.NodeCondition
	// zoneKeys is handleDisruption's array of sorted zone keys (sortedZones).
	zoneKeys []string

	nodeUpdateQueue *workqueue.Typed[string]
	podUpdateQueue  *workqueue.RateLimiting[podItem]

	procs   []*sim.Proc
	monitor *sim.Proc
	tainter *sim.Proc
	helpers map[*sim.Proc]struct{}
	running bool

	// lastTaintPassEnd anchors upstream's 100ms tainting ticker (wait.Until is sliding: the
	// next run is one period after the previous returned). Skipped ticks cost no time, so the
	// grid stays lastTaintPassEnd + n*NodeEvictionPeriod.
	lastTaintPassEnd vtime.Time
	tainterParked    bool
	tainterTimer     *sim.Timer
}

// New returns a stopped controller reading Nodes, Leases and Pods through informers from f and
// writing through c; events go to rec (nil: none). It returns an error naming the flag when cfg
// is invalid.
func New(k *sim.Kernel, c *client.Client, f *client.SharedInformerFactory, rec record.Recorder, cfg Config) (*Controller, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	nc := &Controller{
		k:            k,
		c:            c,
		rec:          rec,
		cfg:          cfg,
		rnd:          k.Rand("nodelifecycle"),
		zoneTainter:  make(map[string]*RateLimitedTimedQueue),
		zoneStates:   make(map[string]ZoneHealth),
		zoneCounts:   make(map[string][2]int),
		nodesToRetry: make(map[string]struct{}),
		memos:        make(map[string]*nodeMemo),
		queuedSince:  make(map[string]vtime.Time),
		taintStats:   make(map[string]*zoneTaintStats),
		helpers:      make(map[*sim.Proc]struct{}),
	}
	nc.nodes, nc.leases, nc.pods = newCaches(f, nc)
	return nc, nil
}

// Start spawns the controller's processes: the monitor loop (every NodeMonitorPeriod, first
// pass at once), the NoExecute tainting pass (every NodeEvictionPeriod while some zone queue is
// not empty), the NoSchedule tainting workers and the pod workers. Each waits for the caches
// to sync first, as upstream Run does.
func (nc *Controller) Start() {
	if nc.running {
		return
	}
	nc.running = true
	nc.nodeUpdateQueue = workqueue.New[string](nc.k, "node_lifecycle_controller")
	nc.podUpdateQueue = workqueue.NewRateLimiting[podItem](nc.k, "node_lifecycle_controller_pods",
		workqueue.DefaultControllerRateLimiter[podItem]())
	for i := 0; i < nodeUpdateWorkerSize; i++ {
		nc.procs = append(nc.procs, nc.k.Spawn(traceComponent+"-node-worker-"+strconv.Itoa(i), nc.doNodeProcessingPassWorker))
	}
	for i := 0; i < podUpdateWorkerSize; i++ {
		nc.procs = append(nc.procs, nc.k.Spawn(traceComponent+"-pod-worker-"+strconv.Itoa(i), nc.doPodProcessingWorker))
	}
	nc.tainter = nc.k.Spawn(traceComponent+"-noexecute-tainter", nc.runNoExecuteTainter)
	nc.monitor = nc.k.Spawn(traceComponent+"-monitor", nc.runMonitor)
	nc.procs = append(nc.procs, nc.tainter, nc.monitor)
	// A fresh informer would deliver every node and pod as an Add; replay the cache so that a
	// restart with long-lived informers sees them too.
	for _, n := range nc.nodes.List() {
		nc.nodeUpdateQueue.Add(n.Name)
	}
	for _, p := range nc.pods.List() {
		nc.podUpdated(nil, p)
	}
}

// Stop kills every process of the controller and drops its in-memory state (the nodes' memos
// with their health records, zone queues, known nodes), as a kube-controller-manager restart
// does.
func (nc *Controller) Stop() {
	if !nc.running {
		return
	}
	nc.running = false
	nc.nodeUpdateQueue.ShutDown()
	nc.podUpdateQueue.ShutDown()
	for _, p := range nc.procs {
		p.Kill()
	}
	controllerutil.KillInNameOrder(nc.helpers)
	nc.procs, nc.monitor, nc.tainter = nil, nil, nil
	clear(nc.helpers)
	nc.knownNodes = 0
	clear(nc.zoneTainter)
	clear(nc.zoneStates)
	clear(nc.zoneCounts)
	clear(nc.nodesToRetry)
	clear(nc.memos)
	clear(nc.passMemos)
	nc.passMemos = nc.passMemos[:0]
	nc.zoneConds = nil
	clear(nc.queuedSince)
	nc.tainterParked = false
	if nc.tainterTimer != nil {
		nc.tainterTimer.Stop()
		nc.tainterTimer = nil
	}
}

// ZoneStates returns every zone's state, sorted by zone display name then key.
func (nc *Controller) ZoneStates() []ZoneState {
	out := make([]ZoneState, 0, len(nc.zoneStates))
	for _, key := range slices.Sorted(maps.Keys(nc.zoneStates)) {
		zs := ZoneState{Zone: ZoneDisplayName(key), Key: key, State: nc.zoneStates[key]}
		counts := nc.zoneCounts[key]
		zs.Nodes, zs.NotReady = counts[0], counts[1]
		if q := nc.zoneTainter[key]; q != nil {
			zs.EvictionQPS = q.QPS()
			zs.Queued = q.Len()
		}
		out = append(out, zs)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Zone < out[j].Zone })
	return out
}

// EvictionLimiterStats returns the tainting queue counters of every zone, sorted by zone.
func (nc *Controller) EvictionLimiterStats() []LimiterStats {
	out := make([]LimiterStats, 0, len(nc.zoneTainter))
	for _, key := range slices.Sorted(maps.Keys(nc.zoneTainter)) {
		q := nc.zoneTainter[key]
		s := LimiterStats{Zone: ZoneDisplayName(key), Queued: q.Len(), LimiterSwaps: q.limiterSwaps}
		if st := nc.taintStats[key]; st != nil {
			s.Tainted, s.Waited, s.WaitTotal, s.MaxWait = st.tainted, st.waited, st.waitTotal, st.maxWait
		}
		out = append(out, s)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Zone < out[j].Zone })
	return out
}

// runMonitor is upstream's wait.UntilWithContext(monitorNodeHealth, nodeMonitorPeriod): a pass
// at once, then one period after each pass returns. The wait is idle: a periodic monitor is
// not pending work.
func (nc *Controller) runMonitor(p *sim.Proc) {
	nc.waitForCacheSync(p)
	for {
		nc.monitorNodeHealth(p)
		p.Idle(nc.cfg.NodeMonitorPeriod)
	}
}

// monitorNodeHealth is upstream monitorNodeHealth.
func (nc *Controller) monitorNodeHealth(p *sim.Proc) {
	nodes := nc.nodes.List()
	// Each node's memo is found once per pass, for classifyNodes and updateNode: the list's
	// order is stable and a node rarely changes, so the memo at the same place in the last
	// pass is usually the one, which spares a cold lookup by name. A memo whose node is n is
	// n's (of sets it, on n's own memo; Stop clears passMemos with the memos).
	prev := nc.passMemos
	memos := nc.passMemos[:0]
	for i, n := range nodes {
		if i < len(prev) && prev[i].node == n {
			memos = append(memos, prev[i]) // prev[i] is read before memos overwrites it
		} else {
			memos = append(memos, nc.facts(n))
		}
	}
	nc.passMemos = memos
	added, deleted, newZoneRepresentatives := nc.classifyNodes(nodes, memos)
	for _, n := range newZoneRepresentatives {
		nc.addPodEvictorForNewZone(n)
	}
	for _, n := range added {
		nc.recordNodeEvent(n, ReasonRegisteredNode, "Registered Node "+n.Name+" in Controller")
		nc.memo(n.Name).known = n
		nc.knownNodes++
		nc.addPodEvictorForNewZone(n)
		nc.markNodeAsReachable(p, n, nc.zoneKey(n))
	}
	for _, n := range deleted {
		nc.recordNodeEvent(n, ReasonRemovingNode, "Removing Node "+n.Name+" from Controller")
		m := nc.memos[n.Name]
		m.known = nil
		nc.knownNodes--
		m.node, m.zoneKey, m.readyIn, m.ready = nil, "", [2]*model.NodeStatus{}, [2]*model.NodeCondition{} // let the deleted node go
	}

	zoneToNodeConditions := nc.zoneConditions()
	nc.parallelize(p, nodeUpdateWorkerSize, len(nodes), func(wp *sim.Proc, i int) {
		nc.updateNode(wp, nodes[i], memos[i], zoneToNodeConditions)
	})
	for k, v := range zoneToNodeConditions { //detlint:ordered each zone on its own
		if len(v) == 0 {
			delete(zoneToNodeConditions, k) // a zone without nodes this pass is gone
		}
	}
	nc.handleDisruption(p, zoneToNodeConditions, nodes)
}

// zoneConditions returns the map a pass collects each zone's Ready conditions in: the last
// pass's, with every zone's list emptied, so that a pass appends to the arrays of the last
// one rather than growing new ones (most of a pass's allocations). A zone whose list stays
// empty must be deleted before the map is read (handleDisruption takes a zone in the map for
// a zone with nodes).
func (nc *Controller) zoneConditions() map[string][]*model.NodeCondition {
	if nc.zoneConds == nil {
		nc.zoneConds = make(map[string][]*model.NodeCondition)
	}
	for k, v := range nc.zoneConds { //detlint:ordered each zone on its own
		clear(v) // let the last pass's nodes go
		nc.zoneConds[k] = v[:0]
	}
	return nc.zoneConds
}

// updateNode is the per-node body of monitorNodeHealth (upstream updateNodeFunc).
// m is the node's memo.
func (nc *Controller) updateNode(p *sim.Proc, cached *model.Node, m *nodeMemo, zoneToNodeConditions map[string][]*model.NodeCondition) {
	// Upstream deep-copies every node on every pass; here the cached node is read as is and
	// copied only when tryUpdateNodeHealth has to change it (it returns the node to go on with).
	node := cached
	var observed model.NodeCondition
	var current *model.NodeCondition
	start := nc.k.Now()
	for {
		var err error
		observed, current, node, err = nc.tryUpdateNodeHealth(p, m, node)
		if err == nil {
			break
		}
		name := node.Name
		node, err = nc.getNode(p, name)
		if err != nil {
			nc.k.Emit(traceComponent, "health-update-failed", "Node "+name, 0, "get: "+err.Error())
			return
		}
		// wait.PollImmediate(retrySleepTime, retrySleepTime*NodeHealthUpdateRetry): the
		// poll gives up once its timeout has passed.
		p.Sleep(retrySleepTime)
		if nc.k.Now().Sub(start) >= retrySleepTime*NodeHealthUpdateRetry {
			nc.k.Emit(traceComponent, "health-update-failed", "Node "+name, 0, "timed out; no pods will be evicted")
			return
		}
	}

	zone := m.of(node).zoneKey
	if !m.excluded {
		zoneToNodeConditions[zone] = append(zoneToNodeConditions[zone], current)
	}
	nc.traceObservedReady(m, node, current)
	// nodesToRetry is almost always empty: isRetrying and forgetRetry skip it then rather
	// than read the node's name, a cold line.
	if current == nil {
		nc.forgetRetry(node)
		return
	}
	// The pods are listed before the tainting below, which may wait for the API, as upstream
	// does; but only when they can be needed: a node is taken off nodesToRetry (never put on
	// it) by anything that runs meanwhile, so the condition below cannot turn true.
	transitioned := current.Status != model.ConditionTrue && observed.Status == model.ConditionTrue
	var pods []*model.Pod
	if retrying := nc.isRetrying(node); transitioned || (retrying && observed.Status != model.ConditionTrue) {
		pods = nc.pods.ByIndex(client.IndexNodeName, node.Name)
	}
	nc.processTaintBaseEviction(p, node, m, zone, &observed)

	needsRetry := nc.isRetrying(node)
	if transitioned {
		nc.recordNodeStatusChange(node, ReasonNodeNotReady)
	}
	if transitioned || (needsRetry && observed.Status != model.ConditionTrue) {
		if err := nc.markPodsNotReady(p, pods, node.Name); err != nil {
			nc.k.Emit(traceComponent, "mark-pods-not-ready-failed", "Node "+node.Name, 0, err.Error()+"; queued for retry")
			nc.nodesToRetry[node.Name] = struct{}{}
			return
		}
	}
	nc.forgetRetry(node)
}

// isRetrying reports whether node is in nodesToRetry, without reading its name when the set
// is empty.
func (nc *Controller) isRetrying(node *model.Node) bool {
	if len(nc.nodesToRetry) == 0 {
		return false
	}
	_, ok := nc.nodesToRetry[node.Name]
	return ok
}

// forgetRetry takes node off nodesToRetry, without reading its name when the set is empty.
func (nc *Controller) forgetRetry(node *model.Node) {
	if len(nc.nodesToRetry) > 0 {
		delete(nc.nodesToRetry, node.Name)
	}
}

// traceObservedReady traces the Ready status of node, whose memo is m, when it changed.
func (nc *Controller) traceObservedReady(m *nodeMemo, node *model.Node, current *model.NodeCondition) {
	status := model.ConditionStatus("None")
	if current != nil {
		status = current.Status
	}
	prev, seen := m.observedReady, m.readySeen
	if seen && prev == status {
		return
	}
	m.observedReady, m.readySeen = status, true
	detail := "ready=" + string(status)
	if seen {
		detail = "ready=" + string(prev) + "->" + string(status)
	}
	if m.hasHealth {
		h := m.health
		detail += " probe=" + h.probeTimestamp.String()
	}
	nc.k.Emit(traceComponent, "node-health", "Node "+node.Name, node.ResourceVersion, detail)
}

// tryUpdateNodeHealth is upstream tryUpdateNodeHealth: it refreshes the node's probe timestamp
// from a changed Ready heartbeat or a newer Lease renewal, and once the grace period has passed
// without either, writes Ready, MemoryPressure, DiskPressure and PIDPressure as Unknown. It
// returns the Ready condition as observed before and as it is after (nil if the node has none),
// the node as it is now (a private copy if it had to be changed, else node itself, which is
// not modified) and the error of the status write, if any.
func (nc *Controller) tryUpdateNodeHealth(p *sim.Proc, m *nodeMemo, node *model.Node) (observed model.NodeCondition, current *model.NodeCondition, _ *model.Node, err error) {
	now := nc.k.Now()
	// The record is edited as a private value h and stored when the pass is done with it (also
	// when the pass is killed during its status write: Stop clears the records first). The
	// memo holds the record by value, so storing one allocates nothing (a record per node per
	// monitor pass was a fifth of the allocations of BenchmarkLeaseRenewalChain).
	h, have := m.health, m.hasHealth
	defer func() { m.health, m.hasHealth = h, true }()

	var grace time.Duration
	current = m.readyOf(&node.Status)
	before := "None"
	if current != nil {
		before = string(current.Status)
	}
	if current == nil {
		// The kubelet never posted a Ready condition: pretend one from the creation time.
		observed = model.NodeCondition{
			Type: model.NodeReady, Status: model.ConditionUnknown,
			LastHeartbeatTime: node.CreationTimestamp, LastTransitionTime: node.CreationTimestamp,
		}
		grace = nc.cfg.NodeStartupGracePeriod
		if have {
			h.status = &node.Status
		} else {
			h, have = nodeHealthData{status: &node.Status, probeTimestamp: node.CreationTimestamp, readyTransitionTimestamp: node.CreationTimestamp}, true
		}
	} else {
		observed = *current
		grace = nc.cfg.NodeMonitorGracePeriod
	}

	var saved *model.NodeCondition
	var savedLease *model.Lease
	if have {
		// The record usually holds this very status (no new heartbeat since): its Ready
		// condition is current, found above.
		if h.status == &node.Status {
			saved = current
		} else {
			// The status the record saved, which the last pass asked the memo about.
			saved = m.readyOf(h.status)
		}
		savedLease = h.lease
	}
	switch {
	case !have:
		h = nodeHealthData{status: &node.Status, probeTimestamp: now, readyTransitionTimestamp: now}
	case saved == nil && current != nil:
		h = nodeHealthData{status: &node.Status, probeTimestamp: now, readyTransitionTimestamp: now}
	case saved != nil && current == nil:
		h = nodeHealthData{status: &node.Status, probeTimestamp: now, readyTransitionTimestamp: now}
	case saved != nil && current != nil && saved.LastHeartbeatTime != current.LastHeartbeatTime:
		transition := h.readyTransitionTimestamp
		if saved.LastTransitionTime != current.LastTransitionTime {
			transition = now
		}
		h = nodeHealthData{status: &node.Status, probeTimestamp: now, readyTransitionTimestamp: transition}
	}
	// A renewed Lease always refreshes the probe time, even if the kubelet never posted status.
	var observedLease *model.Lease
	if obj, ok := nc.leases.Informer.GetByKeyRef(m.leaseKey, &m.leaseRef); ok {
		// A cached object, never a tombstone: what client.ObjectAs would find.
		observedLease, _ = obj.(*model.Lease)
	}
	if observedLease != nil && (savedLease == nil || renewedBefore(savedLease, observedLease)) {
		h.lease = observedLease
		h.probeTimestamp = now
	}

	if now <= h.probeTimestamp.Add(grace) {
		return observed, current, node, nil
	}
	if !needsUnknown(&node.Status) {
		// Every condition is Unknown already: the edit below would change nothing.
		return observed, current, node, nil
	}
	node = node.DeepCopy()
	for _, ct := range unknownConditionTypes {
		c := getNodeCondition(&node.Status, ct)
		if c == nil {
			node.Status.Conditions = append(node.Status.Conditions, model.NodeCondition{
				Type: ct, Status: model.ConditionUnknown,
				Reason: reasonNodeStatusNeverUpdated, Message: messageNodeStatusNeverUpd,
				LastHeartbeatTime: node.CreationTimestamp, LastTransitionTime: now,
			})
			continue
		}
		if c.Status != model.ConditionUnknown {
			c.Status = model.ConditionUnknown
			c.Reason = reasonNodeStatusUnknown
			c.Message = messageNodeStatusUnknown
			c.LastTransitionTime = now
		}
	}
	current = getNodeCondition(&node.Status, model.NodeReady)
	if *current == observed {
		return observed, current, node, nil
	}
	updated, err := nc.updateNodeStatus(p, node)
	if err != nil {
		nc.k.Emit(traceComponent, "node-status-update-failed", "Node "+node.Name, 0, err.Error())
		return observed, current, node, err
	}
	nc.k.Emit(traceComponent, "mark-unknown", "Node "+node.Name, updated.ResourceVersion,
		"ready="+before+"->Unknown silent-since="+h.probeTimestamp.String()+" grace="+grace.String())
	h = nodeHealthData{status: &node.Status, probeTimestamp: h.probeTimestamp, readyTransitionTimestamp: nc.k.Now(), lease: observedLease}
	return observed, current, node, nil
}

// unknownConditionTypes are the conditions tryUpdateNodeHealth sets to Unknown; upstream leaves
// NetworkUnavailable alone, as the control plane manages it.
var unknownConditionTypes = [...]string{model.NodeReady, model.NodeMemoryPressure, model.NodeDiskPressure, model.NodePIDPressure}

// needsUnknown reports whether marking the node Unknown would change its status.
func needsUnknown(status *model.NodeStatus) bool {
	for _, ct := range unknownConditionTypes {
		c := getNodeCondition(status, ct)
		if c == nil || c.Status != model.ConditionUnknown {
			return true
		}
	}
	return false
}

// renewedBefore is upstream savedLease.Spec.RenewTime.Before(observedLease.Spec.RenewTime):
// false when either time is unset. A Lease is never renewed before itself: when the cache
// still holds the version the record saw (every other monitor pass, at the kubelet's 10 s
// renewals and the 5 s passes) the answer is false without reading the Lease, which no
// event has touched since the last pass.
func renewedBefore(saved, observed *model.Lease) bool {
	if saved == observed || saved.Spec.RenewTime == nil || observed.Spec.RenewTime == nil {
		return false
	}
	return *saved.Spec.RenewTime < *observed.Spec.RenewTime
}

// processTaintBaseEviction is upstream processTaintBaseEviction, driven by the Ready
// condition as observed before this pass's own update. zone is the node's zone key.
// m is the node's memo, which holds node (m.node == node).
func (nc *Controller) processTaintBaseEviction(p *sim.Proc, node *model.Node, m *nodeMemo, zone string, observed *model.NodeCondition) {
	switch observed.Status {
	case model.ConditionFalse:
		if taintExists(node.Spec.Taints, &unreachableTaintTemplate) {
			// Swap at once rather than wait for the rate limiter: the node is tainted already.
			nc.swapNodeControllerTaint(p, []model.Taint{notReadyTaintTemplate}, []model.Taint{unreachableTaintTemplate}, node)
		} else {
			nc.markNodeForTainting(node, zone, model.ConditionFalse)
		}
	case model.ConditionUnknown:
		if taintExists(node.Spec.Taints, &notReadyTaintTemplate) {
			nc.swapNodeControllerTaint(p, []model.Taint{unreachableTaintTemplate}, []model.Taint{notReadyTaintTemplate}, node)
		} else {
			nc.markNodeForTainting(node, zone, model.ConditionUnknown)
		}
	case model.ConditionTrue:
		if m.noExecuteTainted {
			nc.markNodeAsReachable(p, node, zone)
		} else {
			nc.untrackReachable(node, zone) // the removeTaintOffNode calls would find neither taint
		}
	}
}

// markNodeForTainting is upstream markNodeForTainting: a node whose matching taint is missing
// is re-queued from scratch (so, as upstream, a node waiting for a token is re-queued at every
// pass); the result says whether it entered the queue. Only the first queueing is traced.
// zone is the node's zone key (a pass has it at hand: looking it up again is a cold map read).
func (nc *Controller) markNodeForTainting(node *model.Node, zone string, status model.ConditionStatus) bool {
	q := nc.zoneTainter[zone]
	if q == nil {
		return false
	}
	if status == model.ConditionFalse && !taintExists(node.Spec.Taints, &notReadyTaintTemplate) {
		q.Remove(node.Name)
	}
	if status == model.ConditionUnknown && !taintExists(node.Spec.Taints, &unreachableTaintTemplate) {
		q.Remove(node.Name)
	}
	added := q.Add(node.Name, node.UID)
	if !added {
		return false
	}
	if _, ok := nc.queuedSince[node.Name]; !ok {
		nc.queuedSince[node.Name] = nc.k.Now()
		nc.k.Emit(traceComponent, "taint-queued", "Node "+node.Name, node.ResourceVersion,
			"ready="+string(status)+" zone="+ZoneDisplayName(zone))
	}
	nc.wakeTainter()
	return true
}

// taintDone records that node left zone's queue tainted by a write started at start (for
// LimiterStats: the wait ends when the tainting pass picked the node, not when the API answered).
func (nc *Controller) taintDone(zone, node string, start vtime.Time) {
	since, ok := nc.queuedSince[node]
	if !ok {
		return
	}
	delete(nc.queuedSince, node)
	st := nc.taintStats[zone]
	if st == nil {
		st = &zoneTaintStats{}
		nc.taintStats[zone] = st
	}
	wait := start.Sub(since)
	st.tainted++
	st.waitTotal += wait
	if wait > st.maxWait {
		st.maxWait = wait
	}
	if wait > NodeEvictionPeriod {
		st.waited++
	}
}

// markNodeAsReachable is upstream markNodeAsReachable: remove both NoExecute taints and take
// the node out of its zone queue. It reports whether the node was queued (or tainted before).
// zone is the node's zone key, as for markNodeForTainting.
func (nc *Controller) markNodeAsReachable(p *sim.Proc, node *model.Node, zone string) (bool, error) {
	if err := nc.removeTaintOffNode(p, node.Name, node, unreachableTaintTemplate); err != nil {
		nc.k.Emit(traceComponent, "taint-remove-failed", "Node "+node.Name, 0, err.Error())
		return false, err
	}
	if err := nc.removeTaintOffNode(p, node.Name, node, notReadyTaintTemplate); err != nil {
		nc.k.Emit(traceComponent, "taint-remove-failed", "Node "+node.Name, 0, err.Error())
		return false, err
	}
	return nc.untrackReachable(node, zone), nil
}

// untrackReachable is markNodeAsReachable's end, once neither taint is on node: forget when
// node was queued and take it out of its zone queue, reporting whether it was queued. Empty
// maps are not asked (the usual case): asking would read the node's name, a cold line.
func (nc *Controller) untrackReachable(node *model.Node, zone string) bool {
	if len(nc.queuedSince) > 0 {
		delete(nc.queuedSince, node.Name)
	}
	q := nc.zoneTainter[zone]
	if q == nil || len(q.set) == 0 {
		return false // Remove would find nothing
	}
	return q.Remove(node.Name)
}

// sortedZones returns the keys of zones sorted, in the array *scratch (which it keeps for the
// next call): handleDisruption's loops over sorted zones run one after the other, none inside
// another, so one array serves them all, every pass.
func sortedZones[V any](scratch *[]string, zones map[string]V) []string {
	keys := slices.AppendSeq((*scratch)[:0], maps.Keys(zones))
	slices.Sort(keys)
	*scratch = keys
	return keys
}

// handleDisruption is upstream handleDisruption: compute every zone's state; if every zone is
// fully disrupted assume the control plane, not the nodes, is cut off and stop all tainting
// (removing the NoExecute taints everywhere); otherwise set each zone's rate by its state.
// Zones are visited in sorted order (upstream iterates a map).
func (nc *Controller) handleDisruption(p *sim.Proc, zoneToNodeConditions map[string][]*model.NodeCondition, nodes []*model.Node) {
	newZoneStates := make(map[string]ZoneHealth, len(zoneToNodeConditions))
	allAreFullyDisrupted := true
	for _, k := range sortedZones(&nc.zoneKeys, zoneToNodeConditions) {
		v := zoneToNodeConditions[k]
		unhealthy, state := ComputeZoneState(v, nc.cfg.UnhealthyZoneThreshold)
		nc.zoneCounts[k] = [2]int{len(v), unhealthy}
		if state != ZoneFullDisruption {
			allAreFullyDisrupted = false
		}
		newZoneStates[k] = state
		if _, had := nc.zoneStates[k]; !had {
			nc.zoneStates[k] = ZoneInitial
		}
	}
	allWasFullyDisrupted := true
	for _, k := range sortedZones(&nc.zoneKeys, nc.zoneStates) {
		if _, have := zoneToNodeConditions[k]; !have {
			delete(nc.zoneStates, k)
			delete(nc.zoneCounts, k)
			continue
		}
		if nc.zoneStates[k] != ZoneFullDisruption {
			allWasFullyDisrupted = false
		}
	}
	if allAreFullyDisrupted && allWasFullyDisrupted {
		return
	}
	if allAreFullyDisrupted {
		nc.k.Emit(traceComponent, "disruption-mode", "cluster", 0, "enter: every zone is FullDisruption; stopping all tainting")
		for _, n := range nodes {
			nc.markNodeAsReachable(p, n, nc.zoneKey(n))
		}
		for _, k := range sortedZones(&nc.zoneKeys, nc.zoneStates) {
			nc.swapZoneLimiter(k, 0)
			nc.setZoneState(k, ZoneFullDisruption)
		}
		return
	}
	if allWasFullyDisrupted {
		nc.k.Emit(traceComponent, "disruption-mode", "cluster", 0, "exit: some nodes are Ready; every node gets a fresh grace period")
		now := nc.k.Now()
		for _, n := range nodes {
			m := nc.memos[n.Name]
			if m == nil || !m.hasHealth {
				continue
			}
			m.health.probeTimestamp = now
			m.health.readyTransitionTimestamp = now
		}
		for _, k := range sortedZones(&nc.zoneKeys, nc.zoneStates) {
			nc.setLimiterInZone(k, len(zoneToNodeConditions[k]), newZoneStates[k])
			nc.setZoneState(k, newZoneStates[k])
		}
		return
	}
	for _, k := range sortedZones(&nc.zoneKeys, nc.zoneStates) {
		newState := newZoneStates[k]
		if nc.zoneStates[k] == newState {
			continue
		}
		nc.setLimiterInZone(k, len(zoneToNodeConditions[k]), newState)
		nc.setZoneState(k, newState)
	}
}

func (nc *Controller) setZoneState(k string, state ZoneHealth) {
	old := nc.zoneStates[k]
	nc.zoneStates[k] = state
	if old == state {
		return
	}
	counts := nc.zoneCounts[k]
	nc.k.Emit(traceComponent, "zone-state", "zone "+ZoneDisplayName(k), 0,
		string(old)+"->"+string(state)+" nodes="+strconv.Itoa(counts[0])+" not-ready="+strconv.Itoa(counts[1]))
}

// setLimiterInZone is upstream setLimiterInZone.
func (nc *Controller) setLimiterInZone(zone string, zoneSize int, state ZoneHealth) {
	if qps, ok := ZoneEvictionQPS(nc.cfg, zoneSize, state); ok {
		nc.swapZoneLimiter(zone, qps)
	}
}

// swapZoneLimiter sets a zone's tainting rate, tracing a change.
func (nc *Controller) swapZoneLimiter(zone string, qps float32) {
	q := nc.zoneTainter[zone]
	if q == nil {
		return
	}
	old := q.QPS()
	q.SwapLimiter(qps)
	if q.QPS() == old {
		return
	}
	nc.k.Emit(traceComponent, "zone-rate", "zone "+ZoneDisplayName(zone), 0,
		"eviction-qps="+formatQPS(old)+"->"+formatQPS(q.QPS()))
	nc.wakeTainter()
}

func formatQPS(q float32) string { return strconv.FormatFloat(float64(q), 'g', -1, 32) }

// classifyNodes is upstream classifyNodes: nodes not yet known, known nodes that are gone, and
// known nodes whose zone has no state (a new zone). memos[i] is the memo of all[i] (facts).
func (nc *Controller) classifyNodes(all []*model.Node, memos []*nodeMemo) (added, deleted, newZoneRepresentatives []*model.Node) {
	for i, n := range all {
		if memos[i].known == nil {
			added = append(added, n)
		} else if _, found := nc.zoneStates[memos[i].zoneKey]; !found {
			newZoneRepresentatives = append(newZoneRepresentatives, n)
		}
	}
	if nc.knownNodes+len(added) != len(all) {
		present := make(map[string]struct{}, len(all))
		for _, n := range all {
			present[n.Name] = struct{}{}
		}
		for _, name := range slices.Sorted(maps.Keys(nc.memos)) {
			if _, ok := present[name]; !ok && nc.memos[name].known != nil {
				deleted = append(deleted, nc.memos[name].known)
			}
		}
	}
	return added, deleted, newZoneRepresentatives
}

// addPodEvictorForNewZone is upstream addPodEvictorForNewZone: a zone seen for the first time
// gets state Initial and a tainting queue at NodeEvictionRate.
func (nc *Controller) addPodEvictorForNewZone(node *model.Node) {
	zone := nc.zoneKey(node)
	if _, found := nc.zoneStates[zone]; found {
		return
	}
	nc.zoneStates[zone] = ZoneInitial
	nc.zoneTainter[zone] = NewRateLimitedTimedQueue(nc.k, nc.cfg.NodeEvictionRate)
	nc.k.Emit(traceComponent, "zone-added", "zone "+ZoneDisplayName(zone), 0, "eviction-qps="+formatQPS(nc.cfg.NodeEvictionRate))
}

// monitorWorkerNames are the names of a monitor pass's worker processes (parallelize), made
// once: every pass spawns its workers anew under the same names.
var monitorWorkerNames = func() (names [nodeUpdateWorkerSize]string) {
	for w := range names {
		names[w] = traceComponent + "-monitor-" + strconv.Itoa(w)
	}
	return names
}()

// monitorWorkerName is the name of parallelize's worker w.
func monitorWorkerName(w int) string {
	if w < len(monitorWorkerNames) {
		return monitorWorkerNames[w]
	}
	return traceComponent + "-monitor-" + strconv.Itoa(w)
}

// parallelize is upstream workqueue.ParallelizeUntil: up to workers processes take the pieces
// in order; the caller waits until every piece is done.
func (nc *Controller) parallelize(p *sim.Proc, workers, pieces int, fn func(wp *sim.Proc, i int)) {
	if pieces == 0 {
		return
	}
	if workers > pieces {
		workers = pieces
	}
	next, remaining := 0, workers
	for w := 0; w < workers; w++ {
		var hp *sim.Proc
		hp = nc.k.Spawn(monitorWorkerName(w), func(wp *sim.Proc) {
			defer func() {
				delete(nc.helpers, hp)
				remaining--
				if remaining == 0 {
					p.Unpark()
				}
			}()
			for next < pieces {
				i := next
				next++
				fn(wp, i)
			}
		})
		nc.helpers[hp] = struct{}{}
	}
	for remaining > 0 {
		p.Park()
	}
}

// doNodeProcessingPassWorker is upstream doNodeProcessingPassWorker (the label reconcile part
// is not modelled: the simulator has no beta OS/arch labels).
func (nc *Controller) doNodeProcessingPassWorker(p *sim.Proc) {
	nc.waitForCacheSync(p)
	processEach(p, nc.nodeUpdateQueue, nc.doNoScheduleTaintingPass)
}

// processEach is the loop of upstream's node and pod workers: until q shuts down, it takes an
// item, hands it to process and marks it done.
func processEach[T comparable](p *sim.Proc, q workqueue.TypedInterface[T], process func(*sim.Proc, T)) {
	for {
		item, shutdown := q.Get(p)
		if shutdown {
			return
		}
		process(p, item)
		q.Done(item)
	}
}

// doNoScheduleTaintingPass is upstream doNoScheduleTaintingPass: make the node's NoSchedule
// condition taints (and the unschedulable taint) match its conditions and spec.
func (nc *Controller) doNoScheduleTaintingPass(p *sim.Proc, nodeName string) {
	node, ok := nc.nodes.Get("", nodeName)
	if !ok {
		return
	}
	want := NoScheduleTaintsFor(node)
	have := managedNoScheduleTaints(node.Spec.Taints)
	toAdd, toDel := taintSetDiff(want, have)
	if len(toAdd) == 0 && len(toDel) == 0 {
		return
	}
	nc.swapNodeControllerTaint(p, toAdd, toDel, node)
}

// podUpdated is upstream podUpdated: a pod newly bound to a node is checked against the
// node's health.
func (nc *Controller) podUpdated(oldPod, newPod *model.Pod) {
	if newPod == nil || !nc.running {
		return
	}
	if newPod.Spec.NodeName != "" && (oldPod == nil || newPod.Spec.NodeName != oldPod.Spec.NodeName) {
		nc.podUpdateQueue.Add(podItem{namespace: newPod.Namespace, name: newPod.Name})
	}
}

// doPodProcessingWorker is upstream doPodProcessingWorker.
func (nc *Controller) doPodProcessingWorker(p *sim.Proc) {
	nc.waitForCacheSync(p)
	processEach(p, nc.podUpdateQueue, nc.processPod)
}

// processPod is upstream processPod: a pod bound to a node that is not Ready is marked not
// ready at once rather than at the next monitor pass.
func (nc *Controller) processPod(p *sim.Proc, item podItem) {
	pod, ok := nc.pods.Get(item.namespace, item.name)
	if !ok {
		return
	}
	health, ok := nc.nodeHealth(pod.Spec.NodeName)
	if !ok {
		return
	}
	if _, ok := nc.nodes.Get("", pod.Spec.NodeName); !ok {
		nc.podUpdateQueue.AddRateLimited(item)
		return
	}
	ready := getNodeCondition(health.status, model.NodeReady)
	if ready == nil || ready.Status == model.ConditionTrue {
		return
	}
	if err := nc.markPodsNotReady(p, []*model.Pod{pod}, pod.Spec.NodeName); err != nil {
		nc.podUpdateQueue.AddRateLimited(item)
	}
}

// markPodsNotReady is upstream MarkPodsNotReady: set each pod's Ready condition to False
// through the status subresource and leave a Warning NodeNotReady event on it. A pod already
// gone is skipped; other errors are collected and the first is returned after trying all.
func (nc *Controller) markPodsNotReady(p *sim.Proc, pods []*model.Pod, nodeName string) error {
	var firstErr error
	for _, cached := range pods {
		if cached.Spec.NodeName != nodeName {
			continue
		}
		for _, cond := range cached.Status.Conditions {
			if cond.Type != model.PodReady {
				continue
			}
			cond.Status = model.ConditionFalse
			// The write hands over a shallow copy with a condition list of its own; the rest
			// stays shared with the cache, read-only.
			status := cached.Status
			status.Conditions = slices.Clone(cached.Status.Conditions)
			if !model.UpdatePodCondition(&status, cond, nc.k.Now()) {
				break
			}
			podValue := *cached
			podValue.Status = status
			pod := &podValue
			updated, err := nc.updatePodStatus(p, pod)
			if err != nil {
				if isNotFound(err) {
					continue
				}
				if firstErr == nil {
					firstErr = err
				}
			} else {
				nc.k.Emit(traceComponent, "mark-pod-not-ready", "Pod "+model.Key(pod), updated.ResourceVersion, "node="+nodeName)
			}
			nc.event(pod, model.EventTypeWarning, ReasonNodeNotReady, "Node is not ready")
			break
		}
	}
	return firstErr
}

// recordNodeEvent is upstream RecordNodeEvent ("Node %s event: %s").
func (nc *Controller) recordNodeEvent(node *model.Node, reason, event string) {
	nc.event(node, model.EventTypeNormal, reason, "Node %s event: %s", node.Name, event)
}

// recordNodeStatusChange is upstream RecordNodeStatusChange ("Node %s status is now: %s").
func (nc *Controller) recordNodeStatusChange(node *model.Node, newStatus string) {
	nc.event(node, model.EventTypeNormal, newStatus, "Node %s status is now: %s", node.Name, newStatus)
}

func (nc *Controller) event(obj model.Object, eventType, reason, messageFmt string, args ...any) {
	if nc.rec != nil {
		nc.rec.Eventf(obj, eventType, reason, messageFmt, args...)
	}
}
