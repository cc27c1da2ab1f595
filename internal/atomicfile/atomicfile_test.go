package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestWrite(t *testing.T) {
	errFill := errors.New("fill failed")
	for _, tc := range []struct {
		name    string
		durable bool
		fill    func(w io.Writer) error
		wantErr error
		wrapped bool   // the error names the file: writing it failed
		want    string // the file's content afterwards
	}{
		{name: "durable", durable: true, fill: writeString("new"), want: "new"},
		{name: "not durable", fill: writeString("new"), want: "new"},
		{name: "empty", fill: writeString(""), want: ""},
		{name: "fill fails: the earlier file stays", fill: func(w io.Writer) error {
			_, _ = io.WriteString(w, "half")
			return errFill
		}, wantErr: errFill, want: "old"},
		{name: "writing fails: the error names the file", fill: func(w io.Writer) error {
			_ = w.(*File).f.Close() // the next write that passes the buffer fails
			_, err := w.Write(make([]byte, 2*bufferSize))
			return err
		}, wantErr: os.ErrClosed, wrapped: true, want: "old"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "out")
			require.NoError(t, WriteBytes(dir, "f.txt", true, []byte("old")))
			err := Write(dir, "f.txt", tc.durable, tc.fill)
			if tc.wantErr != nil {
				require.ErrorIs(t, err, tc.wantErr)
				if tc.wrapped {
					assert.Contains(t, err.Error(), "writing f.txt")
				} else {
					assert.Equal(t, tc.wantErr, err, "fill's own error is returned as it is")
				}
			} else {
				require.NoError(t, err)
			}
			got, err := os.ReadFile(filepath.Join(dir, "f.txt"))
			require.NoError(t, err)
			assert.Equal(t, tc.want, string(got))
			fi, err := os.Stat(filepath.Join(dir, "f.txt"))
			require.NoError(t, err)
			assert.Equal(t, os.FileMode(0o644), fi.Mode().Perm())
			entries, err := os.ReadDir(dir)
			require.NoError(t, err)
			assert.Len(t, entries, 1, "a temporary file was left behind")
		})
	}
}

func TestDiscardAfterCommitKeepsTheFile(t *testing.T) {
	dir := t.TempDir()
	f, err := Create(dir, "trace.txt")
	require.NoError(t, err)
	_, err = f.Write([]byte("line\n"))
	require.NoError(t, err)
	require.NoError(t, f.Commit(false))
	f.Discard()
	got, err := os.ReadFile(filepath.Join(dir, "trace.txt"))
	require.NoError(t, err)
	assert.Equal(t, "line\n", string(got))
}

func TestDiscardWithoutCommitLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	f, err := Create(dir, "trace.txt")
	require.NoError(t, err)
	_, err = f.Write([]byte("line\n"))
	require.NoError(t, err)
	f.Discard()
	f.Discard()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Empty(t, entries)
}

func TestCreateReportsADirectoryItCannotMake(t *testing.T) {
	file := filepath.Join(t.TempDir(), "afile")
	require.NoError(t, os.WriteFile(file, nil, 0o644))
	_, err := Create(filepath.Join(file, "sub"), "x")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "creating "+filepath.Join(file, "sub"))
}

func writeString(s string) func(w io.Writer) error {
	return func(w io.Writer) error {
		_, err := io.WriteString(w, s)
		return err
	}
}
