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
//
// The hash is folded a chunk of lines at a time (TraceChunkBytes), not line by line: FNV-1a is
// a chain of dependent multiplications, about 4 cycles a byte that nothing else can overlap,
// some 100 ns for a line, and a chunk can be folded elsewhere (SetFolder) while the run goes
// on. The hash is the same either way: one FNV-1a over every byte of every line, in order.
type Trace struct {
	w     io.Writer
	hash  uint64
	lines uint64
	buf   []byte
	err   error
	// pending holds the whole lines not folded into hash yet; folder, if set, folds them.
	pending []byte
	folder  HashFolder
	// timeAt is the time of the last line and timeLen the length of its formatted seconds,
	// which start buf: a line at the same instant (a write and the caller's own line after it,
	// a watch delivery's handlers) reuses them. timeLen 0: none yet.
	timeAt  vtime.Time
	timeLen int
}

// TraceChunkBytes is how many bytes of lines the trace gathers before it folds them into its
// hash: about 1,500 lines, so that waking a HashFolder's goroutine (a few µs when it waits)
// costs a few ns a line, while a chunk still fits in the cache the next level down.
const TraceChunkBytes = 128 << 10

// FNVOffsetBasis is the state an FNV-1a hash starts from.
const FNVOffsetBasis uint64 = 14695981039346656037

// FoldFNV continues the FNV-1a hash state h over b.
func FoldFNV(h uint64, b []byte) uint64 {
	for _, c := range b {
		h ^= uint64(c)
		h *= 1099511628211
	}
	return h
}

// A HashFolder folds the trace's lines into its hash off the simulation's goroutine. It sees
// only the bytes of finished lines, so it cannot change what a run does, and the hash is a
// function of those bytes alone.
type HashFolder interface {
	// Start sets the hash state to continue from: the hash of the lines before the folder.
	// SetFolder calls it once, before any Fold.
	Start(h uint64)
	// Fold takes chunk, whole lines, to fold after every chunk before it, and returns an
	// empty buffer for the next lines. chunk is the folder's until it returns it from a
	// later Fold.
	Fold(chunk []byte) []byte
	// Sum waits until every chunk given to Fold is folded, and returns the hash state after
	// them all.
	Sum() uint64
}

func (t *Trace) init() {
	t.hash = FNVOffsetBasis
	t.buf = make([]byte, 0, 256)
}

// SetFolder has f fold every line from now on, from the hash of the lines so far; nil folds
// them here again. The folder before it, if any, is done with once SetFolder returns.
func (t *Trace) SetFolder(f HashFolder) {
	t.hash = t.Hash()
	t.folder = f
	if f != nil {
		f.Start(t.hash)
	}
}

// SetWriter sends every following line to w (nil: hash only). The first write error stops
// writing and is kept for Err; hashing goes on.
func (t *Trace) SetWriter(w io.Writer) { t.w = w }

// Err returns the first error the writer returned, if any.
func (t *Trace) Err() error { return t.err }

// Hash returns the FNV-1a hash of every line emitted so far. With a HashFolder, it waits for
// the folder.
func (t *Trace) Hash() uint64 {
	t.fold()
	if t.folder != nil {
		return t.folder.Sum()
	}
	return t.hash
}

// fold folds the pending lines into the hash, or gives them to the folder.
func (t *Trace) fold() {
	if len(t.pending) == 0 {
		return
	}
	if t.folder != nil {
		t.pending = t.folder.Fold(t.pending)
		return
	}
	t.hash = FoldFNV(t.hash, t.pending)
	t.pending = t.pending[:0]
}

// Lines returns how many lines were emitted.
func (t *Trace) Lines() uint64 { return t.lines }

// Emit records one line. rv 0 is left out of the line.
func (t *Trace) Emit(now vtime.Time, component, action, object string, rv uint64, detail string) {
	b := t.start(now, component, action)
	b = append(b, object...)
	t.finish(b, rv, detail)
}

// EmitRef is Emit about the object model.Ref names: "<kind> <namespace>/<name>", or
// "<kind> <name>" without a namespace. It builds the line without building the name.
func (t *Trace) EmitRef(now vtime.Time, component, action, kind, namespace, name string, rv uint64, detail string) {
	b := t.start(now, component, action)
	b = append(b, kind...)
	b = append(b, ' ')
	if namespace != "" {
		b = append(b, namespace...)
		b = append(b, '/')
	}
	b = append(b, name...)
	t.finish(b, rv, detail)
}

// start begins a line in t's buffer: the time, the component and the action.
func (t *Trace) start(now vtime.Time, component, action string) []byte {
	var b []byte
	if t.timeLen > 0 && now == t.timeAt {
		b = t.buf[:t.timeLen]
	} else {
		b = appendSeconds(t.buf[:0], now)
		t.timeAt, t.timeLen = now, len(b)
	}
	b = append(b, ' ')
	b = append(b, component...)
	b = append(b, ' ')
	b = append(b, action...)
	return append(b, ' ')
}

// appendSeconds appends strconv.AppendFloat(b, now.Seconds(), 'f', 6, 64) without the float
// formatting, which is a good part of a line's cost. now.Seconds() is within a relative 2^-53
// of now/1e9, so for now below 1e15 ns (11 days) it is within 1.2e-10 s of a multiple of
// 1e-9 s that is at least 1e-9 s from any halfway point between two microseconds, unless now
// is itself halfway (now%1000 == 500): rounding it to microseconds is rounding now, and only
// the halfway times, and times out of that range, need the float.
func appendSeconds(b []byte, now vtime.Time) []byte {
	ns := int64(now)
	if ns < 0 || ns >= 1e15 || ns%1000 == 500 {
		return strconv.AppendFloat(b, now.Seconds(), 'f', 6, 64)
	}
	us := ns / 1000
	if ns%1000 > 500 {
		us++
	}
	b = strconv.AppendInt(b, us/1e6, 10)
	frac := us % 1e6
	b = append(b, '.',
		byte('0'+frac/100000), byte('0'+frac/10000%10), byte('0'+frac/1000%10),
		byte('0'+frac/100%10), byte('0'+frac/10%10), byte('0'+frac%10))
	return b
}

// finish ends the line b with rv and detail, keeps it for the hash and writes it.
func (t *Trace) finish(b []byte, rv uint64, detail string) {
	if rv != 0 {
		b = append(b, " rv="...)
		b = strconv.AppendUint(b, rv, 10)
	}
	if detail != "" {
		b = append(b, ' ')
		b = append(b, detail...)
	}
	b = append(b, '\n')
	t.pending = append(t.pending, b...)
	if len(t.pending) >= TraceChunkBytes {
		t.fold()
	}
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

// EmitRef is shorthand for k.Trace().EmitRef(k.Now(), ...).
func (k *Kernel) EmitRef(component, action, kind, namespace, name string, rv uint64, detail string) {
	k.trace.EmitRef(k.now, component, action, kind, namespace, name, rv, detail)
}
