// Package bounds is the one range check of reconsim's configurations: each component's
// Config.Validate states the range of a value once, as a call, and the message says the same
// range the condition tests, in one form: "NAME must be in [lo, hi], got v" (a parenthesis
// for an open end), "NAME must be positive, got v" or "NAME must not be negative, got v".
//
// Contract: a check returns nil when the value is in range and an error otherwise; a NaN is
// in no range. First returns the first error of a list, so a Validate reports its checks in
// the order it lists them. The package imports only the standard library.
package bounds
