package cluster

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/report"
	"github.com/reconsim/reconsim/scenarios"
	"github.com/reconsim/reconsim/sim"
	"github.com/reconsim/reconsim/sim/apiserver"
	"github.com/reconsim/reconsim/sim/controllers/scheduler"
	"github.com/reconsim/reconsim/sim/leaderelection"
	"github.com/reconsim/reconsim/vtime"
)

// election is the leader election of one replicated control-plane component
// (kube-controller-manager or kube-scheduler): its candidates, who leads, and the terms so
// far. Upstream both binaries run client-go's leaderelection.RunOrDie on a Lease in
// kube-system named after the component (cmd/kube-controller-manager/app/controllermanager.go
// Run; cmd/kube-scheduler/app/server.go Run and options.go makeLeaderElectionConfig).
type election struct {
	w         *world
	component string
	cfg       leaderelection.Config // without Identity
	// proc is the component's replicas and restart-delay; qps and burst its client settings
	// (each replica's leader-election client has its own token bucket).
	proc   leaderelection.Process
	qps    float64
	burst  int
	cands  []*candidate
	leader *candidate
	rand   *rand.Rand
	// noLeaderSince is when the last term ended (valid while leader is nil after a term).
	noLeaderSince vtime.Time
	hadLeader     bool
	terms         []report.LeaderTerm
	// prebuilt is the first replica's first scheduler or controllers, built with the world so
	// the typed fields the recorder reads exist from the start.
	prebuilt []*running
}

// candidate is one replica process.
type candidate struct {
	el          *election
	index       int
	incarnation int
	identity    string
	elector     *leaderelection.Elector
	proc        *sim.Proc
	up          bool
	leading     bool
	// standby is a kube-scheduler replica's scheduler, whose informers run before it leads
	// (hot standby); nil for kube-controller-manager (cold standby).
	standby *running
	sched   *scheduler.Scheduler
	// downtime is how long the process stays down after it exits; set by the fault that
	// stops it, else the component's restart-delay.
	downtime time.Duration
	// named: the identity of the next start was already drawn (the first replica's, which
	// holds the Lease at time 0).
	named bool
}

// electorClient is the name of a replica's leader-election client (upstream user agent
// "leader-election", one per process).
func (c *candidate) electorClient() string {
	return fmt.Sprintf("%s/leader-election/%d", c.el.component, c.index)
}

// buildElections sets up the elections the scenario asks for (scenarios.Components.Elections).
func (w *world) buildElections() error {
	for _, comp := range []string{scenarios.ComponentControllerManager, scenarios.ComponentScheduler} {
		if !w.comps.Elections(comp) {
			continue
		}
		el := &election{w: w, component: comp, rand: w.k.Rand("leader-election/" + comp), proc: w.process(comp)}
		el.qps, el.burst = w.clientSettings(comp)
		el.cfg = leaderelection.DefaultConfig()
		scenarios.Configure(w.comps, leaderelection.Flags(comp), &el.cfg)
		el.cfg.Namespace, el.cfg.Name = "kube-system", comp
		el.cfg.ReleaseOnCancel = comp == scenarios.ComponentScheduler
		probe := el.cfg
		probe.Identity = "probe"
		if err := probe.Validate(); err != nil {
			return fmt.Errorf("%s leader election: %w", comp, err)
		}
		for _, r := range w.controllers {
			if w.componentOf(r) == comp {
				el.prebuilt = append(el.prebuilt, r)
			}
		}
		for i := 0; i < el.proc.Replicas; i++ {
			el.cands = append(el.cands, &candidate{el: el, index: i})
		}
		w.elections = append(w.elections, el)
	}
	return nil
}

// componentOf names the process a controller runs in.
func (w *world) componentOf(r *running) string {
	if r.spec.name == scenarios.ComponentScheduler {
		return scenarios.ComponentScheduler
	}
	return scenarios.ComponentControllerManager
}

// electionOf returns the election of component, or nil when it runs without one.
func (w *world) electionOf(component string) *election {
	for _, el := range w.elections {
		if el.component == component {
			return el
		}
	}
	return nil
}

// elected reports whether r belongs to a component that runs leader election (and so is
// started by its leader, not at the start of the run).
func (w *world) elected(r *running) bool { return w.electionOf(w.componentOf(r)) != nil }

// startElections creates the Leases as a running cluster has them (held by the first
// replica, like the nodes that are Ready at time 0) and starts every candidate.
func (w *world) startElections() error {
	for _, el := range w.elections {
		first := el.cands[0]
		first.newIdentity()
		first.named = true
		secs := int32(el.cfg.LeaseDuration / time.Second)
		zero := int32(0)
		now := w.k.Now()
		lease := &model.Lease{ObjectMeta: model.ObjectMeta{Namespace: el.cfg.Namespace, Name: el.cfg.Name},
			Spec: model.LeaseSpec{HolderIdentity: first.identity, LeaseDurationSeconds: &secs, AcquireTime: &now, RenewTime: &now, LeaseTransitions: &zero}}
		if _, err := w.srv.Store().Create(lease); err != nil {
			return fmt.Errorf("creating Lease %s/%s: %w", el.cfg.Namespace, el.cfg.Name, err)
		}
		for _, c := range el.cands {
			c.start()
		}
	}
	return nil
}

// newIdentity gives the process its identity for this incarnation: upstream's
// <hostname>_<uuid> (a new UUID each time the process starts).
func (c *candidate) newIdentity() {
	c.incarnation++
	c.identity = fmt.Sprintf("control-plane-%d_%08x", c.index, c.el.rand.Uint32())
}

// start starts the replica process: a kube-scheduler builds its scheduler and starts its
// informers (hot standby), then the process runs for the Lease.
func (c *candidate) start() {
	el, w := c.el, c.el.w
	if !c.named {
		c.newIdentity()
	}
	c.named = false
	c.up, c.downtime = true, el.proc.RestartDelay
	if el.component == scenarios.ComponentScheduler {
		if c.index == 0 && c.incarnation == 1 && len(el.prebuilt) == 1 {
			c.standby, c.sched = el.prebuilt[0], w.sched
		} else {
			prev := w.sched
			r, err := w.buildScheduler()
			if err != nil {
				w.k.Emit("cluster", "error", el.component, 0, err.Error())
				return
			}
			c.standby, c.sched = r, w.sched
			w.sched = prev
		}
		c.standby.factory.Start(w.k)
	}
	cl, _ := w.component(c.electorClient(), el.qps, el.burst)
	cfg := el.cfg
	cfg.Identity = c.identity
	rec := w.recorder(cl, el.component, "")
	e, err := leaderelection.New(w.k, cl, rec, cfg, leaderelection.Callbacks{
		OnStartedLeading: func() { el.startedLeading(c) },
		OnStoppedLeading: func() { el.stoppedLeading(c) },
	}, w.k.Rand(fmt.Sprintf("leader-election/%s/%d/%d", el.component, c.index, c.incarnation)))
	if err != nil {
		w.k.Emit("cluster", "error", el.component, 0, err.Error())
		return
	}
	c.elector = e
	w.k.Emit("cluster", "component-start", el.component, 0, fmt.Sprintf("replica=%d identity=%s", c.index, c.identity))
	c.proc = w.k.Spawn("leader-election/"+c.identity, e.Run)
}

// startedLeading is OnStartedLeading: kube-controller-manager builds and starts its
// controllers on fresh informers (cold standby: they list everything now); kube-scheduler
// starts scheduling from the caches it kept warm.
func (el *election) startedLeading(c *candidate) {
	w := el.w
	c.leading = true
	el.leader = c
	now := w.k.Now()
	if el.hadLeader {
		w.k.Emit("leaderelection", "new-leader", "Lease "+el.cfg.Namespace+"/"+el.cfg.Name, 0,
			fmt.Sprintf("%s had no leader for %.3fs (replica %d took over; lease-duration %s, retry-period %s)",
				el.component, now.Sub(el.noLeaderSince).Seconds(), c.index, el.cfg.LeaseDuration, el.cfg.RetryPeriod))
	}
	el.hadLeader = true
	el.terms = append(el.terms, report.LeaderTerm{Component: el.component, Replica: c.index, Identity: c.identity, From: now.Seconds()})
	el.sample()
	if el.component == scenarios.ComponentScheduler {
		w.replaceComponent(el.component, []*running{c.standby})
		w.sched = c.sched
		c.standby.ctrl.Start()
		return
	}
	fresh := el.prebuilt
	el.prebuilt = nil
	if fresh == nil {
		var err error
		if fresh, err = w.buildKCM(); err != nil {
			w.k.Emit("cluster", "error", el.component, 0, err.Error())
			return
		}
	}
	w.replaceComponent(el.component, fresh)
	startRunning(w.k, fresh)
}

// stoppedLeading is OnStoppedLeading: the process exits, as both binaries do
// (klog.FlushAndExit), and comes back as a standby after its downtime.
func (el *election) stoppedLeading(c *candidate) {
	el.exit(c, "exited")
	w := el.w
	down := c.downtime
	w.k.After(down, func() {
		if !c.up {
			c.start()
		}
	})
}

// exit stops the process: its controllers or scheduler (if it leads) and its informers.
func (el *election) exit(c *candidate, how string) {
	w := el.w
	if !c.up {
		return
	}
	c.up = false
	if c.leading {
		c.leading = false
		el.leader = nil
		el.noLeaderSince = w.k.Now()
		if n := len(el.terms); n > 0 {
			to := w.k.Now().Seconds()
			el.terms[n-1].To = &to
		}
		el.sample()
		var stopped []*running
		for _, r := range w.controllers {
			if w.componentOf(r) == el.component {
				r.ctrl.Stop()
				stopped = append(stopped, r)
			}
		}
		var factories []any
		for _, r := range stopped {
			if !slices.Contains(factories, any(r.factory)) {
				r.factory.Stop()
				factories = append(factories, r.factory)
			}
		}
	}
	if c.standby != nil {
		c.standby.ctrl.Stop()
		c.standby.factory.Stop()
		c.standby = nil
	}
	w.k.Emit("cluster", "component-stop", el.component, 0, fmt.Sprintf("replica=%d identity=%s %s", c.index, c.identity, how))
}

// sample records the leader lane: the leading replica's index, or -1 while none leads.
func (el *election) sample() {
	v := -1.0
	if el.leader != nil {
		v = float64(el.leader.index)
	}
	el.w.obs.sample("leader."+el.component, "replica", v)
}

// replaceComponent puts fresh in place of the component's entries in w.controllers (fresh
// has one entry per spec, in the same order, as buildKCM and buildScheduler return them).
func (w *world) replaceComponent(component string, fresh []*running) {
	i := 0
	for k, r := range w.controllers {
		if w.componentOf(r) == component && i < len(fresh) {
			w.controllers[k] = fresh[i]
			i++
		}
	}
}

// leaderOf returns the leading replica of component's election, or an error that says why
// there is none.
func (w *world) leaderOf(component string) (*candidate, error) {
	el := w.electionOf(component)
	if el == nil {
		return nil, fmt.Errorf("%s runs without leader election", component)
	}
	if el.leader == nil {
		return nil, fmt.Errorf("no %s replica leads now", component)
	}
	return el.leader, nil
}

// leaderCrash kills the leading replica's process: nothing is released, so the standbys wait
// for the Lease to expire. The process comes back as a standby after downtime.
func (w *world) leaderCrash(component string, downtime time.Duration) error {
	c, err := w.leaderOf(component)
	if err != nil {
		return err
	}
	c.proc.Kill()
	c.el.exit(c, "crashed")
	w.k.After(downtime, func() {
		if !c.up {
			c.start()
		}
	})
	return nil
}

// leaderRelease shuts the leader down gracefully: its election's context is cancelled, so
// kube-scheduler (ReleaseOnCancel) releases the Lease and kube-controller-manager (no
// ReleaseOnCancel) leaves it to expire; the process exits and comes back after downtime.
func (w *world) leaderRelease(component string, downtime time.Duration) error {
	c, err := w.leaderOf(component)
	if err != nil {
		return err
	}
	c.downtime = downtime
	c.elector.Cancel()
	return nil
}

// processPartition cuts one replica process off from the API server: its leader-election
// client always, and the clients of its controllers (or scheduler) while it leads (other
// replicas' controllers use the same client names once they lead). Each request fails after
// timeout.
type processPartition struct {
	c       *candidate
	client  string
	timeout time.Duration
}

// Intercept implements apiserver.Fault.
func (f *processPartition) Intercept(_ vtime.Time, req *apiserver.Request) (time.Duration, error) {
	if req.Client == f.client || (f.c.leading && f.c.el.w.processClient(f.c.el.component, req.Client)) {
		return f.timeout, errPartitioned
	}
	return 0, nil
}

var errPartitioned = fmt.Errorf("control-plane process cut off from the API server (leader-partition): request timed out")

// processClient reports whether name is a client of the component's process.
func (w *world) processClient(component, name string) bool {
	if component == scenarios.ComponentScheduler {
		return name == scheduler.DefaultConfig().SchedulerName
	}
	return w.kcmClients[name]
}

// leaderPartition cuts the leader off from the API server for d: it misses its renewals,
// steps down at its renew deadline, and exits; another replica takes the Lease once it has
// expired. Requests of the cut-off process fail after the retry period (the request timeout
// the simulator gives them).
func (w *world) leaderPartition(component string, d time.Duration) error {
	c, err := w.leaderOf(component)
	if err != nil {
		return err
	}
	f := &processPartition{c: c, client: c.electorClient(), timeout: c.el.cfg.RetryPeriod}
	w.installFault(f, d)
	return nil
}

// leadership returns every term of every election, by component then start.
func (w *world) leadership() []report.LeaderTerm {
	var out []report.LeaderTerm
	for _, el := range w.elections {
		out = append(out, el.terms...)
	}
	return out
}

// electedComponent is a leader fault's component: kube-controller-manager when unset.
func electedComponent(c string) string {
	if c == "" {
		return scenarios.ComponentControllerManager
	}
	return c
}

// downtime is a leader fault's downtime: d when set, else the component's restart-delay.
func (w *world) downtime(component string, d *time.Duration) time.Duration {
	if d != nil {
		return *d
	}
	return w.process(component).RestartDelay
}

// process is a leader-elected component's process flags (leader-elect, replicas,
// restart-delay), from its flag table.
func (w *world) process(component string) leaderelection.Process {
	p := leaderelection.DefaultProcess()
	scenarios.Configure(w.comps, leaderelection.ProcessFlags(component), &p)
	return p
}

// clientSettings are the --kube-api-qps and --kube-api-burst of kube-controller-manager or
// kube-scheduler, from their flag tables.
func (w *world) clientSettings(component string) (qps float64, burst int) {
	if component == scenarios.ComponentScheduler {
		cfg := scheduler.DefaultConfig()
		scenarios.Configure(w.comps, scheduler.Flags, &cfg)
		return cfg.KubeAPIQPS, cfg.KubeAPIBurst
	}
	return w.kcmOpts.KubeAPIQPS, w.kcmOpts.KubeAPIBurst
}
