// Package features is the simulator's one table of version-gated behaviour: every behaviour
// that differs between the Kubernetes releases reconsim supports (Supported) is a named Gate,
// with the release it changed in, the KEP or pull request behind it, and what it switches in
// the simulator.
//
// Contract:
//
//   - One declared version. For(minor, overrides) resolves every gate for one upstream minor
//     release (1.<minor>); overrides switch single gates, as kube-*'s --feature-gates does
//     upstream. Components never read this package's table themselves: the integrator
//     (sim/cluster) copies each resolved gate into the configuration field the component
//     documents (scheduler.Config.PopFromBackoffQ, ...), so a component's behaviour follows
//     its configuration alone and there is no global state.
//   - Upstream names. A gate that is an upstream feature gate carries its upstream name
//     (Upstream true). A behaviour change that upstream made without a gate (a message text, a
//     retry interval) has a name of the simulator's, so that it can still be listed and
//     overridden; its Ref names the pull request.
//   - Modelled or not. A gate whose behaviour the simulator does not model is listed (so the
//     table is complete about the releases) with Modelled false; it cannot be overridden.
//   - Version skew between components (a 1.35 kubelet under a 1.37 control plane) is out of
//     scope: every component follows the one declared version.
//
// The package is pure data and functions of it: no state, no I/O, deterministic.
package features
