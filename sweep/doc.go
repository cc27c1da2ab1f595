// Package sweep runs parameter sweeps: one scenario run many times, over a grid of `--set`
// overrides and a list of seeds, and summarized (docs/sweep.md).
//
// A sweep file (kind: Sweep) names a scenario, the parameters to vary, the seeds, the metrics
// to collect from each run and the sweep-level expectations. Parse and Load turn it into a
// Spec; Run executes the Spec's runs in parallel and writes the results; Merge combines the
// partial results of shards into the results an unsharded sweep gives.
//
// It promises:
//
//   - Every problem at once, with a position: Parse reports every problem of a sweep file
//     (unknown keys with a did-you-mean, bad values, unknown parameters, scenarios, timeline
//     entries or expectations, values the scenario refuses) as Errors, each
//     "file:line:col: path: message (hint)".
//   - A canonical run list: grid points in parameter order (the first parameter varies
//     slowest) and value order, each point's seeds inside it; a sample of the grid is drawn
//     from its own seeded stream and kept in grid order. Run IDs name the grid point and the
//     seed, so they do not change when the sweep is sharded or resumed.
//   - Deterministic bytes: sweep.json, sweep.csv, junit.xml, the plots and sweep.html depend
//     only on the spec, the scenario and the simulator version, never on --jobs, on sharding,
//     on resuming, or on the wall clock. Sharded results merged with Merge are byte for byte
//     the results of the unsharded sweep. Statistics use a stated method (percentiles by
//     linear interpolation between closest ranks, numpy's default) and the bootstrap draws
//     from a stream seeded by the grid point and metric.
//   - Isolation: every run is its own single-threaded kernel. A run that panics, hits the
//     event limit or is refused by the simulator is recorded as failed, with its seed and the
//     `sim run` command that reproduces it, and the sweep goes on.
//   - Atomic files: every file is written to a temporary name and renamed into place; with
//     Options.Resume a run whose run.json exists (and belongs to the same sweep) is not run
//     again.
//
// Concurrency: Run starts Options.Jobs workers on goroutines (sweep is not on the simulation
// path the determinism lint covers; each run is, and runs share nothing). Results are stored
// by run index, so the order in which workers finish never shows in any output: the files are
// the same bytes whatever Jobs is. The wall clock is read only for the progress ETA and each
// run's wallSeconds in run.json.
package sweep
