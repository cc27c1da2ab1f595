// Command sim runs reconsim scenarios: deterministic simulations of the Kubernetes control
// plane. `sim help` lists the commands; docs/scenario.md describes the scenario format and
// docs/results.md what a run writes.
//
// Exit status: 0 when every expectation held (or the command succeeded), 1 when an expectation
// failed, 2 for bad input or usage, 3 for an internal error.
//
// The binary is one call to reconsim.Main; the commands are in internal/cli, which is the
// only place that handles signals (Ctrl-C stops a run cleanly and writes what was recorded).
// A program of the same few lines builds its own sim.
package main
