package vtime

// ManualClock is a clock that moves only when told: Now returns T. Tests of code that reads a
// clock (rate.Clock, controllerutil's expectations) set T by hand instead of running a kernel.
type ManualClock struct{ T Time }

// Now returns c.T.
func (c *ManualClock) Now() Time { return c.T }
