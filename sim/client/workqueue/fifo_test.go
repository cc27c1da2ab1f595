package workqueue

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reconsim/reconsim/sim"
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
	assert.Nil(t, u.items.blocks, "the burst's blocks are released")
	assert.False(t, bool(u.burst))
	assert.True(t, u.Add(7))
	got, _ := u.Pop()
	assert.Equal(t, 7, got)

	var small UniqueFIFO[int]
	small.Add(1)
	small.Pop()
	assert.NotNil(t, small.members, "a list that never held a burst keeps its map")
}

// TestFifoMatchesASlice: pushes and pops in random runs (bursts past several blocks, and a
// queue that empties and refills within one block) hand items out in the order a plain slice
// does, with the same length throughout.
func TestFifoMatchesASlice(t *testing.T) {
	for _, tc := range []struct {
		name           string
		seed           uint64
		maxRun, rounds int
	}{
		{"short runs", 1, 5, 2000},
		{"bursts past blocks", 2, 3 * fifoBlock, 200},
		{"block-sized runs", 3, fifoBlock + 1, 300},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(tc.seed, 0))
			var f FIFO[int]
			var want []int
			next := 0
			for range tc.rounds {
				for range r.IntN(tc.maxRun + 1) {
					f.Push(next)
					want = append(want, next)
					next++
				}
				for range r.IntN(tc.maxRun + 1) {
					if len(want) == 0 {
						break
					}
					require.Equal(t, want[0], f.Pop())
					want = want[1:]
				}
				require.Equal(t, len(want), f.Len())
			}
			for len(want) > 0 {
				require.Equal(t, want[0], f.Pop())
				want = want[1:]
			}
			assert.Zero(t, f.Len())
			assert.LessOrEqual(t, len(f.blocks), 1, "a drained fifo keeps at most its last block")
		})
	}
}

// TestReserveSizesTheBurst: a burst announced by Reserve fills a set made for it at once,
// with fewer allocations than a set that grows, and comes out in the same order; a Reserve
// that no item follows allocates nothing.
func TestReserveSizesTheBurst(t *testing.T) {
	const n = 8 * burstItems
	fill := func(reserve bool) float64 {
		return testing.AllocsPerRun(3, func() {
			var u UniqueFIFO[int]
			if reserve {
				u.Reserve(n)
			}
			for x := range n {
				u.Add(x)
			}
			for want := range n {
				got, _ := u.Pop()
				if got != want {
					t.Fatalf("pop %d: got %d", want, got)
				}
			}
		})
	}
	grown, reserved := fill(false), fill(true)
	assert.Less(t, reserved, grown, "allocations with Reserve (%v) and without (%v)", reserved, grown)

	var u UniqueFIFO[int]
	assert.Zero(t, testing.AllocsPerRun(10, func() { u.Reserve(n) }))
	assert.Nil(t, u.members, "nothing is made before an item comes")

	k := sim.New(1)
	q := New[int](k, "reserve")
	allocs := testing.AllocsPerRun(1, func() { q.Reserve(n) })
	assert.Zero(t, allocs)
	for x := range n {
		q.Add(x)
	}
	require.Equal(t, n, q.Len())
}
