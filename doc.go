// Package reconsim runs reconsim scenarios from Go: deterministic, discrete-event simulations
// of the Kubernetes control plane (API server, scheduler, kube-controller-manager, kubelets)
// in virtual time. It is what the `sim` command does, as a library, for tests and tools.
//
// # Running a scenario
//
// Run simulates one scenario and returns its Result:
//
//	res, err := reconsim.Run(ctx, reconsim.Builtin("node-failure"),
//		reconsim.WithSeed(7),
//		reconsim.WithSet("kube-controller-manager.node-monitor-grace-period", "20s"))
//	if err != nil {
//		return err // bad input (an *InputError), ctx cancelled, or a bug in reconsim
//	}
//	if !res.Passed {
//		for _, e := range res.Expectations { ... }
//	}
//
// The scenario is one of:
//
//   - File(path): a scenario file (docs/scenario.md); files it refers to are found relative
//     to its directory.
//   - Builtin(name): a built-in scenario, one of BuiltinNames (`sim list`).
//   - Bytes(name, data): YAML source held in memory; name is the file name problems are
//     reported at.
//   - Resolve(arg): arg resolved as `sim run ARG` does: a file when one exists there or arg
//     looks like a path, otherwise a built-in name.
//
// The options are those of `sim run`: WithSeed (--seed), WithSet (--set, repeatable),
// WithDuration (--duration), WithOut (--out; without it Run writes nothing) and WithTrace
// (--trace). Run with WithOut writes the files `sim run` writes with the same scenario and
// flags; result.json, events.jsonl, series.csv, trace.txt and trace.json have the same bytes
// apart from wallSeconds.
//
// # The result
//
// Result is report.Result, the one type result.json is written from, so every field of
// docs/results.md is there: Passed, Expectations (each with Name, Passed and Message),
// Convergence after each timeline action, Verdicts (why a workload ended short), the sampled
// Series, the seed, the stop reason and the trace hash. A run whose expectations fail is not
// an error; Passed is false.
//
// # Errors
//
// Run never panics on input. Bad input (a scenario that does not validate, an unknown
// built-in, an unreadable file, an override the simulator refuses) is an *InputError; its
// Problems each carry the file:line:col, field path, message and hint that `sim validate`
// prints:
//
//	var in *reconsim.InputError
//	if errors.As(err, &in) {
//		for _, p := range in.Problems {
//			fmt.Println(p.Pos.Line, p.Pos.Column, p.Msg)
//		}
//	}
//
// Cancelling ctx stops the run at its next check (every few thousand simulated events); Run
// returns what was recorded, with StopReason "interrupted", and an error wrapping ctx.Err().
//
// # Determinism
//
// The simulation reads no wall clock, global random source or map order: two Runs of the
// same scenario with the same seed and options give the same Result, except WallSeconds (the
// wall-clock time the run took), and the same trace.
//
// # Your own sim binary
//
// Main runs the whole `sim` command line (run, sweep, validate, explain, report, merge, ...)
// and exits with its status. cmd/sim is
//
//	func main() { reconsim.Main() }
package reconsim
