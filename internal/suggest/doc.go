// Package suggest is the one "did you mean" of reconsim: edit distances and the policies that
// pick the candidate a mistyped name most likely meant. It imports only the standard library so
// that model, scenarios, sweep and the CLI can all use it.
//
// Contract: every function is deterministic (ties go to a fixed candidate, never to map order)
// and bounded: Closest ignores words longer than Options.MaxInput, and the capped distances
// stop a row early once no alignment can come in under the cap. An empty answer means "no
// plausible suggestion"; callers word the hint themselves, except DidYouMean, whose text
// (`did you mean "x"?`) is shared by the scenario and sweep parsers.
package suggest
