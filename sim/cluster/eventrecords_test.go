package cluster

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/reconsim/reconsim/report"
)

func TestEventRecordsKeepOrderAcrossBlocks(t *testing.T) {
	for _, n := range []int{0, 1, minEventBlock, minEventBlock + 1, 3*maxEventBlock + 7} {
		var r eventRecords
		for i := range n {
			r.add(report.EventRecord{Count: int32(i)})
		}
		got := r.slice()
		require.Len(t, got, n)
		require.Equal(t, n, cap(got), "slice is exactly as long as the records")
		i := 0
		for ev := range r.all() {
			require.Equal(t, int32(i), ev.Count)
			require.Equal(t, int32(i), got[i].Count)
			i++
		}
		require.Equal(t, n, i)
		for _, b := range r.blocks {
			require.LessOrEqual(t, cap(b), maxEventBlock)
		}
	}
}
