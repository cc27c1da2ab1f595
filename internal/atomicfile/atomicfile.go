package atomicfile

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// bufferSize is the write buffer of a File: large enough that a streamed trace costs few
// system calls, small enough for the thousands of small files a sweep writes.
const bufferSize = 1 << 16

// File is a buffered file written under a temporary name in its directory and renamed to its
// final name by Commit; Discard removes it if Commit never happened.
type File struct {
	f         *os.File
	w         *bufio.Writer
	name      string
	final     string
	committed bool
	werr      error // the first error writing the file, if any
}

// Create starts dir/name, creating dir when it is missing.
func Create(dir, name string) (*File, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("creating %s: %w", dir, err)
	}
	f, err := os.CreateTemp(dir, "."+name+".*.tmp")
	if err != nil {
		return nil, fmt.Errorf("writing %s: %w", name, err)
	}
	return &File{f: f, w: bufio.NewWriterSize(f, bufferSize), name: name, final: filepath.Join(dir, name)}, nil
}

// Write writes p to the temporary file (buffered).
func (a *File) Write(p []byte) (int, error) {
	n, err := a.w.Write(p)
	if err != nil && a.werr == nil {
		a.werr = err
	}
	return n, err
}

// Commit flushes the file and renames it to its final name. With durable the data is synced
// to disk before the rename, so that not even a crash of the machine can leave the final name
// on a file whose data was never written; leave it out only for files that are cheap to redo
// (a sweep's thousands of per-run files, where the syncs cost seconds). After a failed Commit
// the file is discarded.
func (a *File) Commit(durable bool) error {
	if err := a.commit(durable); err != nil {
		a.Discard()
		return fmt.Errorf("writing %s: %w", a.name, err)
	}
	return nil
}

func (a *File) commit(durable bool) error {
	if err := a.w.Flush(); err != nil {
		return err
	}
	if durable {
		if err := a.f.Sync(); err != nil {
			return err
		}
	}
	if err := a.f.Close(); err != nil {
		return err
	}
	// CreateTemp makes the file 0600; every output is 0644.
	if err := os.Chmod(a.f.Name(), 0o644); err != nil {
		return err
	}
	if err := os.Rename(a.f.Name(), a.final); err != nil {
		return err
	}
	a.committed = true
	return nil
}

// Discard removes the temporary file unless Commit succeeded; it may be called more than once.
func (a *File) Discard() {
	if !a.committed {
		_ = a.f.Close()
		_ = os.Remove(a.f.Name())
	}
}

// Write writes dir/name with fill, atomically (see File); durable as in Commit. When fill
// fails the file is discarded, and its error is returned as "writing NAME: …" if writing the
// file failed, but as it is if the file took every write (an error of fill's own, such as an
// encoder refusing a value: it says itself what was wrong).
func Write(dir, name string, durable bool, fill func(w io.Writer) error) error {
	f, err := Create(dir, name)
	if err != nil {
		return err
	}
	if err := fill(f); err != nil {
		f.Discard()
		if f.werr == nil {
			return err
		}
		return fmt.Errorf("writing %s: %w", name, err)
	}
	return f.Commit(durable)
}

// WriteBytes writes data to dir/name, atomically (see File); durable as in Commit.
func WriteBytes(dir, name string, durable bool, data []byte) error {
	return Write(dir, name, durable, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}
