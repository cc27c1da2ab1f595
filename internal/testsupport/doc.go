// Package testsupport holds the test inputs and checks that the tests of several packages share
// and that no one package's tests own, such as the version of a module go.mod requires (the
// simulated controllers' test world is sim/internal/testworld).
//
// Promises:
//   - It imports only the standard library, so the internal tests of any package, model
//     included, may use it without an import cycle.
//   - Its inputs are deterministic: the same call returns the same bytes.
package testsupport
