// Package explore searches a scenario's fault space for a broken invariant and shrinks what
// it finds to a minimal scenario that `sim run` fails the same way (docs/explore.md).
//
// The scenario's explore: section (scenarios.Explore) declares the faults a random run may
// draw, how many and when, and the invariants every run is held to. A search is a list of
// runs, fixed before any of them executes:
//
//   - run 0, the reference run: the scenario as written. It records each controller's
//     acknowledged writes; the targeted strategies enumerate those writes.
//   - the targeted runs, Sieve's perturbations (OSDI'22), deterministic and exhaustive up to
//     explore.bound: intermediate (restart controller C right after its k-th write), stale
//     (stall the watches C reads from its k-th write on) and unobserved (coalesce the watch
//     events C receives in a window from its k-th write), for every C and k.
//   - the random runs: run i draws its faults and its simulation seed from a stream seeded
//     by (explore seed, i).
//
// It promises:
//
//   - Replayable: every run is a scenario YAML (the original, its faults appended to the
//     timeline, its seed pinned) that is parsed and run like `sim run` does; a run is named by
//     (file, explore seed, run index).
//   - Deterministic bytes: explore.json, explore.html and junit.xml depend only on the
//     scenario, the options and the simulator version; never on --jobs, on sharding (Merge of
//     the shards writes the same bytes) or on the wall clock.
//   - Isolation: a run that panics is a finding (invariant "panic") with its seed, not a crash
//     of the search; runs share nothing.
//   - Shrinking keeps a step only if the same invariant still fails: drop faults, move them
//     earlier, shorten their durations, drop objects. The reproducer is verified by running it
//     twice; explore.json says whether it failed both times.
//
// Parallelism lives here, outside the simulation path: each run is its own single-threaded
// kernel; workers take run indexes and store results by index.
package explore
