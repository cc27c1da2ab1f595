package node

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"time"

	"k8s.io/apimachinery/pkg/fields"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim"
	"github.com/reconsim/reconsim/sim/apiserver"
	"github.com/reconsim/reconsim/sim/client"
	"github.com/reconsim/reconsim/sim/client/flowcontrol"
	"github.com/reconsim/reconsim/sim/client/record"
	"github.com/reconsim/reconsim/vtime"
)

// State is what State reports about a kubelet.
type State string

// The kubelet states. A crash or a node deletion dominates a partition, which dominates a
// stall.
const (
	StateNotStarted  State = "not-started"
	StateRunning     State = "running"
	StateCrashed     State = "crashed"
	StatePartitioned State = "partitioned"
	StateStalled     State = "stalled"
	// StateDeleted: the kubelet found its Node object deleted and stopped for good.
	StateDeleted State = "deleted"
)

// NodeLeaseNamespace is where node heartbeat Leases live (corev1.NamespaceNodeLease).
const NodeLeaseNamespace = "kube-node-lease"

// fieldSpecNodeName is the pod field the kubelet's pod informer selects on
// (pkg/kubelet/config/apiserver.go NewSourceApiserver).
const fieldSpecNodeName = "spec.nodeName"

// Kubelet is the simulated kubelet of one node. It runs as processes on the kernel: node
// registration and status, the node lease, a pod informer for the node's pods, one worker per
// pod and the status manager. Containers are simulated: their start, exit and probe outcomes
// come from the Config latencies and the pod's behaviour annotations.
//
// A Kubelet is not safe for use from goroutines; everything happens on the kernel.
type Kubelet struct {
	// The first two cache lines of a Kubelet hold what the per-period loops read (the lease
	// renewal, the node status check, the status manager's tick and the stall gate), and the
	// third cfg's first 64 bytes, every per-period setting: each node's kubelet is touched
	// once per period, long after its lines left the cache, so each line they spread across
	// is a miss per period. The allocator puts an 8-byte header before an object of this
	// size, which starts on a cache line: the first line holds the header and 56 bytes
	// (TestKubeletPeriodicFieldsShareCacheLines).
	k *sim.Kernel
	c *client.Client
	// stallUntil: the kubelet is stalled before it (Stall).
	stallUntil vtime.Time
	// latestLease is the Lease the last renewal wrote (or found), the base of the next one.
	latestLease *model.Lease
	rand        *rand.Rand // jitter, probe start offsets
	// unchangedNode is the last stored Node the node status check found unchanged by the
	// setters but for heartbeat times (see nodeStatusChanged).
	unchangedNode *model.Node
	// lastReportTime is when the node status was last written (hasReported: once written in
	// this incarnation).
	lastReportTime vtime.Time
	deleted        bool
	registered     bool
	hasReported    bool
	// component names the kubelet in traces and leaseObjectName its Lease there.
	component, leaseObjectName string
	nodeName                   string
	// cfgAlign starts cfg on a cache line.
	cfgAlign [8]byte
	cfg      Config

	started     bool
	crashed     bool
	partitioned bool
	// nodeObjectName names the kubelet's Node in traces.
	nodeObjectName string

	srv   *apiserver.Server
	fault *partitionFault
	rec   record.Recorder
	// node is the Node to register, as given to New (a private copy).
	node *model.Node
	// capacityList and allocatableList are what the node reports (see capacity): computed
	// once, shared, never mutated.
	capacityList, allocatableList model.ResourceList
	// conditionsScratch and nodeScratch are the node status check's working copy of the
	// stored Node's conditions and its shallow copy of the Node (see tryUpdateNodeStatus),
	// kept to spare an allocation per check.
	conditionsScratch []model.NodeCondition
	nodeScratch       model.Node
	// podConditionsScratch is where a pod worker builds a generated pod status's conditions
	// and the status manager normalises them (see setPodStatus).
	podConditionsScratch []model.PodCondition

	pullRand *rand.Rand // image pull latencies
	runRand  *rand.Rand // sandbox and container start latencies
	// imagePull, sandboxStart and containerStart draw the configured latencies (cfg's, which
	// never change) with their parameters computed once, not at every pod start.
	imagePull, sandboxStart, containerStart sim.Sampler

	stallTimer  *sim.Timer
	gateWaiters []*sim.Proc

	// incarnation counts starts: 1 after Start, +1 after every recovery from a crash.
	incarnation int
	// startedAt is when the current incarnation started; the PLEG relists on a grid from it.
	startedAt vtime.Time
	procs     []*sim.Proc
	informer  *client.Informer

	// Pod state. runtime is what the container runtime holds (it survives a kubelet restart);
	// workers, the back-off table and the status manager are the kubelet's memory.
	workers    map[string]*podWorker
	runtime    map[string]*podRuntime
	images     map[string]vtime.Time // image -> when it is (or will be) on the node
	pullFreeAt vtime.Time            // when the serial image puller is next free
	// pullFailUntil: image pulls started before it fail (FailImagePulls, a registry fault).
	pullFailUntil vtime.Time
	backoff       *flowcontrol.Backoff
	// imageBackoff is the image pull back-off, keyed <pod uid>_<image> (image_manager.go
	// EnsureImageExists).
	imageBackoff *flowcontrol.Backoff
	status       *statusManager
	nextID       uint64 // container instance IDs, unique per kubelet
	nextIP       int
	ipPrefix     string
}

// New returns a kubelet for node (which it copies: the name, labels, taints, capacity and
// allocatable to register) talking to the API server through c, recording events through
// rec. It starts nothing; call Start. c should be built with cfg.KubeAPIQPS and
// cfg.KubeAPIBurst. New returns an error if cfg does not pass Validate or the node has no name.
func New(k *sim.Kernel, c *client.Client, rec record.Recorder, node *model.Node, cfg Config) (*Kubelet, error) {
	if node == nil || node.Name == "" {
		return nil, fmt.Errorf("node: a kubelet needs a Node with a name")
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	kl := &Kubelet{
		k:               k,
		c:               c,
		rec:             rec,
		cfg:             cfg,
		nodeName:        node.Name,
		node:            node.DeepCopy(),
		component:       "kubelet/" + node.Name,
		nodeObjectName:  "Node " + node.Name,
		leaseObjectName: "Lease " + NodeLeaseNamespace + "/" + node.Name,
		rand:            k.Rand("kubelet/" + node.Name),
		pullRand:        k.Rand("kubelet/" + node.Name + "/image-pull"),
		runRand:         k.Rand("kubelet/" + node.Name + "/runtime"),
		imagePull:       cfg.ImagePull.Sampler(),
		sandboxStart:    cfg.SandboxStart.Sampler(),
		containerStart:  cfg.ContainerStart.Sampler(),
		runtime:         map[string]*podRuntime{},
		images:          map[string]vtime.Time{},
		ipPrefix:        podIPPrefix(node.Name),
	}
	kl.capacityList, kl.allocatableList = kl.nodeResources()
	kl.stallTimer = k.NewTimer(kl.endStall)
	return kl, nil
}

// podIPPrefix derives the first three octets of a node's synthetic pod IPs from its name.
func podIPPrefix(nodeName string) string {
	h := uint32(2166136261)
	for i := 0; i < len(nodeName); i++ {
		h ^= uint32(nodeName[i])
		h *= 16777619
	}
	return fmt.Sprintf("10.%d.%d", 64+(h>>8)%64, h%256)
}

// FailImagePulls makes every image pull the node starts during the next d fail, as a
// registry the node cannot reach would (a per-node fault; it leaves a trace line). Containers
// whose image is not on the node wait in ErrImagePull and ImagePullBackOff; the pull back-off
// (10s doubling to 300s per pod and image) decides when they try again after the fault ends.
func (kl *Kubelet) FailImagePulls(d time.Duration) {
	kl.pullFailUntil = max(kl.pullFailUntil, kl.k.Now().Add(d))
	kl.emit("fault", kl.nodeObject(), 0, fmt.Sprintf("image-pull-failure for=%s", d))
}

// NodeName returns the name of the kubelet's node.
func (kl *Kubelet) NodeName() string { return kl.nodeName }

// Config returns the kubelet's configuration.
func (kl *Kubelet) Config() Config { return kl.cfg }

// State returns the kubelet's current state.
func (kl *Kubelet) State() State {
	switch {
	case !kl.started:
		return StateNotStarted
	case kl.deleted:
		return StateDeleted
	case kl.crashed:
		return StateCrashed
	case kl.partitioned:
		return StatePartitioned
	case kl.stalled():
		return StateStalled
	}
	return StateRunning
}

// Ready reports whether the kubelet is working and reaching the API server: started,
// registered, and neither crashed, deleted, partitioned nor stalled.
func (kl *Kubelet) Ready() bool { return kl.State() == StateRunning && kl.registered }

// Pods returns how many pods the kubelet is tracking (admitted or not, terminated or not).
func (kl *Kubelet) Pods() int { return len(kl.workers) }

// RunningPods returns how many pods have at least one running container.
func (kl *Kubelet) RunningPods() int {
	n := 0
	for _, rt := range kl.runtime { //detlint:ordered counting is order-independent
		if rt.anyRunning() {
			n++
		}
	}
	return n
}

// RunsPod reports whether the kubelet runs a container of a pod called key (namespace/name),
// whatever the API server says: a partitioned node's pods keep running.
func (kl *Kubelet) RunsPod(key string) bool {
	for _, rt := range kl.runtime { //detlint:ordered any match answers
		if rt.key == key && rt.anyRunning() {
			return true
		}
	}
	return false
}

func (kl *Kubelet) stalled() bool { return kl.k.Now() < kl.stallUntil }

// emit writes one trace line about obj ("Node n1", "Pod ns/name").
func (kl *Kubelet) emit(action, object string, rv uint64, detail string) {
	kl.k.Emit(kl.component, action, object, rv, detail)
}

func (kl *Kubelet) nodeObject() string { return kl.nodeObjectName }

// Start starts the kubelet: node registration (or taking over a Node that already exists)
// and status, the lease, the pod informer and the status manager. Pods already bound to the
// node and Running, with no container state on the node yet (a settled start), are adopted as
// running, without pull or start latency, keeping their status. Start on a started kubelet
// does nothing.
func (kl *Kubelet) Start() {
	if kl.started {
		return
	}
	kl.started = true
	kl.start(true)
}

// start begins an incarnation. adopt says whether running pods without runtime state are
// adopted (the first start) rather than restarted.
func (kl *Kubelet) start(adopt bool) {
	kl.incarnation++
	kl.startedAt = kl.k.Now()
	kl.registered, kl.hasReported, kl.latestLease = false, false, nil
	kl.workers = map[string]*podWorker{}
	kl.backoff = flowcontrol.NewBackoff(kl.cfg.ContainerBackOffPeriod, kl.cfg.MaxContainerBackOff)
	kl.imageBackoff = flowcontrol.NewBackoff(kl.cfg.ImageBackOffPeriod, kl.cfg.MaxImageBackOff)
	kl.status = newStatusManager(kl)
	kl.emit("start", kl.nodeObject(), 0, fmt.Sprintf("incarnation=%d", kl.incarnation))
	kl.rec.Eventf(kl.node, model.EventTypeNormal, "Starting", "Starting kubelet.")

	kl.procs = append(kl.procs[:0],
		kl.k.Spawn(kl.component+"/node-status", kl.runNodeStatus),
		kl.k.Spawn(kl.component+"/lease", kl.runLease),
		kl.k.Spawn(kl.component+"/status-manager", kl.status.run),
	)
	sel := fields.OneTermEqualSelector(fieldSpecNodeName, kl.nodeName)
	kl.informer = client.NewInformer(kl.c, model.KindPod, model.ListOptions{FieldSelector: sel}, 0)
	// Every change of the informer's cache first tells the status manager which pods it
	// touched (see statusManager.podChanged).
	kl.informer.AddEventHandler(client.EventHandlerFuncs{
		ListSizeFunc: kl.reservePods,
		AddFunc: func(obj model.Object, isInInitialList bool) {
			if pod, ok := client.ObjectAs[*model.Pod](obj); ok {
				kl.status.podChanged(pod.UID)
				kl.podAdded(pod, adopt && isInInitialList)
			}
		},
		UpdateFunc: kl.podInformerUpdate,
		DeleteFunc: func(obj any) {
			if o, ok := client.ObjectOf(obj); ok {
				if pod, ok := client.ObjectAs[*model.Pod](o); ok {
					kl.status.podChanged(pod.UID)
					kl.podDeleted(pod)
				}
			}
		},
	})
	kl.informer.Run(kl.k)
	// Containers on the node whose pods the first list no longer shows are removed.
	kl.procs = append(kl.procs, kl.k.Spawn(kl.component+"/housekeeping", kl.runHousekeeping))
}

// runHousekeeping waits for the pod informer's first list and then removes the runtime state
// of pods that are no longer bound here (pkg/kubelet HandlePodCleanups, once: orphans appear
// only across a restart, as every later removal comes through the informer).
func (kl *Kubelet) runHousekeeping(p *sim.Proc) {
	kl.informer.WaitForSync(p)
	for _, uid := range kl.runtimeUIDs() {
		if _, ok := kl.workers[uid]; !ok {
			kl.runtime[uid].stopAll(kl)
			delete(kl.runtime, uid)
			kl.emit("orphan-removed", "Pod uid="+uid, 0, "")
		}
	}
}

// stop ends the current incarnation: every process, the informer and every pod worker's
// timers. Containers are left to the caller.
func (kl *Kubelet) stop() {
	// A process killing itself unwinds at once, so the caller's own process goes last.
	self := kl.k.Running()
	killSelf := false
	for _, p := range kl.procs {
		if p == self {
			killSelf = true
			continue
		}
		p.Kill()
	}
	kl.procs = kl.procs[:0]
	defer func() {
		if killSelf {
			self.Kill()
		}
	}()
	if kl.informer != nil {
		kl.informer.Stop()
	}
	for _, uid := range kl.workerUIDs() {
		kl.workers[uid].stop()
	}
	kl.workers = map[string]*podWorker{}
	if kl.status != nil {
		kl.status.stop()
	}
	kl.gateWaiters = nil
}

func (kl *Kubelet) workerUIDs() []string { return slices.Sorted(maps.Keys(kl.workers)) }

// Crash models the machine dying: every kubelet process stops, containers die with it
// (exit code 255, reason Unknown), images still being pulled are lost, and nothing more is
// written to the API server. Crash does nothing on a kubelet that is not running.
func (kl *Kubelet) Crash() {
	if !kl.started || kl.crashed || kl.deleted {
		return
	}
	kl.emit("fault", kl.nodeObject(), 0, "crash")
	kl.crashed = true
	kl.stop()
	now := kl.k.Now()
	for _, uid := range kl.runtimeUIDs() {
		kl.runtime[uid].machineDied(kl, now)
	}
	for image, at := range kl.images { //detlint:ordered deleting is order-independent
		if at > now {
			delete(kl.images, image)
		}
	}
	kl.pullFreeAt = now
	kl.stallUntil = 0
	kl.stallTimer.Stop()
}

func (kl *Kubelet) runtimeUIDs() []string { return slices.Sorted(maps.Keys(kl.runtime)) }

// SetServer gives the kubelet the API server its client talks to, which Partition needs to
// install its fault there.
func (kl *Kubelet) SetServer(srv *apiserver.Server) { kl.srv = srv }

// ErrUnreachable is the error every request of a partitioned kubelet fails with, after
// waiting for the request timeout.
var ErrUnreachable = errors.New("node: API server unreachable (network partition): request timed out")

// partitionFault is the API server fault hook of a partition: every request from the
// kubelet's client waits for the client's timeout and fails. The timeout is the heartbeat
// client's (cmd/kubelet/app/server.go: NodeStatusUpdateFrequency, capped at the lease
// duration), used here for every request of the kubelet.
type partitionFault struct {
	client  string
	timeout time.Duration
}

// Intercept implements apiserver.Fault.
func (f *partitionFault) Intercept(_ vtime.Time, req *apiserver.Request) (time.Duration, error) {
	if req.Client != f.client {
		return 0, nil
	}
	return f.timeout, ErrUnreachable
}

// Partition cuts the kubelet off from the API server: every request fails after the request
// timeout (an API server fault, so it shows in the server's statistics) and its watches
// deliver nothing (they stall at the server), while containers and probes keep running and
// the lease and status loops keep retrying with their back-off. It returns an error if no
// server was attached with SetServer; it does nothing on a kubelet that is not running or
// already partitioned.
func (kl *Kubelet) Partition() error {
	if kl.srv == nil {
		return fmt.Errorf("node %s: Partition needs the API server (call SetServer)", kl.nodeName)
	}
	if !kl.started || kl.crashed || kl.deleted || kl.partitioned {
		return nil
	}
	kl.emit("fault", kl.nodeObject(), 0, "partition")
	kl.partitioned = true
	kl.setReachable(false)
	return nil
}

// setReachable installs or removes the partition: the fault hook and the watch stall.
func (kl *Kubelet) setReachable(reachable bool) {
	if kl.srv == nil {
		return
	}
	name := kl.c.Name()
	match := func(client string) bool { return client == name }
	if reachable {
		if kl.fault != nil {
			kl.srv.RemoveFault(kl.fault)
			kl.fault = nil
		}
		kl.srv.Store().StallWatches(match, kl.k.Now())
		return
	}
	timeout := min(kl.cfg.NodeStatusUpdateFrequency, time.Duration(kl.cfg.NodeLeaseDurationSeconds)*time.Second)
	kl.fault = &partitionFault{client: name, timeout: timeout}
	kl.srv.AddFault(kl.fault)
	kl.srv.Store().StallWatches(match, vtime.Never)
}

// Stall hangs the kubelet for d: no lease renewal, node status, pod status or pod sync
// happens until d has passed (or Recover), while containers keep running. A longer stall
// extends the current one. Stall does nothing on a kubelet that is not running or with d <= 0.
func (kl *Kubelet) Stall(d time.Duration) {
	if !kl.started || kl.crashed || kl.deleted || d <= 0 {
		return
	}
	until := kl.k.Now().Add(d)
	if until <= kl.stallUntil {
		return
	}
	kl.emit("fault", kl.nodeObject(), 0, "stall "+d.String())
	kl.stallUntil = until
	kl.stallTimer.ResetAt(until)
}

// Recover undoes the faults: after a crash the kubelet starts afresh (registers, relists its
// pods, finalises the deletion of pods marked for deletion and restarts the containers of the
// others, as after a reboot); after a partition it reaches the API server again and its
// informer resyncs; a stall ends now. Recover does nothing on a deleted kubelet.
func (kl *Kubelet) Recover() {
	if !kl.started || kl.deleted {
		return
	}
	switch {
	case kl.crashed:
		kl.emit("fault", kl.nodeObject(), 0, "recover from crash")
		kl.crashed = false
		kl.partitioned = false
		kl.setReachable(true)
		kl.start(false)
	case kl.partitioned || kl.stalled():
		kl.emit("fault", kl.nodeObject(), 0, "recover")
		if kl.partitioned {
			kl.partitioned = false
			kl.setReachable(true)
		}
		if kl.stalled() {
			kl.stallTimer.Stop()
			kl.endStall()
		}
	}
}

// nodeDeleted stops the kubelet for good once its Node object is gone. Upstream keeps
// running and fails every status update until restarted; the simulator treats the deletion
// as the machine being removed, so the containers stop too.
func (kl *Kubelet) nodeDeleted() {
	if kl.deleted {
		return
	}
	kl.emit("node-deleted", kl.nodeObject(), 0, "stopping")
	kl.deleted = true
	now := kl.k.Now()
	for _, uid := range kl.runtimeUIDs() {
		kl.runtime[uid].machineDied(kl, now)
	}
	kl.stop()
}

// endStall releases every process held by the gate.
func (kl *Kubelet) endStall() {
	kl.stallUntil = 0
	ws := kl.gateWaiters
	kl.gateWaiters = nil
	for _, p := range ws {
		p.Unpark()
	}
}

// gate holds the calling process while the kubelet is stalled.
func (kl *Kubelet) gate(p *sim.Proc) {
	for kl.stalled() {
		kl.gateWaiters = append(kl.gateWaiters, p)
		p.Park()
	}
}

// ctx returns the context for API calls made by p.
func ctx(p *sim.Proc) context.Context { return p }

// jitter is wait.Jitter(d, factor): d plus a uniform fraction of factor*d.
func (kl *Kubelet) jitter(d time.Duration, factor float64) time.Duration {
	return d + time.Duration(kl.rand.Float64()*factor*float64(d))
}

// pleg returns the time of the first PLEG relist at or after t: relists run every
// PLEGRelistPeriod from the incarnation's start.
func (kl *Kubelet) plegTime(t vtime.Time) vtime.Time {
	period := vtime.Time(kl.cfg.PLEGRelistPeriod)
	since := t - kl.startedAt
	n := (since + period - 1) / period
	return kl.startedAt + n*period
}

// lastRelist returns the time of the latest PLEG relist at or before now.
func (kl *Kubelet) lastRelist() vtime.Time {
	period := vtime.Time(kl.cfg.PLEGRelistPeriod)
	now := kl.k.Now()
	return kl.startedAt + (now-kl.startedAt)/period*period
}

func (kl *Kubelet) allocIP() string {
	kl.nextIP++
	return fmt.Sprintf("%s.%d", kl.ipPrefix, 1+(kl.nextIP-1)%254)
}

func (kl *Kubelet) newContainerID() uint64 {
	kl.nextID++
	return kl.nextID
}

// ---- pod informer handlers ----

// reservePods sizes the per-pod maps (workers, runtime records, status entries) that are
// still empty for the n pods a list into the informer's empty cache is about to add.
func (kl *Kubelet) reservePods(n int) {
	if len(kl.workers) == 0 {
		kl.workers = make(map[string]*podWorker, n)
	}
	if len(kl.runtime) == 0 {
		kl.runtime = make(map[string]*podRuntime, n)
	}
	if len(kl.status.entries) == 0 {
		kl.status.entries = make(map[string]*statusEntry, n)
	}
}

func (kl *Kubelet) podAdded(pod *model.Pod, adopt bool) {
	if pod.Spec.NodeName != kl.nodeName {
		return
	}
	if w, ok := kl.workers[pod.UID]; ok {
		w.update(pod)
		return
	}
	kl.workers[pod.UID] = newPodWorker(kl, pod, adopt)
}

// podInformerUpdate is the pod informer's update handler: the status manager is told the
// uids of both pods, then the pod worker gets the new one. An update nearly always keeps the
// uid (a pod replaced under its name, seen as an update after a relist, does not): the old
// pod's is told apart only if it differs, which is what telling it twice comes to.
func (kl *Kubelet) podInformerUpdate(old, obj model.Object) {
	pod, ok := client.ObjectAs[*model.Pod](obj)
	if oldPod, oldOK := client.ObjectAs[*model.Pod](old); oldOK && (!ok || oldPod.UID != pod.UID) {
		kl.status.podChanged(oldPod.UID)
	}
	if ok {
		kl.status.podChanged(pod.UID)
		kl.podUpdated(pod)
	}
}

func (kl *Kubelet) podUpdated(pod *model.Pod) {
	if w, ok := kl.workers[pod.UID]; ok {
		w.update(pod)
		return
	}
	kl.podAdded(pod, false)
}

func (kl *Kubelet) podDeleted(pod *model.Pod) {
	w, ok := kl.workers[pod.UID]
	if !ok {
		return
	}
	w.remove()
	delete(kl.workers, pod.UID)
	kl.status.forget(pod.UID)
}
