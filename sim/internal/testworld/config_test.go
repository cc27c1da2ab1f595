package testworld

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
)

type limitConfig struct{ N int }

func (c limitConfig) Validate() error {
	if c.N < 1 {
		return errors.New("n must be at least 1")
	}
	return nil
}

// CheckConfig passes a correct table and reports each kind of wrong case.
func TestCheckConfig(t *testing.T) {
	ok := func() limitConfig { return limitConfig{N: 1} }
	CheckConfig(t, ok, []ConfigCase[limitConfig]{
		{"zero", func(c *limitConfig) { c.N = 0 }, "at least 1"},
		{"two", func(c *limitConfig) { c.N = 2 }, ""},
	})
	got := configProblems(func() limitConfig { return limitConfig{} }, []ConfigCase[limitConfig]{
		{"accepted", func(c *limitConfig) { c.N = 5 }, "at least 1"},
		{"rejected", func(c *limitConfig) {}, ""},
		{"other text", func(c *limitConfig) {}, "at most"},
	})
	assert.Equal(t, []string{
		"DefaultConfig is invalid: n must be at least 1",
		`accepted: Validate accepted the config, want an error containing "at least 1"`,
		"rejected: Validate: n must be at least 1, want no error",
		`other text: Validate: "n must be at least 1", want it to contain "at most"`,
	}, got)
}
