package tracefold

import "github.com/reconsim/reconsim/sim"

// queuedChunks is how many chunks may wait to be folded before Fold waits for the goroutine.
const queuedChunks = 4

// Folder is a sim.HashFolder whose folding runs on its own goroutine. Use it from one
// goroutine: Start, then Fold and Sum, then Close.
type Folder struct {
	// chunks are the chunks to fold, in order; a nil chunk asks for the hash on sums.
	chunks chan []byte
	// free are chunks folded and emptied, for Fold to hand back. Fold makes a buffer only
	// when none is free, that is when every buffer is queued or being folded: at most
	// queuedChunks+2 ever exist, and the goroutine never waits to put one here.
	free    chan []byte
	sums    chan uint64
	done    chan struct{}
	started bool
}

// New returns a Folder that has not started.
func New() *Folder {
	return &Folder{
		chunks: make(chan []byte, queuedChunks),
		free:   make(chan []byte, queuedChunks+4),
		sums:   make(chan uint64),
		done:   make(chan struct{}),
	}
}

// Start starts the goroutine, folding from h.
func (f *Folder) Start(h uint64) {
	if f.started {
		panic("tracefold: Start called twice")
	}
	f.started = true
	go f.run(h)
}

func (f *Folder) run(h uint64) {
	defer close(f.done)
	for c := range f.chunks {
		if c == nil {
			f.sums <- h
			continue
		}
		h = sim.FoldFNV(h, c)
		f.free <- c[:0]
	}
}

// Fold queues chunk and returns an empty buffer: a folded chunk, or a new one of chunk's
// capacity.
func (f *Folder) Fold(chunk []byte) []byte {
	f.chunks <- chunk
	select {
	case b := <-f.free:
		return b
	default:
		return make([]byte, 0, cap(chunk))
	}
}

// Sum waits for every chunk queued so far to be folded and returns the hash state.
func (f *Folder) Sum() uint64 {
	f.chunks <- nil
	return <-f.sums
}

// Close ends the goroutine after it folded everything queued. The Folder is not used again.
func (f *Folder) Close() {
	if !f.started {
		return
	}
	close(f.chunks)
	<-f.done
}
