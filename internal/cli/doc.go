// Package cli is the `sim` command line: every subcommand (run, validate, import, list,
// show, explain, schema, completion, sweep, explore, merge, report, version), its flags,
// usage texts, summaries and exit statuses. cmd/sim and reconsim.Main run it; it is internal so that the
// command line, not this package's Go API, is the contract.
//
// Contract: Run returns 0 when every expectation held (or the command succeeded), 1 when an
// expectation failed (for `sim explore`: an invariant broke), 2 for bad input or usage (with file:line:col for scenario problems) and
// 3 for an internal error (naming the seed and virtual time). It is the only code that reads
// the wall clock (to report how fast a run was) and handles signals (Ctrl-C stops a run
// cleanly and writes what was recorded). On linux, where the kernel gives transparent huge
// pages only on request, it asks for them for the heap's first addresses before any command
// runs (adviseHugePages; RECONSIM_NO_HUGEPAGES turns that off), and for `sim run` it populates
// that range just ahead of the heap's growth from an idle-priority thread of its own
// (prefaultHeap; RECONSIM_NO_PREFAULT turns that off): nothing a simulation computes changes.
package cli
