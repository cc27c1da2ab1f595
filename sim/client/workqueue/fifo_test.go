package workqueue

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestUniqueFIFO: items come out oldest first; an item already waiting is not added again,
// but may be once it is popped.
func TestUniqueFIFO(t *testing.T) {
	var u UniqueFIFO[string]
	_, ok := u.Pop()
	assert.False(t, ok, "the zero value is empty")
	for _, tc := range []struct {
		add  string
		want bool
	}{{"a", true}, {"b", true}, {"a", false}, {"c", true}, {"b", false}} {
		assert.Equal(t, tc.want, u.Add(tc.add), "Add(%q)", tc.add)
	}
	require.Equal(t, 3, u.Len())
	got, ok := u.Pop()
	require.True(t, ok)
	assert.Equal(t, "a", got)
	assert.True(t, u.Add("a"), "a popped item may be added again")
	var rest []string
	for u.Len() > 0 {
		x, _ := u.Pop()
		rest = append(rest, x)
	}
	assert.Equal(t, []string{"b", "c", "a"}, rest)
}

// TestUniqueFIFOReleasesABurst: once more than burstItems items have waited and the list is
// empty again, its map and array are released, and the list goes on working.
func TestUniqueFIFOReleasesABurst(t *testing.T) {
	var u UniqueFIFO[int]
	const n = 2 * burstItems
	for x := range n {
		u.Add(x)
	}
	for want := range n {
		got, ok := u.Pop()
		require.True(t, ok)
		require.Equal(t, want, got)
		if want < n-1 {
			require.NotNil(t, u.members, "released only when empty (pop %d)", want)
		}
	}
	assert.Nil(t, u.members, "the burst's map is released")
	assert.Zero(t, cap(u.items.items), "the burst's array is released")
	assert.False(t, bool(u.burst))
	assert.True(t, u.Add(7))
	got, _ := u.Pop()
	assert.Equal(t, 7, got)

	var small UniqueFIFO[int]
	small.Add(1)
	small.Pop()
	assert.NotNil(t, small.members, "a list that never held a burst keeps its map")
}
