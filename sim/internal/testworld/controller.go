package testworld

import (
	"slices"
	"strings"

	"github.com/cockroachdb/datadriven"

	"github.com/reconsim/reconsim/sim"
	"github.com/reconsim/reconsim/sim/client"
	"github.com/reconsim/reconsim/sim/client/record"
)

// Constructor is the New of a kube-controller-manager controller: it builds the controller
// on the kernel, a client, that client's shared informers and an event recorder, from cfg.
type Constructor[C, T any] func(k *sim.Kernel, c *client.Client, f *client.SharedInformerFactory, rec record.Recorder, cfg C) (T, error)

// NewController builds a controller with newFn on its own client named component (with
// kube-controller-manager's rate limits, see Client) and informers, its events recorded with
// source; an error from newFn fails the test. The caller starts the returned informers and the
// controller when its world is wired.
func NewController[C, T any](w *World, component, source string, newFn Constructor[C, T], cfg C) (T, *client.SharedInformerFactory) {
	c, f := w.Client(component)
	ctrl, err := newFn(w.K, c, f, w.Recorder(source), cfg)
	if err != nil {
		w.T.Fatalf("New: %v", err)
	}
	return ctrl, f
}

// Sources is a Show that prints the trace lines written by the given components (a
// controller, "test", an event source).
func Sources(components ...string) func(d *datadriven.TestData, f []string) bool {
	return func(_ *datadriven.TestData, f []string) bool { return slices.Contains(components, f[1]) }
}

// StatusOnRequest wraps show: component's update-status lines are printed only by a command
// with a show argument ("run for=10s show=status"); every other line is show's to decide.
func StatusOnRequest(component string, show func(d *datadriven.TestData, f []string) bool) func(d *datadriven.TestData, f []string) bool {
	return func(d *datadriven.TestData, f []string) bool {
		if f[1] == component && strings.HasPrefix(f[2], "update-status") {
			return d.HasArg("show")
		}
		return show(d, f)
	}
}
