package record

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestLRUEvictsLeastRecentlyUsed: groupcache lru semantics, as client-go's caches use them:
// get and add refresh an entry; adding past the capacity evicts the least recent.
func TestLRUEvictsLeastRecentlyUsed(t *testing.T) {
	tests := []struct {
		name    string
		ops     []string // "a" adds key a, "?a" gets it
		present []string
		absent  []string
	}{
		{name: "oldest evicted", ops: []string{"a", "b", "c", "d"}, present: []string{"b", "c", "d"}, absent: []string{"a"}},
		{name: "get refreshes", ops: []string{"a", "b", "c", "?a", "d"}, present: []string{"a", "c", "d"}, absent: []string{"b"}},
		{name: "add refreshes", ops: []string{"a", "b", "c", "a", "d"}, present: []string{"a", "c", "d"}, absent: []string{"b"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := newLRU[int](3)
			for i, op := range tt.ops {
				if op[0] == '?' {
					l.get(op[1:])
					continue
				}
				l.add(op, i)
			}
			for _, k := range tt.present {
				_, ok := l.get(k)
				assert.True(t, ok, k)
			}
			for _, k := range tt.absent {
				_, ok := l.get(k)
				assert.False(t, ok, k)
			}
			assert.Len(t, l.entries, 3)
		})
	}
}
