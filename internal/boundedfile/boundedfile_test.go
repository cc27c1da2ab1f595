package boundedfile

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRead(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f.txt")
	require.NoError(t, os.WriteFile(file, []byte("12345"), 0o644))
	for _, tc := range []struct {
		name    string
		path    string
		limit   int64
		want    string
		wantErr string // "" for none
	}{
		{name: "under the limit", path: file, limit: 6, want: "12345"},
		{name: "at the limit", path: file, limit: 5, want: "12345"},
		{name: "over the limit", path: file, limit: 4, wantErr: file + ": the file is larger than the limit of 4 bytes"},
		{name: "empty limit", path: file, limit: 0, wantErr: "larger than the limit of 0 bytes"},
		{name: "a directory", path: dir, limit: 10, wantErr: dir + " is a directory, not a file"},
		{name: "missing", path: filepath.Join(dir, "none"), limit: 10, wantErr: "no such file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Read(tc.path, tc.limit)
			if tc.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.wantErr)
				assert.Nil(t, got)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, string(got))
		})
	}
}

func TestReadErrorsCanBeTold(t *testing.T) {
	file := filepath.Join(t.TempDir(), "f.txt")
	require.NoError(t, os.WriteFile(file, []byte("12345"), 0o644))
	_, err := Read(file, 2)
	var tooLarge *TooLargeError
	require.ErrorAs(t, err, &tooLarge)
	assert.Equal(t, TooLargeError{Path: file, Limit: 2}, *tooLarge)

	_, err = Read(file+".missing", 2)
	assert.ErrorIs(t, err, fs.ErrNotExist, "the operating system's error, unwrapped")
}
