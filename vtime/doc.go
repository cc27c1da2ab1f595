// Package vtime is virtual time: the instant type every layer of reconsim shares.
//
// It is a leaf: it imports only the standard library, so that the API types (package model)
// can carry timestamps without importing the simulation kernel (package sim), and the kernel
// can order its events by the same type. A Time is nanoseconds since the start of a run; it
// never reads the wall clock.
package vtime
