package sim

import (
	"io"
	"strconv"

	"github.com/reconsim/reconsim/vtime"
)

// Trace is the line-oriented record of what happened, one line per notable step:
//
//	<virtual seconds, 6 decimals> <component> <action> <object> [rv=<n>] [<detail>]
//
// Every line feeds a running FNV-1a hash, so two runs can be compared by Hash alone; lines go
// to a writer only when one is set. The trace is what golden tests diff and what
// `sim run --trace` prints.
type Trace struct {
	w     io.Writer
	hash  uint64
	lines uint64
	buf   []byte
	err   error
}

func (t *Trace) init() {
	t.hash = 14695981039346656037
	t.buf = make([]byte, 0, 256)
}

// SetWriter sends every following line to w (nil: hash only). The first write error stops
// writing and is kept for Err; hashing goes on.
func (t *Trace) SetWriter(w io.Writer) { t.w = w }

// Err returns the first error the writer returned, if any.
func (t *Trace) Err() error { return t.err }

// Hash returns the FNV-1a hash of every line emitted so far.
func (t *Trace) Hash() uint64 { return t.hash }

// Lines returns how many lines were emitted.
func (t *Trace) Lines() uint64 { return t.lines }

// Emit records one line. rv 0 is left out of the line.
func (t *Trace) Emit(now vtime.Time, component, action, object string, rv uint64, detail string) {
	b := t.buf[:0]
	b = strconv.AppendFloat(b, now.Seconds(), 'f', 6, 64)
	b = append(b, ' ')
	b = append(b, component...)
	b = append(b, ' ')
	b = append(b, action...)
	b = append(b, ' ')
	b = append(b, object...)
	if rv != 0 {
		b = append(b, " rv="...)
		b = strconv.AppendUint(b, rv, 10)
	}
	if detail != "" {
		b = append(b, ' ')
		b = append(b, detail...)
	}
	b = append(b, '\n')
	h := t.hash
	for _, c := range b {
		h ^= uint64(c)
		h *= 1099511628211
	}
	t.hash = h
	t.lines++
	if t.w != nil && t.err == nil {
		_, t.err = t.w.Write(b)
	}
	t.buf = b
}

// Emit is shorthand for k.Trace().Emit(k.Now(), ...).
func (k *Kernel) Emit(component, action, object string, rv uint64, detail string) {
	k.trace.Emit(k.now, component, action, object, rv, detail)
}
