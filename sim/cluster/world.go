package cluster

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/report"
	"github.com/reconsim/reconsim/scenarios"
	"github.com/reconsim/reconsim/sim"
	"github.com/reconsim/reconsim/sim/apiserver"
	"github.com/reconsim/reconsim/sim/client"
	"github.com/reconsim/reconsim/sim/client/record"
	"github.com/reconsim/reconsim/sim/controllers/cronjob"
	"github.com/reconsim/reconsim/sim/controllers/daemonset"
	"github.com/reconsim/reconsim/sim/controllers/deployment"
	"github.com/reconsim/reconsim/sim/controllers/disruption"
	"github.com/reconsim/reconsim/sim/controllers/endpointslice"
	"github.com/reconsim/reconsim/sim/controllers/gc"
	"github.com/reconsim/reconsim/sim/controllers/hpa"
	"github.com/reconsim/reconsim/sim/controllers/job"
	"github.com/reconsim/reconsim/sim/controllers/nodelifecycle"
	"github.com/reconsim/reconsim/sim/controllers/podgc"
	"github.com/reconsim/reconsim/sim/controllers/replicaset"
	"github.com/reconsim/reconsim/sim/controllers/scheduler"
	"github.com/reconsim/reconsim/sim/controllers/statefulset"
	"github.com/reconsim/reconsim/sim/controllers/tainteviction"
	"github.com/reconsim/reconsim/sim/controllers/ttlafterfinished"
	"github.com/reconsim/reconsim/sim/drain"
	"github.com/reconsim/reconsim/sim/features"
	"github.com/reconsim/reconsim/sim/gitops"
	"github.com/reconsim/reconsim/sim/kubeapiserver"
	"github.com/reconsim/reconsim/sim/kubecontrollermanager"
	"github.com/reconsim/reconsim/sim/metrics"
	"github.com/reconsim/reconsim/sim/node"
	"github.com/reconsim/reconsim/vtime"
)

// world is one simulated cluster: every component, and what watches them.
type world struct {
	scn   *scenarios.Scenario
	comps *scenarios.Components
	// checkOnly is set by Check: the world is built to find what creating the objects finds,
	// and is never run (see createSettled).
	checkOnly bool
	// gates are the feature gates of the declared upstream version (gates.go).
	gates features.Set
	k     *sim.Kernel
	srv   *apiserver.Server
	// apiOpts are kube-apiserver's flags and the API server's latency knobs; kcmOpts
	// kube-controller-manager's client and resync flags (both from their flag tables).
	apiOpts kubeapiserver.Options
	kcmOpts kubecontrollermanager.Options

	// The scenario's hand (timeline actions, object creation at t=0): it acts through the API
	// like kubectl, unthrottled, as client "kubectl".
	kubectl *client.Client

	kubelets []*node.Kubelet // in scenario node order
	kubelet  map[string]*node.Kubelet
	nodes    []scenarios.ClusterNode

	sched   *scheduler.Scheduler
	rs      *replicaset.Controller
	deploy  *deployment.Controller
	hpa     *hpa.Controller
	metrics *metrics.Server // the metrics-server and load model; nil without loads
	sts     *statefulset.Controller
	taints  *tainteviction.Controller

	controllers    []*running // kube-controller-manager's controllers, then the scheduler
	metricsFactory *client.SharedInformerFactory
	resyncRng      *rand.Rand

	drains []*drain.Drainer // every drain a timeline entry started, in order

	// gitops is the GitOps agent; nil unless the scenario runs one.
	gitops *gitops.Agent

	// elections are the leader elections of replicated control-plane components.
	elections []*election
	// kcmClients names the clients of kube-controller-manager's process (a partition cuts
	// them); buildingKCM is set while buildKCM makes them.
	kcmClients  map[string]bool
	buildingKCM bool

	failedJobs []failedJob // every Job seen failing, in order (verdicts)

	events eventRecords // events.jsonl
	// eventsAPI is simulator.events-through-api: components' Events go through their clients
	// to the API server (and events.jsonl records what it stored); eventNames keeps their
	// names unique across recorders.
	eventsAPI  bool
	eventNames *record.Names
	conv       *convergence
	obs        *observer
	rand       *rand.Rand

	// extra are the caller's own controllers (Options.Controllers), run in
	// kube-controller-manager beside the built-in ones.
	extra []Controller
	// building names the controller whose build function runs now; component() records which
	// component each client belongs to (componentsOf) while it is set.
	building     string
	componentsOf map[string][]string // client name -> the components its writes count for
	writes       map[string]int      // acknowledged writes per component
	inv          *invariants
	// locals is per-world state of the caller's controllers (ControllerEnv.Local).
	locals map[any]any
	// onWrite is called after each acknowledged write of a component, with its count so far.
	onWrite func(component string, n int)
}

// Controller is a controller of the caller's, run in kube-controller-manager beside the
// built-in ones (Options.Controllers): it gets its own client, named Name, and the shared
// informer factory; controller-restart and at: {write: K, by: Name} address it by Name.
type Controller struct {
	Name  string
	Build func(k *sim.Kernel, c *client.Client, f *client.SharedInformerFactory) (Runnable, error)
	// Setup, when set, is used instead of Build (usercontroller.go).
	Setup func(env ControllerEnv) (Runnable, error)
}

// Runnable is what a controller provides: Start after its informer factory was started; Stop
// kills its processes and work queues.
type Runnable = runnable

// countWrite counts an acknowledged write of the client's components. Event writes are not
// counted: a write-triggered fault or perturbation is about the objects a component manages,
// not the Events it records about them.
func (w *world) countWrite(req *apiserver.Request) {
	if req.Kind == model.KindEvent {
		return
	}
	if req.Subresource == apiserver.SubresourceEviction && w.inv != nil {
		w.inv.eviction(req)
	}
	for _, c := range w.componentsOf[req.Client] {
		w.writes[c]++
		if w.onWrite != nil {
			w.onWrite(c, w.writes[c])
		}
	}
}

// resyncRand is the stream the informer resync periods are drawn from.
func (w *world) resyncRand() *rand.Rand {
	if w.resyncRng == nil {
		w.resyncRng = w.k.Rand("kube-controller-manager/resync")
	}
	return w.resyncRng
}

// eventSink turns recorded Kubernetes Events into events.jsonl records directly, when
// simulator.events-through-api is false.
type eventSink struct{ w *world }

func (s eventSink) Record(ev *model.Event) {
	s.w.events.add(report.EventRecordFrom(ev, s.w.k.Now()))
}

// recorder returns the event recorder of a component whose Events carry source {component,
// host}. Through the API (the default) it is client-go's broadcaster writing through c, the
// component's own client, as upstream components hand their clientset to
// StartRecordingToSink (kube-controller-manager's controllers their own client, the kubelet
// its event client, kube-scheduler its event client); events.jsonl then records each Event
// as the API server stored it (observer.commit). Otherwise the Events go straight to
// events.jsonl, costing nothing.
func (w *world) recorder(c *client.Client, component, host string) record.Recorder {
	if !w.eventsAPI {
		return record.New(w.k, eventSink{w}, component, host)
	}
	name := c.Name()
	if component != name {
		name += "/" + component
	}
	return record.NewBroadcaster(w.k, c, name, record.Config{Names: w.eventNames}).NewRecorder(component, host)
}

// build creates the world at virtual time 0: the API server with its system namespaces, the
// scenario's extra namespaces, every component (not yet started) and the kubelets.
func build(scn *scenarios.Scenario, seed uint64, opts Options) (*world, error) {
	extra := opts.Controllers
	comps := &scn.Components
	k := sim.New(seed)
	routing := record.DefaultRouting()
	scenarios.Configure(comps, record.Flags, &routing)
	w := &world{scn: scn, comps: comps, k: k, kubelet: map[string]*node.Kubelet{}, conv: newConvergence(),
		extra: extra, componentsOf: map[string][]string{}, writes: map[string]int{}, gates: comps.FeatureGates(),
		eventsAPI: routing.ThroughAPI, eventNames: record.NewNames(),
		apiOpts: kubeapiserver.DefaultOptions(), kcmOpts: kubecontrollermanager.DefaultOptions()}
	scenarios.Configure(comps, kubeapiserver.Flags, &w.apiOpts)
	scenarios.Configure(comps, kubeapiserver.SimulatorFlags, &w.apiOpts)
	scenarios.Configure(comps, kubecontrollermanager.Flags, &w.kcmOpts)
	w.obs = newObserver(w)
	w.inv = newInvariants(w)
	w.conv.onServing = func(t *rsTrack) {
		w.obs.sampleObject(t.seriesPrefix, t.namespace, t.name, "serving", "pods", float64(t.good))
	}

	cfg := apiServerConfig(w.apiOpts)
	admissionPlugins(comps, &cfg.Store)
	cfg.Store.OnCommit = w.obs.commit
	// The ownership check is on for this package's tests (checkedRun) as well as on request.
	cfg.Store.CheckMutations = opts.CheckMutations || opts.invariantViolations != nil
	cfg.APF = w.apfConfig()
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("kube-apiserver configuration: %w", err)
	}
	w.srv = apiserver.NewServer(k, cfg)
	w.srv.OnWrite(w.countWrite)
	w.kubectl = client.New(w.srv, "kubectl", client.Config{QPS: -1})

	store := w.srv.Store()
	for _, ns := range scn.Cluster.Namespaces {
		if _, err := store.Get(model.KindNamespace, "", ns); err == nil {
			continue
		}
		if _, err := store.Create(&model.Namespace{ObjectMeta: model.ObjectMeta{Name: ns}}); err != nil {
			return nil, fmt.Errorf("creating namespace %s: %w", ns, err)
		}
	}
	if err := w.buildControlPlane(); err != nil {
		return nil, err
	}
	if err := w.buildNodes(); err != nil {
		return nil, err
	}
	if err := w.buildGitOps(); err != nil {
		return nil, fmt.Errorf("gitops-agent: %w", err)
	}
	return w, nil
}

// apiServerConfig is sim/apiserver's Config for kube-apiserver's options o (upstream's
// options ApplyTo): the in-flight limits, Event TTL, default toleration seconds, watch delay and
// service times. Admission plugins (admissionPlugins) and APF (apfConfig) are set apart.
func apiServerConfig(o kubeapiserver.Options) apiserver.Config {
	cfg := apiserver.DefaultConfig()
	cfg.MaxRequestsInflight = o.MaxRequestsInflight
	cfg.MaxMutatingRequestsInflight = o.MaxMutatingRequestsInflight
	notReady, unreachable := o.DefaultNotReadyTolerationSeconds, o.DefaultUnreachableTolerationSeconds
	cfg.Store.EventTTL = o.EventTTL
	cfg.Store.DefaultNotReadyTolerationSeconds = &notReady
	cfg.Store.DefaultUnreachableTolerationSeconds = &unreachable
	cfg.Store.WatchDelay = o.WatchDelay
	cfg.ServiceTime[model.VerbGet] = o.ServiceTimeGet
	cfg.ServiceTime[model.VerbList] = o.ServiceTimeList
	for _, v := range []model.Verb{model.VerbCreate, model.VerbUpdate, model.VerbPatch, model.VerbDelete} {
		cfg.ServiceTime[v] = o.ServiceTimeMutating
	}
	return cfg
}

// component returns a client and recorder for one control-plane component. Upstream
// kube-controller-manager gives each controller its own client built from the same
// --kube-api-qps/--kube-api-burst (ControllerClientBuilder), so each controller has its own
// token bucket; the shared informers use one more client.
func (w *world) component(name string, qps float64, burst int) (*client.Client, record.Recorder) {
	c := client.New(w.srv, name, client.Config{QPS: qps, Burst: burst})
	if w.building != "" && len(w.componentsOf[name]) == 0 {
		if w.building == scenarios.ComponentScheduler {
			w.componentsOf[name] = []string{scenarios.ComponentScheduler}
		} else {
			w.componentsOf[name] = []string{w.building, scenarios.ComponentControllerManager}
		}
	}
	if w.buildingKCM {
		if w.kcmClients == nil {
			w.kcmClients = map[string]bool{}
		}
		w.kcmClients[name] = true
	}
	return c, w.recorder(c, name, "")
}

// runnable is what every controller and the scheduler provide: Start after their informer
// factory was started; Stop kills their processes and work queues (their caches go with the
// factory).
type runnable interface {
	Start()
	Stop()
}

// controllerSpec builds one kube-controller-manager controller on an informer factory and
// records it in the world (the typed fields the recorder and verdicts read).
type controllerSpec struct {
	name  string // the upstream controller name (controller-restart, watch-stall)
	build func(f *client.SharedInformerFactory) (runnable, error)
}

// running is a controller (or the scheduler) and the informer factory it runs on.
type running struct {
	spec    controllerSpec
	ctrl    runnable
	factory *client.SharedInformerFactory
}

// controllerSpecs lists kube-controller-manager's controllers as the simulator models them,
// each with its own client (upstream ControllerClientBuilder: --kube-api-qps/--kube-api-burst
// per controller).
func (w *world) controllerSpecs() []controllerSpec {
	comps := w.comps
	qps, burst := w.kcmOpts.KubeAPIQPS, w.kcmOpts.KubeAPIBurst
	specs := []controllerSpec{
		{"replicaset-controller", func(f *client.SharedInformerFactory) (runnable, error) {
			cfg := replicaset.DefaultConfig()
			scenarios.Configure(comps, replicaset.Flags, &cfg)
			c, rec := w.component("replicaset-controller", qps, burst)
			ctrl, err := replicaset.New(w.k, c, f, rec, cfg)
			w.rs = ctrl
			return ctrl, err
		}},
		{deployment.Component, func(f *client.SharedInformerFactory) (runnable, error) {
			cfg := deployment.DefaultConfig()
			scenarios.Configure(comps, deployment.Flags, &cfg)
			c, rec := w.component(deployment.Component, qps, burst)
			ctrl, err := deployment.New(w.k, c, f, rec, cfg)
			w.deploy = ctrl
			return ctrl, err
		}},
		{"statefulset-controller", func(f *client.SharedInformerFactory) (runnable, error) {
			cfg := statefulset.DefaultConfig()
			scenarios.Configure(comps, statefulset.Flags, &cfg)
			gateStatefulSet(w.gates, &cfg)
			c, rec := w.component("statefulset-controller", qps, burst)
			ctrl, err := statefulset.New(w.k, c, f, rec, cfg)
			w.sts = ctrl
			return ctrl, err
		}},
		{"daemonset-controller", func(f *client.SharedInformerFactory) (runnable, error) {
			cfg := daemonset.DefaultConfig()
			scenarios.Configure(comps, daemonset.Flags, &cfg)
			c, rec := w.component("daemonset-controller", qps, burst)
			return daemonset.New(w.k, c, f, rec, cfg)
		}},
		{"horizontal-pod-autoscaler-controller", func(f *client.SharedInformerFactory) (runnable, error) {
			cfg := hpa.DefaultConfig()
			scenarios.Configure(comps, hpa.Flags, &cfg)
			gateHPA(w.gates, &cfg)
			c, rec := w.component(hpa.Component, qps, burst)
			ctrl, err := hpa.New(w.k, c, f, rec, w.metrics, cfg)
			w.hpa = ctrl
			return ctrl, err
		}},
		{disruption.Component, func(f *client.SharedInformerFactory) (runnable, error) {
			c, _ := w.component(disruption.Component, qps, burst)
			return disruption.New(w.k, c, f, w.recorder(c, disruption.EventSourceComponent, ""), disruption.DefaultConfig())
		}},
		{endpointslice.Component, func(f *client.SharedInformerFactory) (runnable, error) {
			c, _ := w.component(endpointslice.Component, qps, burst)
			return endpointslice.New(w.k, c, f, w.recorder(c, endpointslice.EventSourceComponent, ""), endpointslice.DefaultConfig())
		}},
		{job.Component, func(f *client.SharedInformerFactory) (runnable, error) {
			cfg := job.DefaultConfig()
			scenarios.Configure(comps, job.Flags, &cfg)
			gateJob(w.gates, &cfg)
			c, rec := w.component(job.Component, qps, burst)
			return job.New(w.k, c, f, rec, cfg)
		}},
		{cronjob.Component, func(f *client.SharedInformerFactory) (runnable, error) {
			cfg := cronjob.DefaultConfig()
			scenarios.Configure(comps, cronjob.Flags, &cfg)
			c, rec := w.component(cronjob.Component, qps, burst)
			return cronjob.New(w.k, c, f, rec, cfg)
		}},
		{ttlafterfinished.Component, func(f *client.SharedInformerFactory) (runnable, error) {
			cfg := ttlafterfinished.DefaultConfig()
			scenarios.Configure(comps, ttlafterfinished.Flags, &cfg)
			c, rec := w.component(ttlafterfinished.Component, qps, burst)
			return ttlafterfinished.New(w.k, c, f, rec, cfg)
		}},
		{"garbage-collector-controller", func(f *client.SharedInformerFactory) (runnable, error) {
			cfg := gc.DefaultConfig()
			scenarios.Configure(comps, gc.Flags, &cfg)
			// kube-controller-manager doubles the garbage collector's QPS: each deletion takes
			// two calls (cmd/kube-controller-manager/app/core.go, gc.ClientQPSMultiplier).
			c, rec := w.component("garbage-collector-controller", qps*gc.ClientQPSMultiplier, burst)
			return gc.New(w.k, c, f, rec, cfg)
		}},
		{"pod-garbage-collector-controller", func(f *client.SharedInformerFactory) (runnable, error) {
			cfg := podgc.DefaultConfig()
			scenarios.Configure(comps, podgc.Flags, &cfg)
			c, _ := w.component("pod-garbage-collector", qps, burst)
			return podgc.New(w.k, c, f, cfg)
		}},
		{"node-lifecycle-controller", func(f *client.SharedInformerFactory) (runnable, error) {
			cfg := nodelifecycle.DefaultConfig()
			scenarios.Configure(comps, nodelifecycle.Flags, &cfg)
			c, rec := w.component("node-controller", qps, burst)
			return nodelifecycle.New(w.k, c, f, rec, cfg)
		}},
		{"taint-eviction-controller", func(f *client.SharedInformerFactory) (runnable, error) {
			c, rec := w.component("taint-eviction-controller", qps, burst)
			w.taints = tainteviction.New(w.k, c, f, rec, tainteviction.DefaultConfig())
			return w.taints, nil
		}},
	}
	for _, x := range w.extra {
		specs = append(specs, controllerSpec{x.Name, func(f *client.SharedInformerFactory) (runnable, error) {
			return w.buildUser(x, f, qps, burst)
		}})
	}
	return specs
}

// buildSpec builds one controller, recording its clients as its own.
func (w *world) buildSpec(spec controllerSpec, f *client.SharedInformerFactory) (runnable, error) {
	w.building = spec.name
	defer func() { w.building = "" }()
	return spec.build(f)
}

// newKCMFactory returns a fresh kube-controller-manager informer factory (empty caches).
func (w *world) newKCMFactory() *client.SharedInformerFactory {
	// --min-resync-period: the informers' resync is uniform in [min, 2*min) upstream
	// (cmd/kube-controller-manager/app/controllermanager.go ResyncPeriod).
	minResync := w.kcmOpts.MinResyncPeriod
	resync := minResync + time.Duration(w.resyncRand().Int64N(int64(minResync)))
	c, _ := w.component("kube-controller-manager/shared-informers", w.kcmOpts.KubeAPIQPS, w.kcmOpts.KubeAPIBurst)
	return client.NewSharedInformerFactory(c, resync)
}

// buildKCM builds every kube-controller-manager controller on one new informer factory.
func (w *world) buildKCM() ([]*running, error) {
	w.buildingKCM = true
	defer func() { w.buildingKCM = false }()
	f := w.newKCMFactory()
	var out []*running
	for _, spec := range w.controllerSpecs() {
		ctrl, err := w.buildSpec(spec, f)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", spec.name, err)
		}
		out = append(out, &running{spec: spec, ctrl: ctrl, factory: f})
	}
	return out, nil
}

// buildScheduler builds kube-scheduler on its own informer factory; the informers and the
// scheduling cycle share one client, as in kube-scheduler.
func (w *world) buildScheduler() (*running, error) {
	ks := scenarios.ComponentScheduler
	cfg := scheduler.DefaultConfig()
	scenarios.Configure(w.comps, scheduler.Flags, &cfg)
	gateScheduler(w.gates, &cfg)
	w.building = ks
	c, _ := w.component(cfg.SchedulerName, cfg.KubeAPIQPS, cfg.KubeAPIBurst)
	w.building = ""
	// kube-scheduler records Events through a separate eventClient built from the same
	// kubeconfig, so with its own token bucket of the same QPS and burst
	// (cmd/kube-scheduler/app/options/options.go createClients).
	rec := w.recorder(client.New(w.srv, c.Name(), client.Config{QPS: cfg.KubeAPIQPS, Burst: cfg.KubeAPIBurst}), cfg.SchedulerName, "")
	spec := controllerSpec{name: ks, build: func(f *client.SharedInformerFactory) (runnable, error) {
		sched, err := scheduler.New(w.k, c, f, rec, cfg)
		w.sched = sched
		return sched, err
	}}
	f := client.NewSharedInformerFactory(c, 0)
	ctrl, err := w.buildSpec(spec, f)
	if err != nil {
		return nil, fmt.Errorf("scheduler: %w", err)
	}
	return &running{spec: spec, ctrl: ctrl, factory: f}, nil
}

// buildMetrics builds the metrics pipeline (the load model, the kubelets' usage samples and
// metrics-server) on its own unthrottled informers; a crashed, partitioned or stalled node's
// pods report no metrics, as metrics-server cannot scrape their kubelet.
func (w *world) buildMetrics() error {
	cfg := metrics.DefaultConfig()
	scenarios.Configure(w.comps, metrics.Flags, &cfg)
	f := client.NewSharedInformerFactory(client.New(w.srv, metrics.Component, client.Config{QPS: -1}), 0)
	ms, err := metrics.New(w.k, f, w.scn.Loads, cfg)
	if err != nil {
		return fmt.Errorf("metrics pipeline: %w", err)
	}
	ms.SetNodeReachable(func(name string) bool {
		kl := w.kubelet[name]
		return kl != nil && kl.State() == node.StateRunning
	})
	w.metrics = ms
	w.metricsFactory = f
	return nil
}

func (w *world) buildControlPlane() error {
	if err := w.buildMetrics(); err != nil {
		return err
	}
	kcm, err := w.buildKCM()
	if err != nil {
		return err
	}
	sched, err := w.buildScheduler()
	if err != nil {
		return err
	}
	w.controllers = append(kcm, sched)
	return w.buildElections()
}

// startRunning starts the factories of rs (each once) and then the controllers.
func startRunning(k *sim.Kernel, rs []*running) {
	var started []*client.SharedInformerFactory
	for _, r := range rs {
		if !slices.Contains(started, r.factory) {
			r.factory.Start(k)
			started = append(started, r.factory)
		}
	}
	for _, r := range rs {
		r.ctrl.Start()
	}
}

func (w *world) kubeletConfig() node.Config {
	cfg := node.DefaultConfig()
	scenarios.Configure(w.comps, node.Flags, &cfg)
	gateKubelet(w.gates, &cfg)
	return cfg
}

// buildNodes creates one kubelet per scenario node. Nodes that are there from the start are
// registered now (Ready, as on a running cluster); the others register when they join.
func (w *world) buildNodes() error {
	cfg := w.kubeletConfig()
	if err := cfg.Validate(); err != nil {
		return fmt.Errorf("kubelet configuration: %w", err)
	}
	groups := map[string]scenarios.NodeGroup{}
	for _, g := range w.scn.Cluster.NodeGroups {
		groups[g.Name] = g
	}
	w.nodes = w.scn.Nodes()
	eventClient := client.Config{QPS: cfg.EventRecordQPS, Burst: cfg.EventBurst}
	if eventClient.QPS == 0 {
		eventClient.QPS = -1
	}
	for _, n := range w.nodes {
		g := groups[n.Group]
		obj := nodeObject(n, g, cfg.MaxPods)
		c := client.New(w.srv, "kubelet/"+n.Name, client.Config{QPS: cfg.KubeAPIQPS, Burst: cfg.KubeAPIBurst})
		// The kubelet's events go through kubeDeps.EventClient, a clientset of its own with
		// QPS eventRecordQPS and burst eventBurst (cmd/kubelet/app/server.go; 0 QPS means
		// unlimited). It has the kubelet's name, so a partition cuts it off too.
		rec := w.recorder(client.New(w.srv, c.Name(), eventClient), "kubelet", n.Name)
		kl, err := node.New(w.k, c, rec, obj, cfg)
		if err != nil {
			return fmt.Errorf("kubelet %s: %w", n.Name, err)
		}
		kl.SetServer(w.srv)
		w.kubelets = append(w.kubelets, kl)
		w.kubelet[n.Name] = kl
		if n.StartupTime == 0 {
			ready := obj.DeepCopy()
			ready.Status.Conditions = readyConditions(0)
			if _, err := w.srv.Store().CreateRunningNode(ready); err != nil {
				return fmt.Errorf("registering node %s: %w", n.Name, err)
			}
		}
	}
	return nil
}

// nodeObject is the Node a kubelet registers: labels, capacity, allocatable and taints from
// its group. Capacity "pods" defaults to the kubelet's --max-pods.
func nodeObject(n scenarios.ClusterNode, g scenarios.NodeGroup, maxPods int32) *model.Node {
	capacity := g.Capacity.DeepCopy()
	if _, ok := capacity[model.ResourcePods]; !ok {
		capacity[model.ResourcePods] = *resource.NewQuantity(int64(maxPods), resource.DecimalSI)
	}
	alloc := capacity.DeepCopy()
	for name, q := range g.Allocatable { //detlint:ordered copying entries into a map
		alloc[name] = q.DeepCopy()
	}
	obj := &model.Node{
		ObjectMeta: model.ObjectMeta{Name: n.Name, Labels: n.Labels},
		Spec:       model.NodeSpec{ProviderID: "reconsim://" + n.Name},
		Status:     model.NodeStatus{Capacity: capacity, Allocatable: alloc},
	}
	for _, t := range g.Taints {
		obj.Spec.Taints = append(obj.Spec.Taints, model.Taint{Key: t.Key, Value: t.Value, Effect: t.Effect})
	}
	return obj
}

// readyConditions are the conditions of a healthy node at time t.
func readyConditions(t vtime.Time) []model.NodeCondition {
	cond := func(typ string, status model.ConditionStatus, reason, msg string) model.NodeCondition {
		return model.NodeCondition{Type: typ, Status: status, LastHeartbeatTime: t, LastTransitionTime: t, Reason: reason, Message: msg}
	}
	return []model.NodeCondition{
		cond(model.NodeMemoryPressure, model.ConditionFalse, "KubeletHasSufficientMemory", "kubelet has sufficient memory available"),
		cond(model.NodeDiskPressure, model.ConditionFalse, "KubeletHasNoDiskPressure", "kubelet has no disk pressure"),
		cond(model.NodePIDPressure, model.ConditionFalse, "KubeletHasSufficientPID", "kubelet has sufficient PID available"),
		cond(model.NodeReady, model.ConditionTrue, "KubeletReady", "kubelet is posting ready status"),
	}
}

// start starts every component: control plane first, then the kubelets (each at its node's
// startup time).
func (w *world) start() {
	w.metricsFactory.Start(w.k)
	w.metrics.Start()
	var unelected []*running
	for _, r := range w.controllers {
		if !w.elected(r) {
			unelected = append(unelected, r)
		}
	}
	startRunning(w.k, unelected)
	if err := w.startElections(); err != nil {
		w.k.Emit("cluster", "error", "leader-election", 0, err.Error())
	}
	w.startGitOps()
	for i, kl := range w.kubelets {
		kl := kl
		n := w.nodes[i]
		if n.StartupTime == 0 {
			kl.Start()
			w.conv.setNodeUp(n.Name, true)
			continue
		}
		w.k.After(n.StartupTime, func() {
			kl.Start()
			w.conv.setNodeUp(n.Name, true)
			w.k.Emit("cluster", "node-join", "Node "+n.Name, 0, "")
		})
	}
}
