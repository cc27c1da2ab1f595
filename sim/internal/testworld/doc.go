// Package testworld is the one test world for the simulated controllers' datadriven trace
// tests: a kernel, the real API server, clients and informers on it, an event sink, trace
// capture, invariants checked at every committed write, a test-played scheduler and kubelets
// (FakeNodes), label/taint parsing and pod printing helpers, and a script runner (Walk) that
// dispatches the datadriven commands.
//
// Promises:
//   - A World is deterministic for a seed and a command sequence: nothing here reads the wall
//     clock, starts goroutines or ranges over a map in an order that reaches the output.
//   - Every committed write is checked: resourceVersions only grow, a pod has at most one
//     controller, a bound pod never changes node, plus whatever Options.Check adds. The first
//     violation fails the test at the end of the Run that made it.
//   - Walk runs every testdata file of a directory with the datadriven library (regenerate the
//     expected output with -rewrite): the first command must be init; the package's commands
//     come first, then the world's common ones (run, pods, events, add-node, kill-node,
//     delete-pod); an unknown command fails the test.
//
// It wires in no controller: each package builds its controller on its own client and informers
// (NewController), picks the trace lines a run prints (Sources, StatusOnRequest), and registers
// only its own commands and output formats. CheckConfig is every component's configuration
// table test.
package testworld
