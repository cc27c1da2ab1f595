package metrics

import (
	"fmt"
	"slices"
	"strconv"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/reconsim/reconsim/internal/bounds"
	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim"
	"github.com/reconsim/reconsim/sim/client"
	"github.com/reconsim/reconsim/vtime"
)

// Component is the name the metrics-server model uses in traces and process names.
const Component = "metrics-server"

// Defaults and limits of the metrics pipeline.
const (
	// DefaultMetricResolution is metrics-server's --metric-resolution as deployed: the binary
	// defaults to 60s (metrics-server cmd/metrics-server/app/options/options.go), but the
	// project's release manifests (manifests/base/deployment.yaml) and the Kubernetes
	// cluster add-on (kubernetes/kubernetes#117121) pass --metric-resolution=15s.
	DefaultMetricResolution = 15 * time.Second
	// MinMetricResolution is the smallest --metric-resolution metrics-server accepts
	// (options.go validate: "metric-resolution should be a time duration at least 10s").
	MinMetricResolution = 10 * time.Second
	// DefaultHousekeepingInterval is how often the kubelet's cAdvisor samples container stats
	// (kubelet --housekeeping-interval, pkg/kubelet/cadvisor defaultHousekeepingInterval 10s):
	// /metrics/resource serves the latest sample, so what metrics-server scrapes is up to one
	// interval old.
	DefaultHousekeepingInterval = 10 * time.Second
	// MaxInterval bounds both intervals.
	MaxInterval = time.Hour
	// freshContainerMinMetricsResolution is metrics-server pkg/storage/pod.go's constant: a
	// container younger than this at its first sample gets no synthetic start point, so it
	// has metrics only from its second scrape on.
	freshContainerMinMetricsResolution = 10 * time.Second
)

// Config is the metrics pipeline's configuration.
type Config struct {
	// MetricResolution is metrics-server's --metric-resolution: it scrapes every kubelet this
	// often and keeps the last two samples of each container; cpu is the rate between them.
	MetricResolution time.Duration
	// HousekeepingInterval is the kubelet's cAdvisor sampling period; each node samples at its
	// own phase. 0 means every scrape reads a sample taken at that instant.
	HousekeepingInterval time.Duration
}

// DefaultConfig returns the defaults: --metric-resolution=15s, housekeeping every 10s.
func DefaultConfig() Config {
	return Config{MetricResolution: DefaultMetricResolution, HousekeepingInterval: DefaultHousekeepingInterval}
}

// Validate reports a configuration metrics-server or the kubelet would refuse, or one past
// the simulator's limits: a resolution below 10s, intervals above an hour, a negative
// housekeeping interval.
func (c Config) Validate() error {
	return bounds.First("",
		bounds.In("metric-resolution", c.MetricResolution, MinMetricResolution, MaxInterval),
		bounds.In("housekeeping-interval", c.HousekeepingInterval, 0, MaxInterval),
	)
}

// Stats are the pipeline's counters.
type Stats struct {
	// Scrapes counts scrapes; Samples counts kubelet container-stat samples taken.
	Scrapes, Samples uint64
	// UnreachableNodeScrapes counts node scrapes that failed because the node was unreachable.
	UnreachableNodeScrapes uint64
}

// Server is the metrics pipeline of one cluster: the applications' load and usage (LoadSpec),
// the kubelets' container stats, metrics-server's scrape and storage, and the metrics APIs the
// HPA reads (resource metrics, and custom and external metrics as an adapter would serve
// them). It implements MetricsClient.
type Server struct {
	k   *sim.Kernel
	cfg Config

	podInformer     *client.Informer
	targetInformers map[model.Kind]*client.Informer

	loads    []*load
	pods     map[string]*podState
	nodes    map[string]*nodeState
	nodeList []string // sorted

	nodeReachable func(node string) bool
	// sampleIdleEagerly makes the housekeeping sample idle pods too, as upstream's kubelet
	// does (a test seam: TestIdlePodsSampleAsEagerly compares both ways).
	sampleIdleEagerly bool
	// noIdleSharing makes the scrape visit every pod, none standing for others in its node's
	// idle stand-in (a test seam: TestSharedIdlePodsScrapeAsEach compares both ways).
	noIdleSharing bool

	proc    *sim.Proc
	started bool
	stopped bool
	stats   Stats
}

// load is one LoadSpec at run time. Served load is accounted with a per-pod accumulator: share
// is the load each Ready pod has served since the start (the integral of offered/ready), so a
// pod's served load is its accrued amount plus share's growth since it became Ready, and no
// event touches more than the pods it changes.
type load struct {
	spec     LoadSpec
	offered  *Offered
	selector labels.Selector // the target's pod selector; labels.Nothing() while unknown

	cpuPerUnitCores, baseCPUCores    float64
	memoryPerUnitBytes, baseMemBytes float64

	accountedTo time.Duration
	share       float64
	offeredCum  float64
	droppedCum  float64
	ready       int

	// The offered load's integral at the last two scrapes, for Object and External metrics.
	scrapeLast, scrapePrev offeredPoint
}

type offeredPoint struct {
	at  vtime.Time
	cum float64
	ok  bool
}

// advance brings the accounting to now: the offered load since the last step is divided
// among the Ready pods, or dropped when there are none.
func (l *load) advance(now vtime.Time) {
	t := now.Duration()
	if t <= l.accountedTo {
		return
	}
	in := l.offered.Integral(l.accountedTo, t)
	l.offeredCum += in
	if l.ready > 0 {
		l.share += in / float64(l.ready)
	} else {
		l.droppedCum += in
	}
	l.accountedTo = t
}

// podState is what the pipeline knows of one pod: its load, its container instance, the
// kubelet's latest sample and metrics-server's last two points.
type podState struct {
	key string
	// pod is the latest version observed (its namespace, name and uid are the pod's).
	pod       *model.Pod
	node      string
	nodeIndex int

	load    *load
	running bool
	start   vtime.Time // when the current container instance started (all containers running)
	serving bool       // counted among load.ready

	unitsAcc  float64 // load served in earlier Ready periods of this instance
	shareMark float64 // load.share when the pod became Ready

	containers     []containerShare
	cpuLimitCores  float64 // 0: unlimited
	memLimitBytes  float64 // 0: unlimited
	cpuRequestMill int64   // -1 when some container has no cpu request
	// sharesFrom is the container list the four fields above were computed from
	// (refreshShares), hasShares whether they were.
	sharesFrom []model.Container
	hasShares  bool

	sample    kubeletSample
	hasSample bool
	// loadedInstance is set once a load targeted the pod during its current container
	// instance (see idle); caughtUpTicks is its node's housekeeping tick count when sample and
	// hasSample were last brought up to date for an idle pod (catchUp).
	loadedInstance bool
	caughtUpTicks  uint64

	last, prev       point
	hasLast, hasPrev bool

	// shared is set while the pod's scrape state is its node's stand-in's (nodeState.shared,
	// share): its own fields above from sample to prev are stale until unshare.
	shared bool
}

type containerShare struct {
	name             string
	cpuFrac, memFrac float64
}

// kubeletSample is a cAdvisor sample: cumulative cpu (core-seconds, throttled by the limit),
// the same without the limit (to throttle the next increment), cumulative served load and the
// memory working set.
type kubeletSample struct {
	at, start     vtime.Time
	cpu, uncapped float64
	units, memory float64
}

// point is a metrics-server storage point (pkg/storage MetricsPoint).
type point struct {
	ts, start vtime.Time
	cpu       float64
	units     float64
	memory    float64
}

type nodeState struct {
	name string
	// pods are the node's pods the scrape visits one by one, shared those whose scrape state
	// is standIn's (share); a pod's nodeIndex is its place in the one it is in.
	pods, shared []*podState
	// standIn is an idle pod running since before time 0 (start -1ns) that is scraped like
	// every pod: once an idle pod's scrape state equals it, the two stay equal until the pod
	// changes, so the scrape updates the stand-in once for all the pods in shared.
	standIn podState
	timer   *sim.Timer
	// ticks counts the housekeeping ticks so far, the last at lastTick (catchUp).
	ticks    uint64
	lastTick vtime.Time
	// loadedPods counts the pods that have had a load in their current container instance
	// (loaded): with none, a housekeeping tick has nothing to sample and skips the pods.
	loadedPods int
}

func newNodeState(name string) *nodeState {
	return &nodeState{name: name, standIn: podState{key: "stand-in/" + name, node: name, nodeIndex: -1, running: true, start: -1}}
}

func (n *nodeState) countLoaded(isLoaded bool) {
	if isLoaded {
		n.loadedPods++
	} else {
		n.loadedPods--
	}
}

// New builds the pipeline for loads (copied and defaulted with SetDefaults) on the informers of
// f (pods, and the kinds the loads target), and returns it stopped; the caller starts f and
// calls Start. Each load's noise draws from k.Rand("metrics/load/<name>"). It returns an error
// for an invalid configuration, or the first problem of invalid loads.
func New(k *sim.Kernel, f *client.SharedInformerFactory, specs []LoadSpec, cfg Config) (*Server, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	loads := make([]LoadSpec, len(specs))
	for i, spec := range specs {
		if spec.Noise != nil {
			spec.Noise = &NoiseSpec{Stddev: spec.Noise.Stddev, Interval: spec.Noise.Interval}
		}
		spec.SetDefaults()
		loads[i] = spec
	}
	if errs := ValidateLoads(loads, "loads"); len(errs) > 0 {
		return nil, fmt.Errorf("invalid loads (%d problems), first: %w", len(errs), errs[0])
	}
	s := &Server{
		k:               k,
		cfg:             cfg,
		podInformer:     f.For(model.KindPod),
		targetInformers: map[model.Kind]*client.Informer{},
		pods:            map[string]*podState{},
		nodes:           map[string]*nodeState{},
	}
	for i := range loads {
		spec := loads[i]
		l := &load{
			spec:               spec,
			offered:            NewOffered(&spec, k.Rand("metrics/load/"+spec.Name)),
			selector:           labels.Nothing(),
			cpuPerUnitCores:    spec.Usage.CPUPerUnit.AsApproximateFloat64(),
			baseCPUCores:       spec.Usage.BaseCPU.AsApproximateFloat64(),
			memoryPerUnitBytes: spec.Usage.MemoryPerUnit.AsApproximateFloat64(),
			baseMemBytes:       spec.Usage.BaseMemory.AsApproximateFloat64(),
			accountedTo:        k.Now().Duration(),
		}
		s.loads = append(s.loads, l)
		kind := model.Kind(spec.Target.Kind)
		if _, ok := s.targetInformers[kind]; !ok {
			inf := f.For(kind)
			s.targetInformers[kind] = inf
			inf.AddEventHandler(client.EventHandlerFuncs{
				AddFunc:    func(model.Object, bool) { s.resolveTargets() },
				UpdateFunc: func(model.Object, model.Object) { s.resolveTargets() },
				DeleteFunc: func(any) { s.resolveTargets() },
			})
		}
	}
	s.podInformer.AddEventHandler(client.KeyedEventHandlerFuncs{
		ListSizeFunc: func(n int) {
			if len(s.pods) == 0 {
				s.pods = make(map[string]*podState, n)
			}
		},
		AddFunc:    func(key string, obj model.Object, _ bool) { s.observe(key, obj) },
		UpdateFunc: func(key string, _, obj model.Object) { s.observe(key, obj) },
		DeleteFunc: func(key string, obj any) {
			if _, ok := client.ObjectOf(obj); ok {
				s.forget(key)
			}
		},
	})
	return s, nil
}

// SetNodeReachable installs the test of whether metrics-server can scrape a node's kubelet
// (the integrator passes its kubelets' health: a crashed or partitioned node cannot be
// scraped, so its pods' metrics go missing). nil means every node is reachable.
func (s *Server) SetNodeReachable(fn func(node string) bool) { s.nodeReachable = fn }

// Config returns the configuration.
func (s *Server) Config() Config { return s.cfg }

// Stats returns the counters.
func (s *Server) Stats() Stats { return s.stats }

// Loads returns the load specifications, in the order given to New.
func (s *Server) Loads() []LoadSpec {
	out := make([]LoadSpec, len(s.loads))
	for i, l := range s.loads {
		out[i] = l.spec
	}
	return out
}

// Start spawns the scrape loop (an idle process: it scrapes at once, then every
// MetricResolution, as metrics-server's ticker does) and the kubelets' housekeeping timers.
// Start after Stop does nothing.
func (s *Server) Start() {
	if s.started || s.stopped {
		return
	}
	s.started = true
	for _, name := range s.nodeList {
		s.startHousekeeping(s.nodes[name])
	}
	s.proc = s.k.Spawn(Component, func(p *sim.Proc) {
		for {
			s.scrape(p.Now())
			p.Idle(s.cfg.MetricResolution)
		}
	})
}

// Stop ends the scrape loop and the housekeeping; the last stored metrics stay served.
func (s *Server) Stop() {
	if s.stopped {
		return
	}
	s.stopped = true
	if s.proc != nil {
		s.proc.Kill()
	}
	for _, name := range s.nodeList {
		if t := s.nodes[name].timer; t != nil {
			t.Stop()
		}
	}
}

// ---- pod and target tracking ----

// resolveTargets re-reads every load's target selector and re-files every pod.
func (s *Server) resolveTargets() {
	for _, l := range s.loads {
		l.selector = s.targetSelector(l.spec.Target)
	}
	keys := make([]string, 0, len(s.pods))
	for key := range s.pods { //detlint:ordered keys are sorted below
		keys = append(keys, key)
	}
	slices.Sort(keys)
	for _, key := range keys {
		s.apply(s.pods[key])
	}
}

// targetSelector returns the pod selector of the target workload, or labels.Nothing() when it
// does not exist or its selector does not parse.
func (s *Server) targetSelector(ref WorkloadRef) labels.Selector {
	inf := s.targetInformers[model.Kind(ref.Kind)]
	if inf == nil {
		return labels.Nothing()
	}
	obj, ok := inf.Get(ref.Namespace, ref.Name)
	if !ok {
		return labels.Nothing()
	}
	ls := model.WorkloadSelector(obj)
	if ls == nil {
		return labels.Nothing()
	}
	sel, err := metav1.LabelSelectorAsSelector(ls)
	if err != nil || sel.Empty() {
		return labels.Nothing()
	}
	return sel
}

func (s *Server) loadFor(pod *model.Pod) *load {
	set := labels.Set(pod.Labels)
	for _, l := range s.loads {
		if l.spec.Target.Namespace == pod.Namespace && l.selector.Matches(set) {
			return l
		}
	}
	return nil
}

// observe brings the state of the pod obj, whose key (model.Key) is key, in line with it.
func (s *Server) observe(key string, obj model.Object) {
	pod, ok := client.ObjectAs[*model.Pod](obj)
	if !ok {
		return
	}
	ps := s.pods[key]
	if ps != nil && ps.pod.UID != pod.UID {
		s.forget(key)
		ps = nil
	}
	if ps == nil {
		ps = &podState{key: key, nodeIndex: -1}
		s.pods[key] = ps
	}
	ps.pod = pod
	s.apply(ps)
}

// apply brings the pod's accounting in line with its latest object.
func (s *Server) apply(ps *podState) {
	now := s.k.Now()
	pod := ps.pod
	l := s.loadFor(pod)
	running, start := containersRunning(pod)
	ready := running && pod.DeletionTimestamp == nil && model.IsPodReady(pod)
	// The housekeeping ticks since the pod's last change saw it as it was until now.
	s.unshare(ps)
	s.catchUp(ps)
	wasLoaded := loaded(ps)
	if running != ps.running || (running && start != ps.start) {
		// A new container instance (or none): its counters start from zero.
		s.setServing(ps, false, now)
		ps.running, ps.start = running, start
		ps.unitsAcc = 0
		ps.hasSample = false
		ps.loadedInstance = false
	}
	if l != ps.load {
		s.setServing(ps, false, now)
		ps.load = l
	}
	ps.loadedInstance = ps.loadedInstance || l != nil
	if isLoaded := loaded(ps); isLoaded != wasLoaded && ps.node != "" {
		s.nodes[ps.node].countLoaded(isLoaded)
	}
	s.setServing(ps, ready, now)
	if pod.Spec.NodeName != ps.node {
		s.moveNode(ps, pod.Spec.NodeName)
	}
	if ps.node != "" {
		ps.caughtUpTicks = s.nodes[ps.node].ticks
	}
	refreshShares(ps, pod)
}

// refreshShares sets the pod's container shares and limits to containerShares(pod). A stored
// pod never changes, so a version whose container list is the very list the shares were
// computed from (a status update hands the spec over) has the same shares, and keeps them.
func refreshShares(ps *podState, pod *model.Pod) {
	cs := pod.Spec.Containers
	if ps.hasShares && model.SameSlice(cs, ps.sharesFrom) {
		return
	}
	ps.containers, ps.cpuLimitCores, ps.memLimitBytes, ps.cpuRequestMill = containerShares(pod)
	ps.sharesFrom, ps.hasShares = cs, true
}

// setServing adds the pod to or removes it from its load's Ready pods, settling the load it
// served so far.
func (s *Server) setServing(ps *podState, want bool, now vtime.Time) {
	want = want && ps.load != nil
	if ps.serving == want {
		return
	}
	l := ps.load
	l.advance(now)
	if ps.serving {
		ps.unitsAcc += l.share - ps.shareMark
		l.ready--
	} else {
		ps.shareMark = l.share
		l.ready++
	}
	ps.serving = want
}

func (s *Server) forget(key string) {
	ps := s.pods[key]
	if ps == nil {
		return
	}
	s.unshare(ps)
	s.setServing(ps, false, s.k.Now())
	s.moveNode(ps, "")
	delete(s.pods, key)
}

func (s *Server) moveNode(ps *podState, node string) {
	if ps.node != "" {
		n := s.nodes[ps.node]
		if loaded(ps) {
			n.loadedPods--
		}
		n.pods = removePod(n.pods, ps)
	}
	ps.node = node
	if node == "" {
		return
	}
	n := s.nodes[node]
	if n == nil {
		n = newNodeState(node)
		s.nodes[node] = n
		i, _ := slices.BinarySearch(s.nodeList, node)
		s.nodeList = slices.Insert(s.nodeList, i, node)
		if s.started && !s.stopped {
			s.startHousekeeping(n)
		}
	}
	ps.nodeIndex = len(n.pods)
	n.pods = append(n.pods, ps)
	if loaded(ps) {
		n.loadedPods++
	}
}

// removePod removes ps from list, where it is at ps.nodeIndex, by moving the last pod into its
// place (the order of a node's pods does not show: each is scraped and sampled on its own).
func removePod(list []*podState, ps *podState) []*podState {
	last := len(list) - 1
	moved := list[last]
	list[ps.nodeIndex] = moved
	moved.nodeIndex = ps.nodeIndex
	list[last] = nil
	ps.nodeIndex = -1
	return list[:last]
}

// startHousekeeping arms the node's cAdvisor sampling at a phase drawn from the node's own
// stream, then every HousekeepingInterval.
func (s *Server) startHousekeeping(n *nodeState) {
	interval := s.cfg.HousekeepingInterval
	if interval <= 0 || n.timer != nil {
		return
	}
	rng := s.k.Rand("metrics-server/housekeeping/" + n.name)
	n.timer = s.k.NewIdleTimer(func() {
		n.timer.Reset(interval)
		now := s.k.Now()
		n.ticks++
		n.lastTick = now
		if n.loadedPods == 0 && !s.sampleIdleEagerly {
			return // every pod is idle: catchUp derives their samples when they are read
		}
		for _, ps := range n.pods {
			if !s.idle(ps) {
				s.takeSample(ps, now)
			}
		}
	})
	n.timer.Reset(time.Duration(rng.Int64N(int64(interval))))
}

// containersRunning reports whether every container of the pod runs, and since when the last
// of them does (the pod's usage starts then).
func containersRunning(pod *model.Pod) (bool, vtime.Time) {
	if len(pod.Spec.Containers) == 0 || model.IsPodTerminal(pod) {
		return false, 0
	}
	var start vtime.Time
	for _, c := range pod.Spec.Containers {
		found := false
		for i := range pod.Status.ContainerStatuses {
			cs := &pod.Status.ContainerStatuses[i]
			if cs.Name != c.Name {
				continue
			}
			if cs.State.Running == nil {
				return false, 0
			}
			found = true
			start = max(start, cs.State.Running.StartedAt)
		}
		if !found {
			return false, 0
		}
	}
	return true, start
}

// containerShares splits a pod's usage among its containers in proportion to their requests
// (equally when some container has none) and sums their limits (unlimited when some container
// has none). It also returns the pod's cpu request in milli-cores, or -1 if a container has
// none.
func containerShares(pod *model.Pod) ([]containerShare, float64, float64, int64) {
	cs := pod.Spec.Containers
	out := make([]containerShare, len(cs))
	var cpuReq, memReq, cpuLim, memLim float64
	cpuAll, memAll, cpuLimAll, memLimAll := true, true, true, true
	var cpuReqMilli int64
	for _, c := range cs {
		if q, ok := c.Resources.Requests[model.ResourceCPU]; ok && q.Sign() > 0 {
			cpuReq += q.AsApproximateFloat64()
			cpuReqMilli += q.MilliValue()
		} else {
			cpuAll = false
		}
		if q, ok := c.Resources.Requests[model.ResourceMemory]; ok && q.Sign() > 0 {
			memReq += q.AsApproximateFloat64()
		} else {
			memAll = false
		}
		if q, ok := c.Resources.Limits[model.ResourceCPU]; ok && q.Sign() > 0 {
			cpuLim += q.AsApproximateFloat64()
		} else {
			cpuLimAll = false
		}
		if q, ok := c.Resources.Limits[model.ResourceMemory]; ok && q.Sign() > 0 {
			memLim += q.AsApproximateFloat64()
		} else {
			memLimAll = false
		}
	}
	for i, c := range cs {
		out[i] = containerShare{name: c.Name, cpuFrac: 1 / float64(len(cs)), memFrac: 1 / float64(len(cs))}
		if cpuAll {
			q := c.Resources.Requests[model.ResourceCPU]
			out[i].cpuFrac = q.AsApproximateFloat64() / cpuReq
		}
		if memAll {
			q := c.Resources.Requests[model.ResourceMemory]
			out[i].memFrac = q.AsApproximateFloat64() / memReq
		}
	}
	if !cpuLimAll {
		cpuLim = 0
	}
	if !memLimAll {
		memLim = 0
	}
	if !cpuAll {
		cpuReqMilli = -1
	}
	return out, cpuLim, memLim, cpuReqMilli
}

// ---- usage, samples and scrapes ----

// units returns the load the pod's current instance has served up to now.
func (s *Server) units(ps *podState, now vtime.Time) float64 {
	if ps.load == nil {
		return ps.unitsAcc
	}
	if !ps.serving {
		return ps.unitsAcc
	}
	ps.load.advance(now)
	return ps.unitsAcc + ps.load.share - ps.shareMark
}

// idle reports whether the pod's current container instance has never had a load: its usage
// is zero, so its samples depend only on when they are taken, and the housekeeping leaves it
// alone (catchUp derives its latest sample when it is read). Upstream's kubelet samples every
// container alike; the samples are the same, only cheaper to produce.
func (s *Server) idle(ps *podState) bool {
	return !loaded(ps) && !s.sampleIdleEagerly
}

// loaded reports whether the pod's current container instance has a load or had one.
func loaded(ps *podState) bool { return ps.load != nil || ps.loadedInstance }

// catchUp brings an idle pod's sample up to its node's latest housekeeping tick: exactly what
// takeSample at that tick would have left, since an idle pod's state (running, start) has not
// changed since its last catch-up (apply catches up before it changes anything).
func (s *Server) catchUp(ps *podState) {
	if !s.idle(ps) || ps.node == "" {
		return
	}
	s.catchUpOn(s.nodes[ps.node], ps)
}

// catchUpOn is catchUp for an idle pod on node n, which the scrape has at hand (a lookup of
// the node per pod was a fifth of the scrape's time in an idle 15,000-pod cluster).
func (s *Server) catchUpOn(n *nodeState, ps *podState) {
	if n.ticks == ps.caughtUpTicks {
		return
	}
	ps.caughtUpTicks = n.ticks
	if !ps.running || ps.start > n.lastTick {
		ps.hasSample = false
		return
	}
	s.stats.Samples++
	ps.sample = kubeletSample{at: n.lastTick, start: ps.start, units: ps.unitsAcc}
	ps.hasSample = true
}

// takeSample is the kubelet's cAdvisor sampling the pod's containers now. A pod whose
// containers do not all run has no sample.
func (s *Server) takeSample(ps *podState, now vtime.Time) {
	if !ps.running || ps.start > now {
		ps.hasSample = false
		return
	}
	s.stats.Samples++
	units := s.units(ps, now)
	var uncapped, memory float64
	if l := ps.load; l != nil {
		uncapped = l.baseCPUCores*now.Sub(ps.start).Seconds() + l.cpuPerUnitCores*units
		memory = l.baseMemBytes
		if ps.serving && l.ready > 0 {
			memory += l.memoryPerUnitBytes * l.offered.At(now.Duration()) / float64(l.ready)
		}
	}
	cpu := uncapped
	switch {
	case ps.hasSample && ps.sample.start == ps.start:
		inc := uncapped - ps.sample.uncapped
		if ps.cpuLimitCores > 0 {
			inc = min(inc, ps.cpuLimitCores*now.Sub(ps.sample.at).Seconds())
		}
		cpu = ps.sample.cpu + inc
	case ps.cpuLimitCores > 0:
		cpu = min(uncapped, ps.cpuLimitCores*now.Sub(ps.start).Seconds())
	}
	if ps.memLimitBytes > 0 {
		memory = min(memory, ps.memLimitBytes)
	}
	ps.sample = kubeletSample{at: now, start: ps.start, cpu: cpu, uncapped: uncapped, units: units, memory: memory}
	ps.hasSample = true
}

func (s *Server) reachable(node string) bool {
	return s.nodeReachable == nil || s.nodeReachable(node)
}

// scrape is one metrics-server cycle: every load's offered integral is noted for the Object
// and External metrics, every reachable node's latest samples are stored with metrics-server's
// rules (pkg/storage/pod.go Store), and pods not scraped lose their points, as a new batch
// replaces the old one.
//
// The idle pods whose scrape state is their node's stand-in's (share) are not visited: the
// stand-in is scraped once for them, and counts for each of them.
func (s *Server) scrape(now vtime.Time) {
	s.stats.Scrapes++
	for _, l := range s.loads {
		l.advance(now)
		l.scrapePrev = l.scrapeLast
		l.scrapeLast = offeredPoint{at: now, cum: l.offeredCum, ok: true}
	}
	stored := 0
	sharing := s.sharing()
	for _, name := range s.nodeList {
		n := s.nodes[name]
		reachable := s.reachable(name)
		if !reachable && len(n.pods)+len(n.shared) > 0 {
			s.stats.UnreachableNodeScrapes++
		}
		if sharing {
			samples := s.stats.Samples
			if s.scrapePod(n, &n.standIn, reachable, now) {
				stored += len(n.shared)
			}
			if s.stats.Samples != samples {
				// The stand-in's sample is the one each pod it stands for takes; its own is none.
				s.stats.Samples = samples + uint64(len(n.shared))
			}
		}
		for i := 0; i < len(n.pods); {
			ps := n.pods[i]
			if s.scrapePod(n, ps, reachable, now) {
				stored++
			}
			if sharing && s.canShare(n, ps) {
				s.share(n, ps) // the pod moved to n.pods[i] is visited next
				continue
			}
			i++
		}
	}
	s.k.Emit(Component, "scrape", "", 0, "nodes="+strconv.Itoa(len(s.nodeList))+" pods="+strconv.Itoa(stored))
}

// scrapePod is the scrape of one pod of node n: it reports whether the pod's sample was stored.
func (s *Server) scrapePod(n *nodeState, ps *podState, reachable bool, now vtime.Time) bool {
	if reachable && s.cfg.HousekeepingInterval <= 0 {
		s.takeSample(ps, now)
	}
	if s.idle(ps) {
		s.catchUpOn(n, ps)
	}
	if !reachable || !ps.hasSample || !ps.running || ps.sample.start != ps.start {
		ps.hasLast, ps.hasPrev = false, false
		return false
	}
	s.store(ps)
	return true
}

// sharing reports whether idle pods may share their node's stand-in: only when the housekeeping
// derives idle pods' samples (catchUp), so that an idle pod's sample depends on its node's
// ticks and its own start alone.
func (s *Server) sharing() bool {
	return s.cfg.HousekeepingInterval > 0 && !s.sampleIdleEagerly && !s.noIdleSharing
}

// canShare reports whether the idle pod ps, just scraped, will be scraped exactly as n's
// stand-in from now on for as long as it does not change: its scrape state (sample, catch-up
// and points; the points' start, which nothing reads, aside) equals the stand-in's, and it is
// old enough that the rules that read a pod's start give it what they give the stand-in. A
// pod's sample time and points only grow, so that stays true: its sample is at least a
// resolution after its start, so metrics-server's fresh-container point is never made for it,
// as never for the stand-in, and its last point, when it has one, is that sample (it was just
// scraped), after its start, so metrics-server never takes it for a restarted container's.
func (s *Server) canShare(n *nodeState, ps *podState) bool {
	t := &n.standIn
	if !s.idle(ps) || !ps.running || ps.unitsAcc != 0 || !ps.hasSample || !t.hasSample ||
		ps.caughtUpTicks != t.caughtUpTicks || ps.sample != (kubeletSample{at: t.sample.at, start: ps.start}) ||
		ps.sample.at.Sub(ps.start) < s.cfg.MetricResolution ||
		ps.hasLast != t.hasLast || ps.hasPrev != t.hasPrev {
		return false
	}
	return (!ps.hasLast || ps.last.sameAs(t.last)) && (!ps.hasPrev || ps.prev.sameAs(t.prev))
}

// sameAs compares two points but for their start, which nothing reads once a point is stored.
func (p point) sameAs(o point) bool {
	return p.ts == o.ts && p.cpu == o.cpu && p.units == o.units && p.memory == o.memory
}

// share moves ps, at n.pods[ps.nodeIndex], to n.shared: from now on the stand-in's scrape state
// is its own.
func (s *Server) share(n *nodeState, ps *podState) {
	n.pods = removePod(n.pods, ps)
	ps.shared = true
	ps.nodeIndex = len(n.shared)
	n.shared = append(n.shared, ps)
}

// unshare gives a shared pod its scrape state back, as the stand-in's, before anything reads
// or changes it, and moves it back among the pods the scrape visits.
func (s *Server) unshare(ps *podState) {
	if !ps.shared {
		return
	}
	n := s.nodes[ps.node]
	n.shared = removePod(n.shared, ps)
	ps.shared = false
	t := &n.standIn
	ps.sample, ps.hasSample, ps.caughtUpTicks = t.sample, t.hasSample, t.caughtUpTicks
	ps.sample.start = ps.start
	ps.last, ps.prev, ps.hasLast, ps.hasPrev = t.last, t.prev, t.hasLast, t.hasPrev
	ps.last.start, ps.prev.start = ps.start, ps.start
	ps.nodeIndex = len(n.pods)
	n.pods = append(n.pods, ps)
}

// scraped returns the pod whose scrape state is ps's: ps, or its node's stand-in while ps is
// shared.
func (s *Server) scraped(ps *podState) *podState {
	if ps.shared {
		return &s.nodes[ps.node].standIn
	}
	return ps
}

// store files the pod's latest sample as its new last point and picks the previous point as
// metrics-server does: a container that started less than a resolution ago (but at least 10s
// before its sample) gets a zero point at its start; otherwise the old last point moves to
// previous if the sample is newer, or the old previous point stays if it is older than the
// sample; a restarted container (started after the old last point) gets none.
func (s *Server) store(ps *podState) {
	np := point{ts: ps.sample.at, start: ps.sample.start, cpu: ps.sample.cpu, units: ps.sample.units, memory: ps.sample.memory}
	var prev point
	hasPrev := false
	age := np.ts.Sub(np.start)
	switch {
	case np.start < np.ts && age < s.cfg.MetricResolution && age >= freshContainerMinMetricsResolution:
		prev = point{ts: np.start, start: np.start}
		hasPrev = true
	case ps.hasLast && np.start < ps.last.ts:
		if np.ts > ps.last.ts {
			prev, hasPrev = ps.last, true
		} else if ps.hasPrev && ps.prev.ts < np.ts {
			prev, hasPrev = ps.prev, true
		}
	}
	ps.last, ps.hasLast = np, true
	ps.prev, ps.hasPrev = prev, hasPrev
}

// window returns the pod's measurement: the rate of cpu (nano-cores) and of served load (units
// per second) between its two points, its memory, timestamp and window; ok is false when the
// pod has no two usable points (metrics-server's GetMetrics skips it).
func (ps *podState) window() (cpuNano float64, unitsRate float64, memory float64, ts vtime.Time, window time.Duration, ok bool) {
	if !ps.hasLast || !ps.hasPrev {
		return 0, 0, 0, 0, 0, false
	}
	window = ps.last.ts.Sub(ps.prev.ts)
	if window <= 0 || ps.last.cpu < ps.prev.cpu {
		return 0, 0, 0, 0, 0, false
	}
	secs := window.Seconds()
	return (ps.last.cpu - ps.prev.cpu) * 1e9 / secs, (ps.last.units - ps.prev.units) / secs, ps.last.memory, ps.last.ts, window, true
}

// SetShape replaces, from now on, the offered load of the load whose target is kind
// namespace/name: from this instant the load follows shape, with shape's time 0 now (the
// scenario's `load` timeline action). The load offered before now is unchanged. It returns an
// error when no load targets that workload or the shape is invalid.
func (s *Server) SetShape(kind, namespace, name string, shape Shape) error {
	if errs := shape.Validate("shape"); len(errs) > 0 {
		return errs[0]
	}
	now := s.k.Now()
	for _, l := range s.loads {
		t := l.spec.Target
		if t.Kind == kind && t.Namespace == namespace && t.Name == name {
			l.advance(now)
			l.offered.c = switchedCurve{before: l.offered.c, after: shape.compile(), switchAt: now.Seconds()}
			return nil
		}
	}
	return fmt.Errorf("no load targets %s %s/%s (declare it under loads:)", kind, namespace, name)
}
