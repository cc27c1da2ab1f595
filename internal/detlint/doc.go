// Package detlint is the determinism lint: it type-checks the packages on the simulation path
// and reports every construct that could make two runs with the same seed differ. It also
// holds the check of the module's import rules (ImportRules, docs/architecture.md#layers).
//
// The simulation path (SimulationPath) is sim/... (the kernel, the API server, clients,
// controllers, kubelets, the metrics pipeline, and sim/cluster which plays a run), model/...,
// vtime, internal/flagtab (the components' flag tables), internal/bounds (their range checks), internal/words (wording helpers), internal/suggest (the one "did you mean",
// which decoding uses), internal/atomicfile, internal/boundedfile and internal/plotstyle (report's) and scenarios (its defaults and timeline targeting are read during a run). report,
// sweep, explore, internal/cli and the root package are outside it: they start runs or render
// their results, and may use goroutines and the wall clock. TestSimulationPathIsExactlyWhatARunExecutes
// keeps the list equal to what sim/cluster depends on.
//
// It reports, in non-test files:
//   - wall-clock time: time.Now, time.Since, time.Until, time.Sleep, time.After, time.Tick,
//     time.NewTimer, time.NewTicker, time.AfterFunc;
//   - global or unseeded randomness: any import of math/rand or crypto/rand, and calls to the
//     package-level functions of math/rand/v2 (rand.New with a seeded source is fine);
//   - goroutines: every go statement (everything runs on the kernel, in coroutines);
//   - map iteration: every range over a map, unless the range line or the line above carries a
//     `//detlint:ordered <why>` comment saying why order cannot matter there (the keys are
//     sorted afterwards, or the loop body is commutative).
//
// Check promises to report each finding once, sorted by file and line, and to fail (return an
// error) rather than pass when it cannot load or type-check a package.
package detlint
