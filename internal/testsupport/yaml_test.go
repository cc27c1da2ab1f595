package testsupport

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"
)

// TestAliasBomb: the bomb is small, valid YAML, and a decoder that expands it meets
// 10^(levels+1) values under its last key.
func TestAliasBomb(t *testing.T) {
	var leaves func(v any) int
	leaves = func(v any) int {
		l, ok := v.([]any)
		if !ok {
			return 1
		}
		n := 0
		for _, e := range l {
			n += leaves(e)
		}
		return n
	}
	for levels, want := range []int{10, 100, 1000} {
		src := AliasBomb(levels)
		assert.Less(t, len(src), 100*(levels+1))
		var doc map[string]any
		require.NoError(t, yaml.Unmarshal([]byte(src), &doc))
		assert.Len(t, doc, levels+1)
		assert.Equal(t, want, leaves(doc[fmt.Sprintf("a%d", levels)]))
	}
}
