package boundedfile

import (
	"fmt"
	"io"
	"os"
)

// TooLargeError is Read's error for a file of more than Limit bytes.
type TooLargeError struct {
	Path  string
	Limit int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%s: the file is larger than the limit of %d bytes", e.Path, e.Limit)
}

// Read reads the file path whole when it holds at most limit bytes; it reads no more than
// limit+1 bytes of a larger one, which is a *TooLargeError.
func Read(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.IsDir() {
		return nil, fmt.Errorf("%s is a directory, not a file", path)
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, &TooLargeError{Path: path, Limit: limit}
	}
	return data, nil
}
