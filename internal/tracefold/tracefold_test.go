package tracefold

import (
	"math/rand/v2"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reconsim/reconsim/sim"
)

// TestFolderFoldsInOrder folds seeded chunks through a Folder, from a start state that is not
// the offset basis, and compares every Sum with folding the same bytes in place.
func TestFolderFoldsInOrder(t *testing.T) {
	for _, seed := range []uint64{1, 2, 3} {
		r := rand.New(rand.NewPCG(seed, 99))
		start := sim.FoldFNV(sim.FNVOffsetBasis, []byte("lines before the folder\n"))
		f := New()
		f.Start(start)
		want := start
		buf := make([]byte, 0, 64)
		buffers := map[unsafe.Pointer]bool{}
		for i := range 500 {
			n := r.IntN(cap(buf) + 1)
			for range n {
				buf = append(buf, byte(r.Uint32()))
			}
			want = sim.FoldFNV(want, buf)
			buf = f.Fold(buf)
			require.Empty(t, buf, "Fold hands back an empty buffer")
			require.Positive(t, cap(buf))
			buffers[unsafe.Pointer(unsafe.SliceData(buf[:1]))] = true
			if i%37 == 0 {
				require.Equal(t, want, f.Sum(), "seed %d, after %d chunks", seed, i+1)
			}
		}
		assert.Equal(t, want, f.Sum())
		f.Close()
		// The chunks never outgrow their buffers, so these are every buffer there was.
		assert.LessOrEqual(t, len(buffers), queuedChunks+2, "Fold reuses folded buffers")
	}
}

func TestCloseWithoutStartReturns(t *testing.T) {
	New().Close()
}

// TestTraceWithFolderHashesAsWithout emits the same lines to two kernels' traces, one folding
// through a Folder, and compares their hashes as the lines go.
func TestTraceWithFolderHashesAsWithout(t *testing.T) {
	here, there := sim.New(1), sim.New(1)
	f := New()
	defer f.Close()
	there.Trace().SetFolder(f)
	r := rand.New(rand.NewPCG(5, 6))
	for i := range 20000 {
		detail := ""
		if r.IntN(20) == 0 {
			detail = string(make([]byte, r.IntN(3*sim.TraceChunkBytes/2)))
		}
		for _, k := range []*sim.Kernel{here, there} {
			k.Trace().Emit(0, "component", "action", "object", uint64(i), detail)
		}
		if i%4999 == 0 {
			require.Equal(t, here.Trace().Hash(), there.Trace().Hash(), "after %d lines", i+1)
		}
	}
	there.Trace().SetFolder(nil)
	assert.Equal(t, here.Trace().Hash(), there.Trace().Hash())
}
