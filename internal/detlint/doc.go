// Package detlint is the determinism lint: it type-checks the packages on the simulation path
// and reports every construct that could make two runs with the same seed differ.
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
