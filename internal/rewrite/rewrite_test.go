package rewrite

import (
	"flag"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestEnabledFollowsTheFlag(t *testing.T) {
	f := flag.Lookup(Name)
	require.NotNil(t, f, "the flag is registered")
	old := f.Value.String()
	defer func() { require.NoError(t, f.Value.Set(old)) }()
	require.NoError(t, f.Value.Set("true"))
	assert.True(t, Enabled())
	require.NoError(t, f.Value.Set("false"))
	assert.False(t, Enabled())
}
