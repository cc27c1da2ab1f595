// Command sim runs reconsim scenarios: deterministic simulations of the Kubernetes control
// plane. `sim help` lists the commands; docs/scenario.md describes the scenario format,
// docs/results.md what a run writes, docs/sweep.md and docs/explore.md the batch commands.
//
// Exit status: 0 when every expectation held (or the command succeeded), 1 when an expectation
// failed (for `sim explore`: an invariant broke), 2 for bad input or usage, 3 for an internal
// error.
//
// The binary is one call to reconsim.Main; the commands are in internal/cli, which is the
// only place that handles signals (Ctrl-C stops a run cleanly and writes what was recorded).
// A program of the same few lines builds its own sim.
package main
