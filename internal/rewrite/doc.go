// Package rewrite owns the project's one regenerate flag for golden tests, -rewrite (the
// name the datadriven library uses for its expected-output files).
//
// Promises: importing it (from test code only) registers -rewrite on the standard flag set
// unless an imported package, such as datadriven, already has; Enabled reports whether it was
// given. It never registers a second flag and never panics on a duplicate.
package rewrite
