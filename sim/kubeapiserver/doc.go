// Package kubeapiserver is kube-apiserver's command line as the simulator models it: Options,
// one field per flag a scenario can set (the upstream flags of the kube-apiserver binary, and
// the simulator's latency knobs of the API server), DefaultOptions, and their flag tables
// (internal/flagtab).
//
// It is a leaf apart from sim/apiserver, as upstream keeps the binary's options
// (cmd/kube-apiserver/app/options, k8s.io/apiserver/pkg/server/options) apart from the server:
// scenarios documents and validates the flags from these tables without importing the
// server, and sim/cluster turns Options into sim/apiserver's Config.
//
// Promises:
//   - DefaultOptions holds the defaults the tables document (a test of scenarios checks), and
//     its upstream flags equal sim/apiserver's DefaultConfig (sim/cluster's
//     TestAPIServerOptionsAreTheServerDefaults checks), except enable-priority-and-fairness:
//     upstream's default is true, while DefaultConfig leaves APF off for the server's own
//     tests.
//   - The package imports only the kernel (for sim.Dist), internal/flagtab and the standard
//     library.
package kubeapiserver
