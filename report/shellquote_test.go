package report

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestShellQuote(t *testing.T) {
	assert.Equal(t, "node-failure", ShellQuote("node-failure"))
	assert.Equal(t, "'my scenario.yaml'", ShellQuote("my scenario.yaml"))
	assert.Equal(t, `'simulator.watch-delay=lognormal(median=1ms,p99=2ms)'`, ShellQuote("simulator.watch-delay=lognormal(median=1ms,p99=2ms)"))
	assert.Equal(t, `'it'\''s'`, ShellQuote("it's"))
	assert.Equal(t, "''", ShellQuote(""))
}
