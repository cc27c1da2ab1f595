package metrics

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestSwitchedCurve: a load action at t=100 s changes a constant 10/s into a constant 30/s;
// values and integrals before the switch are untouched, after it they follow the new shape
// with its own time 0 at the switch.
func TestSwitchedCurve(t *testing.T) {
	before := (&Shape{Constant: &ConstantShape{Value: 10}}).compile()
	after := (&Shape{Ramp: &RampShape{From: 0, To: 30, Duration: 60e9}}).compile()
	c := switchedCurve{before: before, after: after, switchAt: 100}
	assert.Equal(t, 10.0, c.at(99.9))
	assert.Equal(t, 0.0, c.at(100), "the ramp starts at its own time 0")
	assert.InDelta(t, 15.0, c.at(130), 1e-9, "half-way up the 60 s ramp")
	assert.InDelta(t, 10*50.0, c.integral(50, 100), 1e-9, "before the switch: the old shape")
	assert.InDelta(t, 0.5*30*60+30*40, c.integral(100, 200), 1e-9, "after: ramp area then the plateau")
	assert.InDelta(t, 10*10+0.5*15*30, c.integral(90, 130), 1e-9, "across the switch: both parts")
}
