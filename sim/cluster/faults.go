package cluster

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/scenarios"
	"github.com/reconsim/reconsim/sim"
	"github.com/reconsim/reconsim/sim/apiserver"
	"github.com/reconsim/reconsim/sim/client"
	"github.com/reconsim/reconsim/sim/drain"
	"github.com/reconsim/reconsim/vtime"
)

// apiFault is an api-latency or api-errors timeline action: an apiserver.Fault that is
// installed when the action runs and removed For later. Each fault draws from its own random
// stream, named after its timeline entry, so adding a fault does not shift other draws.
type apiFault struct {
	filter  scenarios.RequestFilter
	latency *sim.Dist // api-latency
	errs    *scenarios.APIErrorsArgs
	rand    *rand.Rand
	// lookup is the run's API server's kind lookup (custom kinds included); installFault
	// sets it.
	lookup func(model.Kind) (model.KindInfo, bool)
}

// Intercept implements apiserver.Fault.
func (f *apiFault) Intercept(now vtime.Time, req *apiserver.Request) (time.Duration, error) {
	info := scenarios.RequestInfo{Client: req.Client, Verb: req.Verb, Kind: req.Kind, Subresource: req.Subresource}
	if f.lookup != nil {
		if ki, ok := f.lookup(req.Kind); ok {
			info.Resource = ki.Resource
		}
	}
	if !f.filter.Matches(info) {
		return 0, nil
	}
	if f.latency != nil {
		return f.latency.Sample(f.rand), nil
	}
	if f.rand.Float64() >= f.errs.Fraction {
		return 0, nil
	}
	return 0, injectedError(f.errs.Code, f.errs.RetryAfterSeconds, req, f.lookup)
}

// injectedError builds the StatusError an api-errors fault answers with, shaped as the API
// server's own answers with that code are, with the Retry-After the scenario asked for.
func injectedError(code, retryAfterSeconds int, req *apiserver.Request, lookup func(model.Kind) (model.KindInfo, bool)) error {
	gr := schema.GroupResource{Resource: string(req.Kind)}
	if lookup == nil {
		lookup = model.LookupKind
	}
	if ki, ok := lookup(req.Kind); ok {
		gr.Resource = ki.Resource
	}
	const msg = "injected by the scenario (api-errors)"
	var err *apierrors.StatusError
	switch code {
	case 409:
		err = apierrors.NewConflict(gr, req.Name, errors.New(msg))
	case 429:
		err = apierrors.NewTooManyRequests(msg, retryAfterSeconds)
	case 500:
		err = apierrors.NewInternalError(errors.New(msg))
	case 503:
		err = apierrors.NewServiceUnavailable(msg)
	case 504:
		err = apierrors.NewTimeoutError(msg, retryAfterSeconds)
	default:
		err = apierrors.NewInternalError(fmt.Errorf("%s (status %d)", msg, code))
	}
	if retryAfterSeconds > 0 && (code == 500 || code == 503 || code == 409) {
		if err.ErrStatus.Details == nil {
			err.ErrStatus.Details = &metav1.StatusDetails{}
		}
		err.ErrStatus.Details.RetryAfterSeconds = int32(retryAfterSeconds)
	}
	return err
}

// installFault adds f to the API server now and removes it after d.
func (w *world) installFault(f apiserver.Fault, d time.Duration) {
	if af, ok := f.(*apiFault); ok && af.lookup == nil {
		af.lookup = w.srv.Store().LookupKind
	}
	w.srv.AddFault(f)
	w.k.After(d, func() { w.srv.RemoveFault(f) })
}

// restart stops the named component (kube-controller-manager, kube-scheduler or one
// controller), dropping its informer caches, work queues and in-flight work, and after
// downtime starts a new one on fresh informers, which relist.
func (w *world) restart(component string, downtime time.Duration) error {
	var victims []*running
	for _, r := range w.controllers {
		switch {
		case component == scenarios.ComponentControllerManager && r.spec.name != scenarios.ComponentScheduler,
			r.spec.name == component:
			victims = append(victims, r)
		}
	}
	if len(victims) == 0 {
		return fmt.Errorf("no component called %q", component)
	}
	for _, r := range victims {
		r.ctrl.Stop()
	}
	// A factory that controllers outside the restart still use stays up; one only the
	// restarted components used goes down with them (their caches are lost).
	for _, r := range victims {
		if w.factoryOnlyUsedBy(r, victims) {
			r.factory.Stop()
		}
	}
	w.k.Emit("cluster", "component-stop", component, 0, fmt.Sprintf("downtime=%s", downtime))
	w.k.After(downtime, func() {
		var fresh []*running
		var kcmFactory *client.SharedInformerFactory
		for _, r := range victims {
			if r.spec.name == scenarios.ComponentScheduler {
				sched, err := w.buildScheduler()
				if err != nil {
					w.k.Emit("cluster", "error", component, 0, err.Error())
					return
				}
				w.replace(r, sched)
				fresh = append(fresh, sched)
				continue
			}
			if kcmFactory == nil {
				kcmFactory = w.newKCMFactory()
			}
			ctrl, err := w.buildSpec(r.spec, kcmFactory)
			if err != nil {
				w.k.Emit("cluster", "error", component, 0, err.Error())
				return
			}
			nr := &running{spec: r.spec, ctrl: ctrl, factory: kcmFactory}
			w.replace(r, nr)
			fresh = append(fresh, nr)
		}
		w.k.Emit("cluster", "component-start", component, 0, "")
		startRunning(w.k, fresh)
	})
	return nil
}

// factoryOnlyUsedBy reports whether r's informer factory serves no controller outside victims.
func (w *world) factoryOnlyUsedBy(r *running, victims []*running) bool {
	for _, other := range w.controllers {
		if other.factory != r.factory {
			continue
		}
		inVictims := false
		for _, v := range victims {
			if v == other {
				inVictims = true
			}
		}
		if !inVictims {
			return false
		}
	}
	return true
}

func (w *world) replace(old, nr *running) {
	for i, r := range w.controllers {
		if r == old {
			w.controllers[i] = nr
		}
	}
}

// stallClients returns the client-name predicate of a watch-stall: a component's clients, or
// the clients matching the patterns. A kube-controller-manager controller watches through the
// shared informers, so stalling one stalls kube-controller-manager's watches.
func stallClients(a *scenarios.WatchStallArgs) func(string) bool {
	if len(a.Clients) > 0 {
		return func(name string) bool {
			for _, p := range a.Clients {
				if scenarios.MatchClient(p, name) {
					return true
				}
			}
			return false
		}
	}
	switch a.Component {
	case scenarios.ComponentKubelet:
		return func(name string) bool { return scenarios.MatchClient("kubelet/*", name) }
	case scenarios.ComponentScheduler:
		return func(name string) bool { return name == "default-scheduler" }
	default:
		return func(name string) bool { return name == "kube-controller-manager/shared-informers" }
	}
}

// drainOptions turns the scenario's drain arguments into kubectl drain options.
func drainOptions(a *scenarios.DrainArgs) drain.Options {
	o := drain.DefaultOptions()
	o.Timeout = a.Timeout
	o.IgnoreAllDaemonSets = a.IgnoreDaemonSets
	if a.GracePeriodSeconds != nil {
		o.GracePeriodSeconds = int(*a.GracePeriodSeconds)
	}
	o.Force = true
	o.DeleteEmptyDirData = true
	return o
}
