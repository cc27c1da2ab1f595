// Package testworld is the node lifecycle and taint eviction controller tests' layer on the
// shared test world (sim/internal/testworld, which brings the kernel, the API server, the
// trace and the per-write invariants): kubelets played by the test (each renews its
// node's Lease every 10s until stopped, and posts Ready when restarted), pods placed directly
// on nodes, and datadriven commands to drive it all and print what happened.
//
// Promises: a World is deterministic for a seed and a command sequence; Output returns only the
// trace lines of the components asked for (plus the test's own), with resourceVersions
// stripped so goldens do not depend on unrelated writes; every run ends with invariant checks
// (the shared world's: resourceVersions only grow, a pod never changes node, at most one
// controller; and here: no node's pods request more CPU than it has allocatable), reported as
// errors. It wires in no controller: each test owns the
// controllers it starts.
package testworld
