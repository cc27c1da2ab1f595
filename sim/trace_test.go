package sim

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reconsim/reconsim/vtime"
)

// emitRandomLines emits n lines with seeded lengths: most short, some longer than a chunk.
func emitRandomLines(tr *Trace, r *rand.Rand, n int, at *vtime.Time) {
	for range n {
		*at += vtime.Time(r.IntN(3)) * vtime.Time(1000)
		detail := ""
		switch r.IntN(50) {
		case 0:
			detail = strings.Repeat("x", TraceChunkBytes+r.IntN(100))
		case 1, 2, 3:
			detail = strings.Repeat("y", r.IntN(2000))
		}
		tr.Emit(*at, "c", "a", "obj", uint64(r.IntN(5)), detail)
	}
}

// chunkRecorder is a HashFolder that folds on the caller's goroutine and keeps what it saw.
type chunkRecorder struct {
	h       uint64
	started int
	chunks  [][]byte
}

func (f *chunkRecorder) Start(h uint64) { f.h = h; f.started++ }
func (f *chunkRecorder) Fold(chunk []byte) []byte {
	f.chunks = append(f.chunks, bytes.Clone(chunk))
	f.h = FoldFNV(f.h, chunk)
	return make([]byte, 0, cap(chunk))
}
func (f *chunkRecorder) Sum() uint64 { return f.h }

func TestTraceHashIsFNVOfEveryLineInOrder(t *testing.T) {
	cases := []struct {
		name string
		// folderAt and detachAt are the line counts at which a folder is set and removed
		// (-1: never).
		folderAt, detachAt int
	}{
		{"folded here", -1, -1},
		{"folder from the start", 0, -1},
		{"folder from the middle", 700, -1},
		{"folder for a while", 300, 1500},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			k := New(1)
			var written bytes.Buffer
			tr := k.Trace()
			tr.SetWriter(&written)
			r := rand.New(rand.NewPCG(7, 8))
			var at vtime.Time
			f := &chunkRecorder{}
			for done := 0; done < 2000; done += 100 {
				if done == c.folderAt {
					tr.SetFolder(f)
				}
				if done == c.detachAt {
					tr.SetFolder(nil)
				}
				emitRandomLines(tr, r, 100, &at)
				require.Equal(t, FoldFNV(FNVOffsetBasis, written.Bytes()), tr.Hash(), "after %d lines", done+100)
			}
			assert.EqualValues(t, 2000, tr.Lines())
			if c.folderAt < 0 {
				assert.Zero(t, f.started)
				return
			}
			assert.Equal(t, 1, f.started)
			require.NotEmpty(t, f.chunks)
			for _, chunk := range f.chunks {
				assert.True(t, bytes.HasSuffix(chunk, []byte("\n")), "a chunk is whole lines")
			}
		})
	}
}
