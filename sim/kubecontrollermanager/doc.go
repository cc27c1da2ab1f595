// Package kubecontrollermanager is kube-controller-manager's generic flags as the simulator
// models them: the client settings every controller's own client is built with
// (--kube-api-qps, --kube-api-burst; upstream ControllerClientBuilder) and the shared
// informers' --min-resync-period, with their defaults and flag table (internal/flagtab). The
// controllers' own flags are in their packages' tables (sim/controllers/*), leader election's
// in sim/leaderelection.
//
// Promises:
//   - DefaultOptions holds the defaults Flags documents (a test of scenarios checks).
//   - The package imports only internal/flagtab and the standard library.
package kubecontrollermanager
