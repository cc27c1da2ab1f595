package vtime

import (
	"strconv"
	"time"
)

// Time is a virtual instant: nanoseconds since the start of the simulation.
type Time int64

// Never is a Time later than any the kernel will reach.
const Never Time = 1<<63 - 1

// FromDuration converts a duration since the start of the run into a Time.
func FromDuration(d time.Duration) Time { return Time(d) }

// Seconds returns t as (fractional) seconds since the start of the run.
func (t Time) Seconds() float64 { return float64(t) / 1e9 }

// Duration returns t as a duration since the start of the run.
func (t Time) Duration() time.Duration { return time.Duration(t) }

// Add returns t+d.
func (t Time) Add(d time.Duration) Time { return t + Time(d) }

// Sub returns the duration t-u.
func (t Time) Sub(u Time) time.Duration { return time.Duration(t - u) }

// Before reports whether t is earlier than u.
func (t Time) Before(u Time) bool { return t < u }

// After reports whether t is later than u.
func (t Time) After(u Time) bool { return t > u }

// String formats t as seconds with millisecond precision, for example "t=90.500s".
func (t Time) String() string {
	return "t=" + strconv.FormatFloat(t.Seconds(), 'f', 3, 64) + "s"
}

// SecondsOf is a helper for durations in configuration: n whole seconds.
func SecondsOf(n int64) time.Duration { return time.Duration(n) * time.Second }
