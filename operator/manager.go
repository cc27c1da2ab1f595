package operator

import (
	"context"
	"errors"
	"fmt"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/record"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/reconsim/reconsim/sim"
	"github.com/reconsim/reconsim/sim/client/reconcile"
	"github.com/reconsim/reconsim/sim/cluster"
)

// Manager is the part of controller-runtime's manager.Manager a controller's setup uses: the
// client (reads from the simulated informer cache, writes to the simulated API server), a
// reader that bypasses the cache, the scheme, event recorders and a logger.
type Manager interface {
	// GetClient returns the controller's client: Get and List read the informer cache,
	// writes go to the API server through the controller's own rate limiter.
	GetClient() client.Client
	// GetAPIReader returns a reader that sends every Get and List to the API server.
	GetAPIReader() client.Reader
	// GetScheme returns the scheme: every k8s.io/api type, plus what setup adds.
	GetScheme() *runtime.Scheme
	// GetEventRecorderFor returns a recorder whose Events name name as their source; they
	// are written to the run's events.jsonl.
	GetEventRecorderFor(name string) record.EventRecorder
	// GetLogger returns the manager's logger. It discards what it is given: a run's record
	// is its trace, and log lines carry no virtual time.
	GetLogger() logr.Logger
	// GetRESTMapper returns the mapper of the kinds the simulated API server serves.
	GetRESTMapper() meta.RESTMapper
}

// Setup wires a user's controllers to a Manager, as a kubebuilder SetupWithManager does.
type Setup func(mgr Manager) error

// Controller returns the simulator's handle on a user controller: it is built (setup runs)
// when kube-controller-manager's controllers are, and again after each controller-restart
// of name or of kube-controller-manager. reconsim.WithController is the public way in.
func Controller(name string, setup Setup) cluster.Controller {
	return cluster.Controller{Name: name, Setup: func(env cluster.ControllerEnv) (cluster.Runnable, error) {
		if setup == nil {
			return nil, errors.New("no setup function")
		}
		m := newManager(name, env)
		if err := setup(m); err != nil {
			return nil, fmt.Errorf("setup: %w", err)
		}
		if len(m.controllers) == 0 {
			return nil, errors.New("setup built no controller: call operator.NewControllerManagedBy(mgr)...Complete(r)")
		}
		return m, nil
	}}
}

// manager is one user controller's Manager, built anew at each (re)start.
type manager struct {
	name   string
	env    cluster.ControllerEnv
	scheme *runtime.Scheme
	mapper *restMapper
	shadow *shadow
	client *simClient
	api    *simClient
	log    logr.Logger

	controllers []*ctrl
}

type shadowKey struct{}

func newManager(name string, env cluster.ControllerEnv) *manager {
	s := NewScheme()
	m := &manager{name: name, env: env, scheme: s, mapper: newRESTMapper(s), log: logr.Discard()}
	if env.Client != nil {
		m.mapper.custom = env.Client.LookupKind
	}
	m.shadow = env.Local(shadowKey{}, func() any { return newShadow() }).(*shadow)
	m.client = &simClient{m: m, cached: true}
	m.api = &simClient{m: m}
	return m
}

func (m *manager) GetClient() client.Client       { return m.client }
func (m *manager) GetAPIReader() client.Reader    { return m.api }
func (m *manager) GetScheme() *runtime.Scheme     { return m.scheme }
func (m *manager) GetLogger() logr.Logger         { return m.log }
func (m *manager) GetRESTMapper() meta.RESTMapper { return m.mapper }

func (m *manager) GetEventRecorderFor(name string) record.EventRecorder {
	return &eventRecorder{m: m, rec: m.env.Recorder(name)}
}

// Start starts every controller's workers (the informers were started by the factory).
func (m *manager) Start() {
	for _, c := range m.controllers {
		c.start()
	}
}

// Stop kills every controller's workers and drops their queues (controller-restart).
func (m *manager) Stop() {
	for _, c := range m.controllers {
		c.rc.Stop()
	}
}

// ReconcileStats reports the first controller's counters and queue (the workqueue series).
func (m *manager) ReconcileStats() reconcile.Stats {
	return m.controllers[0].rc.Stats()
}

// queueName names a controller's work queue, workers and trace lines: the manager's name when
// setup built one controller, else "<manager>/<controller>".
func (m *manager) queueName(c *ctrl) string {
	if len(m.controllers) == 1 {
		return m.name
	}
	return m.name + "/" + c.name
}

// Now returns the virtual time of the simulated process ctx belongs to, as wall-clock time
// (virtual time 0 is 2026-01-01T00:00:00Z). Use it instead of time.Now or metav1.Now in a
// Reconcile: the wall clock differs between two runs of the same seed. Outside a simulated
// process it returns the zero time.
func Now(ctx context.Context) metav1.Time {
	p, err := procOf(ctx)
	if err != nil {
		return metav1.Time{}
	}
	return metav1.Time{Time: epoch.Add(p.Now().Duration())}
}

// procOf returns the simulated process ctx belongs to, or an error saying why there is none.
func procOf(ctx context.Context) (p *sim.Proc, err error) {
	if ctx == nil {
		return nil, errors.New("operator: nil context: pass the ctx Reconcile was given")
	}
	defer func() {
		if recover() != nil {
			p, err = nil, errors.New("operator: the context does not come from a simulated process: pass the ctx Reconcile was given (context.Background() or a context made elsewhere has no virtual time)")
		}
	}()
	return sim.ProcFromContext(ctx), nil
}
