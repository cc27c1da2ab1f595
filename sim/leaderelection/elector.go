package leaderelection

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim"
	"github.com/reconsim/reconsim/sim/client"
	"github.com/reconsim/reconsim/sim/client/record"
	"github.com/reconsim/reconsim/vtime"
)

// JitterFactor jitters the acquire loop's period (client-go tools/leaderelection
// leaderelection.go JitterFactor = 1.2).
const JitterFactor = 1.2

// The defaults of the --leader-elect-* flags (k8s.io/component-base config/v1alpha1
// defaults.go RecommendedDefaultLeaderElectionConfiguration).
const (
	DefaultLeaseDuration = 15 * time.Second
	DefaultRenewDeadline = 10 * time.Second
	DefaultRetryPeriod   = 2 * time.Second
)

// EventReason is the reason of the events an elector records (resourcelock
// LeaseLock.RecordEvent: reason "LeaderElection", message "<identity> <event>").
const EventReason = "LeaderElection"

// Config is a LeaderElectionConfig with a Lease lock.
type Config struct {
	// Namespace and Name name the Lease (kube-system/kube-controller-manager,
	// kube-system/kube-scheduler).
	Namespace, Name string
	// Identity is the candidate's holderIdentity (upstream: <hostname>_<uuid>).
	Identity string
	// LeaseDuration is how long a standby waits, from when it last saw the Lease change,
	// before it takes the Lease over (--leader-elect-lease-duration).
	LeaseDuration time.Duration
	// RenewDeadline is how long a leader keeps retrying a renewal before it gives up
	// leadership (--leader-elect-renew-deadline).
	RenewDeadline time.Duration
	// RetryPeriod is the wait between attempts (--leader-elect-retry-period).
	RetryPeriod time.Duration
	// ReleaseOnCancel makes a cancelled leader release the Lease (kube-scheduler sets it,
	// kube-controller-manager does not).
	ReleaseOnCancel bool
}

// Validate checks the config as NewLeaderElector does: LeaseDuration > RenewDeadline >
// JitterFactor*RetryPeriod > 0, and a lock name and identity.
func (c Config) Validate() error {
	switch {
	case c.LeaseDuration <= c.RenewDeadline:
		return fmt.Errorf("leaseDuration (%s) must be greater than renewDeadline (%s)", c.LeaseDuration, c.RenewDeadline)
	case float64(c.RenewDeadline) <= JitterFactor*float64(c.RetryPeriod):
		return fmt.Errorf("renewDeadline (%s) must be greater than retryPeriod*JitterFactor (%s*%.1f)", c.RenewDeadline, c.RetryPeriod, JitterFactor)
	case c.RetryPeriod <= 0:
		return errors.New("retryPeriod must be greater than zero")
	case c.Name == "" || c.Namespace == "":
		return errors.New("the lock needs a namespace and a name")
	case c.Identity == "":
		return errors.New("the lock identity is empty")
	}
	return nil
}

// Callbacks are LeaderCallbacks; each may be nil.
type Callbacks struct {
	OnStartedLeading func()
	OnStoppedLeading func()
	OnNewLeader      func(identity string)
}

// Elector is one candidate's LeaderElector.
type Elector struct {
	k    *sim.Kernel
	c    *client.Client
	rec  record.Recorder
	cfg  Config
	cb   Callbacks
	rand *rand.Rand

	// observed is the Lease as last read or written, observedTime when its record last
	// changed by this elector's clock.
	observed     *model.Lease
	observedTime vtime.Time
	reported     string

	proc      *sim.Proc
	timer     *sim.Timer
	cancelled bool
	leading   bool
	// attemptOwner is the process of the renewal try renew waits for; a try abandoned at
	// its round's deadline finds it changed and drops its result.
	attemptOwner *sim.Proc
}

// New returns an elector; rec may be nil (no events).
func New(k *sim.Kernel, c *client.Client, rec record.Recorder, cfg Config, cb Callbacks, r *rand.Rand) (*Elector, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Elector{k: k, c: c, rec: rec, cfg: cfg, cb: cb, rand: r}, nil
}

// Identity returns the candidate's identity.
func (le *Elector) Identity() string { return le.cfg.Identity }

// IsLeading reports whether the elector is in a term now.
func (le *Elector) IsLeading() bool { return le.leading }

// Run is LeaderElector.Run: acquire, then renew until a renewal round fails or Cancel is
// called (then release the Lease if ReleaseOnCancel), then OnStoppedLeading. It blocks p.
func (le *Elector) Run(p *sim.Proc) {
	le.proc = p
	le.timer = le.k.NewIdleTimer(func() { p.Unpark() })
	if le.acquire(p) {
		le.leading = true
		le.trace("started-leading", "")
		if le.cb.OnStartedLeading != nil {
			le.cb.OnStartedLeading()
		}
		le.renew(p)
		le.leading = false
		if le.cancelled && le.cfg.ReleaseOnCancel {
			le.release(p)
		}
	}
	le.timer.Stop()
	if le.cb.OnStoppedLeading != nil {
		le.cb.OnStoppedLeading()
	}
}

// Cancel cancels Run's context: a candidate stops trying, a leader ends its term at once
// (releasing the Lease if ReleaseOnCancel).
func (le *Elector) Cancel() {
	if le.cancelled {
		return
	}
	le.cancelled = true
	if le.proc != nil && le.proc.Parked() {
		le.timer.Stop()
		le.proc.Unpark()
	}
}

// wait blocks p for d, or until Cancel; it reports whether the wait ran to its end.
func (le *Elector) wait(p *sim.Proc, d time.Duration) bool {
	if le.cancelled {
		return false
	}
	le.timer.Reset(d)
	p.Park()
	le.timer.Stop()
	return !le.cancelled
}

// acquire is LeaderElector.acquire: wait.JitterUntil(tryAcquireOrRenew, RetryPeriod,
// JitterFactor, sliding) until it succeeds or Run is cancelled.
func (le *Elector) acquire(p *sim.Proc) bool {
	for !le.cancelled {
		ok := le.tryAcquireOrRenew(p)
		le.maybeReportTransition()
		if ok {
			le.event("became leader")
			return true
		}
		if !le.wait(p, le.jitter(le.cfg.RetryPeriod)) {
			break
		}
	}
	return false
}

// jitter is wait.Jitter(d, JitterFactor): d + rand[0,1)*JitterFactor*d.
func (le *Elector) jitter(d time.Duration) time.Duration {
	return d + time.Duration(le.rand.Float64()*JitterFactor*float64(d))
}

// renew is LeaderElector.renew: rounds every RetryPeriod (wait.Until, sliding), each polling
// tryAcquireOrRenew every RetryPeriod for at most RenewDeadline (PollUntilContextTimeout,
// immediate, not sliding). It returns when a round fails or Run is cancelled.
func (le *Elector) renew(p *sim.Proc) {
	for !le.cancelled {
		start := p.Now()
		deadline := start.Add(le.cfg.RenewDeadline)
		renewed := false
		for !le.cancelled {
			now := p.Now()
			// The poll's ticker: the first try at once, then every RetryPeriod from the
			// round's start (ticks missed while a try was in flight are dropped).
			tick := start
			if now > start {
				n := (now.Sub(start) + le.cfg.RetryPeriod - 1) / le.cfg.RetryPeriod
				tick = start.Add(n * le.cfg.RetryPeriod)
			}
			if tick >= deadline {
				break
			}
			if tick > now && !le.wait(p, tick.Sub(now)) {
				break
			}
			ok, done := le.tryBefore(p, deadline)
			if !done {
				break
			}
			if ok {
				renewed = true
				break
			}
		}
		le.maybeReportTransition()
		if le.cancelled {
			return
		}
		if !renewed {
			// The round's context expired at its deadline.
			if now := p.Now(); now < deadline {
				le.wait(p, deadline.Sub(now))
			}
			le.trace("renew-failed", fmt.Sprintf("failed to renew lease %s/%s: timed out waiting for the condition", le.cfg.Namespace, le.cfg.Name))
			le.event("stopped leading")
			return
		}
		if !le.wait(p, le.cfg.RetryPeriod) {
			return
		}
	}
}

// tryBefore runs tryAcquireOrRenew in its own process, as renew's poll condition runs it in a
// goroutine, and waits for it until deadline (the round's context). done is false when the
// deadline or Cancel came first; the try then goes on and its result is dropped.
func (le *Elector) tryBefore(p *sim.Proc, deadline vtime.Time) (ok, done bool) {
	finished := false
	le.attemptOwner = le.k.Spawn(p.Name()+"/try", func(c *sim.Proc) {
		r := le.tryAcquireOrRenew(c)
		if le.proc != p || le.attemptOwner != c {
			return
		}
		ok, finished = r, true
		if p.Parked() {
			le.timer.Stop()
			p.Unpark()
		}
	})
	for !finished && !le.cancelled && p.Now() < deadline {
		le.timer.ResetAt(deadline)
		p.Park()
		le.timer.Stop()
	}
	le.attemptOwner = nil
	return ok, finished
}

// record builds the Lease record this candidate writes.
func (le *Elector) record(now vtime.Time, acquire vtime.Time, transitions int32) model.LeaseSpec {
	secs := int32(le.cfg.LeaseDuration / time.Second)
	return model.LeaseSpec{
		HolderIdentity: le.cfg.Identity, LeaseDurationSeconds: &secs,
		AcquireTime: &acquire, RenewTime: &now, LeaseTransitions: &transitions,
	}
}

func (le *Elector) isLeader() bool {
	return le.observed != nil && le.observed.Spec.HolderIdentity == le.cfg.Identity
}

// isLeaseValid: the lease, as last observed, has not expired by this elector's clock.
func (le *Elector) isLeaseValid(now vtime.Time) bool {
	return le.observedTime.Add(le.cfg.LeaseDuration) > now
}

// tryAcquireOrRenew is LeaderElector.tryAcquireOrRenew.
func (le *Elector) tryAcquireOrRenew(p *sim.Proc) bool {
	now := p.Now()
	// 1. Fast path for the leader: update from the last observation, no GET.
	if le.isLeader() && le.isLeaseValid(now) {
		next := le.observed.DeepCopy()
		next.Spec = le.record(now, deref(le.observed.Spec.AcquireTime), deref(le.observed.Spec.LeaseTransitions))
		if out, err := le.c.Update(p, next); err == nil {
			le.setObserved(out.(*model.Lease), p.Now())
			return true
		}
		// Fall through to the slow path, as upstream does on an update error.
	}
	// 2. Obtain or create the election record.
	obj, err := le.c.Get(p, model.KindLease, le.cfg.Namespace, le.cfg.Name)
	if err != nil {
		if !apierrors.IsNotFound(err) {
			return false
		}
		lease := &model.Lease{ObjectMeta: model.ObjectMeta{Namespace: le.cfg.Namespace, Name: le.cfg.Name}, Spec: le.record(now, now, 0)}
		out, err := le.c.Create(p, lease)
		if err != nil {
			return false
		}
		le.setObserved(out.(*model.Lease), p.Now())
		return true
	}
	cur := obj.(*model.Lease)
	// 3. Record obtained: note when it changed, by our clock.
	if le.observed == nil || !sameRecord(le.observed.Spec, cur.Spec) {
		le.setObserved(cur, p.Now())
	} else {
		le.observed = cur
	}
	if cur.Spec.HolderIdentity != "" && le.isLeaseValid(now) && !le.isLeader() {
		return false
	}
	// 4. Take or keep it.
	next := cur.DeepCopy()
	if le.isLeader() {
		next.Spec = le.record(now, deref(cur.Spec.AcquireTime), deref(cur.Spec.LeaseTransitions))
	} else {
		next.Spec = le.record(now, now, deref(cur.Spec.LeaseTransitions)+1)
	}
	out, err := le.c.Update(p, next)
	if err != nil {
		return false
	}
	le.setObserved(out.(*model.Lease), p.Now())
	return true
}

// release is LeaderElector.release: an empty holder, leaseDurationSeconds 1, the same
// transitions.
func (le *Elector) release(p *sim.Proc) {
	if !le.isLeader() {
		return
	}
	next := le.observed.DeepCopy()
	now := p.Now()
	one := int32(1)
	transitions := deref(le.observed.Spec.LeaseTransitions)
	next.Spec = model.LeaseSpec{LeaseDurationSeconds: &one, AcquireTime: &now, RenewTime: &now, LeaseTransitions: &transitions}
	out, err := le.c.Update(p, next)
	if err != nil {
		le.trace("release-failed", err.Error())
		return
	}
	le.setObserved(out.(*model.Lease), p.Now())
	le.trace("released", "")
}

func (le *Elector) setObserved(l *model.Lease, at vtime.Time) {
	le.observed = l
	le.observedTime = at
}

// maybeReportTransition calls OnNewLeader when the observed holder changed.
func (le *Elector) maybeReportTransition() {
	if le.observed == nil || le.observed.Spec.HolderIdentity == le.reported {
		return
	}
	le.reported = le.observed.Spec.HolderIdentity
	if le.cb.OnNewLeader != nil {
		le.cb.OnNewLeader(le.reported)
	}
}

func (le *Elector) event(what string) {
	le.trace("event", what)
	if le.rec == nil {
		return
	}
	ref := &model.Lease{ObjectMeta: model.ObjectMeta{Namespace: le.cfg.Namespace, Name: le.cfg.Name}}
	if le.observed != nil {
		ref = le.observed
	}
	le.rec.Eventf(ref, model.EventTypeNormal, EventReason, "%s %s", le.cfg.Identity, what)
}

func (le *Elector) trace(action, detail string) {
	msg := "identity=" + le.cfg.Identity
	if detail != "" {
		msg += " " + detail
	}
	le.k.Emit("leaderelection", action, "Lease "+le.cfg.Namespace+"/"+le.cfg.Name, 0, msg)
}

// sameRecord compares two Lease records field by field (upstream compares the raw record).
func sameRecord(a, b model.LeaseSpec) bool {
	return a.HolderIdentity == b.HolderIdentity && deref(a.LeaseDurationSeconds) == deref(b.LeaseDurationSeconds) &&
		deref(a.AcquireTime) == deref(b.AcquireTime) && deref(a.RenewTime) == deref(b.RenewTime) &&
		deref(a.LeaseTransitions) == deref(b.LeaseTransitions)
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}
