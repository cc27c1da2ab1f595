package client

import (
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim"
)

const cacheLineBytes = 64

// field is a struct field's place: its offset and size in bytes.
type field struct {
	name         string
	offset, size uintptr
}

// TestClientHotFieldsShareThreeCacheLines holds the Client's layout to what its comment
// promises: what every request touches lies in the first three cache lines, the client's own
// request starts a line and the fields a request fills (Client to Object) take two lines,
// and New's clients start a line, so that the offsets are the lines.
func TestClientHotFieldsShareThreeCacheLines(t *testing.T) {
	var c Client
	hot := []field{
		{"caller", unsafe.Offsetof(c.caller), unsafe.Sizeof(c.caller)},
		{"name", unsafe.Offsetof(c.name), unsafe.Sizeof(c.name)},
		{"srv", unsafe.Offsetof(c.srv), unsafe.Sizeof(c.srv)},
		{"ownBusy", unsafe.Offsetof(c.ownBusy), unsafe.Sizeof(c.ownBusy)},
		{"hasBucket", unsafe.Offsetof(c.hasBucket), unsafe.Sizeof(c.hasBucket)},
		{"ownBucket.limiter", unsafe.Offsetof(c.ownBucket) + unsafe.Offsetof(c.ownBucket.limiter), unsafe.Sizeof(c.ownBucket.limiter)},
		{"ownBucket.limited", unsafe.Offsetof(c.ownBucket) + unsafe.Offsetof(c.ownBucket.limited), unsafe.Sizeof(c.ownBucket.limited)},
		{"ownBucket.stats.Waits", unsafe.Offsetof(c.ownBucket) + unsafe.Offsetof(c.ownBucket.stats) + unsafe.Offsetof(c.ownBucket.stats.Waits), unsafe.Sizeof(c.ownBucket.stats.Waits)},
		{"requests", unsafe.Offsetof(c.requests), unsafe.Sizeof(c.requests)},
	}
	for _, f := range hot {
		assert.LessOrEqual(t, f.offset+f.size, uintptr(3*cacheLineBytes), "%s ends at %d", f.name, f.offset+f.size)
	}
	own := unsafe.Offsetof(c.own)
	assert.Zero(t, own%cacheLineBytes, "own starts at %d", own)
	filled := unsafe.Offsetof(c.own.Object) + unsafe.Sizeof(c.own.Object)
	assert.LessOrEqual(t, filled, uintptr(2*cacheLineBytes), "a request's filled fields end at %d", filled)

	srv := newServer(sim.New(1), nil)
	for i := 0; i < 16; i++ {
		p := uintptr(unsafe.Pointer(New(srv, "c", Config{})))
		assert.Zero(t, p%cacheLineBytes, "client %d at %#x", i, p)
	}
}

// TestInformerWatchEventFieldsShareALine holds the Informer's and its store's layouts to what
// their comments promise: what a watch event reads or writes of the informer (OnWatchEvent,
// applyAt, the notify loops) lies in its first cache line and what it reads of the store
// (lookup, putAt, GetByKeyRef) in the store's, and both start a line.
func TestInformerWatchEventFieldsShareALine(t *testing.T) {
	var inf Informer
	hot := []field{
		{"store", unsafe.Offsetof(inf.store), unsafe.Sizeof(inf.store)},
		{"handlers", unsafe.Offsetof(inf.handlers), unsafe.Sizeof(inf.handlers)},
		{"watchGen", unsafe.Offsetof(inf.watchGen), unsafe.Sizeof(inf.watchGen)},
		{"lastRV", unsafe.Offsetof(inf.lastRV), unsafe.Sizeof(inf.lastRV)},
		{"watchEventsTotal", unsafe.Offsetof(inf.watchEventsTotal), unsafe.Sizeof(inf.watchEventsTotal)},
		{"running", unsafe.Offsetof(inf.running), unsafe.Sizeof(inf.running)},
		{"watchEnded", unsafe.Offsetof(inf.watchEnded), unsafe.Sizeof(inf.watchEnded)},
	}
	for _, f := range hot {
		assert.LessOrEqual(t, f.offset+f.size, uintptr(cacheLineBytes), "Informer.%s ends at %d", f.name, f.offset+f.size)
	}
	var s store
	for _, f := range []field{
		{"items", unsafe.Offsetof(s.items), unsafe.Sizeof(s.items)},
		{"keyBuf", unsafe.Offsetof(s.keyBuf), unsafe.Sizeof(s.keyBuf)},
		{"nbuilt", unsafe.Offsetof(s.nbuilt), unsafe.Sizeof(s.nbuilt)},
		{"removals", unsafe.Offsetof(s.removals), unsafe.Sizeof(s.removals)},
	} {
		assert.LessOrEqual(t, f.offset+f.size, uintptr(cacheLineBytes), "store.%s ends at %d", f.name, f.offset+f.size)
	}

	srv := newServer(sim.New(1), nil)
	c := New(srv, "c", Config{})
	for i := 0; i < 16; i++ {
		inf := NewInformer(c, model.KindPod, model.ListOptions{}, 0)
		assert.Zero(t, uintptr(unsafe.Pointer(inf))%cacheLineBytes, "informer %d at %p (%d bytes)", i, inf, unsafe.Sizeof(*inf))
		assert.Zero(t, uintptr(unsafe.Pointer(inf.store))%cacheLineBytes, "store %d at %p (%d bytes)", i, inf.store, unsafe.Sizeof(*inf.store))
	}
}
