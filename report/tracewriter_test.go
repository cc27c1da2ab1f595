package report

import (
	"bytes"
	"errors"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// writeInPieces writes data to w in pieces of random sizes, from a byte to several chunks,
// as a run's trace writes lines and a chunk boundary falls anywhere in a line.
func writeInPieces(t testing.TB, w *TraceWriter, data []byte, rng *rand.Rand) {
	for len(data) > 0 {
		n := 1 + rng.IntN(min(len(data), 3*traceChunkBytes))
		if rng.IntN(4) > 0 {
			n = min(n, 1+rng.IntN(200)) // mostly line-sized writes
		}
		k, err := w.Write(data[:n])
		require.NoError(t, err)
		require.Equal(t, n, k)
		data = data[n:]
	}
}

// dirFiles reads every file under dir, by path relative to dir.
func dirFiles(t testing.TB, dir string) map[string][]byte {
	files := map[string][]byte{}
	require.NoError(t, filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		files[rel] = data
		return err
	}))
	return files
}

// requireSameFiles fails unless dirs a and b hold the same files with the same bytes.
func requireSameFiles(t testing.TB, a, b string) {
	fa, fb := dirFiles(t, a), dirFiles(t, b)
	names := func(m map[string][]byte) []string {
		var out []string
		for n := range m {
			out = append(out, n)
		}
		sort.Strings(out)
		return out
	}
	require.Equal(t, names(fa), names(fb), "the same files")
	for n, data := range fa {
		assert.True(t, bytes.Equal(data, fb[n]), "%s differs", n)
	}
}

// streamAndRender writes content through a TraceWriter into dir, commits it and renders res
// with it, as sim run does; it returns RenderStreamed's error.
func streamAndRender(t testing.TB, dir string, content []byte, res *Result, rng *rand.Rand) error {
	w, err := NewTraceWriter(dir)
	require.NoError(t, err)
	defer w.Discard()
	writeInPieces(t, w, content, rng)
	require.NoError(t, w.Commit())
	return RenderStreamed(dir, res, w)
}

// TestTraceWriterIsRender: the files a TraceWriter and RenderStreamed leave are the files
// Render leaves for the same trace.txt, byte for byte, for traces in time order (streamed
// as the run goes) and not (read again and sorted), a trace cut at maxTraceLines (the rest
// still reaches trace.txt), garbage and CRLF endings, a trace without a line that parses,
// an empty one, and one of many chunks.
func TestTraceWriterIsRender(t *testing.T) {
	sorted := nodeFailureTrace()
	shuffled := append([]string(nil), sorted...)
	rand.New(rand.NewPCG(1, 2)).Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
	big := filepath.Join(t.TempDir(), "big.txt")
	writeSyntheticTrace(t, big, 60_000) // 5 MiB: about twenty chunks
	bigTrace, err := os.ReadFile(big)
	require.NoError(t, err)
	for _, tc := range []struct {
		name     string
		content  string
		maxLines int
	}{
		{name: "in time order", content: strings.Join(sorted, "\n") + "\n"},
		{name: "out of order", content: strings.Join(shuffled, "\n")},
		{name: "cut", content: strings.Join(sorted, "\n") + "\n", maxLines: 5},
		{name: "CRLF and garbage", content: "garbage\r\n\r\n" + strings.Join(sorted, "\r\n") + "\r\nsummary: done\r\n"},
		{name: "nothing parses", content: "x\ny z\n"},
		{name: "one empty line", content: "\n"},
		{name: "empty", content: ""},
		{name: "many chunks", content: string(bigTrace)},
		{name: "many chunks, cut", content: string(bigTrace), maxLines: 25_000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.maxLines > 0 {
				old := maxTraceLines
				maxTraceLines = tc.maxLines
				defer func() { maxTraceLines = old }()
			}
			res := plotFixture()
			res.Series = res.Series[:1] // fewer plots to draw: the trace is what is tested
			want, got := t.TempDir(), t.TempDir()
			for _, dir := range []string{want, got} {
				// A trace.json of an earlier run, which a run without a trace must remove.
				require.NoError(t, os.WriteFile(filepath.Join(dir, TraceEventFile), []byte("stale"), 0o644))
			}
			require.NoError(t, os.WriteFile(filepath.Join(want, TraceFile), []byte(tc.content), 0o644))
			require.NoError(t, Render(want, res))
			require.NoError(t, streamAndRender(t, got, []byte(tc.content), res, rand.New(rand.NewPCG(3, 4))))
			requireSameFiles(t, want, got)
		})
	}
}

// TestTraceWriterReportsWhatRenderReports: a line longer than a trace line may be (1 MiB) is
// an error reading the trace, as Render reports it, and trace.txt still takes every byte.
func TestTraceWriterReportsWhatRenderReports(t *testing.T) {
	content := "1.000000 a b c\n" + strings.Repeat("x", 1<<20+10) + "\n2.000000 a b c\n"
	res := plotFixture()
	res.Series = res.Series[:1]
	want, got := t.TempDir(), t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(want, TraceFile), []byte(content), 0o644))
	wantErr := Render(want, res)
	require.Error(t, wantErr)
	gotErr := streamAndRender(t, got, []byte(content), res, rand.New(rand.NewPCG(5, 6)))
	require.Error(t, gotErr)
	assert.Equal(t, strings.ReplaceAll(wantErr.Error(), want, "DIR"), strings.ReplaceAll(gotErr.Error(), got, "DIR"))
	requireSameFiles(t, want, got)
}

// TestTraceWriterDiscardLeavesNothing: a trace discarded before or after its commit leaves
// no temporary file and no goroutine, and Discard may be called again.
func TestTraceWriterDiscardLeavesNothing(t *testing.T) {
	before := runtime.NumGoroutine()
	for _, commit := range []bool{false, true} {
		dir := t.TempDir()
		w, err := NewTraceWriter(dir)
		require.NoError(t, err)
		writeInPieces(t, w, []byte(strings.Join(nodeFailureTrace(), "\n")+"\n"), rand.New(rand.NewPCG(7, 8)))
		if commit {
			require.NoError(t, w.Commit())
		}
		w.Discard()
		w.Discard()
		var names []string
		for n := range dirFiles(t, dir) {
			names = append(names, n)
		}
		if commit {
			assert.Equal(t, []string{TraceFile}, names, "trace.txt committed, trace.json never rendered")
		} else {
			assert.Empty(t, names)
		}
		_, err = w.Write([]byte("x"))
		assert.Error(t, err, "a write after the end")
	}
	// A goroutine ends just after it delivers its outcome, which Discard waits for.
	for deadline := time.Now().Add(10 * time.Second); runtime.NumGoroutine() > before && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
	assert.LessOrEqual(t, runtime.NumGoroutine(), before, "every TraceWriter's goroutine ended")
}

// TestTraceWriterHoldsChunksNotTheTrace: while a 27 MiB trace goes through a TraceWriter and
// after its commit, the live heap grows by its chunks and the encoder's buffers, not with the
// trace (issue 17: writing may not raise the run's peak memory).
func TestTraceWriterHoldsChunksNotTheTrace(t *testing.T) {
	src := filepath.Join(t.TempDir(), "src.txt")
	size := writeSyntheticTrace(t, src, 320_000)
	content, err := os.ReadFile(src)
	require.NoError(t, err)
	dir := t.TempDir()
	base := liveHeap()
	w, err := NewTraceWriter(dir)
	require.NoError(t, err)
	defer w.Discard()
	maxLive := uint64(0)
	for i := 0; i < len(content); i += 1 << 20 {
		_, err := w.Write(content[i:min(i+1<<20, len(content))])
		require.NoError(t, err)
		maxLive = max(maxLive, liveHeap())
	}
	require.NoError(t, w.Commit())
	maxLive = max(maxLive, liveHeap())
	// The chunks, and room for the encoder and the reader's buffers: 2.6-3.3 MiB of growth
	// were measured in all, up to 5.9 MiB in a run beside other tests.
	const allowed = traceChunks*traceChunkBytes + 6<<20
	grown := int64(maxLive) - int64(base)
	t.Logf("trace %d MiB; live heap grew by at most %d KiB", size>>20, grown>>10)
	assert.Greater(t, size, uint64(3*allowed), "the trace must dwarf the allowance for the test to mean anything")
	assert.Less(t, grown, int64(allowed), "a TraceWriter holds memory that grows with the trace")
}

// TestTraceWriterWithoutTraceJSONStillWritesTheTrace: when trace.json cannot be started, the
// run is never held up waiting for its encoder (more chunks than a TraceWriter has go
// through) and trace.txt gets every byte; the page is rendered from the trace as Render
// renders it when trace.json's temporary file cannot be made (no trace.json, no error).
func TestTraceWriterWithoutTraceJSONStillWritesTheTrace(t *testing.T) {
	old := streamTrace
	streamTrace = func(dir string, scan traceScanner, series func() ([]Series, error)) (traceDigest, error, error) {
		return traceDigest{}, nil, errors.New("report: writing trace.json: no room")
	}
	defer func() { streamTrace = old }()
	src := filepath.Join(t.TempDir(), "src.txt")
	writeSyntheticTrace(t, src, 60_000)
	content, err := os.ReadFile(src)
	require.NoError(t, err)
	require.Greater(t, len(content), 2*traceChunks*traceChunkBytes)
	dir := t.TempDir()
	res := plotFixture()
	res.Series = res.Series[:1]
	require.NoError(t, streamAndRender(t, dir, content, res, rand.New(rand.NewPCG(9, 10))))
	got, err := os.ReadFile(filepath.Join(dir, TraceFile))
	require.NoError(t, err)
	assert.True(t, bytes.Equal(content, got), "trace.txt has every byte")
	_, err = os.Stat(filepath.Join(dir, TraceEventFile))
	assert.ErrorIs(t, err, fs.ErrNotExist)
}
