package cluster

import (
	"github.com/reconsim/reconsim/sim"
	"github.com/reconsim/reconsim/sim/client"
	"github.com/reconsim/reconsim/sim/client/reconcile"
	"github.com/reconsim/reconsim/sim/client/record"
)

// ControllerEnv is what a caller's controller is built with (Controller.Setup): the kernel,
// its own client (named after the controller, with kube-controller-manager's
// --kube-api-qps/--kube-api-burst), kube-controller-manager's shared informer factory, a
// recorder of Kubernetes Events, and state that lives as long as the world.
type ControllerEnv struct {
	Kernel  *sim.Kernel
	Client  *client.Client
	Factory *client.SharedInformerFactory
	// Recorder returns an event recorder reporting as component (the source of its Events).
	Recorder func(component string) record.Recorder
	// Local returns the world's value under key, made by mk at the first call: state that
	// outlives a controller-restart (the controller is built again then) but not the run.
	Local func(key any, mk func() any) any
}

// ControllerNames returns the names of cs, in order: what scenarios.ParseOptions.Controllers
// wants, so that a scenario may address the caller's controllers.
func ControllerNames(cs []Controller) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.Name)
	}
	return out
}

// ReconcileStatser is a caller's controller that reports its reconcile counters and work
// queue: the run samples workqueue.<name>.depth from it each second.
type ReconcileStatser interface {
	ReconcileStats() reconcile.Stats
}

// buildUser builds a caller's controller on factory f.
func (w *world) buildUser(x Controller, f *client.SharedInformerFactory, qps float64, burst int) (runnable, error) {
	c, _ := w.component(x.Name, qps, burst)
	if x.Setup == nil {
		return x.Build(w.k, c, f)
	}
	return x.Setup(ControllerEnv{
		Kernel:  w.k,
		Client:  c,
		Factory: f,
		Recorder: func(component string) record.Recorder {
			return w.recorder(c, component, "")
		},
		Local: w.local,
	})
}

// local is ControllerEnv.Local.
func (w *world) local(key any, mk func() any) any {
	if w.locals == nil {
		w.locals = map[any]any{}
	}
	v, ok := w.locals[key]
	if !ok {
		v = mk()
		w.locals[key] = v
	}
	return v
}

// sampleUserQueues samples the work-queue depth of each caller's controller that reports one,
// in the order the controllers run.
func (s *sampler) sampleUserQueues() {
	for _, r := range s.w.controllers {
		if st, ok := r.ctrl.(ReconcileStatser); ok && s.w.isExtra(r.spec.name) {
			q := st.ReconcileStats().Queue
			s.w.obs.sample("workqueue."+r.spec.name+".depth", "items", float64(q.Depth))
		}
	}
}

func (w *world) isExtra(name string) bool {
	for _, x := range w.extra {
		if x.Name == name {
			return true
		}
	}
	return false
}
